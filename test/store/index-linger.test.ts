// Durable batches linger before the index writer gets them (index-writer.ts), so that one index
// transaction holds many batches; a reader never waits for the linger, and while nobody reads the
// linger is longer. And inside one transaction a
// task that several events change is read once and written once (projections/core.ts), which must
// give the row the fold gives, and a rolled-back transaction must leave nothing of it behind; the
// same holds for the asset rows the governance projection keeps parsed between transactions.
import t, { type Test } from 'tap';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ZERO_HASH, type StoredEvent } from '../../src/domain/event.ts';
import { foldTask } from '../../src/domain/task.ts';
import type { PendingEvent } from '../../src/store/event-log.ts';
import { ASSET_REGISTERED, type AssetState } from '../../src/domain/governance/assets.ts';
import { openIndexDb, type ProjectionFactory } from '../../src/store/index-db.ts';
import { READERS_GONE_MS } from '../../src/store/index-writer.ts';
import { EXTRA_PROJECTIONS } from '../../src/store/projections/registry.ts';
import { sealEvent } from '../../src/store/seal-batch.ts';
import { openStore, type Store } from '../../src/store/store.ts';
import { fixedClock, tempDir } from '../fixtures/test-app.ts';

const scope = { tenant_id: 'tenant-a', workspace_id: 'ws-1', project_id: 'proj-1' };
let id = 0;
function pending(extra: Partial<PendingEvent> = {}): PendingEvent {
  return { event_id: `evt_${++id}`, kind: 'ext.acme.note', ...scope, transport: 'customer', idempotency_key: null, request_sha256: null, payload: { text: `note ${id}` }, ...extra };
}

/** A store whose index applications are counted (each `onIndexed` is one transaction of the writer). */
async function open(t: Test, linger?: { ms: number; events: number; quietMs?: number }): Promise<{ store: Store; applied: number[] }> {
  const store = await openStore({ dataDir: tempDir(t), clock: fixedClock(), warn: () => {}, ...(linger ? { indexLinger: linger } : {}) });
  t.teardown(() => store.close().catch(() => {}));
  const applied: number[] = [];
  store.onIndexed((seq) => applied.push(seq));
  return { store, applied };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

t.test('lingering batches are indexed in one transaction when a reader asks', async (t) => {
  // A minute's linger: nothing may reach the index unless a reader flushes it.
  const { store, applied } = await open(t, { ms: 60_000, events: 1_000 });
  for (let k = 0; k < 5; k++) await store.append([pending()]);
  await sleep(150);
  t.equal(store.indexedSeq(), 0, 'five durable batches, none indexed while they linger');
  t.same(applied, []);
  await store.settled();
  t.equal(store.indexedSeq(), 5, 'the reader sees every acknowledged event');
  t.same(applied, [5], 'one transaction for the five batches');
});

t.test('enough lingering events are indexed without a reader', async (t) => {
  const { store, applied } = await open(t, { ms: 60_000, events: 10 });
  for (let k = 0; k < 3; k++) await store.append(Array.from({ length: 4 }, () => pending()));
  for (let waited = 0; applied.length === 0 && waited < 5_000; waited += 20) await sleep(20);
  t.same(applied, [12], 'the batch that took the lingering events to 10 or more sent all three');
  t.equal(store.indexedSeq(), 12);
});

t.test('with the default linger the index catches up alone', async (t) => {
  const { store, applied } = await open(t);
  await store.append([pending()]);
  await store.append([pending(), pending()]);
  for (let waited = 0; store.indexedSeq() < 3 && waited < 5_000; waited += 20) await sleep(20);
  t.equal(store.indexedSeq(), 3);
  t.ok(applied.length >= 1 && applied.length <= 2, `applied in ${applied.length} transaction(s)`);
});

t.test('while nobody reads the linger is the quiet one; after a read the short one, until readers are gone', async (t) => {
  // Short linger 10 ms, quiet linger a minute: whether a batch reaches the index alone tells which one applies.
  const { store } = await open(t, { ms: 10, events: 1_000, quietMs: 60_000 });
  const indexedWithin = async (seq: number, ms: number) => {
    for (let waited = 0; store.indexedSeq() < seq && waited < ms; waited += 20) await sleep(20);
    return store.indexedSeq() >= seq;
  };
  await store.append([pending()]);
  t.notOk(await indexedWithin(1, 300), 'no reader yet: the batch lingers (the quiet linger)');
  await store.settled();
  t.equal(store.indexedSeq(), 1, 'a reader flushes what lingers');
  await store.append([pending()]);
  t.ok(await indexedWithin(2, 5_000), 'a reader asked just now: the short linger sends the next batch alone');
  await sleep(READERS_GONE_MS + 200);
  await store.append([pending()]);
  t.notOk(await indexedWithin(3, 300), `no read for ${READERS_GONE_MS} ms: the quiet linger again`);
  await store.settled();
  t.equal(store.indexedSeq(), 3);
});

function sealed(pendings: PendingEvent[], firstSeq: number, prev: string): Array<{ event: StoredEvent; line: string }> {
  const rows: Array<{ event: StoredEvent; line: string }> = [];
  pendings.forEach((p, k) => rows.push(sealEvent(p, firstSeq + k, k === 0 ? prev : rows[k - 1]!.event.event_hash, '2026-11-01T10:00:00.000Z')));
  return rows;
}

t.test('a task changed by several events of one transaction gets the row the fold gives', async (t) => {
  const dir = tempDir(t);
  mkdirSync(dir, { recursive: true });
  const index = openIndexDb(join(dir, 'index.sqlite'), EXTRA_PROJECTIONS);
  t.teardown(() => index.close());
  t.equal(index.db.pragma('page_size', { simple: true }), 8192, 'a new index file has 8 KiB pages');
  const taskRow = (taskId: string) => (index.db.prepare('SELECT state FROM tasks WHERE task_id = ?').get(taskId) as { state: string } | undefined)?.state;
  const batch = sealed([
    pending({ kind: 'task.created', task_id: 'task-1', session_id: 'sess-b', payload: { title: 'Fold me' } }),
    pending({ kind: 'ext.acme.note', task_id: 'task-1', session_id: 'sess-a' }),
    pending({ kind: 'ext.acme.note', task_id: 'task-1', session_id: 'sess-c' }),
    pending({ kind: 'task.created', task_id: 'task-2', payload: { title: 'Other' } }),
    pending({ kind: 'task.closed', task_id: 'task-1', payload: { outcome: 'succeeded' } }),
  ], 1, ZERO_HASH);
  index.applyBatch(batch, 0);
  t.same(JSON.parse(taskRow('task-1')!), foldTask(batch.filter((r) => r.event.task_id === 'task-1').map((r) => r.event)));
  t.same(JSON.parse(taskRow('task-1')!).session_ids, ['sess-a', 'sess-b', 'sess-c']);
  t.equal(JSON.parse(taskRow('task-1')!).status, 'closed');
  t.same(JSON.parse(taskRow('task-2')!), foldTask([batch[3]!.event]));
  const streamRow = index.db.prepare('SELECT version, closed FROM streams WHERE stream LIKE ?').get('%task-1') as { version: number; closed: number };
  t.same(streamRow, { version: 5, closed: 1 }, 'the stream row is the last event\'s version, closed by task.closed');

  // A transaction that fails (here: a seq the table holds already) rolls back, and what it had
  // folded in memory must not leak into the next one.
  const failing = sealed([
    pending({ kind: 'task.created', task_id: 'task-3', session_id: 'sess-leak', payload: { title: 'Three' } }),
    pending({ kind: 'ext.acme.note', task_id: 'task-3', session_id: 'sess-leak-2' }),
  ], 6, batch[4]!.event.event_hash);
  const duplicate = sealed([pending({ kind: 'ext.acme.note' })], 1, ZERO_HASH);
  t.throws(() => index.applyBatch([...failing, ...duplicate], 0), /UNIQUE|PRIMARY KEY/);
  t.equal(taskRow('task-3'), undefined, 'nothing of the failed transaction is stored');
  const retry = sealed([pending({ kind: 'task.created', task_id: 'task-3', payload: { title: 'Three' } })], 6, batch[4]!.event.event_hash);
  index.applyBatch(retry, 0);
  t.same(JSON.parse(taskRow('task-3')!), foldTask([retry[0]!.event]), 'the next transaction folds from the stored rows only');
  t.same(JSON.parse(taskRow('task-3')!).session_ids, []);
});

t.test('an asset row the index writer remembers is the committed row: a transaction rolled back at its end leaves nothing', async (t) => {
  const dir = tempDir(t);
  mkdirSync(dir, { recursive: true });
  // A projection after the governance one whose finish fails: the governance projection has then
  // finished its transaction (its rows written, its states remembered) and the commit never comes.
  let failAtEnd = false;
  const failing: ProjectionFactory = () => Object.assign(() => {}, {
    finish: () => {
      if (failAtEnd) throw new Error('the disk went away after the projections finished');
    },
  });
  const index = openIndexDb(join(dir, 'index.sqlite'), [...EXTRA_PROJECTIONS, failing]);
  t.teardown(() => index.close());
  const assetRow = () => JSON.parse((index.db.prepare('SELECT state FROM gov_assets WHERE asset_id = ?').get('asset-1') as { state: string }).state) as AssetState;
  const registration = (revision: number, purpose: string) => pending({
    kind: ASSET_REGISTERED,
    payload: { asset_id: 'asset-1', revision, name: 'Ticket summariser', purpose, owner: { type: 'user', id: 'owner-1' }, deployment_context: 'support, internal', models: [{ provider: 'acme', name: 'sum-2' }] },
  });
  const first = sealed([registration(1, 'Summarise support tickets')], 1, ZERO_HASH);
  index.applyBatch(first, 0);
  // A re-registration appends a revision: folded twice, the asset would show it twice.
  const second = sealed([registration(2, 'Summarise and route support tickets')], 2, first[0]!.event.event_hash);
  failAtEnd = true;
  t.throws(() => index.applyBatch(second, 0), /disk went away/);
  t.same(assetRow().revisions.map((r) => r.revision), [1], 'nothing of the rolled-back transaction is stored');
  failAtEnd = false;
  index.applyBatch(second, 0);
  const asset = assetRow();
  t.same(asset.revisions.map((r) => r.revision), [1, 2], 'the batch tried again folds onto the committed row, not onto what was rolled back');
  t.same(asset.revisions[1]!.changed, ['purpose']);
  t.equal(asset.registration.purpose, 'Summarise and route support tickets');
  // The next transaction starts from the state the last one committed and remembered.
  const third = sealed([registration(3, 'Summarise, route and tag support tickets')], 3, second[0]!.event.event_hash);
  index.applyBatch(third, 0);
  t.same(assetRow().revisions.map((r) => r.revision), [1, 2, 3], 'a remembered state folds on as the row would');

  // And the rows are what a fresh index folds from the same events.
  const fresh = openIndexDb(join(dir, 'fresh.sqlite'), EXTRA_PROJECTIONS);
  t.teardown(() => fresh.close());
  fresh.applyBatch([...first, ...second, ...third], 0);
  const rows = (db: typeof index.db) => db.prepare('SELECT * FROM gov_assets ORDER BY scope, asset_id').all();
  t.same(rows(index.db), rows(fresh.db), 'gov_assets as a rebuild gives it');
});

t.test('the index writer thread yields the cores to the event loop (nice +10 on Linux)', async (t) => {
  const { store } = await open(t);
  await store.append([pending()]);
  await store.settled();
  const nice = (stat: string) => Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  const threads = readdirSync('/proc/self/task').map((tid) => ({ tid, nice: nice(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8')) }));
  t.equal(nice(readFileSync('/proc/self/stat', 'utf8')), 0, 'the process (its main thread) keeps its priority');
  t.equal(threads.filter((th) => th.nice === 10).length, 1, 'one thread, the index writer, runs at nice 10');
});
