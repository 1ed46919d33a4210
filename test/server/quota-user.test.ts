// The user and organisation quota routes, acting as the Sudo user: quota info without names, the
// bare true/false check, lists largest first with the forge's paging headers, repositories by size,
// and an organisation's routes for its owners only.
import t from 'tap';
import type { ForgeData } from '../../src/domain/quota/usage.ts';
import { quotaApp, type QuotaApp } from '../fixtures/quota-app.ts';
import { assertSchema } from '../fixtures/test-app.ts';

const E = 'quota/forge-error.json';

t.test('/user/quota: usage and groups without names; default groups, then the unlisted built-in group', async (t) => {
  const { call } = await quotaApp(t, { quota: { default_groups: ['basic', 'missing'] } });
  const noGroups = await call('/user/quota', { sudo: 'alice' });
  t.equal(noGroups.status, 200);
  assertSchema(t, 'quota/quota-info.json', noGroups.json);
  t.strictSame(noGroups.json, {
    used: { size: { repos: { public: 1048576, private: 262144 }, git: { LFS: 0 }, assets: { attachments: { issues: 2048, releases: 0 }, artifacts: 4096, packages: { all: 512 } } } },
    groups: [],
  }, 'expired artifacts do not count; no group exists yet');
  await call('/admin/quota/groups', { body: { name: 'basic', rules: [{ name: 'total', limit: 2_000_000, subjects: ['size:all'] }] } });
  await call('/admin/quota/groups', { body: { name: 'lfs', rules: [{ name: 'lfs-1m', limit: 1_048_576, subjects: ['size:git:lfs'] }] } });
  t.strictSame((await call('/api/v1/user/quota', { sudo: 'alice' })).json.groups, [{ rules: [{ limit: 2_000_000, subjects: ['size:all'] }] }], 'the existing default group, no names');
  await call('/admin/quota/groups/lfs/users/alice', { method: 'PUT' });
  t.strictSame((await call('/user/quota', { sudo: 'alice' })).json.groups, [{ rules: [{ limit: 1_048_576, subjects: ['size:git:lfs'] }] }], 'assigned groups replace the defaults');
});

t.test('/user/quota/check answers a bare true or false', async (t) => {
  const app = await quotaApp(t, { quota: { default_total: 1_000_000 } });
  const { call } = app;
  const check = (subject: string, sudo = 'alice') => call(`/user/quota/check?subject=${encodeURIComponent(subject)}`, { sudo });
  // alice uses 1317376 bytes in all: over the built-in default total of 1000000.
  const over = await check('size:all');
  t.equal(over.status, 200);
  t.equal(over.text, 'false');
  assertSchema(t, 'quota/check-result.json', over.json);
  t.equal((await check('size:wiki')).text, 'true', 'wiki is always within quota');
  t.equal((await check('size:assets:wiki')).text, 'true');
  t.equal((await check('size:all', 'carol')).text, 'true', 'carol uses 16384 bytes');

  await call('/admin/quota/groups', { body: { name: 'lfs-only', rules: [{ name: 'lfs', limit: 10, subjects: ['size:git:lfs'] }, { name: 'wiki-0', limit: 0, subjects: ['size:wiki'] }] } });
  await call('/admin/quota/groups/lfs-only/users/alice', { method: 'PUT' });
  const table: [string, string][] = [
    ['size:git:lfs', 'true'],
    ['size:all', 'false'], // no rule of lfs-only covers size:all
    ['size:repos:all', 'false'],
    ['size:wiki', 'true'], // even with a limit-0 wiki rule
    [' size:git:lfs ', 'true'], // trimmed, as the forge reads the form value
  ];
  for (const [subject, answer] of table) t.equal((await check(subject)).text, answer, subject);

  for (const query of ['', '?subject=', '?subject=size:lfs', '?subject=SIZE:ALL']) {
    const res = await call(`/user/quota/check${query}`, { sudo: 'alice' });
    t.equal(res.status, 422, `check${query}`);
    assertSchema(t, E, res.json);
  }
});

function manyItems(): ForgeData {
  const sizes = [300, 100, 500, 200, 400];
  return {
    users: [{ login: 'dana', full_name: 'Dana D.' }, { login: 'eve' }],
    orgs: [{ login: 'eve-org', owners: ['eve'] }],
    repos: [
      { owner: 'dana', name: 'big', size: 1000, lfs_size: 9000 },
      { owner: 'dana', name: 'alpha', private: true, size: 5000 },
      { owner: 'dana', name: 'mid', size: 7000 },
      { owner: 'eve-org', name: 'shared', size: 1 },
    ],
    attachments: [
      ...sizes.map((size, i) => ({ repo: 'dana/big', kind: i % 2 === 0 ? 'issue' as const : 'release' as const, name: `a${size}`, size })),
      { repo: 'eve-org/shared', kind: 'issue', name: 'by-eve-in-org', size: 9999 },
    ],
    artifacts: [
      { repo: 'dana/big', name: 'old', size: 99999, expired: true },
      { repo: 'dana/mid', name: 'new', size: 10 },
      { repo: 'dana/big', name: 'newer', size: 20 },
    ],
    packages: [
      { owner: 'dana', repo: null, name: 'Loose', type: 'generic', version: 'V1', size: 5 },
      { owner: 'dana', repo: 'dana/big', name: 'linked', type: 'npm', version: '1.0.0', size: 50 },
      { owner: 'eve-org', repo: 'eve-org/shared', name: 'org-pkg', type: 'npm', version: '2.0.0', size: 7 },
    ],
  };
}

async function withMany(app: QuotaApp) {
  const res = await app.call('/admin/forge/data', { method: 'PUT', body: manyItems() });
  if (res.status !== 204) throw new Error(`forge data not loaded: ${res.text}`);
}

t.test('lists: largest first, owner of the repository, non-expired artifacts, exact shapes', async (t) => {
  const app = await quotaApp(t);
  await withMany(app);
  const { call } = app;
  const attachments = await call('/user/quota/attachments', { sudo: 'dana' });
  t.equal(attachments.status, 200);
  assertSchema(t, 'quota/attachment-list.json', attachments.json);
  t.same(attachments.json.map((a: any) => a.size), [500, 400, 300, 200, 100]);
  t.strictSame(attachments.json[0], {
    name: 'a500',
    size: 500,
    api_url: 'http://127.0.0.1:7337/api/v1/repos/dana/big/issues/assets/3',
    contained_in: { api_url: 'http://127.0.0.1:7337/api/v1/repos/dana/big/issues', html_url: 'http://127.0.0.1:7337/dana/big/issues' },
  });
  t.equal(attachments.headers.get('x-total-count'), '5');
  t.equal(attachments.headers.get('link'), null, 'one page: no Link');

  const artifacts = await call('/user/quota/artifacts', { sudo: 'dana' });
  assertSchema(t, 'quota/artifact-list.json', artifacts.json);
  t.strictSame(artifacts.json, [
    { name: 'newer', size: 20, html_url: 'http://127.0.0.1:7337/dana/big/actions' },
    { name: 'new', size: 10, html_url: 'http://127.0.0.1:7337/dana/mid/actions' },
  ], 'expired artifacts are not listed');
  const packages = await call('/api/v1/user/quota/packages', { sudo: 'dana' });
  assertSchema(t, 'quota/package-list.json', packages.json);
  t.strictSame(packages.json, [
    { name: 'linked', type: 'npm', version: '1.0.0', size: 50, html_url: 'http://127.0.0.1:7337/dana/-/packages/npm/linked/1.0.0' },
    { name: 'Loose', type: 'generic', version: 'V1', size: 5, html_url: 'http://127.0.0.1:7337/dana/-/packages/generic/loose/v1' },
  ]);
  const eve = await call('/user/quota/attachments', { sudo: 'eve' });
  t.strictSame(eve.json, [], 'an attachment in an organisation repository counts against the organisation');
  t.equal(eve.headers.get('x-total-count'), '0');
  const org = await call('/orgs/eve-org/quota/attachments', { sudo: 'eve' });
  t.same(org.json.map((a: any) => a.name), ['by-eve-in-org']);
  t.same((await call('/orgs/eve-org/quota/packages', { sudo: 'eve' })).json.map((p: any) => p.name), ['org-pkg']);
});

t.test('paging: ?page= and ?limit=, X-Total-Count, and Link with next, last, first, prev', async (t) => {
  const app = await quotaApp(t);
  await withMany(app);
  const { call } = app;
  const base = 'http://127.0.0.1:7337/user/quota/attachments';
  const cases: [string, number[], string | null][] = [
    ['?limit=2', [500, 400], `<${base}?limit=2&page=2>; rel="next",<${base}?limit=2&page=3>; rel="last"`],
    ['?limit=2&page=2', [300, 200], `<${base}?limit=2&page=3>; rel="next",<${base}?limit=2&page=3>; rel="last",<${base}?limit=2&page=1>; rel="first",<${base}?limit=2&page=1>; rel="prev"`],
    ['?page=3&limit=2', [100], `<${base}?limit=2&page=1>; rel="first",<${base}?limit=2&page=2>; rel="prev"`],
    ['?page=9&limit=2', [], `<${base}?limit=2&page=1>; rel="first",<${base}?limit=2&page=2>; rel="prev"`],
    ['?page=0&limit=0', [500, 400, 300, 200, 100], null],
    ['?page=x&limit=-3', [500, 400, 300, 200, 100], null],
  ];
  for (const [query, sizes, link] of cases) {
    const res = await call(`/user/quota/attachments${query}`, { sudo: 'dana' });
    t.equal(res.status, 200, query);
    t.same(res.json.map((a: any) => a.size), sizes, `${query}: items`);
    t.equal(res.headers.get('x-total-count'), '5', `${query}: total`);
    t.equal(res.headers.get('link'), link, `${query}: Link`);
  }
  const v1 = await call('/api/v1/user/quota/attachments?limit=4', { sudo: 'dana' });
  t.match(v1.headers.get('link'), /^<http:\/\/127\.0\.0\.1:7337\/api\/v1\/user\/quota\/attachments\?limit=4&page=2>; rel="next"/);

  const sixty: ForgeData = { users: [{ login: 'many' }], repos: [{ owner: 'many', name: 'r', size: 1 }], attachments: Array.from({ length: 60 }, (_, i) => ({ repo: 'many/r', kind: 'issue' as const, name: `f${i}`, size: i })) };
  t.equal((await call('/admin/forge/data', { method: 'PUT', body: sixty })).status, 204);
  t.equal((await call('/user/quota/attachments', { sudo: 'many' })).json.length, 30, 'default page size 30');
  const capped = await call('/user/quota/attachments?limit=100', { sudo: 'many' });
  t.equal(capped.json.length, 50, 'at most 50');
  t.equal(capped.headers.get('x-total-count'), '60');
});

t.test('/user/repos: the user\'s repositories, ?order_by=size largest first', async (t) => {
  const app = await quotaApp(t);
  await withMany(app);
  const { call } = app;
  const bySize = await call('/user/repos?order_by=size', { sudo: 'dana' });
  t.equal(bySize.status, 200);
  assertSchema(t, 'quota/repository-list.json', bySize.json);
  t.same(bySize.json.map((r: any) => [r.full_name, r.size, r.private]), [['dana/big', 9, false], ['dana/mid', 6, false], ['dana/alpha', 4, true]], 'git + LFS, size in KiB');
  t.equal(bySize.headers.get('x-total-count'), '3');
  t.equal(bySize.json[0].owner.login, 'dana');
  t.same((await call('/user/repos?order_by=reversesize', { sudo: 'dana' })).json.map((r: any) => r.name), ['alpha', 'mid', 'big']);
  t.same((await call('/user/repos?order_by=alphabetically', { sudo: 'dana' })).json.map((r: any) => r.name), ['alpha', 'big', 'mid']);
  t.same((await call('/user/repos', { sudo: 'dana' })).json.map((r: any) => r.name), ['big', 'alpha', 'mid'], 'default: data set order');
  t.same((await call('/user/repos?order_by=size&limit=1&page=2', { sudo: 'dana' })).json.map((r: any) => r.name), ['mid'], 'paged');
  const bad = await call('/user/repos?order_by=weight', { sudo: 'dana' });
  t.equal(bad.status, 422);
  assertSchema(t, E, bad.json);
});

t.test('/orgs/{org}/quota*: owners (and forge administrators) only; 404 for no such organisation', async (t) => {
  const { call } = await quotaApp(t);
  await call('/admin/quota/groups', { body: { name: 'org-group', rules: [{ name: 'org-total', limit: 1, subjects: ['size:all'] }] } });
  await call('/admin/quota/groups/org-group/users/acme-org', { method: 'PUT' });
  const info = await call('/orgs/acme-org/quota', { sudo: 'alice' });
  t.equal(info.status, 200);
  assertSchema(t, 'quota/quota-info.json', info.json);
  t.strictSame(info.json.groups, [{ rules: [{ limit: 1, subjects: ['size:all'] }] }]);
  t.equal(info.json.used.size.assets.attachments.releases, 1048576);
  t.equal((await call('/orgs/acme-org/quota/check?subject=size:all', { sudo: 'alice' })).text, 'false');
  t.equal((await call('/orgs/acme-org/quota/check?subject=size:all', { sudo: 'forge-admin' })).status, 200, 'a forge administrator passes');
  const cases: [string, string, number][] = [
    ['/orgs/acme-org/quota', 'bob', 403],
    ['/orgs/acme-org/quota/attachments', 'carol', 403],
    ['/orgs/nope/quota', 'alice', 404],
    ['/orgs/bob/quota', 'alice', 404],
    ['/orgs/nope/quota/check?subject=size:all', 'bob', 404],
  ];
  for (const [path, sudo, status] of cases) {
    const res = await call(path, { sudo });
    t.equal(res.status, status, `${path} as ${sudo}`);
    assertSchema(t, E, res.json);
  }
});

t.test('a member named constructor is a member like any other: every user\'s reads still answer', async (t) => {
  const { call } = await quotaApp(t, {
    forgeData: { users: [{ login: 'alice' }, { login: 'constructor' }, { login: 'toString' }], repos: [{ owner: 'alice', name: 'x', private: false, size: 5, lfs_size: 0 }, { owner: 'constructor', name: 'y', private: false, size: 50, lfs_size: 0 }] },
  });
  t.equal((await call('/admin/quota/groups', { body: { name: 'plain', rules: [{ name: 'plainrule', limit: 10, subjects: ['size:all'] }] } })).status, 201);
  t.equal((await call('/admin/quota/groups/plain/users/constructor', { method: 'PUT' })).status, 204);
  t.equal((await call('/admin/users/toString/quota/groups', { body: { groups: ['plain'] } })).status, 204);
  const check = async (sudo: string) => (await call('/user/quota/check?subject=size:all', { sudo })).text;
  t.same([await check('alice'), await check('constructor'), await check('toString')], ['true', 'false', 'true'], 'alice keeps the built-in default; constructor is over its 10 bytes; toString within');
  const info = await call('/admin/users/constructor/quota');
  t.equal(info.status, 200, info.text);
  t.strictSame(info.json.groups, [{ name: 'plain', rules: [{ name: 'plainrule', limit: 10, subjects: ['size:all'] }] }]);
  t.equal((await call('/user/quota', { sudo: 'alice' })).status, 200);
  t.equal((await call('/admin/users/alice/quota')).status, 200);
});
