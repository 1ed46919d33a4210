// Who may call the forge quota routes, checked on every route of QUOTA_ROUTES (both path families):
// no or a wrong token → 401 with WWW-Authenticate; the customer token → 403 on admin routes before
// any 404 or body check; Sudo for the user routes; quota switched off → 404 on every quota route,
// after authentication (401/403 first, so the switch is not revealed).
import t from 'tap';
import { QUOTA_ROUTES } from '../../src/server/routes/quota.ts';
import { expectNoEvents, expectResponse, spec } from '../fixtures/api-spec.ts';
import { quotaApp } from '../fixtures/quota-app.ts';
import { assertSchema } from '../fixtures/test-app.ts';

const E = 'quota/forge-error.json';
const concrete = (path: string, names: Record<string, string> = {}) =>
  path.replace(/\{(\w+)\}/g, (_, name: string) => names[name] ?? { quotarule: 'missing-rule', quotagroup: 'missing-group', username: 'alice', org: 'acme-org' }[name]!);
const bodyFor = (method: string) => (['POST', 'PUT', 'PATCH'].includes(method) ? '{not json' : undefined);

t.test('the table lists every route under the seed path and again under /api/v1', async (t) => {
  const bare = QUOTA_ROUTES.filter((r) => !r.path.startsWith('/api/v1/'));
  const v1 = QUOTA_ROUTES.filter((r) => r.path.startsWith('/api/v1/'));
  t.equal(bare.length, 29);
  t.same(v1.map((r) => `${r.method} ${r.path}`), bare.map((r) => `${r.method} /api/v1${r.path}`));
  t.ok(QUOTA_ROUTES.every((r) => r.status === 'preview' && !r.scoped));
  t.equal(new Set(QUOTA_ROUTES.map((r) => `${r.method} ${r.path}`)).size, QUOTA_ROUTES.length, 'no route twice');
});

t.test('no token or a wrong one: 401, WWW-Authenticate: Bearer, the forge error body, on every route', async (t) => {
  const app = await quotaApp(t);
  for (const route of QUOTA_ROUTES) {
    for (const token of [null, 'wrong-token']) {
      const res = await spec(t, app, `${route.method} ${route.path} token=${token}`).when(concrete(route.path), { method: route.method, token, body: bodyFor(route.method) })
        .then(expectResponse(401), expectNoEvents());
      t.equal(res.headers.get('www-authenticate'), 'Bearer');
      assertSchema(t, E, res.json, `${route.method} ${route.path}: forge body`);
      t.ok(res.headers.get('x-request-id'), 'the root request context still runs');
      t.match(res.json.message, token === null ? /^token is required/ : /^the token is not valid/, `${route.method} ${route.path}: says which`);
    }
  }
});

t.test('admin routes: the customer token is 403 before any 404, 400 or 422', async (t) => {
  const app = await quotaApp(t);
  for (const route of QUOTA_ROUTES.filter((r) => r.access === 'admin')) {
    const path = concrete(route.path, { username: 'nobody' });
    for (const sudo of [undefined, 'forge-admin']) {
      const res = await spec(t, app, `${route.method} ${path} sudo=${sudo}`).when(path, { method: route.method, token: 'customer', sudo, body: bodyFor(route.method) })
        .then(expectResponse(403), expectNoEvents());
      assertSchema(t, E, res.json);
    }
  }
});

t.test('check order with the operator token: missing target before the body', async (t) => {
  const { call } = await quotaApp(t);
  const cases: [string, string, unknown, number][] = [
    ['PATCH', '/admin/quota/rules/missing', '{bad', 404],
    ['PUT', '/admin/quota/groups/missing/rules/missing', '{bad', 404],
    ['PUT', '/admin/quota/groups/missing/users/nobody', '{bad', 404],
    ['POST', '/admin/users/nobody/quota/groups', '{bad', 404],
    ['POST', '/admin/users/nobody/quota/groups', { groups: ['missing'] }, 404],
  ];
  for (const [method, path, body, status] of cases) {
    const res = await call(path, { method, body });
    t.equal(res.status, status, `${method} ${path}`);
    t.strictSame(res.json.errors, []);
  }
  t.equal((await call('/admin/quota/rules', { headers: { Host: 'evil.example:7337' } })).status, 403, 'the root Host guard runs first');
});

t.test('user routes act as the Sudo user; without Sudo or with the customer token they refuse', async (t) => {
  const { call } = await quotaApp(t);
  const userRoutes = QUOTA_ROUTES.filter((r) => r.access === 'read');
  t.equal(userRoutes.length, 22);
  for (const route of userRoutes) {
    const path = concrete(route.path) + (route.path.endsWith('/check') ? '?subject=size:all' : '');
    const cases: [string, Parameters<typeof call>[1], number][] = [
      ['operator without Sudo', {}, 403],
      ['customer with Sudo', { token: 'customer', sudo: 'alice' }, 403],
      ['customer without Sudo', { token: 'customer' }, 403],
      ['Sudo names nobody', { sudo: 'nobody' }, 404],
      ['Sudo names an organisation', { sudo: 'acme-org' }, 404],
      ['operator with Sudo', { sudo: 'ALICE' }, 200],
    ];
    for (const [what, c, status] of cases) {
      const res = await call(path, c);
      t.equal(res.status, status, `${path}: ${what}`);
      if (status !== 200) assertSchema(t, E, res.json, `${path}: ${what}`);
    }
  }
  t.equal((await call('/user/quota?sudo=bob')).status, 200, 'the forge also reads ?sudo=');
});

t.test('Sudo is not needed on admin routes and does not change them', async (t) => {
  const { call } = await quotaApp(t);
  t.equal((await call('/admin/quota/rules', { sudo: 'alice' })).status, 200);
  t.equal((await call('/admin/quota/rules', { sudo: 'nobody' })).status, 200);
});

t.test('quota switched off: 404 on every quota route, but only for the operator; forge data and repos stay', async (t) => {
  const app = await quotaApp(t, { quota: { enabled: false } });
  const { call } = app;
  const quotaRoutes = QUOTA_ROUTES.filter((r) => r.path.includes('/quota'));
  t.equal(quotaRoutes.length, 2 * 26);
  for (const route of quotaRoutes) {
    const path = concrete(route.path, { quotagroup: 'g', quotarule: 'r' });
    // Authentication comes first: a call without the operator token cannot tell whether quota is on.
    const cases: [string | null, number][] = [[null, 401], ['wrong-token', 401], ['customer', 403], ['operator', 404]];
    for (const [token, status] of cases) {
      const res = await spec(t, app, `${route.method} ${route.path} token=${token}`).when(path, { method: route.method, token, sudo: 'alice', body: bodyFor(route.method) })
        .then(expectResponse(status), expectNoEvents());
      assertSchema(t, E, res.json);
      if (status === 401) t.equal(res.headers.get('www-authenticate'), 'Bearer');
      if (status === 404) t.strictSame(res.json.errors, []);
    }
  }
  // Forge data is not quota: it stays served, behind the same authentication.
  for (const prefix of ['', '/api/v1']) {
    t.equal((await call(`${prefix}/admin/forge/data`)).status, 200);
    t.equal((await call(`${prefix}/admin/forge/data`, { token: null })).status, 401);
    t.equal((await call(`${prefix}/admin/forge/data`, { token: 'customer' })).status, 403);
    t.equal((await call(`${prefix}/user/repos`, { sudo: 'alice' })).status, 200);
    t.equal((await call(`${prefix}/user/repos`, { token: null, sudo: 'alice' })).status, 401);
  }
});
