// What the quota page reads from the forge admin API, put in the engine's shapes: the groups with
// their rules, each owner's recorded usage and group list (and where the list comes from). The
// decisions themselves are the pure engine's (src/domain/quota/evaluate.ts), as `gov quota eval`.
import type { GovClient } from '../../api.ts';
import { evaluateOwner, type GroupListSource, type QuotaDecision, type QuotaGroup, type QuotaRule } from '../../../domain/quota/evaluate.ts';
import { isSubject, SEED_SUBJECTS, type Primitives } from '../../../domain/quota/subjects.ts';
import { primitivesFromUsed, type QuotaUsed } from '../../../domain/quota/usage.ts';
import { failureOf, type Failure } from '../../ui.tsx';

export type Owner = {
  login: string;
  kind: 'user' | 'org';
  full_name?: string;
  usage: Primitives;
  /** The groups the API lists for the owner: assigned ones, else the existing default groups; [] for the built-in group. */
  groups: QuotaGroup[];
  source: GroupListSource;
};

export type QuotaModel =
  | { enabled: false; message: string; owners: { login: string; kind: 'user' | 'org'; full_name?: string }[] }
  | { enabled: true; groups: QuotaGroup[]; rules: QuotaRule[]; members: Map<string, string[]>; owners: Owner[] };

type ApiRule = { name?: string; limit: number; subjects?: string[] };
type ApiGroup = { name?: string; rules: ApiRule[] };

const toRule = (r: ApiRule): QuotaRule => ({ name: r.name ?? '', limit: r.limit, subjects: (r.subjects ?? []).filter(isSubject) });
const toGroup = (g: ApiGroup): QuotaGroup => ({ name: g.name ?? '', rules: g.rules.map(toRule) });

export async function loadQuota(client: GovClient): Promise<QuotaModel | Failure> {
  const [groupsRes, rulesRes, dataRes] = await Promise.all([client.call('GET /admin/quota/groups'), client.call('GET /admin/quota/rules'), client.call('GET /admin/forge/data')]);
  if (dataRes.status !== 200) return failureOf(dataRes);
  const data = dataRes.body;
  const listed = [...(data.users ?? []).map((u) => ({ login: u.login, kind: 'user' as const, full_name: u.full_name })), ...(data.orgs ?? []).map((o) => ({ login: o.login, kind: 'org' as const }))];
  // The forge data answers while quota is off; the quota routes then answer 404 (docs/quota.md §5).
  if (groupsRes.status === 404) {
    const message = typeof (groupsRes.body as { message?: unknown })?.message === 'string' ? (groupsRes.body as { message: string }).message : 'The quota routes answer 404.';
    return { enabled: false, message, owners: listed };
  }
  if (groupsRes.status !== 200) return failureOf(groupsRes);
  if (rulesRes.status !== 200) return failureOf(rulesRes);
  const groups = groupsRes.body.map(toGroup);
  const memberLists = await Promise.all(
    groups.map(async (g) => {
      const res = await client.call('GET /admin/quota/groups/{quotagroup}/users', { params: { quotagroup: g.name } });
      return res.status === 200 ? res.body.map((u) => u.login.toLowerCase()) : [];
    }),
  );
  const members = new Map(groups.map((g, i) => [g.name, memberLists[i] ?? []]));
  const infos = await Promise.all(listed.map((o) => client.call('GET /admin/users/{username}/quota', { params: { username: o.login } })));
  const owners: Owner[] = [];
  for (const [i, o] of listed.entries()) {
    const res = infos[i]!;
    if (res.status !== 200) return failureOf(res);
    const assigned = groups.some((g) => members.get(g.name)?.includes(o.login.toLowerCase()));
    const listedGroups = res.body.groups.map(toGroup);
    owners.push({
      ...o,
      usage: primitivesFromUsed(res.body.used as QuotaUsed),
      groups: listedGroups,
      source: assigned ? 'assigned' : listedGroups.length > 0 ? 'default_groups' : 'builtin_default',
    });
  }
  return { enabled: true, groups, rules: rulesRes.body.map(toRule), members, owners };
}

/** Forgejo's built-in group (never listed by the API) with the configured default total. */
export function builtinGroup(defaultTotal: number): QuotaGroup {
  return { name: 'builtin-default-group', rules: [{ name: 'builtin-default-rule', limit: defaultTotal, subjects: ['size:all'] }] };
}

export function groupListOf(owner: Owner, defaultTotal: number): QuotaGroup[] {
  return owner.source === 'builtin_default' ? [builtinGroup(defaultTotal)] : owner.groups;
}

export function evaluate(owner: Owner, usage: Primitives, defaultTotal: number): { overall: QuotaDecision; subjects: QuotaDecision[] } {
  return evaluateOwner(groupListOf(owner, defaultTotal), usage, SEED_SUBJECTS);
}

export const SOURCE_LABEL: Record<GroupListSource, string> = { assigned: 'assigned', default_groups: 'default groups', builtin_default: 'built-in default' };

/** The standing as `gov quota eval` prints it. */
export function standingText(d: QuotaDecision): string {
  return d.within ? 'within' : d.reason === 'over_quota' ? 'OVER' : 'NOT WITHIN';
}

export const NOTE: Record<QuotaDecision['reason'], string> = {
  quota_disabled: 'quota disabled',
  wiki_untracked: 'wiki is not tracked',
  group_stands: '',
  over_quota: '',
  no_relevant_rule: 'no rule covers this subject',
  no_groups: 'no groups',
};

/** IEC units with one decimal (1536 → "1.5 KiB"); whole bytes below 1 KiB (as `gov quota eval`). */
export function humanBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];
  let value = bytes;
  let i = 0;
  while (Math.abs(value) >= 1024 && i < units.length - 1) {
    value /= 1024;
    i++;
  }
  return i === 0 ? `${bytes} B` : `${value.toFixed(1)} ${units[i]}`;
}

export function limitText(limit: number): string {
  return limit === -1 ? 'unlimited' : limit < 0 ? `${limit} (never stands)` : humanBytes(limit);
}

const UNIT: Record<string, number> = { '': 1, b: 1, k: 1e3, kb: 1e3, m: 1e6, mb: 1e6, g: 1e9, gb: 1e9, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3, tib: 1024 ** 4 };

/** A byte count as typed: an integer, or a number with k/M/G (decimal) or KiB/MiB/GiB/TiB; null when it is neither. */
export function parseBytes(text: string): number | null {
  const m = /^(-?\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(text.trim());
  if (!m) return null;
  const unit = UNIT[m[2]!.toLowerCase()];
  if (unit === undefined) return null;
  const value = Math.round(Number(m[1]) * unit);
  return Number.isSafeInteger(value) ? value : null;
}

/** The seven counters with the names Forgejo's `used` gives them. */
export const COUNTERS: readonly { key: keyof Primitives; label: string }[] = [
  { key: 'reposPublic', label: 'Public repositories' },
  { key: 'reposPrivate', label: 'Private repositories' },
  { key: 'gitLfs', label: 'Git LFS' },
  { key: 'attachmentsIssues', label: 'Issue attachments' },
  { key: 'attachmentsReleases', label: 'Release attachments' },
  { key: 'artifacts', label: 'Artifacts' },
  { key: 'packagesAll', label: 'Packages' },
];
