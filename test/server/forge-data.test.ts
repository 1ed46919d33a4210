// The forge data set: PUT /admin/forge/data (204, one event; a bad shape or an unknown reference is
// a 400 naming it, nothing written), GET reads it back, and ensureForgeData at preview start
// (the bundled fixture once, a --forge-data file, a bad file with its line).
import t from 'tap';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isAppError } from '../../src/errors.ts';
import { testSchemas as schemaRegistry } from '../fixtures/templates.ts';
import { DEFAULT_FORGE_DATA_PATH } from '../../src/deps.ts';
import { ensureForgeData, parseForgeDataText, readForgeDataFile } from '../../src/service/quota/forge-data.ts';
import { expectNewEvents, expectNoEvents, expectResponse, spec } from '../fixtures/api-spec.ts';
import { quotaApp } from '../fixtures/quota-app.ts';
import { assertSchema, tempDir } from '../fixtures/test-app.ts';

const fixture = JSON.parse(readFileSync(DEFAULT_FORGE_DATA_PATH, 'utf8'));
const loadFixture = () => structuredClone(fixture);
const small = { users: [{ login: 'zed', full_name: 'Zed' }], repos: [{ owner: 'zed', name: 'r', size: 4096, lfs_size: 1024 }] };

t.test('the bundled fixture is loaded at the first start; GET reads it back', async (t) => {
  const { call, eventsAfter } = await quotaApp(t);
  const events = eventsAfter(0);
  t.same(events.map((e) => [e.kind, e.transport, e.tenant_id]), [['forge.data.replaced', 'operator', 'forge']]);
  t.equal(events[0]!.payload.source, 'fixture');
  const res = await call('/admin/forge/data');
  t.equal(res.status, 200);
  assertSchema(t, 'quota/forge-data.json', res.json);
  t.strictSame(res.json, fixture);
  t.equal((await call('/admin/forge/data', { token: 'customer' })).status, 403);
  t.equal((await call('/api/v1/admin/forge/data', { token: null })).status, 401);
});

t.test('PUT replaces the whole data set: 204, one event, usage follows', async (t) => {
  const app = await quotaApp(t);
  const { call } = app;
  await spec(t, app)
    .given(['/admin/quota/groups', { body: { name: 'g' } }], ['/admin/quota/groups/g/users/alice', { method: 'PUT' }])
    .when('/api/v1/admin/forge/data', { method: 'PUT', body: small })
    .then(expectResponse(204), expectNewEvents([{ kind: 'forge.data.replaced', payload: { data: small, source: 'api' } }]));
  t.strictSame((await call('/admin/forge/data')).json, small);
  t.strictSame((await call('/user/quota', { sudo: 'zed' })).json.used.size.git, { LFS: 1024 });
  t.equal((await call('/user/quota', { sudo: 'alice' })).status, 404, 'alice is gone with the old data');
  t.strictSame((await call('/admin/quota/groups/g/users')).json, [], 'a member not in the data is not listed');
  await call('/admin/forge/data', { method: 'PUT', body: fixture });
  t.same((await call('/admin/quota/groups/g/users')).json.map((u: any) => u.login), ['alice'], 'the membership is kept by name');
  t.equal((await call('/admin/forge/data', { method: 'PUT', body: {} })).status, 204, 'every list is optional');
  t.strictSame((await call('/admin/forge/data')).json, {});
});

t.test('PUT refuses a bad data set with a 400 that names the problem, and writes nothing', async (t) => {
  const app = await quotaApp(t);
  const cases: [string, unknown, RegExp][] = [
    ['unknown owner of a repository', { users: [{ login: 'a' }], repos: [{ owner: 'ghost', name: 'r', size: 1 }] }, /ghost/],
    ['unknown repository of an attachment', { users: [{ login: 'a' }], attachments: [{ repo: 'a/none', kind: 'issue', name: 'x', size: 1 }] }, /a\/none/],
    ['unknown repository of a package', { users: [{ login: 'a' }], packages: [{ owner: 'a', repo: 'a/none', name: 'p', type: 't', version: '1', size: 1 }] }, /a\/none/],
    ['unknown organisation owner', { users: [{ login: 'a' }], orgs: [{ login: 'o', owners: ['ghost'] }] }, /ghost/],
    ['negative size', { users: [{ login: 'a' }], repos: [{ owner: 'a', name: 'r', size: -1 }] }, /\/repos\/0\/size/],
    ['unknown member', { users: [{ login: 'a', email: 'x' }] }, /email/],
    ['not an object', [], /root|must be object/],
    // A path removes "." and ".." as dot-segments: such a user or org could never be addressed.
    ['a login of two dots', { users: [{ login: '..' }] }, /\/users\/0\/login must not be one of/],
    ['an org login of one dot', { users: [{ login: 'a' }], orgs: [{ login: '.', owners: ['a'] }] }, /\/orgs\/0\/login must not be one of/],
  ];
  for (const [what, body, named] of cases) {
    // A 400 here is the forge's error body: the spec checks it against quota/forge-error.json.
    const res = await spec(t, app, what).when('/admin/forge/data', { method: 'PUT', body }).then(expectResponse(400), expectNoEvents());
    t.match(res.json.message, named, `${what}: the message names it`);
  }
  await spec(t, app, 'malformed JSON').when('/admin/forge/data', { method: 'PUT', body: '{' }).then(expectResponse(400), expectNoEvents());
});

t.test('ensureForgeData: the fixture once, a given data set unless unchanged, bad files exit-2 errors', async (t) => {
  const dataDir = tempDir(t);
  const first = await quotaApp(t, { dataDir, forgeData: null });
  t.equal(await ensureForgeData(first.deps.quota, null, loadFixture), 'loaded_fixture');
  t.equal(await ensureForgeData(first.deps.quota, null, loadFixture), 'kept', 'a store with forge data keeps it');
  t.equal(await ensureForgeData(first.deps.quota, small, loadFixture), 'loaded_file');
  t.equal(await ensureForgeData(first.deps.quota, structuredClone(small), loadFixture), 'unchanged', 'the same data again appends nothing');
  t.same(first.eventsAfter(0).map((e) => e.payload.source), ['fixture', 'file']);
  await first.close();
  const second = await quotaApp(t, { dataDir });
  t.strictSame((await second.call('/admin/forge/data')).json, small, 'a restart keeps the data set');
  await second.close();

  const registry = schemaRegistry();
  const file = join(tempDir(t), 'forge.json');
  writeFileSync(file, JSON.stringify(small));
  t.strictSame(readForgeDataFile(file, registry), small);
  const bad: [string, string, number][] = [
    ['syntax', '{\n  "users": [\n    {"login": "a"},\n  ]\n}\n', 4],
    ['schema', '{\n  "users": [\n    {"login": "a", "is_admin": "yes"}\n  ]\n}\n', 3],
    ['reference', '{\n  "users": [{"login": "a"}],\n  "repos": [\n    {"owner": "b", "name": "r", "size": 1}\n  ]\n}\n', 4],
  ];
  for (const [what, text, line] of bad) {
    try {
      parseForgeDataText(text, 'forge.json', registry);
      t.fail(`${what}: accepted`);
    } catch (err) {
      t.ok(isAppError(err) && err.code === 'bad_input_file', `${what}: bad_input_file`);
      t.equal(isAppError(err) ? err.extra?.line : undefined, line, `${what}: line`);
    }
  }
  t.throws(() => readForgeDataFile(join(tempDir(t), 'missing.json'), registry), { code: 'bad_input_file' });
});
