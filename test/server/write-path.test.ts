// The write path through the routes: conditions are checked by the log's single writer when it
// seals a unit, so concurrent writes into one task share batches (group commit), a closeout racing
// evidence can never be followed by it, one Idempotency-Key yields one event, and If-Match guards
// task writes (412 when stale). No lock is held across an fsync, so these hold by construction.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expectNewEvents, expectNoEvents, expectResponse, spec } from '../fixtures/api-spec.ts';
import { closeout as goodCloseout, evidenceOfRun } from '../fixtures/bodies.ts';
import { quotaApp } from '../fixtures/quota-app.ts';
import { rawEvent, SCOPE_A, testApp } from '../fixtures/test-app.ts';

const attach = (taskId: string, n: number) => rawEvent(SCOPE_A, { kind: 'evidence.attached', task_id: taskId, payload: {}, evidence_refs: [evidenceOfRun(n)] });

function logLines(dataDir: string): any[] {
  return readFileSync(join(dataDir, 'events.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

t.test('100 concurrent appends into one open task: all 201, sharing batches', async (t) => {
  const batches: number[] = [];
  const { call, dataDir } = await testApp(t, { onBatch: (units) => batches.push(units) });
  t.equal((await call('/v1/tasks', { body: { task_id: 'task-hot', title: 'Stream evidence into one task', session_id: 'sess-1' } })).status, 201);
  batches.length = 0;
  const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => call('/v1/events', { body: attach('task-hot', i), idempotencyKey: `hot-${i}` })));
  t.same(answers.map((a) => a.status), Array(100).fill(201), 'every append is acknowledged');
  t.equal(batches.reduce((a, b) => a + b, 0), 100, 'every unit was written in some batch');
  t.ok(batches.length < 100, `100 appends took ${batches.length} batches (write + fsync), not one each`);
  t.ok(Math.max(...batches) > 1, `a batch held ${Math.max(...batches)} units of the same task`);
  const events = logLines(dataDir).filter((e) => e.task_id === 'task-hot');
  t.equal(events.length, 101);
  t.same(events.map((e) => e.seq), events.map((_, i) => i + 1), 'gapless and in order');
  const task = await call('/v1/tasks/task-hot');
  t.equal(task.json.last_seq, 101);
  t.equal(task.headers.get('etag'), '"101"', 'the ETag is the task version');
});

t.test('a closeout racing 50 evidence attaches: nothing follows task.closed', async (t) => {
  const { call, dataDir } = await testApp(t);
  t.equal((await call('/v1/tasks', { body: { task_id: 'task-race', title: 'Close while evidence streams in', session_id: 'sess-1' } })).status, 201);
  const turn = () => new Promise((resolve) => setImmediate(resolve));
  const sent: Array<ReturnType<typeof call>> = [];
  for (let i = 0; i < 20; i++) sent.push(call('/v1/events', { body: attach('task-race', i), idempotencyKey: `race-${i}` }));
  const closeout = call('/v1/tasks/task-race/closeout', { body: goodCloseout, idempotencyKey: 'race-close' });
  // The rest arrive over the next turns of the event loop, while the closeout is in flight.
  for (let i = 20; i < 45; i++) {
    if (i % 5 === 0) await turn();
    sent.push(call('/v1/events', { body: attach('task-race', i), idempotencyKey: `race-${i}` }));
  }
  const closed = await closeout;
  t.equal(closed.status, 201);
  for (let i = 45; i < 50; i++) sent.push(call('/v1/events', { body: attach('task-race', i), idempotencyKey: `race-${i}` }));
  const attaches = await Promise.all(sent);
  const closedSeq = closed.json.event.seq as number;
  for (const [i, res] of attaches.entries()) {
    if (res.status === 201) t.ok(res.json.event.seq < closedSeq, `attach ${i} was sealed before task.closed`);
    else t.match(res, { status: 409, json: { code: 'task_closed' } }, `attach ${i} came after task.closed`);
  }
  const accepted = attaches.filter((a) => a.status === 201).length;
  t.ok(accepted > 0 && accepted < 50, `${accepted} attaches before the closeout, ${50 - accepted} refused after it`);
  const events = logLines(dataDir).filter((e) => e.task_id === 'task-race');
  t.equal(events[events.length - 1].kind, 'task.closed', 'the log has no event for the task after its task.closed');
  t.equal(events.length, 1 + accepted + 1);
  const late = await call('/v1/tasks/task-race/checkpoints', { body: { progress: 'Too late for this task' } });
  t.match(late, { status: 409, json: { code: 'task_closed' } });
});

t.test('50 concurrent requests with one Idempotency-Key: one event, 49 byte-identical replays', async (t) => {
  const { call, dataDir } = await testApp(t);
  t.equal((await call('/v1/tasks', { body: { task_id: 'task-idem', title: 'Retry storms must not duplicate', session_id: 'sess-1' } })).status, 201);
  const answers = await Promise.all(Array.from({ length: 50 }, () => call('/v1/events', { body: attach('task-idem', 7), idempotencyKey: 'same-key' })));
  const fresh = answers.filter((a) => a.status === 201);
  const replays = answers.filter((a) => a.status === 200);
  t.equal(fresh.length, 1, 'one original');
  t.equal(replays.length, 49, '49 replays');
  for (const r of replays) {
    t.equal(r.headers.get('idempotent-replayed'), 'true');
    t.equal(r.text, fresh[0]!.text, 'byte-identical to the original answer');
  }
  t.equal(logLines(dataDir).filter((e) => e.idempotency_key === 'same-key').length, 1, 'one event in the log');
  const later = await call('/v1/events', { body: attach('task-idem', 7), idempotencyKey: 'same-key' });
  t.equal(later.status, 200);
  t.equal(later.text, fresh[0]!.text, 'a replay of the committed write is byte-identical too');
  const other = await call('/v1/events', { body: attach('task-idem', 8), idempotencyKey: 'same-key' });
  t.match(other, { status: 422, json: { code: 'idempotency_key_reused' } });
});

t.test('concurrent creates of one task id: one 201, the rest 409 task_exists', async (t) => {
  const { call, dataDir } = await testApp(t);
  const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => call('/v1/tasks', { body: { task_id: 'task-dup', title: `Attempt ${i} at the same task`, session_id: 'sess-1' } })));
  t.equal(answers.filter((a) => a.status === 201).length, 1);
  for (const a of answers.filter((x) => x.status !== 201)) t.match(a, { status: 409, json: { code: 'task_exists' } });
  t.equal(logLines(dataDir).filter((e) => e.kind === 'task.created').length, 1);
});

t.test('If-Match: stale → 412 and nothing written; current → 201 with the new ETag', async (t) => {
  const app = await testApp(t);
  const { call } = app;
  const created = await call('/v1/tasks', { body: { task_id: 'task-cas', title: 'Conditional writes to a task', session_id: 'sess-1' } });
  t.equal(created.headers.get('etag'), '"1"', 'a write answers the new version');
  const read = await call('/v1/tasks/task-cas');
  const etag = read.headers.get('etag')!;
  t.equal(etag, '"1"');
  const moved = await call('/v1/tasks/task-cas/checkpoints', { body: { progress: 'Someone else wrote first' } });
  t.equal(moved.status, 201);
  t.equal(moved.headers.get('etag'), '"2"');

  const stale = [expectResponse(412, { code: 'precondition_failed' }), expectNoEvents()];
  await spec(t, app).when('/v1/tasks/task-cas/checkpoints', { body: { progress: 'Decided on an old read' }, headers: { 'If-Match': etag } }).then(...stale);
  await spec(t, app).when('/v1/tasks/task-cas/closeout', { body: goodCloseout, headers: { 'If-Match': etag } }).then(...stale);
  await spec(t, app).when('/v1/events', { body: attach('task-cas', 1), idempotencyKey: 'cas-1', headers: { 'If-Match': etag } }).then(...stale);

  const current = await call('/v1/tasks/task-cas/checkpoints', { body: { progress: 'Decided on the current read' }, headers: { 'If-Match': '"2"' } });
  t.equal(current.status, 201);
  t.equal(current.headers.get('etag'), '"3"');
  const attached = await call('/v1/events', { body: attach('task-cas', 2), idempotencyKey: 'cas-2', headers: { 'If-Match': '"3"' } });
  t.equal(attached.status, 201);
  t.equal(attached.headers.get('etag'), '"4"');
  const closed = await call('/v1/tasks/task-cas/closeout', { body: goodCloseout, headers: { 'If-Match': '"4"' } });
  t.equal(closed.status, 201);
  t.equal(closed.headers.get('etag'), '"5"');
  // A closed task is a 409 whatever If-Match says: the precondition is moot (RFC 9110 §13.2.1).
  const afterClose = await call('/v1/tasks/task-cas/checkpoints', { body: { progress: 'Too late' }, headers: { 'If-Match': '"1"' } });
  t.match(afterClose, { status: 409, json: { code: 'task_closed' } });
  const star = await call('/v1/tasks', { body: { task_id: 'task-star', title: 'If-Match star means any version', session_id: 'sess-1' } });
  t.equal(star.status, 201);
  t.equal((await call('/v1/tasks/task-star/checkpoints', { body: { progress: 'Any version will do' }, headers: { 'If-Match': '*' } })).status, 201);
});

t.test('If-Match on a create: no task has a version to match → 412; the task there at that version → 409', async (t) => {
  const app = await testApp(t);
  const create = (task_id: string | undefined, ifMatch: string) => spec(t, app, `create ${task_id ?? '(server id)'} If-Match: ${ifMatch}`)
    .when('/v1/tasks', { body: { ...(task_id === undefined ? {} : { task_id }), title: 'Create under a precondition', session_id: 'sess-1' }, headers: { 'If-Match': ifMatch } });
  for (const value of ['"5"', '*', 'W/"1"']) await create('task-new', value).then(expectResponse(412, { code: 'precondition_failed' }), expectNoEvents());
  const star = await app.call('/v1/events', { body: attach('task-new', 1), idempotencyKey: 'star-none', headers: { 'If-Match': '*' } });
  t.same([star.status, star.json.code], [404, 'task_not_found'], 'an event for a task that does not exist is 404, If-Match or not');
  const absent = await create(undefined, '"1"').then(expectResponse(412), expectNoEvents());
  t.match(absent.json.detail, /a task the server has not made yet: a create has no current version to match\. Leave If-Match out/);
  await create('task-new', 'garbage').then(expectResponse(400, { code: 'invalid_if_match' }), expectNoEvents());
  t.equal((await app.call('/v1/tasks', { body: { task_id: 'task-there', title: 'Already here before the retry', session_id: 'sess-1' } })).status, 201);
  await create('task-there', '"7"').then(expectResponse(412, { code: 'precondition_failed' }), expectNoEvents());
  for (const value of ['"1"', '*']) await create('task-there', value).then(expectResponse(409, { code: 'task_exists' }), expectNoEvents());
});

t.test('If-Match: a malformed header, two versions, or no task is a 400; an ETag that is none of ours a 412', async (t) => {
  const app = await testApp(t);
  t.equal((await app.call('/v1/tasks', { body: { task_id: 'task-bad', title: 'Malformed preconditions', session_id: 'sess-1' } })).status, 201);
  const refused = [expectResponse(400, { code: 'invalid_if_match' }), expectNoEvents()];
  for (const value of ['1', '"1", "2"', 'garbage', '"unterminated', '"a b"', 'W/1']) {
    await spec(t, app, `If-Match: ${value}`).when('/v1/tasks/task-bad/checkpoints', { body: { progress: 'A malformed If-Match' }, headers: { 'If-Match': value } }).then(...refused);
  }
  // Well-formed entity-tags that are no version of the task never match (RFC 9110 §13.1.1: weak
  // tags never match under If-Match's strong comparison): 412 and nothing written.
  for (const value of ['W/"1"', '"abc"', '""', 'W/"1", "xyz"', '"a,b"']) {
    await spec(t, app, `If-Match: ${value}`).when('/v1/tasks/task-bad/checkpoints', { body: { progress: 'An ETag of nothing' }, headers: { 'If-Match': value } })
      .then(expectResponse(412, { code: 'precondition_failed', detail: 'Task task-bad is at version 1, which If-Match does not name (an ETag that is none of its versions); read it again (its ETag is the current version) and decide again. Nothing was written.' }), expectNoEvents());
  }
  // A list that holds the current version among tags of nothing matches it.
  await spec(t, app, 'If-Match: W/"9", "1"').when('/v1/tasks/task-bad/checkpoints', { body: { progress: 'The current version in a list' }, headers: { 'If-Match': 'W/"9", "1"' } })
    .then(expectResponse(201), expectNewEvents([{ kind: 'task.checkpoint.written' }]));
  await spec(t, app, 'If-Match on an event without a task').when('/v1/events', { body: rawEvent(SCOPE_A), idempotencyKey: 'no-task', headers: { 'If-Match': '"1"' } }).then(...refused);
});

t.test('concurrent quota writes decide on fresh state without a lock', async (t) => {
  const app = await quotaApp(t);
  const { call } = app;
  // One event per rule, nothing else, whatever order the writer sealed them in.
  const answers = await spec(t, app, 'concurrent rule creates').when(() => Promise.all([
    ...Array.from({ length: 10 }, (_, i) => call('/admin/quota/rules', { body: { name: `rule-${i}`, limit: 100 + i } })),
    ...Array.from({ length: 5 }, () => call('/admin/quota/rules', { body: { name: 'rule-same', limit: 5 } })),
  ])).then(expectNewEvents(Array.from({ length: 11 }, () => ({ kind: 'quota.rule.created' }))));
  t.same(answers.slice(0, 10).map((a) => a.status), Array(10).fill(201), 'distinct rules all land');
  const same = answers.slice(10);
  t.equal(same.filter((a) => a.status === 201).length, 1, 'one create of the same name');
  t.equal(same.filter((a) => a.status === 409).length, 4, 'the others conflict');
});
