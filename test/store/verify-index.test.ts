// `gov events verify` and the index: copies of one data dir with the index damaged in one way each
// (seeded random bytes past page 1, a row's line or column changed, a row deleted or added, a meta
// value wrong, not a database at all, a running preview's marker) are exit-1 findings naming what disagrees; a clean copy, an
// index that is only behind the log, and a missing one are not failures.
import t, { type Test } from 'tap';
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { copyFileSync, cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PendingEvent } from '../../src/store/event-log.ts';
import { indexPathOf, openStore, rebuildMarkerOf } from '../../src/store/store.ts';
import { verifyLog, type LogVerification } from '../../src/store/verify-log.ts';
import { fixedClock, tempDir } from '../fixtures/test-app.ts';

const scope = { tenant_id: 'tenant-a', workspace_id: 'ws-1', project_id: 'proj-1' };
const EVENTS = 240;
let id = 0;
const pending = (): PendingEvent => ({
  event_id: `evt_${++id}`, kind: 'ext.acme.note', ...scope, task_id: `task-${id % 7}`, transport: 'customer',
  idempotency_key: null, request_sha256: null, payload: { text: `note ${id}: ${'words for the search index '.repeat(8)}` },
});

/** One data dir with a few pages of events (built once, copied per case). */
const base = tempDir(t);
const appendAll = async (dir: string, n: number) => {
  const store = await openStore({ dataDir: dir, clock: fixedClock(), warn: () => {} });
  await Promise.all(Array.from({ length: n }, () => store.append([pending()])));
  await store.close();
};

function copyOf(t: Test): string {
  const dir = tempDir(t);
  cpSync(base, dir, { recursive: true });
  return dir;
}

/** Deterministic "random" bytes: a SHA-256 stream of the seed. */
function seededBytes(seed: string, length: number): Buffer {
  const out: Buffer[] = [];
  for (let i = 0; out.length * 32 < length; i++) out.push(createHash('sha256').update(`${seed}:${i}`).digest());
  return Buffer.concat(out).subarray(0, length);
}

function overwrite(path: string, at: number, data: Buffer): void {
  const file = readFileSync(path);
  data.copy(file, at);
  writeFileSync(path, file);
}

function withIndex<T>(dir: string, fn: (db: Database.Database) => T): T {
  const db = new Database(indexPathOf(dir));
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

/** The first page of `name` of the given type (dbstat), and the page size. */
function pageOf(dir: string, name: string, type: 'leaf' | 'internal'): { start: number; size: number } {
  return withIndex(dir, (db) => {
    const size = db.pragma('page_size', { simple: true }) as number;
    const row = db.prepare<[string, string], { pageno: number }>('SELECT pageno FROM dbstat WHERE name = ? AND pagetype = ? ORDER BY pageno LIMIT 1').get(name, type);
    if (!row) throw new Error(`no ${type} page of ${name}`);
    return { start: (row.pageno - 1) * size, size };
  });
}

function expectFailure(t: Test, result: LogVerification, index: Record<string, unknown>) {
  t.equal(result.ok, false, 'not ok');
  t.match(result.index, index);
  // The log is fine: the finding is the index's, and the report's top level says so.
  t.match(result, { problem: result.index.detail, problem_code: result.index.code, first_bad_seq: result.index.first_bad_seq, first_bad_offset: null, merkle_root: /^sha256:/ });
}

t.before(async () => appendAll(base, EVENTS));

t.test('a clean copy: the index agrees, ok', async (t) => {
  const result = verifyLog(copyOf(t));
  t.match(result, { ok: true, problem: null, problem_code: null, index: { status: 'agrees', index_seq: EVENTS, code: null } });
});

t.test('random bytes over every page past page 1: corrupt', async (t) => {
  const dir = copyOf(t);
  const size = readFileSync(indexPathOf(dir)).length;
  overwrite(indexPathOf(dir), 4096, seededBytes('all', size - 4096));
  expectFailure(t, verifyLog(dir), { status: 'corrupt', code: 'index_corrupt' });
});

t.test('random bytes over the cells of an events page: the row differs, or the page is corrupt', async (t) => {
  for (const seed of ['a', 'b', 'c']) {
    const dir = copyOf(t);
    // A page's cells fill it from its end: the last 1 KiB of a leaf holds rows.
    const page = pageOf(dir, 'events', 'leaf');
    overwrite(indexPathOf(dir), page.start + page.size - 1024, seededBytes(seed, 1024));
    expectFailure(t, verifyLog(dir), { status: /^(disagrees|corrupt)$/ });
  }
});

t.test('random bytes inside one stored line, the page still well-formed: that row differs', async (t) => {
  const dir = copyOf(t);
  const file = readFileSync(indexPathOf(dir));
  // Only the events row's line holds the event_id as a JSON member (the search row holds the payload).
  const at = file.indexOf('"event_id":"evt_100",');
  t.ok(at > 4096, 'the line is past page 1');
  overwrite(indexPathOf(dir), at + 12, seededBytes('line', 6));
  expectFailure(t, verifyLog(dir), { status: 'disagrees', code: 'index_row_differs', first_bad_seq: 100, column: 'line' });
});

t.test('random bytes in a timeline index (events_by_task): integrity_check finds it', async (t) => {
  const dir = copyOf(t);
  const page = pageOf(dir, 'events_by_task', 'leaf');
  overwrite(indexPathOf(dir), page.start + page.size - 512, seededBytes('task', 512));
  expectFailure(t, verifyLog(dir), { status: 'corrupt', code: 'index_corrupt', detail: /integrity_check|malformed/ });
});

t.test('not a database at all: corrupt', async (t) => {
  const dir = copyOf(t);
  writeFileSync(indexPathOf(dir), seededBytes('nothing', 8192));
  expectFailure(t, verifyLog(dir), { status: 'corrupt', code: 'index_corrupt' });
});

const edits: Array<{ name: string; sql: string; expect: Partial<LogVerification['index']> }> = [
  { name: "one row's line changed", sql: "UPDATE events SET line = replace(line, '\"note 17:', '\"note 71:') WHERE seq = 17", expect: { code: 'index_row_differs', first_bad_seq: 17, column: 'line' } },
  { name: "one row's line with a byte more", sql: "UPDATE events SET line = line || ' ' WHERE seq = 30", expect: { code: 'index_row_differs', first_bad_seq: 30, column: 'line' } },
  { name: "one row's kind changed", sql: "UPDATE events SET kind = 'ext.acme.other' WHERE seq = 5", expect: { code: 'index_row_differs', first_bad_seq: 5, column: 'kind' } },
  { name: "one row's task_id changed", sql: "UPDATE events SET task_id = 'task-x' WHERE seq = 9", expect: { code: 'index_row_differs', first_bad_seq: 9, column: 'task_id' } },
  { name: "one row's event_hash changed", sql: `UPDATE events SET event_hash = 'sha256:${'0'.repeat(64)}' WHERE seq = 11`, expect: { code: 'index_row_differs', first_bad_seq: 11, column: 'event_hash' } },
  { name: 'a row deleted', sql: 'DELETE FROM events WHERE seq = 42', expect: { code: 'index_row_missing', first_bad_seq: 42, column: 'seq' } },
  { name: 'the last row deleted', sql: `DELETE FROM events WHERE seq = ${EVENTS}`, expect: { code: 'index_meta_differs', column: 'meta.last_seq' } },
  { name: 'a row past the log', sql: `INSERT INTO events SELECT ${EVENTS + 5}, 'evt_extra', scope, kind, task_id, session_id, recorded_at, event_hash, line FROM events WHERE seq = 1`, expect: { code: 'index_row_extra', first_bad_seq: EVENTS + 5 } },
  { name: 'meta last_seq wrong', sql: "UPDATE meta SET value = '7' WHERE key = 'last_seq'", expect: { code: 'index_meta_differs', column: 'meta.last_seq' } },
  { name: 'meta last_hash wrong', sql: `UPDATE meta SET value = 'sha256:${'1'.repeat(64)}' WHERE key = 'last_hash'`, expect: { code: 'index_meta_differs', column: 'meta.last_hash' } },
  { name: 'meta log_offset wrong', sql: "UPDATE meta SET value = CAST(value AS INTEGER) - 1 WHERE key = 'log_offset'", expect: { code: 'index_meta_differs', column: 'meta.log_offset' } },
  { name: 'meta log_offset missing', sql: "DELETE FROM meta WHERE key = 'log_offset'", expect: { code: 'index_meta_differs', column: 'meta.log_offset' } },
];

for (const edit of edits) {
  t.test(`${edit.name}: the index disagrees, naming the seq and column`, async (t) => {
    const dir = copyOf(t);
    withIndex(dir, (db) => db.exec(edit.sql));
    expectFailure(t, verifyLog(dir), { status: 'disagrees', ...edit.expect });
  });
}

t.test('a running preview found the index corrupt (index.rebuild): corrupt, though its events agree', async (t) => {
  const dir = copyOf(t);
  writeFileSync(rebuildMarkerOf(dir), 'SQLITE_CORRUPT reading task task-3\n');
  expectFailure(t, verifyLog(dir), { status: 'corrupt', code: 'index_corrupt', detail: /a running preview found it corrupt \(SQLITE_CORRUPT reading task task-3\)/ });
});

t.test('an index that is only behind the log: behind, not a failure', async (t) => {
  const dir = copyOf(t);
  const saved = join(dir, 'index.saved');
  copyFileSync(indexPathOf(dir), saved);
  await appendAll(dir, 3);
  for (const suffix of ['', '-wal', '-shm']) rmSync(indexPathOf(dir) + suffix, { force: true });
  copyFileSync(saved, indexPathOf(dir));
  const result = verifyLog(dir);
  t.match(result, { ok: true, event_count: EVENTS + 3, problem: null, index: { status: 'behind', index_seq: EVENTS, code: null } });
});

t.test('beside a live store whose index writer is applying batches: ok, agrees or behind, and the store writes on', async (t) => {
  const dir = copyOf(t);
  const store = await openStore({ dataDir: dir, clock: fixedClock(Date.parse('2027-01-01T00:00:00Z')), warn: () => {} });
  t.teardown(() => store.close());
  for (let round = 0; round < 5; round++) {
    const writes = Promise.all(Array.from({ length: 40 }, () => store.append([pending()])));
    // verifyLog is synchronous; the index writer is a worker thread and goes on meanwhile.
    const result = verifyLog(dir);
    t.match(result, { ok: true, problem: null, index: { status: /^(agrees|behind)$/ } }, `round ${round}`);
    await writes;
  }
  await store.settled();
  t.match(verifyLog(dir), { ok: true, event_count: EVENTS + 200, index: { status: 'agrees', index_seq: EVENTS + 200 } });
  // Verify left no lock or transaction behind: the writer appends and indexes on.
  await store.append([pending()]);
  await store.settled();
  t.match(verifyLog(dir), { ok: true, index: { status: 'agrees', index_seq: EVENTS + 201 } });
});

t.test('a missing index: missing, not a failure (start-up rebuilds it)', async (t) => {
  const dir = copyOf(t);
  rmSync(indexPathOf(dir));
  t.match(verifyLog(dir), { ok: true, index: { status: 'missing' } });
});

t.test('verify opens the index read-only: it changes no byte of it', async (t) => {
  const dir = copyOf(t);
  const before = readFileSync(indexPathOf(dir));
  verifyLog(dir);
  t.ok(readFileSync(indexPathOf(dir)).equals(before));
});
