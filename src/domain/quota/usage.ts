// The forge data set (docs/quota.md §4), its reference checks, the per-owner primitive counters
// derived from it, and Forgejo's `used` shape (docs/quota.md §5) to and from those counters.
import { AppError, type ErrorDetail } from '../../errors.ts';
import { zeroPrimitives, type Primitives } from './subjects.ts';

export type ForgeUser = { login: string; full_name?: string; is_admin?: boolean };
export type ForgeOrg = { login: string; owners: string[] };
export type ForgeRepo = { owner: string; name: string; private?: boolean; size: number; lfs_size?: number };
export type ForgeAttachment = { repo: string; kind: 'issue' | 'release'; name: string; size: number };
export type ForgeArtifact = { repo: string; name: string; size: number; expired?: boolean };
export type ForgePackage = {
  owner: string;
  repo?: string | null;
  name: string;
  type: string;
  version: string;
  size: number;
};

/** Sizes in bytes; every list optional (absent = empty). */
export type ForgeData = {
  users?: ForgeUser[];
  orgs?: ForgeOrg[];
  repos?: ForgeRepo[];
  attachments?: ForgeAttachment[];
  artifacts?: ForgeArtifact[];
  packages?: ForgePackage[];
};

export type ForgeOwner = { login: string; kind: 'user' | 'org' };

/** Forgejo's `used` member of quota info, exact keys (note `git.LFS`). */
export type QuotaUsed = {
  size: {
    repos: { public: number; private: number };
    git: { LFS: number };
    assets: { attachments: { issues: number; releases: number }; artifacts: number; packages: { all: number } };
  };
};

// Forgejo compares user and repository names by their lower-cased form.
const key = (name: string) => name.toLowerCase();

/** Every owner (users and organisations) by lower-cased login. Assumes validated data. */
export function ownersOf(data: ForgeData): Map<string, ForgeOwner> {
  const owners = new Map<string, ForgeOwner>();
  for (const u of data.users ?? []) owners.set(key(u.login), { login: u.login, kind: 'user' });
  for (const o of data.orgs ?? []) owners.set(key(o.login), { login: o.login, kind: 'org' });
  return owners;
}

/**
 * Checks every reference of the data set. Throws AppError `forge_data_invalid` naming the first
 * problem; `details` lists them all with JSON pointers.
 */
export function validateForgeData(data: ForgeData): void {
  const problems: ErrorDetail[] = [];
  const problem = (pointer: string, detail: string) => problems.push({ pointer, detail });
  const users = new Set<string>();
  const owners = new Set<string>();
  (data.users ?? []).forEach((u, i) => {
    if (owners.has(key(u.login))) problem(`/users/${i}/login`, `duplicate login "${u.login}"`);
    users.add(key(u.login));
    owners.add(key(u.login));
  });
  (data.orgs ?? []).forEach((o, i) => {
    if (owners.has(key(o.login))) problem(`/orgs/${i}/login`, `duplicate login "${o.login}"`);
    owners.add(key(o.login));
  });
  (data.orgs ?? []).forEach((o, i) =>
    o.owners.forEach((name, j) => {
      if (!users.has(key(name))) problem(`/orgs/${i}/owners/${j}`, `unknown user "${name}" as owner of organisation "${o.login}"`);
    }),
  );
  const repoOwner = new Map<string, string>();
  (data.repos ?? []).forEach((r, i) => {
    if (!owners.has(key(r.owner))) problem(`/repos/${i}/owner`, `unknown owner "${r.owner}"`);
    const full = key(`${r.owner}/${r.name}`);
    if (repoOwner.has(full)) problem(`/repos/${i}/name`, `duplicate repository "${r.owner}/${r.name}"`);
    repoOwner.set(full, key(r.owner));
  });
  const checkRepo = (pointer: string, repo: string) => {
    if (!repoOwner.has(key(repo))) problem(pointer, `unknown repository "${repo}"`);
  };
  (data.attachments ?? []).forEach((a, i) => checkRepo(`/attachments/${i}/repo`, a.repo));
  (data.artifacts ?? []).forEach((a, i) => checkRepo(`/artifacts/${i}/repo`, a.repo));
  (data.packages ?? []).forEach((p, i) => {
    if (!owners.has(key(p.owner))) problem(`/packages/${i}/owner`, `unknown owner "${p.owner}"`);
    if (p.repo === undefined || p.repo === null) return;
    const owner = repoOwner.get(key(p.repo));
    if (owner === undefined) problem(`/packages/${i}/repo`, `unknown repository "${p.repo}"`);
    // Forgejo links a package only to a repository of the package's owner; refusing a mismatch
    // keeps "count against the repository owner" and "against the package owner" the same thing.
    else if (owner !== key(p.owner)) problem(`/packages/${i}/repo`, `repository "${p.repo}" is not owned by the package owner "${p.owner}"`);
  });
  if (problems.length > 0) {
    const first = problems[0]!;
    throw new AppError('forge_data_invalid', `The forge data is not consistent: ${first.pointer}: ${first.detail}. Fix the reference and send the whole data set again.`, { details: problems });
  }
}

/**
 * The seven counters per owner (lower-cased login), every owner present (zeros included).
 * Everything counts against the repository's owner; a package without a repository against its
 * owner; expired artifacts not at all; wiki is never counted. Assumes validated data.
 */
export function usageByOwner(data: ForgeData): Map<string, Primitives> {
  const usage = new Map<string, Primitives>();
  for (const owner of ownersOf(data).keys()) usage.set(owner, zeroPrimitives());
  const repoOwner = new Map<string, string>();
  for (const r of data.repos ?? []) repoOwner.set(key(`${r.owner}/${r.name}`), key(r.owner));
  const charge = (owner: string | undefined, field: keyof Primitives, size: number) => {
    const p = owner === undefined ? undefined : usage.get(owner);
    if (p) p[field] += size;
  };
  for (const r of data.repos ?? []) {
    charge(key(r.owner), r.private === true ? 'reposPrivate' : 'reposPublic', r.size);
    charge(key(r.owner), 'gitLfs', r.lfs_size ?? 0);
  }
  for (const a of data.attachments ?? []) {
    charge(repoOwner.get(key(a.repo)), a.kind === 'issue' ? 'attachmentsIssues' : 'attachmentsReleases', a.size);
  }
  for (const a of data.artifacts ?? []) {
    if (a.expired !== true) charge(repoOwner.get(key(a.repo)), 'artifacts', a.size);
  }
  for (const p of data.packages ?? []) {
    const owner = p.repo === undefined || p.repo === null ? key(p.owner) : repoOwner.get(key(p.repo));
    charge(owner, 'packagesAll', p.size);
  }
  return usage;
}

export function usedFromPrimitives(p: Primitives): QuotaUsed {
  return {
    size: {
      repos: { public: p.reposPublic, private: p.reposPrivate },
      git: { LFS: p.gitLfs },
      assets: {
        attachments: { issues: p.attachmentsIssues, releases: p.attachmentsReleases },
        artifacts: p.artifacts,
        packages: { all: p.packagesAll },
      },
    },
  };
}

export function primitivesFromUsed(used: QuotaUsed): Primitives {
  const { repos, git, assets } = used.size;
  return {
    reposPublic: repos.public,
    reposPrivate: repos.private,
    gitLfs: git.LFS,
    attachmentsIssues: assets.attachments.issues,
    attachmentsReleases: assets.attachments.releases,
    artifacts: assets.artifacts,
    packagesAll: assets.packages.all,
  };
}
