// The forge quota rule routes: create, list, get, edit, delete under both path families; the body
// conventions (explicit null, unknown members ignored, exact limits), the order 400 → 422 → 409, and
// the events each write appends (or, on a failure, does not).
import t from 'tap';
import { expectNewEvents, expectNoEvents, expectResponse, spec } from '../fixtures/api-spec.ts';
import { quotaApp } from '../fixtures/quota-app.ts';
import { assertSchema } from '../fixtures/test-app.ts';

const MAX = Number.MAX_SAFE_INTEGER;
const E = 'quota/forge-error.json';

t.test('create, list, get under the seed path and under /api/v1', async (t) => {
  const app = await quotaApp(t);
  const { call } = app;
  const rule = { name: 'total-1k', limit: 1024, subjects: ['size:all', 'size:git:lfs'] };
  const created = await spec(t, app).when('/admin/quota/rules', { body: rule })
    .then(expectResponse(201), expectNewEvents([{ kind: 'quota.rule.created', tenant_id: 'forge', workspace_id: 'quota', project_id: 'admin', transport: 'operator', payload: rule }]));
  t.strictSame(created.json, rule);

  const v1 = await call('/api/v1/admin/quota/rules', { body: { name: 'no-subjects', limit: -1 } });
  t.equal(v1.status, 201);
  t.strictSame(v1.json, { name: 'no-subjects', limit: -1 }, 'subjects left out when empty');

  for (const prefix of ['', '/api/v1']) {
    const list = await call(`${prefix}/admin/quota/rules`);
    t.equal(list.status, 200);
    assertSchema(t, 'quota/rule-list.json', list.json);
    t.same(list.json.map((r: any) => r.name), ['total-1k', 'no-subjects'], 'creation order');
    const one = await call(`${prefix}/admin/quota/rules/total-1k`);
    t.equal(one.status, 200);
    t.strictSame(one.json, created.json);
  }
  const missing = await call('/admin/quota/rules/nope');
  t.equal(missing.status, 404);
  assertSchema(t, E, missing.json);
  t.strictSame(missing.json.errors, [], 'a missing target has errors: []');
  t.equal(missing.json.url, 'http://127.0.0.1:7337/api/swagger');
});

t.test('bodies: null members, unknown members, exact limits, and what is a 400', async (t) => {
  const app = await quotaApp(t);
  const { call } = app;
  const accepted: [string, unknown, unknown][] = [
    ['null subjects', { name: 'a', limit: 5, subjects: null }, { name: 'a', limit: 5 }],
    ['unknown member ignored', { name: 'b', limit: 5, colour: 'blue', subjects: ['size:wiki'] }, { name: 'b', limit: 5, subjects: ['size:wiki'] }],
    ['largest exact limit', { name: 'c', limit: MAX }, { name: 'c', limit: MAX }],
    ['smallest exact limit', { name: 'd', limit: -MAX }, { name: 'd', limit: -MAX }],
    ['zero', { name: 'e', limit: 0, subjects: ['none', 'size:assets:wiki'] }, { name: 'e', limit: 0, subjects: ['none', 'size:assets:wiki'] }],
    ['repeated subject kept', { name: 'f', limit: 9, subjects: ['size:all', 'size:all'] }, { name: 'f', limit: 9, subjects: ['size:all', 'size:all'] }],
  ];
  for (const [what, body, expected] of accepted) {
    const res = await call('/admin/quota/rules', { body });
    t.equal(res.status, 201, what);
    t.strictSame(res.json, expected, what);
  }
  const valid = { name: 'g', limit: 10, subjects: ['size:all'] };
  const refused: [string, unknown][] = [
    ['limit missing', { name: 'g' }],
    ['limit null', { ...valid, limit: null }],
    ['limit above 2^53-1', { ...valid, limit: MAX + 1 }],
    ['limit below -(2^53-1)', { ...valid, limit: -MAX - 1 }],
    ['limit 1e20', '{"name":"g","limit":1e20}'],
    ['limit as digits beyond 2^53', '{"name":"g","limit":9007199254740993}'],
    ['limit fractional', { ...valid, limit: 1.5 }],
    ['limit a string', { ...valid, limit: '10' }],
    ['name missing', { limit: 10 }],
    ['name null', { ...valid, name: null }],
    ['name empty', { ...valid, name: '' }],
    ['name a number', { ...valid, name: 7 }],
    ['subjects not an array', { ...valid, subjects: 'size:all' }],
    ['subject not a string', { ...valid, subjects: [1] }],
    ['body an array', [valid]],
    ['body null', 'null'],
    ['malformed JSON', '{"name":'],
  ];
  for (const [what, body] of refused) {
    const res = await spec(t, app, what).when('/admin/quota/rules', { body }).then(expectResponse(400), expectNoEvents());
    t.notOk('errors' in res.json, `${what}: only a missing target carries errors`);
  }
  // A number JSON parsing cannot hold exactly is never quoted as the rounded double (or null) it became.
  for (const body of ['{"name":"g","limit":9007199254740993}', '{"name":"g","limit":1e400}']) {
    const res = await app.call('/admin/quota/rules', { body });
    t.match(res.json.message, /\/limit must be .*, found a number beyond ±\(2\^53 − 1\), which is not read exactly/, body);
    t.notMatch(res.json.message, /9007199254740992|found null/, `${body}: no number the client never sent`);
  }
  // 415 is not in the route table: the forge error body is asserted here.
  const noType = await spec(t, app, 'no JSON content type').when('/admin/quota/rules', { body: valid, headers: { 'Content-Type': 'text/plain' } })
    .then(expectResponse(415), expectNoEvents());
  assertSchema(t, E, noType.json);
});

t.test('unrecognised subject is 422, checked before the name clash (409)', async (t) => {
  const app = await quotaApp(t);
  t.equal((await app.call('/admin/quota/rules', { body: { name: 'r', limit: 1 } })).status, 201);
  await spec(t, app).when('/admin/quota/rules', { body: { name: 'other', limit: 1, subjects: ['size:all', 'size:lfs'] } }).then(expectResponse(422), expectNoEvents());
  await spec(t, app, '422 before 409').when('/admin/quota/rules', { body: { name: 'r', limit: 1, subjects: ['size:everything'] } }).then(expectResponse(422), expectNoEvents());
  await spec(t, app, 'name exists').when('/admin/quota/rules', { body: { name: 'r', limit: 1 } }).then(expectResponse(409), expectNoEvents());
  await spec(t, app, '400 before 409').when('/admin/quota/rules', { body: { name: 'r' } }).then(expectResponse(400), expectNoEvents());
});

t.test('PATCH: absent or null = unchanged, [] clears; 404 before 400 before 422', async (t) => {
  const app = await quotaApp(t);
  const { call, eventsAfter } = app;
  await call('/admin/quota/rules', { body: { name: 'r', limit: 100, subjects: ['size:all'] } });
  const edits: [unknown, unknown][] = [
    [{}, { name: 'r', limit: 100, subjects: ['size:all'] }],
    [{ limit: null, subjects: null, other: 1 }, { name: 'r', limit: 100, subjects: ['size:all'] }],
    [{ limit: 50 }, { name: 'r', limit: 50, subjects: ['size:all'] }],
    [{ subjects: ['size:git:lfs', 'size:repos:all'] }, { name: 'r', limit: 50, subjects: ['size:git:lfs', 'size:repos:all'] }],
    [{ subjects: [] }, { name: 'r', limit: 50 }],
    [{ limit: -1, subjects: ['size:all'] }, { name: 'r', limit: -1, subjects: ['size:all'] }],
  ];
  for (const [body, expected] of edits) {
    const res = await call('/api/v1/admin/quota/rules/r', { method: 'PATCH', body });
    t.equal(res.status, 200, JSON.stringify(body));
    assertSchema(t, 'quota/rule.json', res.json);
    t.strictSame(res.json, expected, JSON.stringify(body));
    t.strictSame((await call('/admin/quota/rules/r')).json, expected, 'stored');
  }
  const edited = eventsAfter(0).filter((e) => e.kind === 'quota.rule.edited');
  t.equal(edited.length, 4, 'an edit that changes nothing records nothing');
  t.strictSame(edited.at(-1)!.payload, { name: 'r', limit: -1, subjects: ['size:all'] }, 'the event carries the whole rule');

  const failedEdits: [string, string, unknown, number][] = [
    ['missing rule before a bad body', 'nope', '{bad', 404],
    ['missing rule', 'nope', { subjects: ['size:x'] }, 404],
    ['400 before 422', 'r', { limit: 'x', subjects: ['size:x'] }, 400],
    ['limit too large', 'r', { limit: MAX + 1 }, 400],
    ['unrecognised subject', 'r', { subjects: ['size:x'] }, 422],
  ];
  for (const [what, name, body, status] of failedEdits) {
    await spec(t, app, what).when(`/admin/quota/rules/${name}`, { method: 'PATCH', body }).then(expectResponse(status), expectNoEvents());
  }
});

t.test('DELETE a rule: 204, it leaves every group, the groups stay; 404 when missing', async (t) => {
  const app = await quotaApp(t);
  const { call } = app;
  const del = await spec(t, app)
    .given(['/admin/quota/groups', { body: { name: 'g1', rules: [{ name: 'keep', limit: 1 }, { name: 'drop', limit: 2 }] } }], ['/admin/quota/groups', { body: { name: 'g2', rules: [{ name: 'drop' }] } }])
    .when('/admin/quota/rules/drop', { method: 'DELETE' })
    .then(expectResponse(204), expectNewEvents([{ kind: 'quota.rule.deleted', payload: { name: 'drop' } }]));
  t.equal(del.text, '');
  t.strictSame((await call('/admin/quota/groups')).json, [
    { name: 'g1', rules: [{ name: 'keep', limit: 1 }] },
    { name: 'g2', rules: [] },
  ]);
  t.equal((await call('/admin/quota/rules/drop')).status, 404);
  t.equal((await call('/admin/quota/rules/drop', { method: 'DELETE' })).status, 404);
  const again = await call('/admin/quota/rules', { body: { name: 'drop', limit: 3 } });
  t.equal(again.status, 201, 'the name is free again');
  t.strictSame((await call('/admin/quota/groups/g2')).json, { name: 'g2', rules: [] }, 'a re-created rule is not linked back');
});
