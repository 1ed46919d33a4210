// Bodies that are valid JSON but no object (null, an array, a number, a string, a boolean): every
// route that takes a body refuses each with a 4xx in the shape its declaration names (spec() checks
// the answer against it: a problem, a template's validation result, the forge's error) and writes
// nothing. POST /v1/risk/evaluations, which checks its body in the service, answered 500 to a JSON
// null until npm run fuzz found it.
import t from 'tap';
import { routeTable } from '../../src/server/create-app.ts';
import { expectNoEvents, spec } from '../fixtures/api-spec.ts';
import { SCOPE_A, testApp } from '../fixtures/test-app.ts';

const NOT_OBJECTS = ['null', '[]', '[{"asset_id":"a1"}]', '5', '"a1"', 'true'];

const bodyRoutes = routeTable().filter((r) => r.request !== undefined);

t.test('a JSON body that is no object is a 4xx on every body route and writes nothing', async (t) => {
  const app = await testApp(t, { forgeData: 'fixture' });
  const { call } = app;
  // A task, a rule and an asset that exist, so that no route stops at a 404 before it reads the body.
  t.equal((await call('/v1/tasks', { body: { task_id: 'task-1', title: 'Rotate the exporter signing key', session_id: 'sess-1' }, idempotencyKey: 'setup' })).status, 201);
  t.equal((await call('/admin/quota/rules', { body: { name: 'alice', limit: 1024, subjects: ['size:all'] }, token: 'operator', scope: null })).status, 201);
  for (const route of bodyRoutes) {
    const what = `${route.method} ${route.path}`;
    const path = route.path.replace(/\{task_id\}/, 'task-1').replace(/\{[^}]+\}/g, 'alice');
    const admin = route.access === 'admin';
    for (const body of NOT_OBJECTS) {
      const label = `${what} with the body ${body}`;
      const res = await spec(t, app, label).when(path, { method: route.method, body, token: admin ? 'operator' : 'customer', scope: admin ? null : SCOPE_A, idempotencyKey: `not-object-${what}-${body}` })
        .then(expectNoEvents());
      t.ok(res.status >= 400 && res.status < 500, `${label}: answers ${res.status}, a 4xx`, { body: res.text });
    }
  }
});
