// The index writer cannot write (here: another connection holds SQLite's write lock, as a full disk
// would refuse it): acknowledged events stay in the log, writes that need no index go on, reads
// answer 503 index_behind instead of a stale answer, /health says so, and the index catches up by
// itself once it can write again — no restart.
import t from 'tap';
import { rawEvent, SCOPE_A, testApp } from '../fixtures/test-app.ts';

async function until(what: string, done: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

t.test('a blocked index: 503 index_behind for reads, writes go on, catch-up without a restart', async (t) => {
  const { call, service } = await testApp(t);
  t.equal((await call('/v1/tasks', { body: { task_id: 'task-ib', title: 'Keep writing while the index cannot', session_id: 'sess-1' } })).status, 201);
  await service.store.settled();
  const db = service.store.index.db;
  db.exec('BEGIN IMMEDIATE');
  t.teardown(() => {
    if (db.inTransaction) db.exec('ROLLBACK');
  });
  const first = await call('/v1/events', { body: rawEvent(SCOPE_A, { task_id: 'task-ib' }), idempotencyKey: 'ib-1' });
  t.equal(first.status, 201, 'acknowledged: it is in the log');
  await until('the index writer to report failing', () => service.store.indexStatus().state === 'failing');

  const read = await call('/v1/tasks/task-ib/timeline');
  t.match(read, { status: 503, json: { code: 'index_behind' } }, 'no stale answer');
  const health = await call('/health', { token: 'operator', scope: null });
  t.equal(health.json.status, 'degraded');
  t.match(health.json.detail, { index_state: 'failing', index_seq: 1, last_seq: 2 });
  t.type(health.json.detail.index_error, 'string');
  const second = await call('/v1/events', { body: rawEvent(SCOPE_A, { task_id: 'task-ib' }), idempotencyKey: 'ib-2' });
  t.equal(second.status, 201, 'a write that reads nothing from the index still lands');
  // A create answers from its own event: never a 503 after a durable task.created (a retry without
  // a task_id would make the task twice).
  const created = await call('/v1/tasks', { body: { title: 'Created while the index cannot write', session_id: 'sess-1' } });
  t.equal(created.status, 201, created.text);
  t.match(created.json.task, { task_id: created.json.event.task_id, title: 'Created while the index cannot write', status: 'open', last_seq: 4 });

  db.exec('COMMIT');
  await until('the index to catch up', () => service.store.indexStatus().state === 'current');
  const timeline = await call('/v1/tasks/task-ib/timeline');
  t.equal(timeline.status, 200);
  t.same(timeline.json.events.map((e: any) => e.seq), [1, 2, 3], 'every acknowledged event is indexed');
  t.equal((await call(`/v1/tasks/${created.json.event.task_id}`)).json.last_seq, 4, 'the task created meanwhile too');
  const healthy = await call('/health', { token: 'operator', scope: null });
  t.equal(healthy.json.status, 'ok');
  t.match(healthy.json.detail, { index_state: 'current', index_seq: 4 });
  t.notOk('index_error' in healthy.json.detail);
});
