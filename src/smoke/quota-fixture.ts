// The small forge data set and quota policy the smoke suite loads through the admin API, with the
// answers docs/quota.md §1–§2 give for them, worked out by hand below so every check has a
// known value. Names carry the run id so they never meet a running server's own data.

/** Forge logins and group/rule names of one run. */
export function quotaNames(runId: string) {
  const n = (s: string) => `smk-${runId}-${s}`;
  return {
    alice: n('alice'),
    bob: n('bob'),
    carol: n('carol'),
    org: n('org'),
    groupAlice: n('g-alice'),
    groupBob: n('g-bob'),
    rules: { git: n('r-git'), assets: n('r-assets'), zero: n('r-zero'), big: n('r-big') },
  };
}
export type QuotaNames = ReturnType<typeof quotaNames>;

/**
 * alice owns app (public 10240 + LFS 2048) and notes (private 5120); on app: an issue attachment
 * 1024, a release asset 512, an artifact 300 (plus an expired one that does not count) and a
 * package 200. So repos:public 10240, repos:private 5120, git:lfs 2048, attachments:issues 1024,
 * attachments:releases 512, artifacts 300, packages:all 200; git:all 17408, assets:all 2036.
 * bob owns nothing; carol only joins groups in the admin checks; the org (owned by alice) has one
 * private repo of 4096.
 */
export function smokeForgeData(q: QuotaNames) {
  const app = `${q.alice}/app`;
  return {
    users: [
      { login: q.alice, full_name: 'Smoke Alice', is_admin: false },
      { login: q.bob, full_name: 'Smoke Bob', is_admin: false },
      { login: q.carol, full_name: 'Smoke Carol', is_admin: false },
    ],
    orgs: [{ login: q.org, owners: [q.alice] }],
    repos: [
      { owner: q.alice, name: 'app', private: false, size: 10240, lfs_size: 2048 },
      { owner: q.alice, name: 'notes', private: true, size: 5120, lfs_size: 0 },
      { owner: q.org, name: 'platform', private: true, size: 4096, lfs_size: 0 },
    ],
    attachments: [
      { repo: app, kind: 'issue', name: 'trace.log', size: 1024 },
      { repo: app, kind: 'release', name: 'app-1.0.zip', size: 512 },
    ],
    artifacts: [
      { repo: app, name: 'build-2', size: 300, expired: false },
      { repo: app, name: 'build-1', size: 9000, expired: true },
    ],
    packages: [{ owner: q.alice, repo: app, name: 'smoke-pkg', type: 'npm', version: '1.0.0', size: 200 }],
  };
}

export const ALICE_USED = {
  size: {
    repos: { public: 10240, private: 5120 },
    git: { LFS: 2048 },
    assets: { attachments: { issues: 1024, releases: 512 }, artifacts: 300, packages: { all: 200 } },
  },
};

/** alice's group: git:all 17408 < 20000 stands; assets:all 2036 ≥ 2000 does not. */
export const groupAlice = (q: QuotaNames) => ({
  name: q.groupAlice,
  rules: [
    { name: q.rules.git, limit: 20000, subjects: ['size:git:all'] },
    { name: q.rules.assets, limit: 2000, subjects: ['size:assets:all'] },
  ],
});

/** bob's group: a limit-0 rule on repos:all (never stands) and an unlimited one on all. */
export const groupBob = (q: QuotaNames) => ({
  name: q.groupBob,
  rules: [
    { name: q.rules.zero, limit: 0, subjects: ['size:repos:all'] },
    { name: q.rules.big, limit: -1, subjects: ['size:all'] },
  ],
});

/**
 * [user, subject, answer, why]. A rule is relevant to a subject when it lists the subject or an
 * ancestor of it; a group stands for the subject when it has a relevant rule and all its relevant
 * rules stand; no relevant rule anywhere means not within quota; wiki always stands.
 */
export const CHECK_CASES: ['alice' | 'bob', string, boolean, string][] = [
  ['alice', 'size:git:all', true, 'r-git lists it: 17408 < 20000'],
  ['alice', 'size:repos:public', true, 'r-git lists the ancestor git:all'],
  ['alice', 'size:git:lfs', true, 'r-git lists the ancestor git:all'],
  ['alice', 'size:assets:all', false, 'r-assets lists it: 2036 ≥ 2000'],
  ['alice', 'size:assets:attachments:issues', false, 'r-assets lists the ancestor assets:all'],
  ['alice', 'size:all', false, 'no rule lists all, so none is relevant'],
  ['alice', 'size:wiki', true, 'wiki always stands'],
  ['alice', 'size:assets:wiki', true, 'the Forgejo spelling of wiki always stands too'],
  ['bob', 'size:repos:private', false, 'r-zero (limit 0) lists the ancestor repos:all'],
  ['bob', 'size:git:lfs', true, 'only r-big (unlimited, on all) is relevant'],
  ['bob', 'size:all', true, 'only r-big lists all'],
];
