// The route-test helper itself (test/fixtures/api-spec.ts): each expectation passes on the outcome
// it states and fails on another, so a spec that says "nothing written" can catch a write. Failing
// runs happen on a detached Test whose TAP output and counts are read here.
import t, { Test, type TestOpts } from 'tap';
import { writeFileSync } from 'node:fs';
import { logPathOf } from '../../src/store/store.ts';
import { expectNewEvents, expectNoEvents, expectResponse, responseSchemaOf, routeOf, spec, type Answer } from '../fixtures/api-spec.ts';
import { rawEvent, SCOPE_A, testApp } from '../fixtures/test-app.ts';

/** Runs `body` on a Test of its own, not this file's: its failures are counted, not reported. */
async function detached(body: (tt: Test) => Promise<unknown>): Promise<{ fail: number; pass: number; tap: string }> {
  const tt = new Test({ name: 'detached' } as TestOpts);
  const out = tt.concat();
  await body(tt);
  tt.end();
  const tap = await out;
  return { fail: tt.counts.fail, pass: tt.counts.pass, tap };
}

const TASK = { task_id: 'task-1', title: 'Rotate the exporter signing key', session_id: 'sess-1' };

t.test('a write fails expectNoEvents and passes expectNewEvents with its events', async (t) => {
  const app = await testApp(t);
  const wrote = await detached((tt) => spec(tt, app).when('/v1/tasks', { body: TASK }).then(expectResponse(201), expectNoEvents()));
  t.equal(wrote.fail, 1, 'expectNoEvents fails on a write');
  t.match(wrote.tap, /not ok \d+ - POST \/v1\/tasks: nothing written/);
  t.match(wrote.tap, /"kind": "task\.created"/, 'the report names what was written');

  const listed = await detached((tt) =>
    spec(tt, app)
      .when('/v1/tasks/task-1/checkpoints', { body: { progress: 'Key rotated' } })
      .then(
        expectResponse(201, { event: { kind: 'task.checkpoint.written' } }),
        expectNewEvents([{ kind: 'task.checkpoint.written', task_id: 'task-1', payload: { progress: 'Key rotated' } }]),
      ),
  );
  t.same([listed.fail, listed.pass], [0, 4], 'status, body pattern, schema and events all pass');

  const cases: Array<[string, Parameters<typeof expectNewEvents>[0]]> = [
    ['another kind', [{ kind: 'task.closed' }]],
    ['a payload member missing', [{ kind: 'task.checkpoint.written', payload: {} }]],
    ['one event too few', []],
    ['one event too many', [{ kind: 'task.checkpoint.written' }, { kind: 'access.logged' }]],
  ];
  for (const [what, expected] of cases) {
    const run = await detached((tt) =>
      spec(tt, app)
        .when('/v1/tasks/task-1/checkpoints', { body: { progress: 'Key rotated' } })
        .then(expectNewEvents(expected)),
    );
    t.equal(run.fail, 1, `expectNewEvents fails on ${what}`);
  }
});

t.test('a refused request passes expectNoEvents; a wrong status or body fails expectResponse', async (t) => {
  const app = await testApp(t);
  const refused = await detached((tt) =>
    spec(tt, app)
      .when('/v1/events', { body: rawEvent(SCOPE_A) })
      .then(expectResponse(400, { code: 'idempotency_key_required' }), expectNoEvents()),
  );
  t.same([refused.fail, refused.pass], [0, 4], 'status, body, problem schema, nothing written');
  const status = await detached((tt) =>
    spec(tt, app)
      .when('/v1/events', { body: rawEvent(SCOPE_A) })
      .then(expectResponse(422)),
  );
  t.equal(status.fail, 1, 'the wrong status fails');
  const body = await detached((tt) =>
    spec(tt, app)
      .when('/v1/events', { body: rawEvent(SCOPE_A) })
      .then(expectResponse(400, { code: 'validation_failed' })),
  );
  t.equal(body.fail, 1, 'the wrong code fails');
  const part = await detached((tt) =>
    spec(tt, app)
      .when('/v1/events', { body: rawEvent(SCOPE_A) })
      .then(expectResponse(400, { code: 'idempotency_key' })),
  );
  t.equal(part.fail, 1, 'a member is compared in full, not as a substring');
});

t.test('given: set-up requests run first and must answer 2xx', async (t) => {
  const app = await testApp(t);
  const run = await detached((tt) =>
    spec(tt, app)
      .given(['/v1/tasks', { body: TASK }])
      .when('/v1/tasks/task-1')
      .then(expectResponse(200, { task_id: 'task-1' }), expectNoEvents()),
  );
  t.same([run.fail, run.pass], [0, 5], 'the given passed, then status, body, schema and nothing written');
  const failing = await detached((tt) =>
    spec(tt, app)
      .given(['/v1/tasks/task-404/checkpoints', { body: { progress: 'x' } }])
      .when('/v1/tasks/task-1')
      .then(expectResponse(200)),
  );
  t.equal(failing.fail, 1, 'a given that is refused fails');
});

t.test('the answer is checked against the schema the route table names', async (t) => {
  const app = await testApp(t);
  const answer = (status: number, json: unknown, type = 'application/json'): Answer => ({
    status,
    headers: new Headers({ 'content-type': type }),
    json,
    text: JSON.stringify(json),
  });
  const wrong = await detached((tt) =>
    spec(tt, { ...app, call: async () => answer(201, { task_id: 'task-1' }) })
      .when('/v1/tasks', { body: TASK })
      .then(expectResponse(201)),
  );
  t.equal(wrong.fail, 1, 'a 201 that is not a task write response fails');
  t.match(wrong.tap, /matches api\/task-write-response\.json/);
  const bodyOn204 = await detached((tt) =>
    spec(tt, { ...app, call: async () => answer(204, {}) })
      .when('/admin/forge/data', { method: 'PUT', body: {} })
      .then(expectResponse(204)),
  );
  t.equal(bodyOn204.fail, 1, 'a body where the table says none fails');

  t.equal(routeOf('POST', '/v1/templates/validate')?.path, '/v1/templates/validate');
  t.equal(routeOf('GET', '/v1/templates/incident.v1')?.path, '/v1/templates/{template_id}');
  t.equal(routeOf('GET', '/v1/search?q=x')?.path, '/v1/search', 'the query is not part of the path');
  t.equal(routeOf('GET', '/nowhere'), undefined);
  t.equal(responseSchemaOf('POST', '/v1/tasks', 422, 'application/json'), 'api/validation-result.json', "a gate's validation body");
  t.equal(responseSchemaOf('POST', '/v1/tasks', 422, 'application/problem+json'), 'api/problem.json', 'a problem on the same status');
  t.equal(responseSchemaOf('GET', '/nowhere', 404, 'application/problem+json'), 'api/problem.json', 'any problem body, routed or not');
  t.equal(responseSchemaOf('GET', '/nowhere', 404, 'text/plain'), undefined);
});

t.test('the log must only grow: a rewrite is reported', async (t) => {
  const app = await testApp(t);
  const run = await detached((tt) =>
    spec(tt, app)
      .given(['/v1/tasks', { body: TASK }])
      .when(async () => writeFileSync(logPathOf(app.dataDir), ''))
      .then(expectNoEvents()),
  );
  t.equal(run.fail, 1);
  t.match(run.tap, /the log was rewritten/);
});

t.test('then() takes expectations only, so a bare await of when() cannot pass', async (t) => {
  const app = await testApp(t);
  await t.rejects(async () => {
    // Cast as a promise would be: the type checker already refuses this await.
    await (spec(t, app).when('/health') as unknown as Promise<unknown>);
  }, TypeError);
  t.throws(() => spec(t, app).when('/health').then(), TypeError, 'no expectation at all');
});
