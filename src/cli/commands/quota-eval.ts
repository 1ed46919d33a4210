// `gov quota eval`: a dry run of the forge quota engine over POLICY.json and USAGE.json (docs/quota.md
// §6), each checked by its schema in schemas/cli. Computes a result (pure apart from the injected
// readFile), renders it, picks the exit.
import { loadSchemas } from '../../deps.ts';
import { AppError, isAppError } from '../../errors.ts';
import { parseAppIni } from '../../domain/quota/app-ini.ts';
import { evaluateOwner, groupListResolver, type GroupListSource, type QuotaDecision } from '../../domain/quota/evaluate.ts';
import { isSubject, SEED_SUBJECTS, zeroPrimitives, type Subject } from '../../domain/quota/subjects.ts';
import type { UsageOwner } from '../../domain/quota/usage-file.ts';
import { usedFromPrimitives, type QuotaUsed } from '../../domain/quota/usage.ts';
import type { SchemaRegistry } from '../../schema-registry.ts';
import { parsePolicyFile, parseUsageFile } from '../../service/quota/quota-files.ts';

export type QuotaEvalOptions = {
  groups: string;
  usage: string;
  user?: string;
  subject?: string;
  defaultGroups?: string[];
  appIni?: string;
};

export type QuotaEvalOwner = {
  owner: string;
  kind: UsageOwner['kind'];
  /** False for a user named only in assignments or by --user: evaluated with zero usage. */
  in_usage: boolean;
  group_source: GroupListSource;
  group_list: string[];
  used: QuotaUsed;
  overall: EvalDecision;
  /** The 13 subjects of docs/quota.md §1, or only the one asked with --subject. */
  subjects: EvalDecision[];
  /** Overall and every subject evaluated (the thirteen, or the one --subject asks) hold. */
  within: boolean;
};

/**
 * A decision as reported: whether it holds, why, and the deciding group, rule, sum and limit. The
 * per-group detail (every rule's sum) is kept only when one owner is evaluated (--user): for a whole
 * forge it would multiply the output by the number of rules.
 */
export type EvalDecision = Omit<QuotaDecision, 'groups'> & { groups?: QuotaDecision['groups'] };

export type QuotaEvalResult = {
  config: { enabled: boolean; default_groups: string[]; default_total: number; source: 'policy' | 'app_ini' };
  subject: Subject | null;
  owners: QuotaEvalOwner[];
  /** True when every evaluated standing holds. */
  within: boolean;
  warnings: string[];
};

/**
 * Configuration: the policy file's default_groups/default_total, quota enabled; --app-ini replaces
 * all three with the instance's values (Forgejo defaults for absent keys: disabled, none, -1);
 * --default-groups then replaces the default group list.
 */
export function runQuotaEval(opts: QuotaEvalOptions, readFile: (path: string) => string, registry: SchemaRegistry = loadSchemas()): QuotaEvalResult {
  if (opts.subject !== undefined && !isSubject(opts.subject)) {
    throw new AppError('unrecognised_subject', `--subject "${opts.subject}" is not a quota subject. Use one of: ${SEED_SUBJECTS.join(', ')}.`);
  }
  const subject = (opts.subject ?? null) as Subject | null;
  const policy = parsePolicyFile(registry, read(readFile, opts.groups), opts.groups);
  const usage = parseUsageFile(registry, read(readFile, opts.usage), opts.usage);
  const warnings: string[] = [];

  let config: QuotaEvalResult['config'] = { enabled: true, default_groups: policy.defaultGroups, default_total: policy.defaultTotal, source: 'policy' };
  if (opts.appIni !== undefined) {
    const ini = parseAppIni(read(readFile, opts.appIni), opts.appIni);
    config = { enabled: ini.enabled, default_groups: ini.defaultGroups, default_total: ini.defaultTotal, source: 'app_ini' };
    warnings.push(...ini.warnings);
    if (!ini.enabled) warnings.push(`${opts.appIni}: quota is not enabled ([quota] ENABLED), so every standing holds`);
  }
  if (opts.defaultGroups !== undefined) config.default_groups = opts.defaultGroups.map((g) => g.trim()).filter((g) => g !== '');
  for (const name of config.default_groups) {
    if (!policy.groups.some((g) => g.name === name)) warnings.push(`default group "${name}" does not exist; it is skipped`);
  }

  const owners = new Map<string, { login: string; kind: UsageOwner['kind']; inUsage: boolean; usage: UsageOwner['usage'] }>();
  for (const [key, o] of usage.owners) owners.set(key, { login: o.login, kind: o.kind, inUsage: true, usage: o.usage });
  for (const user of Object.keys(policy.assignments)) {
    if (!owners.has(user.toLowerCase())) owners.set(user.toLowerCase(), { login: user, kind: 'user', inUsage: false, usage: zeroPrimitives() });
  }
  let keys = [...owners.keys()].sort();
  if (opts.user !== undefined) {
    const wanted = opts.user.toLowerCase();
    if (!owners.has(wanted)) {
      owners.set(wanted, { login: opts.user, kind: 'user', inUsage: false, usage: zeroPrimitives() });
      warnings.push(`"${opts.user}" has no usage in ${opts.usage} and no assignment; evaluated with zero usage`);
    }
    keys = [wanted];
  }

  const groupListOf = groupListResolver({ assignments: policy.assignments, groups: policy.groups, defaultGroups: config.default_groups, defaultTotal: config.default_total });
  const evalOptions = { enabled: config.enabled };
  const detailed = keys.length === 1;
  const report = (d: QuotaDecision): EvalDecision => {
    if (detailed) return d;
    const { groups: _groups, ...compact } = d;
    return compact;
  };
  const evaluated = keys.map((key): QuotaEvalOwner => {
    const o = owners.get(key)!;
    const list = groupListOf(o.login);
    const decisions = evaluateOwner(list.groups, o.usage, subject === null ? SEED_SUBJECTS : [subject], { ...evalOptions, detail: detailed });
    const overall = report(decisions.overall);
    const subjects = decisions.subjects.map(report);
    return {
      owner: o.login,
      kind: o.kind,
      in_usage: o.inUsage,
      group_source: list.source,
      group_list: list.groups.map((g) => g.name),
      used: usedFromPrimitives(o.usage),
      overall,
      subjects,
      // Overall is evaluated (and printed) for every owner, with --subject too: it counts (docs/quota.md §6).
      within: overall.within && subjects.every((d) => d.within),
    };
  });
  return { config, subject, owners: evaluated, within: evaluated.every((o) => o.within), warnings };
}

export function quotaEvalExitCode(result: QuotaEvalResult): 0 | 1 {
  return result.within ? 0 : 1;
}

function read(readFile: (path: string) => string, path: string): string {
  try {
    return readFile(path);
  } catch (err) {
    if (isAppError(err)) throw err;
    const why = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new AppError('bad_input_file', `${path}: cannot be read (${why}). Check the path and run the command again.`, {
      cause: err,
      extra: { file: path },
    });
  }
}

const SOURCE_LABEL: Record<GroupListSource, string> = {
  assigned: 'assigned',
  default_groups: 'default groups',
  builtin_default: 'built-in default',
};

const NOTE: Record<QuotaDecision['reason'], string> = {
  quota_disabled: 'quota disabled',
  wiki_untracked: 'wiki is not tracked',
  group_stands: '',
  over_quota: '',
  no_relevant_rule: 'no rule covers this subject',
  no_groups: 'no groups',
};

/** A readable report: the configuration, then per owner one aligned row per standing. */
export function renderQuotaEval(result: QuotaEvalResult): string {
  const c = result.config;
  const over = result.owners.filter((o) => !o.within).length;
  const out: string[] = [
    `Quota ${c.enabled ? 'enabled' : 'DISABLED'} (${c.source === 'app_ini' ? 'from app.ini' : 'policy file'}); ` +
      `default groups: ${c.default_groups.length > 0 ? c.default_groups.join(', ') : '(none)'}; default total: ${limitText(c.default_total)}`,
    `${result.owners.length} owner(s) evaluated, ${over} not within quota.`,
  ];
  for (const w of result.warnings) out.push(`warning: ${w}`);
  for (const o of result.owners) {
    out.push('');
    const usage = o.in_usage ? '' : ', no usage recorded';
    out.push(`${o.owner} (${o.kind}${usage}): ${o.within ? 'within quota' : 'NOT WITHIN QUOTA'} — groups: ${o.group_list.join(', ')} [${SOURCE_LABEL[o.group_source]}]`);
    const rows = [['SUBJECT', 'STANDING', 'GROUP', 'RULE', 'SUM', 'LIMIT', 'HUMAN', 'NOTE']];
    for (const d of [o.overall, ...o.subjects]) rows.push(row(d));
    out.push(...table(rows).map((line) => `  ${line}`));
  }
  return `${out.join('\n')}\n`;
}

function row(d: EvalDecision): string[] {
  const standing = d.within ? 'within' : d.reason === 'over_quota' ? 'OVER' : 'NOT WITHIN';
  const k = d.deciding;
  const human = k === null ? '-' : `${humanBytes(k.sum)} / ${limitText(k.limit)}`;
  return [d.subject ?? '(overall)', standing, k?.group ?? '-', k?.rule ?? '-', k === null ? '-' : String(k.sum), k === null ? '-' : String(k.limit), human, NOTE[d.reason]];
}

function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const right = new Set([4, 5]); // byte counts align right
  return rows.map((r) => r.map((cell, i) => (right.has(i) ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!))).join('  ').trimEnd());
}

function limitText(limit: number): string {
  return limit === -1 ? 'unlimited' : limit < 0 ? `${limit} (never stands)` : humanBytes(limit);
}

/** IEC units with one decimal (1536 → "1.5 KiB"); whole bytes below 1 KiB. */
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
