// A damaged index is never trusted: at start, SQLite's quick_check and the newest indexed rows
// against the log find it and it is rebuilt with a warning; while running, a read that finds it
// damaged answers 503 index_unavailable, leaves a marker (so a start rebuilds it should the preview
// stop first) and the running preview rebuilds it (index-rebuild.test.ts has the page damage).
import t, { type Test } from 'tap';
import Database from 'better-sqlite3';
import { existsSync, openSync, writeSync, closeSync, statSync } from 'node:fs';
import { createQueries } from '../../src/store/queries.ts';
import { indexPathOf, rebuildMarkerOf, type Store } from '../../src/store/store.ts';
import { tempDir, testApp } from '../fixtures/test-app.ts';
import { noteEvents, openTestStore, STORE_SCOPE } from '../fixtures/store-harness.ts';

const scope = STORE_SCOPE;
const pending = noteEvents();
const open = openTestStore;

/** A data dir whose log holds a task with 300 events, and a consistent index; the store is closed. */
async function seeded(t: Test): Promise<string> {
  const dataDir = tempDir(t);
  const { store } = await open(t, dataDir);
  await store.append([pending({ kind: 'task.created', payload: { title: 'Seeded task' } })]);
  for (let i = 0; i < 30; i++) await Promise.all(Array.from({ length: 10 }, () => store.append([pending()])));
  await store.close();
  return dataDir;
}

/** What a reader gets: the task and its whole timeline, parsed. */
function answers(store: Store) {
  const q = createQueries(store.index.db);
  return { task: q.task(scope, 'task-1'), timeline: q.timeline(scope, 'task-1', 0, 1000).map((e) => e.seq) };
}

t.test('random bytes over a page past page 1: found at start, rebuilt, answers as the log says', async (t) => {
  const dataDir = await seeded(t);
  const path = indexPathOf(dataDir);
  const pageSize = 4096;
  t.ok(statSync(path).size > 8 * pageSize, 'the index spans several pages');
  // Seeded noise over page 3 (a b-tree page of the event table or its indexes).
  let seed = 42;
  const noise = Buffer.alloc(pageSize, 0).map(() => (seed = (seed * 1103515245 + 12345) % 2 ** 31) & 0xff);
  const fd = openSync(path, 'r+');
  writeSync(fd, noise, 0, pageSize, 2 * pageSize);
  closeSync(fd);
  const { store, warnings } = await open(t, dataDir);
  t.match(warnings.join('\n'), /damaged \(quick_check|missing or unreadable/, 'start-up says why it rebuilds');
  t.match(warnings.join('\n'), /rebuilding it from the log/);
  await store.settled();
  const got = answers(store);
  t.equal(got.task?.last_seq, 301);
  t.same(got.timeline, Array.from({ length: 301 }, (_, i) => i + 1));
});

t.test('an indexed event that differs from the log (a valid database): found at start, rebuilt', async (t) => {
  const dataDir = await seeded(t);
  const db = new Database(indexPathOf(dataDir));
  db.prepare("UPDATE events SET line = replace(line, 'vault', 'VAULT') WHERE seq = 300").run();
  db.close();
  const { store, warnings } = await open(t, dataDir);
  t.match(warnings.join('\n'), /damaged \(the indexed event seq 300 differs from the log\)/);
  const row = store.index.db.prepare('SELECT line FROM events WHERE seq = 300').get() as { line: string };
  t.match(row.line, /vault/, 'the rebuilt row is the log line');
});

t.test('a marker left by a run that found the index corrupt: the next start rebuilds, and removes it', async (t) => {
  const dataDir = await seeded(t);
  const { writeFileSync } = await import('node:fs');
  writeFileSync(rebuildMarkerOf(dataDir), 'a row did not parse\n');
  const { store, warnings } = await open(t, dataDir);
  t.match(warnings.join('\n'), /found corrupt while the preview ran \(a row did not parse\); rebuilding/);
  t.notOk(existsSync(rebuildMarkerOf(dataDir)));
  t.equal(store.index.lastSeq(), 301);
});

t.test('a read that finds a row that does not parse: 503 index_unavailable, then rebuilt while running', async (t) => {
  const dataDir = tempDir(t);
  const { call, service } = await testApp(t, { dataDir });
  t.equal((await call('/v1/tasks', { body: { task_id: 'task-dmg', title: 'A task whose index row breaks', session_id: 'sess-1' } })).status, 201);
  // A create does not wait for the index: the row is there once the index has applied it.
  await service.store.settled();
  service.store.index.db.prepare("UPDATE tasks SET state = '{not json' WHERE task_id = 'task-dmg'").run();
  const read = await call('/v1/tasks/task-dmg');
  t.match(read, { status: 503, json: { code: 'index_unavailable' } });
  t.equal(read.headers.get('retry-after'), '5');
  t.ok(existsSync(rebuildMarkerOf(dataDir)) || service.store.indexStatus().state === 'current', 'a start would rebuild it until the running preview has');
  // (On failure the status says why.)
  t.match({ rebuilt: await service.store.rebuilt(), status: service.store.indexStatus() }, { rebuilt: true }, 'the running preview rebuilds it');
  t.notOk(existsSync(rebuildMarkerOf(dataDir)));
  const task = await call('/v1/tasks/task-dmg');
  t.equal(task.status, 200);
  t.equal(task.json.last_seq, 1, 'the row as the log says');
  const health = await call('/health', { token: 'operator', scope: null });
  t.equal(health.json.status, 'ok');
  t.equal(health.json.detail.index_state, 'current');
  const write = await call('/v1/events', { body: { kind: 'ext.acme.note', ...scope, task_id: 'task-dmg', payload: { text: 'after the rebuild' } }, idempotencyKey: 'dmg-1' });
  t.equal(write.status, 201);
  t.equal((await call('/v1/tasks/task-dmg')).json.last_seq, 2);
});
