// Query parameters are declared once, in the route tables: every declared parameter is checked
// (an invalid value gets the route's own answer: 400 invalid_query on /v1, the forge's codes and
// leniency on the forge routes), and every parameter a route reads is declared.
import t, { type Test } from 'tap';
import { HonoRequest } from 'hono/request';
import { routeTable } from '../../src/server/create-app.ts';
import { FORGE_API_PREFIX } from '../../src/server/routes/quota.ts';
import type { RouteSpec } from '../../src/server/route-table.ts';
import { assertSchema, SCOPE_A, testApp } from '../fixtures/test-app.ts';

/** An invalid value and what the route answers: refused with a status and code, or read as another value (the forge's leniency). */
type Case = { value: string; status: 400 | 404 | 422; code?: string } | { value: string; readAs: string | null };

/** Per route (forge routes without their /api/v1 twin) and parameter. A declared parameter missing here fails the test. */
const CASES: Record<string, Case[]> = {
  '/v1/tasks/{task_id}/timeline?after_seq': [{ value: '-1', status: 400 }, { value: 'x', status: 400 }, { value: '9007199254740992', status: 400 }, { value: '1.5', status: 400 }],
  '/v1/tasks/{task_id}/timeline?limit': [{ value: '0', status: 400 }, { value: '1001', status: 400 }, { value: '+5', status: 400 }],
  '/v1/tasks?status': [{ value: 'done', status: 400 }, { value: '', status: 400 }],
  '/v1/tasks?limit': [{ value: '0', status: 400 }, { value: '101', status: 400 }, { value: 'x', status: 400 }],
  '/v1/tasks?cursor': [{ value: '!!', status: 400 }, { value: 'x', status: 400 }],
  '/v1/events/stream?after_seq': [{ value: '-1', status: 400 }, { value: 'x', status: 400 }, { value: '1.5', status: 400 }],
  '/v1/search?q': [{ value: '', status: 400 }, { value: 'x'.repeat(257), status: 400 }],
  '/v1/search?kind': [{ value: 'Task.created', status: 400 }, { value: '1x', status: 400 }, { value: '', status: 400 }],
  '/v1/search?task_id': [{ value: '-bad', status: 400 }, { value: 'x', status: 400 }],
  '/v1/search?limit': [{ value: '0', status: 400 }, { value: '101', status: 400 }],
  '/v1/search?cursor': [{ value: '0', status: 400 }, { value: 'abc', status: 400 }],
  '/v1/governance/assets?tier': [{ value: 'extreme', status: 400 }, { value: 'HIGH', status: 400 }, { value: '', status: 400 }],
  '/v1/governance/assets?status': [{ value: 'in_use', status: 400 }, { value: '', status: 400 }],
  '/v1/governance/assets?limit': [{ value: '0', status: 400 }, { value: '201', status: 400 }, { value: 'x', status: 400 }],
  '/v1/governance/assets?cursor': [{ value: '-bad', status: 400 }, { value: 'x', status: 400 }],
  '/v1/approvals?status': [{ value: 'open', status: 400 }, { value: '', status: 400 }],
  '/v1/approvals?asset_id': [{ value: '-bad', status: 400 }],
  '/v1/approvals?assignee_role': [{ value: 'boss', status: 400 }],
  '/v1/approvals?limit': [{ value: '0', status: 400 }, { value: '201', status: 400 }],
  '/v1/approvals?cursor': [{ value: 'x', status: 400 }],
  '/v1/reviews?status': [{ value: 'late', status: 400 }, { value: 'Due', status: 400 }],
  '/v1/reviews?asset_id': [{ value: '-bad', status: 400 }],
  '/v1/reviews?limit': [{ value: '0', status: 400 }, { value: '201', status: 400 }],
  '/v1/reviews?cursor': [{ value: 'x', status: 400 }],
  '/v1/regulatory/posture?profile_id': [{ value: '', status: 400 }, { value: 'Bad Id', status: 400 }],
  '/v1/regulatory/posture?asset_id': [{ value: '-bad', status: 400 }],
  '/v1/incidents?status': [{ value: 'closed-ish', status: 400 }, { value: '', status: 400 }],
  '/v1/incidents?severity': [{ value: 'sev5', status: 400 }, { value: 'SEV1', status: 400 }],
  '/v1/incidents?asset_id': [{ value: '-bad', status: 400 }],
  '/v1/incidents?limit': [{ value: '0', status: 400 }, { value: '201', status: 400 }],
  '/v1/incidents?cursor': [{ value: 'x', status: 400 }],
  '/v1/access-log?actor_id': [{ value: '-bad', status: 400 }],
  '/v1/access-log?action': [{ value: 'read', status: 400 }],
  '/v1/access-log?outcome': [{ value: 'maybe', status: 400 }],
  '/v1/access-log?resource_type': [{ value: 'Asset', status: 400 }, { value: '9x', status: 400 }],
  '/v1/access-log?resource_id': [{ value: '-bad', status: 400 }],
  '/v1/access-log?after_seq': [{ value: '-1', status: 400 }, { value: 'x', status: 400 }],
  '/v1/access-log?limit': [{ value: '0', status: 400 }, { value: '100000', status: 400 }],
  '/v1/exports/{kind}?as_of': [{ value: 'yesterday', status: 400 }, { value: '2026-13-01T00:00:00Z', status: 400 }],
  '/v1/exports/{kind}?format': [{ value: 'csv', status: 400 }],
  '/user/quota/check?subject': [{ value: '', status: 422 }, { value: 'size:lfs', status: 422 }, { value: 'SIZE:ALL', status: 422 }],
  '/orgs/{org}/quota/check?subject': [{ value: ' ', status: 422 }, { value: 'size', status: 422 }],
  '/user/repos?order_by': [{ value: 'weight', status: 422 }, { value: ' size', status: 422 }, { value: '', readAs: null }],
  '?page': [{ value: 'x', readAs: null }, { value: '0', readAs: null }, { value: '-3', readAs: null }, { value: '+1', readAs: null }],
  '?limit': [{ value: 'x', readAs: null }, { value: '0', readAs: null }, { value: '100', readAs: '50' }, { value: '1e3', readAs: null }],
  '?sudo': [{ value: 'nobody', status: 404 }],
};
/** The paged forge lists share their page/limit cases, and every /user and /orgs route its sudo case. */
function casesOf(route: RouteSpec, name: string): Case[] | undefined {
  const path = route.path.startsWith(`${FORGE_API_PREFIX}/`) ? route.path.slice(FORGE_API_PREFIX.length) : route.path;
  return CASES[`${path}?${name}`] ?? (path.startsWith('/v1/') ? undefined : CASES[`?${name}`]);
}

/** Valid values of the other parameters, so that only the one under test is wrong. */
const BASELINE: Record<string, Record<string, string>> = {
  '/v1/search': { kind: 'task.created' },
  '/v1/regulatory/posture': { profile_id: 'nyc-ll144' },
  '/user/quota/check': { subject: 'size:all' },
  '/orgs/{org}/quota/check': { subject: 'size:all' },
};

type App = Awaited<ReturnType<typeof testApp>>;

async function setUp(t: Test): Promise<App> {
  const app = await testApp(t, { forgeData: 'fixture' });
  const created = await app.call('/v1/tasks', { token: 'customer', scope: SCOPE_A, body: { task_id: 'task-1', title: 'Rotate the billing exporter key', session_id: 'sess-1' } });
  t.equal(created.status, 201, 'a task to read');
  return app;
}

/** The route called with `query`: /v1 as the customer in scope A, the forge routes as the operator acting as alice. */
function request(app: App, route: RouteSpec, query: Record<string, string>, sudoHeader = true) {
  const path = route.path.replace('{task_id}', 'task-1').replace('{org}', 'acme-org').replace('{template_id}', 'closeout').replace('{kind}', 'assets').replace(/\{[a-z_]+\}/g, 'no-such-thing');
  const url = `${path}${Object.keys(query).length === 0 ? '' : `?${new URLSearchParams(query)}`}`;
  if (route.path.startsWith('/v1/')) return app.call(url, { method: route.method, token: 'customer', scope: SCOPE_A, ...(route.method === 'GET' ? {} : { body: {} }) });
  return app.call(url, { method: route.method, token: 'operator', scope: null, ...(sudoHeader && route.access === 'read' ? { sudo: 'alice' } : {}), ...(route.method === 'GET' || route.method === 'DELETE' ? {} : { body: {} }) });
}

t.test('every declared query parameter at an invalid value gets the route\'s answer, nothing else', async (t) => {
  const app = await setUp(t);
  // GET /console/login's one parameter is a one-time code: no fixed value answers 200 (test/server/console-session.test.ts).
  const declared = routeTable().filter((r) => r.query !== undefined && r.path !== '/console/login');
  t.ok(declared.length >= 20, `${declared.length} routes declare query parameters`);
  for (const route of declared) {
    const baseline = BASELINE[route.path.replace(FORGE_API_PREFIX, '')] ?? {};
    // The event stream's 200 never ends (test/server/event-stream.test.ts reads it); its refusals come first.
    if (route.path !== '/v1/events/stream') {
      const valid = await request(app, route, baseline);
      t.equal(valid.status, 200, `${route.method} ${route.path}?${new URLSearchParams(baseline)} answers 200`);
    }
    for (const name of Object.keys(route.query!)) {
      const cases = casesOf(route, name);
      t.ok(cases, `${route.path}?${name} has cases here`);
      for (const c of cases ?? []) {
        const what = `${route.path}?${name}=${c.value.slice(0, 20)}`;
        const res = await request(app, route, { ...baseline, [name]: c.value }, name !== 'sudo');
        if ('readAs' in c) {
          const { [name]: _dropped, ...rest } = baseline;
          const same = await request(app, route, c.readAs === null ? rest : { ...rest, [name]: c.readAs });
          t.equal(res.status, 200, `${what}: not refused`);
          t.same([res.json, res.headers.get('x-total-count')], [same.json, same.headers.get('x-total-count')], `${what}: read as ${c.readAs ?? 'absent'}`);
        } else if (route.path.startsWith('/v1/')) {
          t.equal(res.status, c.status, `${what}: ${c.status}`);
          assertSchema(t, 'api/problem.json', res.json, `${what}: a problem`);
          t.equal(res.json.code, 'invalid_query', `${what}: invalid_query`);
          t.same(res.json.errors.map((e: { pointer: string }) => e.pointer), [`/query/${name}`], `${what}: names the parameter`);
        } else {
          t.equal(res.status, c.status, `${what}: ${c.status}`);
          assertSchema(t, 'quota/forge-error.json', res.json, `${what}: the forge's error body`);
        }
      }
    }
  }
});

t.test('every refused parameter is named, the first one\'s message leads', async (t) => {
  const app = await setUp(t);
  const search = routeTable().find((r) => r.path === '/v1/search')!;
  const res = await request(app, search, { q: 'x'.repeat(257), limit: '0', cursor: 'x' });
  t.equal(res.status, 400);
  t.same(res.json.errors.map((e: { pointer: string }) => e.pointer), ['/query/q', '/query/limit', '/query/cursor']);
  t.match(res.json.detail, /^q must be/);
  const undeclared = await request(app, search, { kind: 'task.created', colour: 'red', limit: '1' });
  t.equal(undeclared.status, 200, 'an undeclared parameter is ignored');
  t.equal(undeclared.json.results.length, 1);
});

t.test('every query parameter a route reads is declared', async (t) => {
  const app = await setUp(t);
  const reads = new Set<string>();
  const proto = HonoRequest.prototype as unknown as Record<'query' | 'queries', (this: HonoRequest, key?: string) => unknown>;
  const original = { query: proto.query, queries: proto.queries };
  for (const method of ['query', 'queries'] as const) {
    proto[method] = function (this: HonoRequest, key?: string) {
      reads.add(key ?? '(all)');
      return original[method].call(this, key);
    };
  }
  t.teardown(() => Object.assign(proto, original));
  // The event stream's 200 never ends; test/server/event-stream.test.ts covers its one parameter.
  for (const route of routeTable().filter((r) => r.path !== '/v1/events/stream')) {
    reads.clear();
    const declared = Object.keys(route.query ?? {});
    // Every declared parameter sent (at a value the route accepts where one is needed), so that
    // a route that reads a parameter only when another is present reads it too.
    const query = { ...Object.fromEntries(declared.map((n) => [n, n === 'sudo' ? 'alice' : '1'])), ...BASELINE[route.path.replace(FORGE_API_PREFIX, '')] };
    await request(app, route, query);
    await request(app, route, {});
    t.same([...reads].filter((n) => !declared.includes(n)), [], `${route.method} ${route.path} reads only ${declared.join(', ') || 'no query parameter'}`);
  }
});
