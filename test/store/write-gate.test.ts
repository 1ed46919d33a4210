// Expectations checked by the single writer: against the committed log and against the units
// sealed before them in the same batch; a failing unit is refused alone while the rest of its batch
// commits in the same write; replays of a key sealed in the batch answer once it is durable; an
// index from before stream versions is rebuilt, not trusted; and a unit whose committed reads fail
// (the index is being rebuilt) leaves nothing behind in the batch.
import t, { type Test } from 'tap';
import Database from 'better-sqlite3';
import { taskStream } from '../../src/domain/streams.ts';
import { AppError, type ErrorCode } from '../../src/errors.ts';
import type { StoredEvent } from '../../src/domain/event.ts';
import type { PendingEvent, SealedRow } from '../../src/store/event-log.ts';
import type { Expectation } from '../../src/store/expectations.ts';
import { createWriteGate } from '../../src/store/write-gate.ts';
import { indexPathOf, openStore, type Store } from '../../src/store/store.ts';
import { fixedClock, tempDir } from '../fixtures/test-app.ts';

const scope = { tenant_id: 'tenant-a', workspace_id: 'ws-1', project_id: 'proj-1' };
const stream = taskStream(scope, 'task-1');
let id = 0;
function pending(extra: Partial<PendingEvent> = {}): PendingEvent {
  return { event_id: `evt_${++id}`, kind: 'ext.acme.note', ...scope, task_id: 'task-1', transport: 'customer', idempotency_key: null, request_sha256: null, payload: { n: id }, ...extra };
}
// The gate hands back whatever error an expectation makes. These name the reason the gate found
// (task_stale, task_missing: not catalogue codes), so the assertions read that reason.
const reasonError = (code: string, message: string) => new AppError(code as ErrorCode, message);
const fail = (code: string) => () => reasonError(code, code);
const expectTask = (state: 'absent' | 'open', version?: number): Expectation => ({
  type: 'stream', stream, state, ...(version === undefined ? {} : { version }),
  orElse: (f) => reasonError(`task_${f.reason}`, `task ${f.reason} (actual ${f.actual?.version ?? 'none'})`),
});

async function open(t: Test, dataDir = tempDir(t), clock = fixedClock()): Promise<{ store: Store; batches: number[]; warnings: string[]; dataDir: string }> {
  const batches: number[] = [];
  const warnings: string[] = [];
  const store = await openStore({ dataDir, clock, warn: (m) => warnings.push(m), onBatch: (units) => batches.push(units) });
  t.teardown(() => store.close().catch(() => {}));
  return { store, batches, warnings, dataDir };
}

/** Settles every promise, mapping each to its seqs or its error code. */
async function outcomes(promises: Array<Promise<{ replayed: boolean; events: Array<{ seq: number }> }>>): Promise<Array<string>> {
  const settled = await Promise.allSettled(promises);
  return settled.map((s) => (s.status === 'fulfilled' ? `${s.value.replayed ? 'replay' : 'ok'}:${s.value.events.map((e) => e.seq).join(',')}` : (s.reason as AppError).code));
}

t.test('one batch: create, write, close, then a refused write — the refusal alone is left out', async (t) => {
  const { store, batches } = await open(t);
  const results = await outcomes([
    store.append([pending({ kind: 'task.created' })], [expectTask('absent')]),
    store.append([pending()], [expectTask('open')]),
    store.append([pending({ kind: 'task.closed' })], [expectTask('open')]),
    store.append([pending()], [expectTask('open')]),
    store.append([pending({ kind: 'task.created' })], [expectTask('absent')]),
    store.append([pending({ task_id: undefined })]),
  ]);
  t.same(results, ['ok:1', 'ok:2', 'ok:3', 'task_closed', 'task_exists', 'ok:4']);
  t.same(batches, [4], 'one write + fsync for the four units that passed');
  await store.settled();
  t.same(store.stream(stream), { version: 3, closed: true }, 'the indexed stream state');
  // From the committed state (a later batch) the same refusals follow.
  t.same(await outcomes([store.append([pending()], [expectTask('open')])]), ['task_closed']);
});

t.test('versions: the expected version must be the one when the unit is sealed', async (t) => {
  const { store } = await open(t);
  await store.append([pending({ kind: 'task.created' })], [expectTask('absent')]);
  const results = await outcomes([
    store.append([pending()], [expectTask('open', 1)]),
    store.append([pending()], [expectTask('open', 1)]),
    store.append([pending()], [expectTask('open', 2)]),
  ]);
  t.same(results, ['ok:2', 'task_stale', 'ok:3'], 'the second writer read version 1 too, and lost');
  t.same(await outcomes([store.append([pending()], [expectTask('open', 0)])]), ['task_stale']);
  t.same(await outcomes([store.append([pending({ task_id: 'task-new' })], [{ type: 'stream', stream: taskStream(scope, 'task-new'), state: 'open', orElse: (f) => reasonError(`task_${f.reason}`, f.reason) }])]), ['task_missing']);
  // version 0 is the version of a stream without events
  t.same(await outcomes([store.append([pending({ task_id: 'task-zero', kind: 'task.created' })], [{ type: 'stream', stream: taskStream(scope, 'task-zero'), version: 0, orElse: fail('stale') }])]), ['ok:4']);
});

t.test('idempotency in the writer: replays of a unit sealed in the same batch, and a reused key', async (t) => {
  const { store, batches } = await open(t);
  const keyed = (sha: string) => pending({ idempotency_key: 'key-1', request_sha256: `sha256:${sha.repeat(64)}` });
  const results = await Promise.allSettled([
    store.append([keyed('a'), pending()]),
    store.append([keyed('a'), pending()]),
    store.append([keyed('b')]),
  ]);
  const [first, replay, reused] = results;
  t.equal(first.status, 'fulfilled');
  t.equal(replay.status, 'fulfilled');
  if (first.status === 'fulfilled' && replay.status === 'fulfilled') {
    t.equal(first.value.replayed, false);
    t.equal(replay.value.replayed, true);
    t.same(replay.value.lines, first.value.lines, 'the replay answers the original unit, line for line');
  }
  t.equal(reused.status === 'rejected' && (reused.reason as AppError).code, 'idempotency_key_reused');
  t.same(batches, [1]);
  const later = await store.append([keyed('a'), pending()]);
  t.equal(later.replayed, true);
  if (first.status === 'fulfilled') t.same(later.lines, first.value.lines, 'a replay of the committed unit too');
  t.equal(store.tail().seq, 2, 'one unit written');
});

t.test('an event id is new unless taken, in the log or earlier in the batch', async (t) => {
  const { store } = await open(t);
  const unused = (eventId: string): Expectation => ({ type: 'event_id_unused', eventId, orElse: fail('event_id_exists') });
  const results = await outcomes([
    store.append([pending({ event_id: 'evt-chosen', task_id: undefined })], [unused('evt-chosen')]),
    store.append([pending({ event_id: 'evt-chosen-2', task_id: undefined })], [unused('evt-chosen')]),
  ]);
  t.same(results, ['ok:1', 'event_id_exists']);
  t.same(await outcomes([store.append([pending({ task_id: undefined })], [unused('evt-chosen')])]), ['event_id_exists']);
});

t.test('snapshot_complete: no event after the read seq may be recorded at or before as_of', async (t) => {
  // Every batch is recorded at the clock's next second: 10:00:01, 10:00:02, …
  const { store } = await open(t);
  await store.append([pending({ task_id: undefined })]); // seq 1 at 10:00:01
  await store.append([pending({ task_id: undefined })]); // seq 2 at 10:00:02
  const asOf = (iso: string) => Date.parse(iso);
  const snap = (seq: number, at: string): Expectation => ({ type: 'snapshot_complete', seq, asOf: asOf(at), orElse: fail('write_conflict') });
  t.same(await outcomes([store.append([pending({ task_id: undefined })], [snap(1, '2026-11-01T10:00:01.500Z')])]), ['ok:3'], 'seq 2 is after as_of');
  t.same(await outcomes([store.append([pending({ task_id: undefined })], [snap(1, '2026-11-01T10:00:02.000Z')])]), ['write_conflict'], 'seq 2 was missed by a read at seq 1');
  t.same(await outcomes([
    store.append([pending({ task_id: undefined })]),
    store.append([pending({ task_id: undefined })], [snap(3, '2099-01-01T00:00:00.000Z')]),
  ]), ['ok:4', 'write_conflict'], 'an event sealed earlier in the batch counts');
  t.same(await outcomes([store.append([pending({ task_id: undefined })], [snap(4, '2099-01-01T00:00:00.000Z')])]), ['ok:5'], 'nothing after the read seq');
});

t.test('an index made before stream versions is rebuilt from the log', async (t) => {
  const dataDir = tempDir(t);
  {
    const { store } = await open(t, dataDir);
    await store.append([pending({ kind: 'task.created' })], [expectTask('absent')]);
    await store.append([pending({ kind: 'task.closed' })], [expectTask('open')]);
    await store.close();
  }
  // What an index of version 2 looked like: no streams table.
  const db = new Database(indexPathOf(dataDir));
  db.exec('DROP TABLE streams');
  db.pragma('user_version = 2');
  db.close();
  const { store, warnings } = await open(t, dataDir);
  t.match(warnings.join('\n'), /older version/);
  await store.settled();
  t.same(store.stream(stream), { version: 2, closed: true });
  t.same(await outcomes([store.append([pending()], [expectTask('open')])]), ['task_closed']);
});

t.test('the index cannot be applied: acknowledged events stay, reads are refused, a restart rebuilds', async (t) => {
  const warnings: string[] = [];
  const dataDir = tempDir(t);
  const store = await openStore({ dataDir, clock: fixedClock(), warn: (m) => warnings.push(m) });
  await store.append([pending({ kind: 'task.created' })], [expectTask('absent')]);
  await store.settled();
  // Break the index under the worker: every transaction it tries now fails (and is retried).
  store.index.db.exec('DROP TABLE streams');
  const acknowledged = await store.append([pending()], [expectTask('open')]);
  t.equal(acknowledged.events[0]!.seq, 2, 'the write is durable and acknowledged');
  await t.rejects(store.settled(), { code: 'index_behind' }, 'no read of a stale index');
  t.equal(store.indexStatus().state, 'failing');
  const later = await store.append([pending()], [expectTask('open', 2)]);
  t.equal(later.events[0]!.seq, 3, 'the gate still sees the unindexed writes: conditions hold');
  await store.close();

  const { store: reopened, warnings: again } = await open(t, dataDir);
  t.match(again.join('\n'), /rebuilding/);
  t.equal(reopened.tail().seq, 3);
  t.same(reopened.stream(stream), { version: 3, closed: false }, 'the index holds every acknowledged write');
  t.same(await outcomes([reopened.append([pending()], [expectTask('open', 3)])]), ['ok:4']);
});

t.test('a committed read that fails while a unit is sealed leaves nothing of the unit in the batch', async (t) => {
  const cold = taskStream(scope, 'task-cold');
  // The index is being rebuilt: reading a stream's state from it throws.
  const gate = createWriteGate({
    stream: (s) => {
      if (s === cold) throw new AppError('index_unavailable', 'the index is being rebuilt');
      return undefined;
    },
    idempotency: () => undefined,
    eventIdTaken: () => false,
    recordedAtOf: () => undefined,
    rows: () => [],
  });
  const row = (seq: number, extra: Record<string, unknown>): SealedRow => {
    const event = { ...pending({ idempotency_key: 'k-1', request_sha256: 'sha-1' }), seq, recorded_at: '2026-11-01T10:00:00.000Z', ...extra } as unknown as StoredEvent;
    return { event, line: JSON.stringify(event) };
  };
  gate.beginBatch(1, '2026-11-01T10:00:00.000Z');
  const first = [row(1, { event_id: 'evt_cold', task_id: 'task-cold' })];
  t.same(gate.admit(first.map((r) => r.event as unknown as PendingEvent), []), { type: 'seal' });
  t.throws(() => gate.sealed(first), { code: 'index_unavailable' }, 'the unit is refused');
  // The same key and event id again in the batch: neither was taken by the refused unit.
  const again = [row(1, { event_id: 'evt_cold', task_id: 'task-1' })];
  t.same(gate.admit(again.map((r) => r.event as unknown as PendingEvent), [{ type: 'event_id_unused', eventId: 'evt_cold', orElse: fail('event_id_exists') }]), { type: 'seal' });
  gate.sealed(again);
  t.same(gate.rows(1, 1), [], 'nothing durable yet');
  gate.batchDurable();
  t.same(gate.rows(1, 1).map((r) => r.event.task_id), ['task-1'], 'the overlay holds the unit that was sealed, not the refused one');
});

t.test('durable overlays not yet indexed: the newest wins, and what an indexed overlay held goes with it', async (t) => {
  const indexed = new Map<string, { version: number }>();
  const gate = createWriteGate({
    stream: (s) => (indexed.has(s) ? ({ version: indexed.get(s)!.version, closed: false } as never) : undefined),
    idempotency: () => undefined,
    eventIdTaken: () => false,
    recordedAtOf: () => undefined,
    rows: () => [],
  });
  const at = '2026-11-01T10:00:00.000Z';
  const row = (seq: number, key: string): SealedRow => {
    const event = { ...pending({ event_id: `evt_d${seq}`, idempotency_key: key, request_sha256: `sha-${key}` }), seq, recorded_at: at } as unknown as StoredEvent;
    return { event, line: JSON.stringify(event) };
  };
  // Three durable batches of task-1's stream, none indexed yet.
  for (const seq of [1, 2, 3]) {
    gate.beginBatch(seq, at);
    const unit = [row(seq, `k-${seq}`)];
    t.same(gate.admit(unit.map((r) => r.event as unknown as PendingEvent), [expectTask(seq === 1 ? 'absent' : 'open', seq === 1 ? undefined : seq - 1)]), { type: 'seal' }, `batch ${seq} sees version ${seq - 1}`);
    gate.sealed(unit);
    gate.batchDurable();
  }
  const version = () => gate.sealedView.streamVersion(stream);
  const replayOf = (key: string) => gate.admit([pending({ idempotency_key: key, request_sha256: `sha-${key}` })], []);
  const taken = (eventId: string) => gate.admit([pending()], [{ type: 'event_id_unused', eventId, orElse: fail('event_id_exists') }]).type;
  gate.beginBatch(4, at);
  t.equal(version(), 3, 'the newest overlay\'s version');
  t.match(replayOf('k-1'), { type: 'replay', inBatch: false, record: { first_seq: 1 } }, 'the oldest overlay\'s key');
  t.equal(taken('evt_d2'), 'refuse', 'an event id of a middle overlay is taken');
  gate.abortBatch();

  // The index applies the first two: their entries go, the newest stays.
  indexed.set(stream, { version: 2 });
  gate.indexed(2);
  gate.beginBatch(4, at);
  t.equal(version(), 3, 'still the newest overlay\'s, not the index\'s 2');
  t.same(replayOf('k-1'), { type: 'seal' }, 'the indexed overlay\'s key is the index\'s to answer now (this one has none)');
  t.match(replayOf('k-3'), { type: 'replay', record: { first_seq: 3 } });
  t.equal(taken('evt_d2'), 'seal', 'its event id too');
  t.equal(taken('evt_d3'), 'refuse');
  gate.abortBatch();

  indexed.set(stream, { version: 3 });
  gate.indexed(3);
  gate.beginBatch(4, at);
  t.equal(version(), 3, 'from the index');
  t.same(replayOf('k-3'), { type: 'seal' }, 'no overlay holds anything now');
  gate.abortBatch();
});
