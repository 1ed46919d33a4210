// The forge quota group routes: atomic creation with new and reused rules, list/get/delete, the
// rule-in-group and user-in-group links, a user's groups set as a whole, and a user's quota info;
// each with its statuses in the order of QUOTA.md section 5 and the events it appends (or not).
import t from 'tap';
import { expectNewEvents, expectNoEvents, expectResponse, spec } from '../fixtures/api-spec.ts';
import { quotaApp, type QuotaApp } from '../fixtures/quota-app.ts';
import { assertSchema } from '../fixtures/test-app.ts';

t.test('creation: new rules and links in one unit; an existing rule is reused unchanged', async (t) => {
  const app = await quotaApp(t);
  const { call } = app;
  const kinds = ['quota.group.created', 'quota.group.rule_added', 'quota.rule.created', 'quota.group.rule_added', 'quota.rule.created', 'quota.group.rule_added'];
  const res = await spec(t, app).given(['/admin/quota/rules', { body: { name: 'shared', limit: 7, subjects: ['size:git:lfs'] } }]).when('/admin/quota/groups', {
    body: {
      name: 'team',
      note: 'unknown members are ignored',
      rules: [
        { name: 'shared', limit: 999, subjects: ['size:all', 'size:not-a-subject'] },
        { name: 'fresh', subjects: ['size:assets:all'], limit: null },
        { name: 'bare' },
      ],
    },
  }).then(expectResponse(201), expectNewEvents(kinds.map((kind, index) => ({ kind, unit: { index, size: 6 } })))); // one atomic unit
  t.strictSame(res.json, {
    name: 'team',
    rules: [
      { name: 'shared', limit: 7, subjects: ['size:git:lfs'] },
      { name: 'fresh', limit: 0, subjects: ['size:assets:all'] },
      { name: 'bare', limit: 0 },
    ],
  }, 'reused rule unchanged; omitted or null limit is 0');
  t.strictSame((await call('/admin/quota/rules/shared')).json, { name: 'shared', limit: 7, subjects: ['size:git:lfs'] });
  t.strictSame((await call('/api/v1/admin/quota/groups/team')).json, res.json);

  const bare = await call('/admin/quota/groups', { body: { name: 'empty', rules: null } });
  t.equal(bare.status, 201);
  t.strictSame(bare.json, { name: 'empty', rules: [] });
  const list = await call('/admin/quota/groups');
  assertSchema(t, 'quota/group-list.json', list.json);
  t.same(list.json.map((g: any) => g.name), ['team', 'empty']);
});

t.test('creation is atomic: a bad subject in the second rule leaves neither group nor first rule', async (t) => {
  const app = await quotaApp(t);
  const { call } = app;
  await spec(t, app).when('/admin/quota/groups', { body: { name: 'g', rules: [{ name: 'first', limit: 1, subjects: ['size:all'] }, { name: 'second', subjects: ['size:bogus'] }] } })
    .then(expectResponse(422), expectNoEvents());
  t.equal((await call('/admin/quota/groups/g')).status, 404);
  t.equal((await call('/admin/quota/rules/first')).status, 404);
});

t.test('creation failures: 400 body, then 409 group exists, then 422 subject of a new rule', async (t) => {
  const app = await quotaApp(t);
  await app.call('/admin/quota/groups', { body: { name: 'taken' } });
  const cases: [string, unknown, number][] = [
    ['name missing', { rules: [] }, 400],
    ['name null', { name: null }, 400],
    ['rules not an array', { name: 'n', rules: {} }, 400],
    ['rule not an object', { name: 'n', rules: ['r'] }, 400],
    ['rule name missing', { name: 'n', rules: [{ limit: 1 }] }, 400],
    ['rule limit out of range', { name: 'n', rules: [{ name: 'r', limit: 2 ** 53 }] }, 400],
    ['same rule twice', { name: 'n', rules: [{ name: 'r' }, { name: 'r' }] }, 400],
    ['same rule twice, group taken', { name: 'taken', rules: [{ name: 'r' }, { name: 'r' }] }, 400],
    ['group exists, bad subject too', { name: 'taken', rules: [{ name: 'r', subjects: ['size:x'] }] }, 409],
    ['group exists', { name: 'taken' }, 409],
    ['bad subject', { name: 'n', rules: [{ name: 'r', subjects: ['size:x'] }] }, 422],
  ];
  for (const [what, body, status] of cases) {
    await spec(t, app, what).when('/admin/quota/groups', { body }).then(expectResponse(status), expectNoEvents());
  }
});

t.test('a rule or group named "." or "..", which no path can name, is never created', async (t) => {
  const app = await quotaApp(t);
  const { call } = app;
  // A URL resolves these as dot-segments (even as %2E%2E): /admin/quota/groups/.. is /admin/quota/,
  // so such a group could be assigned but never read, emptied or deleted.
  t.equal((await call('/admin/quota/groups/%2E%2E')).status, 404, 'the path does not reach a group');
  const cases: [string, string, unknown, string][] = [
    ['group "."', '/admin/quota/groups', { name: '.' }, '/name must not be one of ".", "..", found "."'],
    ['group ".."', '/admin/quota/groups', { name: '..' }, '/name must not be one of ".", "..", found ".."'],
    ['new rule ".." in a group', '/admin/quota/groups', { name: 'g', rules: [{ name: 'ok', limit: 1 }, { name: '..', limit: 1 }] }, '/rules/1/name must not be one of ".", "..", found ".."'],
    ['rule "."', '/admin/quota/rules', { name: '.', limit: 1 }, '/name must not be one of ".", "..", found "."'],
    ['rule ".."', '/admin/quota/rules', { name: '..', limit: 1 }, '/name must not be one of ".", "..", found ".."'],
  ];
  for (const [what, path, body, problem] of cases) {
    const res = await spec(t, app, what).when(path, { body }).then(expectResponse(400), expectNoEvents());
    t.equal(res.json.message, `The request body is not valid: ${problem}. Fix it and send it again.`, `${what}: says which name`);
  }
  t.equal((await call('/admin/quota/groups/g')).status, 404, 'nothing of the refused group was created');
  for (const name of ['...', '.a', 'a..b']) {
    t.equal((await call('/admin/quota/groups', { body: { name, rules: [{ name: `r${name}` }] } })).status, 201, `${name}: an ordinary name`);
    t.equal((await call(`/admin/quota/groups/${encodeURIComponent(name)}/rules/${encodeURIComponent(`r${name}`)}`, { method: 'DELETE' })).status, 204, `${name}: reached by its path`);
  }
});

t.test('a path that is not percent-encoded UTF-8 is 400 after authentication, never the target its raw text names', async (t) => {
  const app = await quotaApp(t);
  const { call } = app;
  t.equal((await call('/admin/quota/groups', { body: { name: '%FF', rules: [{ name: '%', limit: 1 }] } })).status, 201);
  t.equal((await call('/admin/quota/groups/%25FF/users/alice', { method: 'PUT' })).status, 204, 'the group is reached by its encoded name');
  const refused: [string, string, string?][] = [
    ['/admin/quota/groups/%FF', 'GET'],
    ['/admin/quota/groups/%FF', 'DELETE'],
    ['/admin/quota/groups/%FF/users', 'GET'],
    ['/admin/quota/groups/%FF/users/alice', 'DELETE'],
    ['/admin/quota/groups/%25FF/rules/%', 'DELETE'],
    ['/api/v1/admin/quota/rules/%', 'GET'],
    ['/admin/users/%E0%A4/quota', 'GET'],
    ['/orgs/acme%FForg/quota', 'GET', 'alice'],
  ];
  for (const [path, method, sudo] of refused) {
    const res = await spec(t, app, `${method} ${path}`).when(path, { method, ...(sudo ? { sudo } : {}) }).then(expectResponse(400), expectNoEvents());
    assertSchema(t, 'quota/forge-error.json', res.json);
    t.match(res.json.message, /is not percent-encoded UTF-8; encode each name's UTF-8 bytes, and a literal % as %25\./);
  }
  t.equal((await call('/admin/quota/groups/%FF', { token: null })).status, 401, 'authentication first');
  t.equal((await call('/admin/quota/groups/%FF', { token: 'customer' })).status, 403);
  t.strictSame((await call('/admin/quota/groups/%25FF')).json, { name: '%FF', rules: [{ name: '%', limit: 1 }] }, 'nothing was removed');
  t.same((await call('/admin/quota/groups/%25FF/users')).json.map((u: any) => u.login), ['alice']);
});

t.test('DELETE a group: its links and memberships go, its rules stay, members fall back to the defaults', async (t) => {
  const app = await quotaApp(t, { quota: { default_groups: ['basic'] } });
  const { call } = app;
  await call('/admin/quota/groups', { body: { name: 'basic', rules: [{ name: 'basic-total', limit: 5_000_000, subjects: ['size:all'] }] } });
  await call('/admin/quota/groups', { body: { name: 'small', rules: [{ name: 'small-total', limit: 1000, subjects: ['size:all'] }] } });
  t.equal((await call('/admin/quota/groups/small/users/alice', { method: 'PUT' })).status, 204);
  t.same((await call('/admin/users/alice/quota')).json.groups.map((g: any) => g.name), ['small']);
  t.equal((await call('/user/quota/check?subject=size:all', { sudo: 'alice' })).json, false);

  await spec(t, app).when('/admin/quota/groups/small', { method: 'DELETE' }).then(expectResponse(204), expectNewEvents([{ kind: 'quota.group.deleted', payload: { name: 'small' } }]));
  t.equal((await call('/admin/quota/groups/small')).status, 404);
  t.strictSame((await call('/admin/quota/rules/small-total')).json, { name: 'small-total', limit: 1000, subjects: ['size:all'] }, 'rule stays');
  const info = await call('/admin/users/alice/quota');
  t.same(info.json.groups.map((g: any) => g.name), ['basic'], 'back to the default groups');
  t.equal((await call('/user/quota/check?subject=size:all', { sudo: 'alice' })).json, true);
  t.equal((await call('/admin/quota/groups/small', { method: 'DELETE' })).status, 404);
  // Re-creating the group does not bring the old members or links back.
  await call('/admin/quota/groups', { body: { name: 'small' } });
  t.strictSame((await call('/admin/quota/groups/small')).json, { name: 'small', rules: [] });
  t.strictSame((await call('/admin/quota/groups/small/users')).json, []);
});

async function twoGroups(app: QuotaApp) {
  await app.call('/admin/quota/groups', { body: { name: 'g', rules: [{ name: 'in-g', limit: 1 }] } });
  await app.call('/admin/quota/rules', { body: { name: 'loose', limit: 2, subjects: ['size:git:lfs'] } });
}

t.test('users in a group: add, list, remove, with 404 group → 404 user → 409/404', async (t) => {
  const app = await quotaApp(t);
  const { call } = app;
  await twoGroups(app);
  // The event names the login as the forge data spells it.
  await spec(t, app, 'usernames compare case-insensitively').when('/admin/quota/groups/g/users/ALICE', { method: 'PUT' })
    .then(expectResponse(204), expectNewEvents([{ kind: 'quota.group.user_added', payload: { group: 'g', user: 'alice' } }]));
  await spec(t, app, 'an organisation holds groups too').when('/api/v1/admin/quota/groups/g/users/acme-org', { method: 'PUT' })
    .then(expectResponse(204), expectNewEvents([{ kind: 'quota.group.user_added', payload: { group: 'g', user: 'acme-org' } }]));
  const list = await call('/admin/quota/groups/g/users');
  t.equal(list.status, 200);
  assertSchema(t, 'quota/user-list.json', list.json);
  t.same(list.json.map((u: any) => [u.id, u.login, u.username, u.full_name, u.is_admin]), [[2, 'alice', 'alice', 'Alice Archer', false], [5, 'acme-org', 'acme-org', '', false]]);

  const cases: [string, string, number][] = [
    ['PUT', '/admin/quota/groups/nope/users/nobody', 404],
    ['PUT', '/admin/quota/groups/nope/users/alice', 404],
    ['PUT', '/admin/quota/groups/g/users/nobody', 404],
    ['PUT', '/admin/quota/groups/g/users/Alice', 409],
    ['DELETE', '/admin/quota/groups/nope/users/alice', 404],
    ['DELETE', '/admin/quota/groups/g/users/nobody', 404],
    ['DELETE', '/admin/quota/groups/g/users/bob', 404],
    ['GET', '/admin/quota/groups/nope/users', 404],
  ];
  for (const [method, path, status] of cases) {
    const res = await spec(t, app).when(path, { method }).then(expectResponse(status), expectNoEvents());
    if (status === 404) t.strictSame(res.json.errors, [], `${method} ${path}: errors []`);
  }
  t.equal((await call('/admin/quota/groups/g/users/alice', { method: 'DELETE' })).status, 204);
  t.same((await call('/admin/quota/groups/g/users')).json.map((u: any) => u.login), ['acme-org']);
  t.equal((await call('/admin/quota/groups/g/users/alice', { method: 'DELETE' })).status, 404, 'not in the group any more');
});

t.test('rules in a group: add, remove, with 404 group → 404 rule → 409/404; removal is 204', async (t) => {
  const app = await quotaApp(t);
  await twoGroups(app);
  await spec(t, app).when('/admin/quota/groups/g/rules/loose', { method: 'PUT' })
    .then(expectResponse(204), expectNewEvents([{ kind: 'quota.group.rule_added', payload: { group: 'g', rule: 'loose' } }]));
  const added = await spec(t, app).when('/admin/quota/groups/g').then(expectResponse(200), expectNoEvents());
  t.strictSame(added.json, { name: 'g', rules: [{ name: 'in-g', limit: 1 }, { name: 'loose', limit: 2, subjects: ['size:git:lfs'] }] });
  await spec(t, app).when('/api/v1/admin/quota/groups/g/rules/in-g', { method: 'DELETE' })
    .then(expectResponse(204), expectNewEvents([{ kind: 'quota.group.rule_removed', payload: { group: 'g', rule: 'in-g' } }]));
  const removed = await spec(t, app).when('/admin/quota/groups/g').then(expectResponse(200), expectNoEvents());
  t.strictSame(removed.json, { name: 'g', rules: [{ name: 'loose', limit: 2, subjects: ['size:git:lfs'] }] });
  const cases: [string, string, number][] = [
    ['PUT', '/admin/quota/groups/nope/rules/nope', 404],
    ['PUT', '/admin/quota/groups/nope/rules/loose', 404],
    ['PUT', '/admin/quota/groups/g/rules/nope', 404],
    ['PUT', '/admin/quota/groups/g/rules/loose', 409],
    ['DELETE', '/admin/quota/groups/nope/rules/loose', 404],
    ['DELETE', '/admin/quota/groups/g/rules/nope', 404],
    ['DELETE', '/admin/quota/groups/g/rules/in-g', 404],
  ];
  for (const [method, path, status] of cases) {
    await spec(t, app).when(path, { method }).then(expectResponse(status), expectNoEvents());
  }
});

t.test('a user\'s groups become exactly the list: 404 user → 400 body → 422 unknown group (nothing changes)', async (t) => {
  const app = await quotaApp(t, { quota: { default_groups: ['g'] } });
  const { call } = app;
  await twoGroups(app);
  await call('/admin/quota/groups', { body: { name: 'h' } });
  const names = async () => (await call('/admin/users/bob/quota')).json.groups.map((g: any) => g.name);
  t.same(await names(), ['g'], 'no assignment: the default groups');

  await spec(t, app).when('/admin/users/BOB/quota/groups', { body: { groups: ['h', 'g'], extra: true } })
    .then(expectResponse(204), expectNewEvents([{ kind: 'quota.user.groups_set', payload: { user: 'bob', groups: ['h', 'g'] } }]));
  t.same(await names(), ['g', 'h'], 'listed in group order');
  await spec(t, app, 'the same groups in another order').when('/admin/users/bob/quota/groups', { body: { groups: ['g', 'h'] } }).then(expectResponse(204), expectNoEvents());
  t.equal((await call('/api/v1/admin/users/bob/quota/groups', { body: { groups: ['h'] } })).status, 204);
  t.same(await names(), ['h']);

  const cases: [string, string, unknown, number][] = [
    ['unknown user, bad body', '/admin/users/nobody/quota/groups', '{', 404],
    ['unknown user', '/admin/users/nobody/quota/groups', { groups: ['g'] }, 404],
    ['groups missing', '/admin/users/bob/quota/groups', {}, 400],
    ['groups null', '/admin/users/bob/quota/groups', { groups: null }, 400],
    ['duplicates', '/admin/users/bob/quota/groups', { groups: ['g', 'g'] }, 400],
    ['not strings', '/admin/users/bob/quota/groups', { groups: [1] }, 400],
    ['malformed', '/admin/users/bob/quota/groups', '{"groups":', 400],
    ['unknown group', '/admin/users/bob/quota/groups', { groups: ['g', 'nope'] }, 422],
  ];
  for (const [what, path, body, status] of cases) {
    await spec(t, app, what).when(path, { body }).then(expectResponse(status), expectNoEvents());
  }
  t.same(await names(), ['h'], 'nothing changed');

  t.equal((await call('/admin/users/bob/quota/groups', { body: { groups: [] } })).status, 204, '[] clears');
  t.same(await names(), ['g'], 'back to the defaults');
  await spec(t, app, '[] again').when('/admin/users/bob/quota/groups', { body: { groups: [] } }).then(expectResponse(204), expectNoEvents());
});

t.test('a user\'s quota info with names; 404 for an unknown user', async (t) => {
  const { call } = await quotaApp(t);
  await call('/admin/quota/groups', { body: { name: 'g', rules: [{ name: 'r', limit: 10, subjects: ['size:all'] }] } });
  await call('/admin/quota/groups/g/users/bob', { method: 'PUT' });
  const res = await call('/admin/users/bob/quota');
  t.equal(res.status, 200);
  assertSchema(t, 'quota/quota-info.json', res.json);
  t.strictSame(res.json, {
    used: { size: { repos: { public: 524288, private: 131072 }, git: { LFS: 2097152 }, assets: { attachments: { issues: 0, releases: 65536 }, artifacts: 0, packages: { all: 8192 } } } },
    groups: [{ name: 'g', rules: [{ name: 'r', limit: 10, subjects: ['size:all'] }] }],
  });
  const none = await call('/admin/users/carol/quota');
  t.strictSame(none.json.groups, [], 'the built-in default group is never listed');
  const missing = await call('/admin/users/nobody/quota');
  t.equal(missing.status, 404);
  t.strictSame(missing.json.errors, []);
});

t.test('concurrent writes: one check-and-append at a time, so exactly one of each clash wins', async (t) => {
  const { call, eventsAfter, seq } = await quotaApp(t);
  const before = seq();
  const groups = await Promise.all(Array.from({ length: 5 }, (_, i) => call('/admin/quota/groups', { body: { name: 'race', rules: [{ name: `r${i}`, limit: i }] } })));
  t.same(groups.map((r) => r.status).sort(), [201, 409, 409, 409, 409]);
  const members = await Promise.all(Array.from({ length: 4 }, () => call('/admin/quota/groups/race/users/bob', { method: 'PUT' })));
  t.same(members.map((r) => r.status).sort(), [204, 409, 409, 409]);
  const kinds = eventsAfter(before).map((e) => e.kind);
  t.equal(kinds.filter((k) => k === 'quota.group.created').length, 1);
  t.equal(kinds.filter((k) => k === 'quota.rule.created').length, 1, 'only the winner\'s rule was created');
  t.equal(kinds.filter((k) => k === 'quota.group.user_added').length, 1);
});
