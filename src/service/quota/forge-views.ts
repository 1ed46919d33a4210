// Forgejo's JSON shapes for the quota routes (docs/quota.md §5): rule, group, quota info, user,
// repository, attachment, artifact and package. Names appear only in admin views. URLs are built
// from the base URL the caller reached the preview on, as the forge builds them from its ROOT_URL.
import type { QuotaGroup, QuotaRule } from '../../domain/quota/evaluate.ts';
import type { Primitives } from '../../domain/quota/subjects.ts';
import { usedFromPrimitives, type ForgeArtifact, type ForgeAttachment, type ForgePackage, type ForgeRepo, type QuotaUsed } from '../../domain/quota/usage.ts';
import type { ForgeOwnerView, Numbered } from './forge-state.ts';

export type RuleJson = { name?: string; limit: number; subjects?: string[] };
export type GroupJson = { name?: string; rules: RuleJson[] };
export type QuotaInfoJson = { used: QuotaUsed; groups: GroupJson[] };

export function ruleJson(rule: QuotaRule, withName: boolean): RuleJson {
  const out: RuleJson = withName ? { name: rule.name, limit: rule.limit } : { limit: rule.limit };
  // Forgejo's `subjects,omitempty`: an empty list is left out.
  if (rule.subjects.length > 0) out.subjects = [...rule.subjects];
  return out;
}

export function groupJson(group: QuotaGroup, withNames: boolean): GroupJson {
  const rules = group.rules.map((r) => ruleJson(r, withNames));
  return withNames ? { name: group.name, rules } : { rules };
}

export function quotaInfoJson(usage: Primitives, groups: QuotaGroup[], withNames: boolean): QuotaInfoJson {
  return { used: usedFromPrimitives(usage), groups: groups.map((g) => groupJson(g, withNames)) };
}

/** Go's time.Time in JSON (RFC 3339, whole seconds here). */
function goTime(iso: string): string {
  return iso.replace(/\.\d+Z$/, 'Z');
}

const seg = (s: string) => encodeURIComponent(s);
const repoPath = (full: string) => full.split('/').map(seg).join('/');

/** Forgejo's api.User. Emails are the placeholder address a private email shows as. */
export function userJson(owner: ForgeOwnerView, base: string, createdAt: string) {
  const lower = owner.login.toLowerCase();
  return {
    id: owner.id,
    login: owner.login,
    login_name: '',
    source_id: 0,
    full_name: owner.full_name,
    email: `${lower}@noreply.localhost`,
    avatar_url: `${base}/avatars/${seg(lower)}`,
    html_url: `${base}/${seg(owner.login)}`,
    language: '',
    is_admin: owner.is_admin,
    last_login: '0001-01-01T00:00:00Z',
    created: goTime(createdAt),
    restricted: false,
    active: true,
    prohibit_login: false,
    location: '',
    pronouns: '',
    website: '',
    description: '',
    visibility: 'public',
    followers_count: 0,
    following_count: 0,
    starred_repos_count: 0,
    username: owner.login,
  };
}

/** The repository's total bytes (git + LFS), as the forge's repository size counts them. */
export function repoBytes(repo: ForgeRepo): number {
  return repo.size + (repo.lfs_size ?? 0);
}

/** A subset of Forgejo's api.Repository; `size` is in KiB as the forge reports it. */
export function repoJson(n: Numbered<ForgeRepo>, owner: ForgeOwnerView, base: string, createdAt: string) {
  const full = `${owner.login}/${n.item.name}`;
  return {
    id: n.id,
    owner: userJson(owner, base, createdAt),
    name: n.item.name,
    full_name: full,
    description: '',
    empty: false,
    private: n.item.private === true,
    fork: false,
    template: false,
    mirror: false,
    size: Math.floor(repoBytes(n.item) / 1024),
    html_url: `${base}/${repoPath(full)}`,
    url: `${base}/api/v1/repos/${repoPath(full)}`,
    clone_url: `${base}/${repoPath(full)}.git`,
    default_branch: 'main',
    archived: false,
    internal: false,
    created_at: goTime(createdAt),
    updated_at: goTime(createdAt),
  };
}

/**
 * The data set has no issue or release numbers, so an attachment's container is its repository's
 * issue or release collection; the asset id is its position in the data set.
 */
export function attachmentJson(n: Numbered<ForgeAttachment>, base: string) {
  const collection = n.item.kind === 'issue' ? 'issues' : 'releases';
  const apiUrl = `${base}/api/v1/repos/${repoPath(n.item.repo)}/${collection}`;
  return {
    name: n.item.name,
    size: n.item.size,
    api_url: `${apiUrl}/assets/${n.id}`,
    contained_in: { api_url: apiUrl, html_url: `${base}/${repoPath(n.item.repo)}/${collection}` },
  };
}

export function artifactJson(n: Numbered<ForgeArtifact>, base: string) {
  return { name: n.item.name, size: n.item.size, html_url: `${base}/${repoPath(n.item.repo)}/actions` };
}

export function packageJson(n: Numbered<ForgePackage>, base: string) {
  const p = n.item;
  return {
    name: p.name,
    type: p.type,
    version: p.version,
    size: p.size,
    html_url: `${base}/${seg(p.owner)}/-/packages/${seg(p.type)}/${seg(p.name.toLowerCase())}/${seg(p.version.toLowerCase())}`,
  };
}
