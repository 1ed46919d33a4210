// Deeply nested JSON bodies: every route that takes a body refuses one nested past 64 levels with
// 400 json_too_deep (the forge routes in their {message, url} shape) before schema validation, and
// writes nothing; a payload nested exactly 64 levels is accepted. Before the limit, a 5,000-level
// body overflowed the stack in the plain-JSON guard and answered 500.
import t from 'tap';
import { expectNoEvents, expectResponse, spec } from '../fixtures/api-spec.ts';
import { BODY_ROUTES, bodyRoutes } from '../fixtures/body-routes.ts';
import { assertSchema, rawEvent, SCOPE_A, testApp } from '../fixtures/test-app.ts';

const DEEP = 5_000;
/** `{"a":[[[…]]]}` with `levels` arrays, as text (JSON.stringify itself recurses). */
const deepBody = (levels: number) => `{"a":${'['.repeat(levels)}${']'.repeat(levels)}}`;
/** A value of exactly `levels` nested containers, objects and arrays by turns, built without recursion. */
function nested(levels: number): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < levels; i++) value = i % 2 === 0 ? [value] : { a: value };
  return value;
}
/** The pointer of the first container 65 steps deep in deepBody: /a, then 64 array indexes. */
const POINTER_65 = `/a${'/0'.repeat(64)}`;


t.test('the sweep covers every route that takes a body, the forge routes included', async (t) => {
  const paths = BODY_ROUTES.map((r) => `${r.method} ${r.path}`);
  for (const expected of [
    'POST /v1/events', 'POST /v1/tasks', 'POST /v1/tasks/{task_id}/checkpoints', 'POST /v1/tasks/{task_id}/closeout',
    'POST /v1/claim-boundaries/evaluate', 'POST /v1/proof-packets', 'POST /v1/templates/validate', 'POST /v1/signatures/verify',
    'POST /admin/quota/rules', 'PATCH /admin/quota/rules/{quotarule}', 'POST /admin/quota/groups',
    'POST /admin/users/{username}/quota/groups', 'PUT /admin/forge/data', 'PUT /api/v1/admin/forge/data',
  ]) t.ok(paths.includes(expected), expected);
});

t.test(`a ${DEEP}-level body is 400 json_too_deep on every body route and writes nothing`, async (t) => {
  const app = await testApp(t, { forgeData: 'fixture' });
  for (const { route, what, path, call } of await bodyRoutes(t, app.call)) {
    const res = await spec(t, app, what).when(path, { ...call, body: deepBody(DEEP), idempotencyKey: `deep-${what}` })
      .then(expectResponse(400), expectNoEvents());
    if (route.responses[400] === 'quota/forge-error.json') {
      assertSchema(t, 'quota/forge-error.json', res.json, `${what}: forge error body`);
      t.match(res.json.message, /nested deeper than 64 levels/, `${what}: says why`);
    } else {
      assertSchema(t, 'api/problem.json', res.json, `${what}: problem body`);
      t.strictSame(res.json, {
        type: 'https://schemas.gov.local/problems/json_too_deep',
        title: 'JSON nested too deeply',
        status: 400,
        detail: res.json.detail,
        code: 'json_too_deep',
        request_id: res.headers.get('x-request-id'),
        errors: [{ pointer: POINTER_65, detail: 'nested deeper than 64 levels' }],
      }, `${what}: the problem names the first level too deep`);
    }
  }
});

t.test('an ext payload nested 64 levels is accepted; one level more is refused', async (t) => {
  const app = await testApp(t);
  const ok = await app.call('/v1/events', { body: rawEvent(SCOPE_A, { payload: nested(64) }), idempotencyKey: 'k-64' });
  t.equal(ok.status, 201);
  assertSchema(t, 'api/event-response.json', ok.json);
  t.strictSame(ok.json.event.payload, nested(64), 'stored as sent');
  const deeper = await spec(t, app).when('/v1/events', { body: rawEvent(SCOPE_A, { payload: nested(65) }), idempotencyKey: 'k-65' })
    .then(expectResponse(400, { code: 'json_too_deep' }), expectNoEvents());
  // The payload (an array here) is step 1; its 65th container is step 65: /payload, then /0 and /a by turns.
  const steps = Array.from({ length: 64 }, (_, i) => (i % 2 === 0 ? '/0' : '/a')).join('');
  t.strictSame(deeper.json.errors, [{ pointer: `/payload${steps}`, detail: 'nested deeper than 64 levels' }]);
});

t.test('a deep body also fails before the content is looked at: malformed JSON stays malformed_json', async (t) => {
  const { call } = await testApp(t);
  const res = await call('/v1/events', { body: `${deepBody(DEEP)}x`, idempotencyKey: 'k' });
  t.equal(res.status, 400);
  t.equal(res.json.code, 'malformed_json');
});
