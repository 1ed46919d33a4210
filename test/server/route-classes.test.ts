// Route and template classes (GOVERNANCE.md section K): the seed's live routes stay `live`; a route
// that is served, schema-described and smoke-checked is `preview`; `target` is only for what is not
// served. The classes are hand-written in the route table and the template files, so this test
// derives each one from those facts and compares.
import t from 'tap';
import { routeTable } from '../../src/server/create-app.ts';
import { buildOpenApi } from '../../src/server/openapi.ts';
import { routeKey } from '../../src/smoke/check.ts';
import { coverageOutcome, smokeSuite } from '../../src/smoke/runner.ts';
import { LIVE_IDS, testSchemas as schemaRegistry, testTemplates as templateRegistry } from '../fixtures/templates.ts';

/** The seed's "Live on the hosted API" table. */
const SEED_LIVE = [
  'GET /health',
  'GET /v1/templates',
  'GET /v1/templates/{template_id}',
  'POST /v1/templates/validate',
  'POST /v1/tasks',
  'POST /v1/tasks/{task_id}/checkpoints',
  'POST /v1/tasks/{task_id}/closeout',
  'GET /v1/tasks/{task_id}/timeline',
  'GET /v1/search',
  'POST /v1/events',
];

const routes = routeTable();
const served = new Set(routes.map((r) => routeKey(`${r.method} ${r.path}`)));
const listed = routes.map((r) => ({ method: r.method, path: r.path }));

t.test('every mounted route is served, schema-described and smoke-checked', async (t) => {
  const doc = buildOpenApi(routes, schemaRegistry());
  for (const r of routes) {
    const op = (doc.paths[r.path] as Record<string, any> | undefined)?.[r.method.toLowerCase()];
    const success = Object.entries(op?.responses ?? {}).find(([status]) => status.startsWith('2') || status === '303');
    t.ok(success, `${r.method} ${r.path} has a success response in the document`);
  }
  const coverage = coverageOutcome(smokeSuite(listed, doc as any), listed);
  t.equal(coverage.status, 'passed', coverage.detail || 'every mounted route has a happy-path smoke check');
});

t.test('a mounted route is live when the seed says so, else preview; never target', async (t) => {
  for (const r of routes) {
    const key = `${r.method} ${r.path}`;
    t.equal(r.status, SEED_LIVE.includes(key) ? 'live' : 'preview', key);
  }
  t.same(SEED_LIVE.filter((key) => !served.has(routeKey(key))), [], 'every seed live route is served');
});

t.test('templates: live for the seed five, preview when their route is served, target otherwise', async (t) => {
  for (const tpl of templateRegistry().list()) {
    const routeServed = served.has(routeKey(`${tpl.route.method} ${tpl.route.path}`));
    const expected = LIVE_IDS.includes(tpl.template_id) ? 'live' : routeServed ? 'preview' : 'target';
    t.equal(tpl.status, expected, `${tpl.template_id} (${tpl.route.method} ${tpl.route.path}${routeServed ? ', served' : ''})`);
  }
});
