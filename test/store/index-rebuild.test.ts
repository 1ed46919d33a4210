// A running store that finds its index corrupt rebuilds it from the log without a restart: reads
// are refused (503 index_unavailable) meanwhile, the queries built before the rebuild read the new
// file after it, every acknowledged event is there, and the marker is gone. A rebuild that fails
// keeps the marker (the next start rebuilds) and keeps refusing. The last test does it to a
// preview served over HTTP.
import t, { type Test } from 'tap';
import Database from 'better-sqlite3';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { AppError } from '../../src/errors.ts';
import { settledAfterWrite } from '../../src/service/answer-after-write.ts';
import type { ServiceDeps } from '../../src/service/deps.ts';
import { taskStream } from '../../src/domain/streams.ts';
import { freshIndexPathOf } from '../../src/store/index-db.ts';
import { createQueries } from '../../src/store/queries.ts';
import { createQuotaQueries } from '../../src/store/quota-queries.ts';
import { indexPathOf, logPathOf, rebuildMarkerOf } from '../../src/store/store.ts';
import { serveApp } from '../fixtures/served-app.ts';
import { rawEvent, SCOPE_A, tempDir, TOKENS } from '../fixtures/test-app.ts';
import { noteEvents, openTestStore, STORE_SCOPE } from '../fixtures/store-harness.ts';

const scope = STORE_SCOPE;
const pending = noteEvents();
const open = openTestStore;

/** A running store whose log and index hold a task with 300 events. */
async function seeded(t: Test) {
  const dataDir = tempDir(t);
  const opened = await open(t, dataDir);
  await opened.store.append([pending({ kind: 'task.created', payload: { title: 'Seeded task' } })]);
  for (let i = 0; i < 30; i++) await Promise.all(Array.from({ length: 10 }, () => opened.store.append([pending()])));
  await opened.store.settled();
  return { dataDir, ...opened };
}

/**
 * Seeded noise over every page of the index file but the first, under a running store. The WAL is
 * checkpointed into the file first (by a connection of the test's, which also makes the store's
 * connections drop their page caches), so every b-tree page they read next is noise.
 */
function corruptIndexPages(dataDir: string): void {
  const path = indexPathOf(dataDir);
  const db = new Database(path);
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  const pageSize = 4096;
  const pages = Math.floor(statSync(path).size / pageSize);
  let seed = 7;
  const noise = Buffer.alloc(pageSize).map(() => (seed = (seed * 1103515245 + 12345) % 2 ** 31) & 0xff);
  const fd = openSync(path, 'r+');
  try {
    for (let page = 1; page < pages; page++) writeSync(fd, noise, 0, pageSize, page * pageSize);
  } finally {
    closeSync(fd);
  }
}

/** The seqs of the log's events of task-1, read from the log itself. */
function loggedSeqs(dataDir: string): number[] {
  return readFileSync(logPathOf(dataDir), 'utf8').trim().split('\n').map((line) => JSON.parse(line)).filter((e) => e.task_id === 'task-1').map((e) => e.seq);
}

async function until(what: string, done: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

t.test('corrupt pages found by a read: rebuilt while running, the same queries answer from the new file', async (t) => {
  const { dataDir, store, warnings } = await seeded(t);
  // Built before the corruption: they must read the rebuilt file afterwards.
  const q = createQueries(store.index.db);
  const quota = createQuotaQueries(store.index.db);
  t.equal(q.timeline(scope, 'task-1', 0, 1000).length, 301);

  corruptIndexPages(dataDir);
  let found: unknown = null;
  try {
    q.timeline(scope, 'task-1', 0, 1000);
  } catch (err) {
    found = err;
  }
  t.match((found as { code?: string } | null)?.code, /^SQLITE_CORRUPT/, 'SQLite finds the damage');
  // What the server's onError does with it.
  store.markIndexCorrupt((found as Error).message);

  t.ok(existsSync(rebuildMarkerOf(dataDir)), 'the marker is written at once (a crash now rebuilds at the next start)');
  t.match(store.indexStatus(), { state: 'unavailable', last_error: /being rebuilt from the log/ });
  await t.rejects(store.settled(), { code: 'index_unavailable' }, 'reads are refused while it is rebuilt');
  t.throws(() => q.task(scope, 'task-1'), { code: 'index_unavailable' }, 'a query of the old connection is refused, not run on a closed one');
  // A refusal reported back (as onError does for every 503 index_unavailable) starts nothing new.
  const refusal = await store.settled().then(() => null, (err: Error) => err);
  store.markIndexCorrupt(refusal!.message);

  // Writes while it rebuilds: one without conditions is acknowledged; one whose conditions need
  // the index may be refused (503), never acknowledged and lost.
  const plain = Array.from({ length: 10 }, () => store.append([pending()]));
  const keyed = Array.from({ length: 10 }, (_, i) => store.append([pending({ idempotency_key: `k-${i}`, request_sha256: `sha-${i}` })]));
  const guarded = store.append([pending()], [{ type: 'stream', stream: taskStream(scope, 'task-1'), state: 'open', orElse: () => new AppError('task_not_found', 'no task') }]);
  const outcomes = await Promise.allSettled([...plain, ...keyed, guarded]);

  // (On failure the status says why.)
  t.match({ rebuilt: await store.rebuilt(), status: store.indexStatus() }, { rebuilt: true }, 'the rebuild succeeded');
  t.notOk(existsSync(rebuildMarkerOf(dataDir)), 'the marker is removed');
  t.notOk(existsSync(freshIndexPathOf(indexPathOf(dataDir))), 'nothing is left beside the index');
  t.equal(warnings.filter((w) => /rebuilding it from the log while the preview runs/.test(w)).length, 1, 'one rebuild, however often a refusal is reported back');
  t.match(warnings.join('\n'), /Rebuilt the index from the log/);
  await store.settled();
  t.equal(store.indexStatus().state, 'current');

  const acknowledged = outcomes.flatMap((o) => (o.status === 'fulfilled' ? o.value.events.map((e) => e.seq) : []));
  for (const o of outcomes) if (o.status === 'rejected') t.match(o.reason, { code: 'index_unavailable' }, 'a refusal is 503 index_unavailable');
  t.ok(outcomes.slice(0, 10).every((o) => o.status === 'fulfilled'), 'writes without conditions are acknowledged');
  const timeline = q.timeline(scope, 'task-1', 0, 10_000).map((e) => e.seq);
  t.same(timeline, loggedSeqs(dataDir), 'the index holds exactly the log');
  for (const seq of acknowledged) t.ok(timeline.includes(seq), `acknowledged seq ${seq} is indexed`);
  t.equal(q.task(scope, 'task-1')?.last_seq, timeline[timeline.length - 1]);
  t.same(quota.rules(), [], 'the quota queries read the new file too');

  // New writes, guarded ones included (the gate reads the new file), and replays of keys.
  const next = await store.append([pending({ idempotency_key: 'after', request_sha256: 'sha-after' })], [{ type: 'stream', stream: taskStream(scope, 'task-1'), state: 'open', orElse: () => new AppError('task_not_found', 'no task') }]);
  t.equal(next.replayed, false);
  const replay = await store.append([pending({ idempotency_key: 'after', request_sha256: 'sha-after' })]);
  t.equal(replay.replayed, true);
  t.same(replay.lines, next.lines);
  await store.settled();
  t.equal(q.task(scope, 'task-1')?.last_seq, next.events[0]!.seq);
  t.equal(store.index.lastSeq(), store.tail().seq);
});

t.test('corrupt pages found by the index writer: rebuilt while running', async (t) => {
  const { dataDir, store } = await seeded(t);
  const q = createQueries(store.index.db);
  corruptIndexPages(dataDir);
  // A note of no task: the gate reads nothing for it, and the worker applies it to the damaged
  // file and meets SQLITE_CORRUPT.
  const written = await store.append([pending({ task_id: undefined, event_id: 'evt_after_damage' })]);
  await until('the writer to find the damage', () => existsSync(rebuildMarkerOf(dataDir)));
  t.match({ rebuilt: await store.rebuilt(), status: store.indexStatus() }, { rebuilt: true }, 'the rebuild succeeded');
  await store.settled();
  t.notOk(existsSync(rebuildMarkerOf(dataDir)));
  t.equal(q.eventById('evt_after_damage')?.seq, written.events[0]!.seq, 'the acknowledged write is indexed');
  t.same(q.timeline(scope, 'task-1', 0, 1000).map((e) => e.seq), loggedSeqs(dataDir));
});

t.test('a rebuild that fails: the marker stays, reads stay refused, the next start rebuilds', async (t) => {
  const { dataDir, store, warnings } = await seeded(t);
  // The place the new file is built in cannot be used.
  const fresh = freshIndexPathOf(indexPathOf(dataDir));
  mkdirSync(fresh);
  writeFileSync(`${fresh}/occupied`, '');

  store.markIndexCorrupt('a row did not parse');
  t.equal(await store.rebuilt(), false, 'the rebuild failed');
  t.ok(existsSync(rebuildMarkerOf(dataDir)), 'the marker stays');
  t.match(readFileSync(rebuildMarkerOf(dataDir), 'utf8'), /a row did not parse/);
  t.match(warnings.join('\n'), /Rebuilding the corrupt index from the log failed/);
  t.match(store.indexStatus(), { state: 'unavailable', last_error: /rebuilding it failed/ });
  await t.rejects(store.settled(), { code: 'index_unavailable', message: /rebuilding it failed/ });
  const written = await store.append([pending({ task_id: undefined, event_id: 'evt_while_down' })]);
  t.equal(written.events[0]!.seq, 302, 'a write that needs nothing of the index is still acknowledged');
  // Task streams the gate has not read lately are read from the index: refused.
  await t.rejects(store.append([pending({ task_id: 'task-cold' })]), { code: 'index_unavailable' }, 'one that needs its task stream is refused');
  await store.close();

  rmSync(fresh, { recursive: true, force: true });
  const again = await open(t, dataDir);
  t.match(again.warnings.join('\n'), /found corrupt while the preview ran \(a row did not parse\); rebuilding/);
  t.notOk(existsSync(rebuildMarkerOf(dataDir)));
  const q = createQueries(again.store.index.db);
  t.equal(q.eventById('evt_while_down')?.seq, 302, 'the write acknowledged while the index was down is there');
  t.equal(q.timeline(scope, 'task-1', 0, 1000).length, 301);
});

t.test("a write reading its own answer waits for a rebuild; one that cannot says its event was recorded", async (t) => {
  const { store } = await seeded(t);
  const deps = { store } as unknown as ServiceDeps;
  // The rebuild is under way: a read is refused at once, a write's answer waits for it.
  const written = await store.append([pending()]);
  store.markIndexCorrupt('a row did not parse');
  await t.rejects(store.settled(), { code: 'index_unavailable' }, 'a read is refused at once');
  await settledAfterWrite(deps, written);
  t.equal(store.indexStatus().state, 'current', 'the answer waited for the rebuilt index');
  t.equal(store.index.lastSeq(), written.events[0]!.seq, 'which holds the write');
});

t.test('a write whose answer the index cannot give after a failed rebuild is told its event was recorded', async (t) => {
  const { dataDir, store } = await seeded(t);
  const deps = { store } as unknown as ServiceDeps;
  const fresh = freshIndexPathOf(indexPathOf(dataDir));
  mkdirSync(fresh);
  writeFileSync(`${fresh}/occupied`, '');
  const second = await store.append([pending()]);
  // The index threads do not keep the process alive; a served preview's HTTP server does.
  const alive = setInterval(() => {}, 1_000);
  t.teardown(() => clearInterval(alive));
  store.markIndexCorrupt('a row did not parse');
  t.equal(await store.rebuilt(), false, 'the rebuild failed');
  const { seq, event_id: id } = second.events[0]!;
  await t.rejects(settledAfterWrite(deps, second), {
    code: 'index_unavailable',
    message: `The write was recorded as event ${id} (seq ${seq}) and is safe in the log, but its answer is read from the index, which could not be rebuilt from the log (restart the preview: its start rebuilds the index). Do not send it again as a new write: send the same request with the same Idempotency-Key once GET /health says ok, and its answer comes back as a replay; or read the resource then.`,
  });
  rmSync(fresh, { recursive: true, force: true });
});

t.test('a served preview whose index pages are damaged: 503 index_unavailable, then the same answers, no restart', async (t) => {
  const { baseUrl, service } = await serveApp(t);
  const dataDir = service.store.dataDir;
  const call = async (path: string, init: { body?: unknown; key?: string; token?: 'customer' | 'operator' } = {}) => {
    const headers: Record<string, string> = {
      Authorization: `Bearer ${TOKENS[init.token ?? 'customer']}`,
      'X-Tenant-Id': SCOPE_A.tenant_id,
      'X-Workspace-Id': SCOPE_A.workspace_id,
      'X-Project-Id': SCOPE_A.project_id,
    };
    if (init.key !== undefined) headers['Idempotency-Key'] = init.key;
    if (init.body !== undefined) headers['Content-Type'] = 'application/json';
    const res = await fetch(`${baseUrl}${path}`, { method: init.body === undefined ? 'GET' : 'POST', headers, ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }) });
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, json: text ? JSON.parse(text) : null };
  };

  t.equal((await call('/v1/tasks', { body: { task_id: 'task-http', title: 'Rotate the exporter signing key', session_id: 'sess-1' } })).status, 201);
  const notes: string[] = [];
  for (let i = 0; i < 40; i++) {
    const res = await call('/v1/events', { body: rawEvent(SCOPE_A, { task_id: 'task-http', payload: { text: `rotation step ${i} of the vault key` } }), key: `note-${i}` });
    t.equal(res.status, 201);
    notes.push(res.text);
  }
  const before = await call('/v1/tasks/task-http/timeline?limit=100');
  t.equal(before.status, 200);
  t.equal(before.json.events.length, 41);
  const task = await call('/v1/tasks/task-http');
  const search = await call('/v1/search?q=vault');
  t.equal(search.status, 200);

  corruptIndexPages(dataDir);
  const refused = await call('/v1/tasks/task-http/timeline?limit=100');
  t.equal(refused.status, 503, 'the read that meets the damage is refused');
  t.equal(refused.json.code, 'index_unavailable');
  t.equal(refused.headers.get('retry-after'), '5', 'with Retry-After');
  t.match(refused.json.detail, /being rebuilt/);
  t.ok(existsSync(rebuildMarkerOf(dataDir)) || service.store.indexStatus().state === 'current', 'the marker stands until the rebuild is done');

  // /health says what happens until the index is back; every state seen is one of these two.
  const seen: string[] = [];
  for (const deadline = Date.now() + 60_000; ; ) {
    const health = (await call('/health', { token: 'operator' })).json;
    seen.push(`${health.status} ${health.detail.index_state}`);
    if (health.detail.index_state === 'unavailable') t.match(health.detail.index_error, /being rebuilt from the log/, 'while it is rebuilt');
    if (health.detail.index_state === 'current') break;
    if (Date.now() > deadline) throw new Error(`the index was not rebuilt: ${seen.join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  t.ok(seen.every((s) => s === 'degraded unavailable' || s === 'ok catching_up' || s === 'ok current'), `health while rebuilding: ${[...new Set(seen)].join(', ')}`);
  t.notOk(existsSync(rebuildMarkerOf(dataDir)), 'the marker is removed');

  const after = await call('/v1/tasks/task-http/timeline?limit=100');
  t.equal(after.status, 200);
  t.equal(after.text, before.text, 'the timeline answers byte for byte as before the damage');
  t.equal((await call('/v1/tasks/task-http')).text, task.text);
  t.equal((await call('/v1/search?q=vault')).text, search.text, 'search too');
  const replay = await call('/v1/events', { body: rawEvent(SCOPE_A, { task_id: 'task-http', payload: { text: 'rotation step 7 of the vault key' } }), key: 'note-7' });
  t.equal(replay.status, 200, 'an Idempotency-Key used before the damage replays');
  t.equal(replay.text, notes[7]);
  const next = await call('/v1/events', { body: rawEvent(SCOPE_A, { task_id: 'task-http', payload: { text: 'written after the rebuild' } }), key: 'note-after' });
  t.equal(next.status, 201, 'new writes succeed');
  const latest = await call('/v1/tasks/task-http/timeline?limit=100');
  t.equal(latest.json.events.length, 42);
  t.equal(latest.json.events[41].seq, next.json.event.seq);
});
