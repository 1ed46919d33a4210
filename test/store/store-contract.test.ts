// The store contract: what every adapter of the storage port (the preview's file + SQLite, the
// hosted PostgreSQL log) must do the same way — gapless hash-chained seqs with canonical lines,
// group commit, expectations checked inside the append (a refused unit alone), idempotent replays,
// reads that see every acknowledged write, and the same answers after a restart. One suite, run
// against both; the PostgreSQL one on a real server (test/fixtures/postgres.ts).
import t, { type Test } from 'tap';
import { canonicalJson } from '../../src/domain/canonical-json.ts';
import { eventHash } from '../../src/domain/event-hash.ts';
import { ZERO_HASH, type StoredEvent } from '../../src/domain/event.ts';
import { taskStream } from '../../src/domain/streams.ts';
import { AppError } from '../../src/errors.ts';
import type { PendingEvent } from '../../src/store/event-log.ts';
import type { Expectation, SealedView } from '../../src/store/expectations.ts';
import { migrateDatabase } from '../../src/store/pg/pg-log-tools.ts';
import { openPgStore } from '../../src/store/pg/pg-store.ts';
import { createQueries } from '../../src/store/queries.ts';
import { openStore, type Store } from '../../src/store/store.ts';
import { testDatabase } from '../fixtures/postgres.ts';
import { noteEvents, STORE_SCOPE } from '../fixtures/store-harness.ts';
import { fixedClock, tempDir } from '../fixtures/test-app.ts';

/** Opens the adapter's store on the same backing storage each time (a restart), counting batches. */
type Adapter = { name: string; setUp(t: Test): Promise<((onBatch?: (units: number) => void) => Promise<Store>) | null> };

const ADAPTERS: Adapter[] = [
  {
    name: 'local (JSONL + SQLite)',
    async setUp(t) {
      const dir = tempDir(t);
      return (onBatch) => openStore({ dataDir: dir, clock: fixedClock(), warn: () => {}, ...(onBatch ? { onBatch } : {}) });
    },
  },
  {
    name: 'PostgreSQL',
    async setUp(t) {
      const url = await testDatabase(t);
      if (url === null) return null;
      await migrateDatabase(url);
      return (onBatch) => openPgStore({ databaseUrl: url, clock: fixedClock(), warn: () => {}, ...(onBatch ? { onBatch } : {}) });
    },
  },
];

const stream = taskStream(STORE_SCOPE, 'task-1');
const expectTask = (state: 'absent' | 'open', version?: number): Expectation => ({
  type: 'stream',
  stream,
  state,
  ...(version === undefined ? {} : { version }),
  orElse: (f) => new AppError(f.reason === 'closed' ? 'task_closed' : f.reason === 'stale' ? 'precondition_failed' : f.reason === 'exists' ? 'task_exists' : 'task_not_found', `task-1: ${f.reason}`),
});

async function outcome(p: Promise<{ events: StoredEvent[]; replayed: boolean }>): Promise<string> {
  try {
    const r = await p;
    return `${r.replayed ? 'replay' : 'ok'}:${r.events.map((e) => e.seq).join(',')}`;
  } catch (err) {
    return (err as AppError).code ?? String(err);
  }
}

/** The adapter's store, closed at teardown, with the units of each batch it writes; null when the adapter is skipped. */
async function openCounted(t: Test, adapter: Adapter): Promise<{ store: Store; batches: number[] } | null> {
  const open = await adapter.setUp(t);
  if (open === null) return null;
  const batches: number[] = [];
  const store = await open((units) => batches.push(units));
  t.teardown(() => store.close());
  return { store, batches };
}

function allRows(store: Store): Array<{ seq: number; line: string }> {
  return store.index.db.prepare<[], { seq: number; line: string }>('SELECT seq, line FROM events ORDER BY seq').all();
}

for (const adapter of ADAPTERS) {
  t.test(adapter.name, async (t) => {
    t.test('appends are gapless, chained from the zero hash, canonical; units are whole', async (t) => {
      const open = await adapter.setUp(t);
      if (open === null) return;
      const store = await open();
      t.teardown(() => store.close());
      const note = noteEvents();
      await store.append([note()]);
      await store.append([note(), note()]);
      await store.settled();
      const rows = allRows(store);
      t.same(rows.map((r) => r.seq), [1, 2, 3]);
      const events = rows.map((r) => JSON.parse(r.line) as StoredEvent);
      t.equal(events[0]!.prev_hash, ZERO_HASH);
      for (const [k, e] of events.entries()) {
        t.equal(e.event_hash, eventHash(e), `seq ${e.seq} hash recomputes`);
        t.equal(rows[k]!.line, canonicalJson(e), `seq ${e.seq} is stored as its canonical line`);
        if (k > 0) t.equal(e.prev_hash, events[k - 1]!.event_hash, `seq ${e.seq} links to the one before`);
      }
      t.same(events.map((e) => e.unit ?? null), [null, { index: 0, size: 2 }, { index: 1, size: 2 }]);
      t.equal(store.tail().seq, 3);
      t.equal(store.indexedSeq(), 3);
    });

    t.test('100 concurrent appends into one open task: all accepted, several per batch', async (t) => {
      const opened = await openCounted(t, adapter);
      if (opened === null) return;
      const { store, batches } = opened;
      const note = noteEvents();
      await store.append([note({ kind: 'task.created' })], [expectTask('absent')]);
      const results = await Promise.all(Array.from({ length: 100 }, () => outcome(store.append([note()], [expectTask('open')]))));
      t.ok(results.every((r) => r.startsWith('ok:')), 'every append is accepted');
      t.same(results.map((r) => Number(r.slice(3))).sort((a, b) => a - b), Array.from({ length: 100 }, (_, k) => k + 2));
      t.ok(batches.length < 101, `group commit: ${batches.length} batches for 101 units`);
      t.ok(Math.max(...batches) > 1, 'one batch held several appends');
    });

    t.test('a unit whose stream moved on is decided again in the writer, on what was sealed since', async (t) => {
      const opened = await openCounted(t, adapter);
      if (opened === null) return;
      const { store, batches } = opened;
      const note = noteEvents();
      await store.append([note({ kind: 'task.created' })], [expectTask('absent')]);
      // Every unit read the task at version 1; each one the writer reaches after another is decided
      // again on the version it finds, and says which sealed events (after seq 1) it saw.
      const decided = (view: SealedView) => {
        const version = view.streamVersion(stream);
        const seen = view.eventsAfter(1).map((e) => e.seq);
        return { unit: [note({ payload: { text: 'decided again', version, seen } })], expect: [expectTask('open', version)] };
      };
      const results = await Promise.all(Array.from({ length: 20 }, () => outcome(store.append([note()], [expectTask('open', 1)], { redecide: decided }))));
      t.ok(results.every((r) => r.startsWith('ok:')), `every unit is sealed: ${results.join(' ')}`);
      t.ok(Math.max(...batches) > 1, 'one batch held several of them');
      await store.settled();
      const events = allRows(store).map((r) => JSON.parse(r.line) as StoredEvent).filter((e) => e.seq > 1);
      t.same(events.map((e) => e.seq), Array.from({ length: 20 }, (_, k) => k + 2));
      t.match(events[0]!.payload, { text: /about the vault path/ }, 'the first unit was sealed as it was sent');
      let sawUnindexed = 0;
      for (const e of events.slice(1)) {
        const p = e.payload as { text: string; version: number; seen: number[] };
        t.equal(p.version, e.seq - 1, `seq ${e.seq} was decided at the version the unit before it left`);
        // The sealed events the index may not hold yet: a run up to the one before it (empty once indexed).
        const run = p.seen.length === 0 ? [] : Array.from({ length: e.seq - p.seen[0]! }, (_, k) => p.seen[0]! + k);
        t.same(p.seen, run, `seq ${e.seq} saw the units sealed before it`);
        if (p.seen.length > 0) sawUnindexed++;
      }
      t.ok(sawUnindexed > 0, 'units saw others sealed before them and not yet indexed');

      // No new decision, or one that fails: the first refusal stands and nothing is written.
      const stale = [expectTask('open', 1)];
      t.same(await Promise.all([
        outcome(store.append([note()], stale, { redecide: () => null })),
        outcome(store.append([note()], stale, { redecide: () => { throw new Error('the index is being rebuilt'); } })),
        outcome(store.append([note()], stale, { redecide: (view) => ({ unit: [note()], expect: [expectTask('open', view.streamVersion(stream) - 1)] }) })),
      ]), ['precondition_failed', 'precondition_failed', 'precondition_failed']);
      // A refusal that is not a moved stream is never decided again.
      let asked = 0;
      t.equal(await outcome(store.append([note({ task_id: 'task-9' })], [{ type: 'stream', stream: taskStream(STORE_SCOPE, 'task-9'), state: 'open', orElse: () => new AppError('task_not_found', 'task-9: missing') }], { redecide: () => (asked++, null) })), 'task_not_found');
      t.equal(asked, 0);
      await store.settled();
      t.equal(store.tail().seq, 21, 'nothing of the refused units');
    });

    t.test('expectations inside the append: a refused unit alone, the rest of its batch commits', async (t) => {
      const opened = await openCounted(t, adapter);
      if (opened === null) return;
      const { store, batches } = opened;
      const note = noteEvents();
      const results = await Promise.all([
        outcome(store.append([note({ kind: 'task.created' })], [expectTask('absent')])),
        outcome(store.append([note()], [expectTask('open', 1)])),
        outcome(store.append([note()], [expectTask('open', 1)])),
        outcome(store.append([note({ kind: 'task.closed' })], [expectTask('open')])),
        outcome(store.append([note()], [expectTask('open')])),
        outcome(store.append([note({ kind: 'task.created' })], [expectTask('absent')])),
      ]);
      t.same(results, ['ok:1', 'ok:2', 'precondition_failed', 'ok:3', 'task_closed', 'task_exists']);
      t.same(batches, [3], 'the three units that passed share one commit');
      await store.settled();
      t.same(store.stream(stream), { version: 3, closed: true });
      t.same(allRows(store).map((r) => r.seq), [1, 2, 3], 'nothing of a refused unit is written');
    });

    t.test('one Idempotency-Key sent 50 times at once: one event, 49 identical replays; another request is refused', async (t) => {
      const open = await adapter.setUp(t);
      if (open === null) return;
      const store = await open();
      t.teardown(() => store.close());
      const note = noteEvents();
      const keyed = (): PendingEvent => note({ idempotency_key: 'key-1', request_sha256: 'sha256:aaaa' });
      const answers = await Promise.all(Array.from({ length: 50 }, () => store.append([keyed()])));
      t.equal(answers.filter((a) => !a.replayed).length, 1);
      t.same(new Set(answers.map((a) => a.lines[0])).size, 1, 'every answer carries the same line');
      const later = await store.append([keyed()]);
      t.ok(later.replayed);
      t.equal(later.lines[0], answers[0]!.lines[0]);
      t.equal(await outcome(store.append([note({ idempotency_key: 'key-1', request_sha256: 'sha256:bbbb' })])), 'idempotency_key_reused');
      await store.settled();
      t.equal(allRows(store).length, 1);
      // What a route asks before repeating its work: the committed record, keys per tenant.
      t.same(store.idempotency(STORE_SCOPE.tenant_id, 'key-1'), { first_seq: 1, size: 1, request_sha256: 'sha256:aaaa' });
      t.equal(store.idempotency(STORE_SCOPE.tenant_id, 'key-2'), undefined);
      t.equal(store.idempotency('another-tenant', 'key-1'), undefined);
    });

    t.test('a restart reads the same log: same rows, same queries, the chain goes on', async (t) => {
      const open = await adapter.setUp(t);
      if (open === null) return;
      const first = await open();
      const note = noteEvents();
      await first.append([note({ kind: 'task.created' })], [expectTask('absent')]);
      for (let k = 0; k < 20; k++) await first.append([note()], [expectTask('open')]);
      await first.settled();
      const before = allRows(first);
      const timeline = createQueries(first.index.db).taskEventsUpTo(STORE_SCOPE, 'task-1', 21).map((e) => e.event_hash);
      await first.close();
      const second = await open();
      t.teardown(() => second.close());
      await second.settled();
      t.same(allRows(second), before, 'the index holds the same rows');
      t.same(createQueries(second.index.db).taskEventsUpTo(STORE_SCOPE, 'task-1', 21).map((e) => e.event_hash), timeline);
      t.same(second.stream(stream), { version: 21, closed: false });
      t.equal(await outcome(second.append([note()], [expectTask('open', 21)])), 'ok:22');
      await second.settled();
      const rows = allRows(second).map((r) => JSON.parse(r.line) as StoredEvent);
      t.equal(rows[21]!.prev_hash, rows[20]!.event_hash, 'the chain goes on across the restart');
    });
  });
}
