// One declaration per route: a route added to the declarations is mounted with the checks its
// declaration calls for (in the one order), and /health, /openapi.json, the README's tables and the
// smoke coverage rule all list it — without another edit.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { createApp } from '../../src/server/create-app.ts';
import { buildOpenApi } from '../../src/server/openapi.ts';
import type { Route } from '../../src/server/route-spec.ts';
import { ROUTES, routeTable } from '../../src/server/route-table.ts';
import { coverageOutcome, smokeSuite } from '../../src/smoke/runner.ts';
import { README, routeTables, withRouteTables } from '../../scripts/readme-routes.ts';
import { HOST, SCOPE_A, testApp, TOKENS } from '../fixtures/test-app.ts';
import { testSchemas } from '../fixtures/templates.ts';

const key = (r: { method: string; path: string }) => `${r.method} ${r.path}`;

t.test('every declared route is in /health, /openapi.json, the README and the smoke coverage', async (t) => {
  const { call } = await testApp(t);
  const declared = routeTable().map(key);
  t.same((await call('/health')).json.routes.map(key), declared, '/health lists the declarations in order');
  const doc = (await call('/openapi.json', { token: null })).json as { paths: Record<string, Record<string, unknown>> };
  const documented = Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).filter((m) => m !== 'parameters').map((m) => `${m.toUpperCase()} ${path}`));
  t.same(documented.sort(), [...declared].sort(), 'OpenAPI has one operation per declaration');
  t.equal(readFileSync(README, 'utf8'), withRouteTables(readFileSync(README, 'utf8')), 'the README tables are the generated ones (npm run gen:readme)');
  const listed = routeTable().map((r) => ({ method: r.method, path: r.path }));
  t.equal(coverageOutcome(smokeSuite(listed, buildOpenApi(routeTable(), testSchemas()) as never), listed).status, 'passed', 'gov smoke has a happy-path check for each');
});

t.test('a new declaration is served with its checks, in order, and described everywhere', async (t) => {
  const echo: Route = {
    method: 'POST', path: '/v1/echo/{echo_id}', status: 'preview', access: 'write', scoped: true, summary: 'Echo the body (test only).',
    request: 'api/template-validate-request.json', responses: { 200: null },
    handler: (c) => c.json({ id: c.req.param('echo_id'), scope: c.get('scope'), body: c.get('body') }),
  };
  const base = await testApp(t);
  const app = createApp(base.deps, [...ROUTES, echo]);
  const send = (headers: Record<string, string>, body?: string) =>
    app.request(`http://${HOST}/v1/echo/e1`, { method: 'POST', headers: { Host: HOST, ...headers }, ...(body === undefined ? {} : { body }) });
  const auth = { Authorization: `Bearer ${TOKENS.customer}` };
  const scope = { 'X-Tenant-Id': SCOPE_A.tenant_id, 'X-Workspace-Id': SCOPE_A.workspace_id, 'X-Project-Id': SCOPE_A.project_id };
  const json = { 'Content-Type': 'application/json' };
  const codeOf = async (res: Response) => [res.status, ((await res.json()) as { code?: string }).code];
  t.same(await codeOf(await send({}, '{')), [401, 'unauthorized'], 'the token first');
  t.same(await codeOf(await send({ Authorization: `Bearer ${TOKENS.operator}` }, '{')), [403, 'operator_transport_rejected'], 'then the transport of a write');
  t.same(await codeOf(await send(auth, '{')), [400, 'scope_required'], 'then the scope headers');
  t.same(await codeOf(await send({ ...auth, ...scope }, '{')), [415, 'unsupported_media_type'], 'then the body');
  t.same(await codeOf(await send({ ...auth, ...scope, ...json }, '{')), [400, 'malformed_json']);
  const ok = await send({ ...auth, ...scope, ...json }, '{"a":1}');
  t.equal(ok.status, 200);
  t.same(await ok.json(), { id: 'e1', scope: SCOPE_A, body: { a: 1 } }, "the handler reads the request's scope and body");
  const health = (await (await app.request(`http://${HOST}/health`, { headers: { Host: HOST } })).json()) as { routes: { method: string; path: string }[] };
  t.ok(health.routes.some((r) => key(r) === 'POST /v1/echo/{echo_id}'), '/health lists it');
  const doc = (await (await app.request(`http://${HOST}/openapi.json`, { headers: { Host: HOST } })).json()) as { paths: Record<string, unknown> };
  t.ok(doc.paths['/v1/echo/{echo_id}'], '/openapi.json describes it');
  t.match(routeTables([...routeTable(), echo]).api, '| POST | `/v1/echo/{echo_id}` | preview | Echo the body (test only). |', 'the README table would list it');
  const listed = [...routeTable(), echo].map((r) => ({ method: r.method, path: r.path }));
  t.match(coverageOutcome(smokeSuite(listed, buildOpenApi([...routeTable(), echo], testSchemas()) as never), listed).detail, 'POST /v1/echo/{echo_id}', 'smoke coverage asks for its check');
});
