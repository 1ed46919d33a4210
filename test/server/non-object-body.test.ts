// Bodies that are valid JSON but no object (null, an array, a number, a string, a boolean): every
// route that takes a body refuses each with a 4xx in the shape its declaration names (spec() checks
// the answer against it: a problem, a template's validation result, the forge's error) and writes
// nothing. POST /v1/risk/evaluations, which checks its body in the service, answered 500 to a JSON
// null until npm run fuzz found it.
import t from 'tap';
import { expectNoEvents, spec } from '../fixtures/api-spec.ts';
import { bodyRoutes } from '../fixtures/body-routes.ts';
import { testApp } from '../fixtures/test-app.ts';

const NOT_OBJECTS = ['null', '[]', '[{"asset_id":"a1"}]', '5', '"a1"', 'true'];

t.test('a JSON body that is no object is a 4xx on every body route and writes nothing', async (t) => {
  const app = await testApp(t, { forgeData: 'fixture' });
  for (const { what, path, call } of await bodyRoutes(t, app.call)) {
    for (const body of NOT_OBJECTS) {
      const label = `${what} with the body ${body}`;
      const res = await spec(t, app, label).when(path, { ...call, body, idempotencyKey: `not-object-${what}-${body}` })
        .then(expectNoEvents());
      t.ok(res.status >= 400 && res.status < 500, `${label}: answers ${res.status}, a 4xx`, { body: res.text });
    }
  }
});
