// `gov events verify`'s index side. Opens index.sqlite read-only in one read transaction (a snapshot
// a running preview's writer cannot move; it only ever applies durable lines, so the snapshot never
// holds more than the log), runs PRAGMA integrity_check (quick_check's structure plus every b-tree
// index against its table: timelines read through events_by_task), then walks the events rows:
// each row's `line` equals the log's line of its seq byte for byte, its columns equal that event's
// members, and the meta (last_seq, last_hash, log_offset) names the last row's place in the log.
import Database from 'better-sqlite3';
import { accessSync, constants, existsSync } from 'node:fs';
import { dirname } from 'node:path';
import type { StoredEvent } from '../domain/event.ts';
import type { LogLine } from './log-lines.ts';
import { scopeKey } from './projections/core.ts';

export type IndexCode = 'index_corrupt' | 'index_row_differs' | 'index_row_missing' | 'index_row_extra' | 'index_meta_differs';

export type IndexReport = {
  /**
   * `behind` (a prefix of the log; start-up or a running writer catches up), `missing` and
   * `unreadable` (not checked: SQLite cannot read it where it lies) are not failures.
   */
  status: 'agrees' | 'behind' | 'missing' | 'unreadable' | 'corrupt' | 'disagrees';
  /** How far the rows were read: the index's last seq when it agrees or is behind. */
  index_seq: number;
  detail: string;
  code: IndexCode | null;
  first_bad_seq: number | null;
  /** What disagrees: an events column (`line`, `event_id`, …) or a meta key (`meta.last_seq`, …). */
  column: string | null;
};

/** Fed the log's lines in order (line n is where seq n belongs), then asked for its verdict. */
export type IndexComparison = {
  line(seq: number, line: LogLine, event: StoredEvent | null): void;
  finish(logSeq: number): IndexReport;
};

type Row = { seq: number; event_id: unknown; scope: unknown; kind: unknown; task_id: unknown; session_id: unknown; recorded_at: unknown; event_hash: unknown; line: unknown };

const COLUMNS: ReadonlyArray<[column: keyof Row, of: (event: StoredEvent) => unknown]> = [
  ['event_id', (e) => e.event_id],
  ['scope', (e) => scopeKey(e)],
  ['kind', (e) => e.kind],
  ['task_id', (e) => e.task_id ?? null],
  ['session_id', (e) => e.session_id ?? null],
  ['recorded_at', (e) => e.recorded_at],
  ['event_hash', (e) => e.event_hash],
];

export function compareIndex(path: string): IndexComparison {
  if (!existsSync(path)) return absent('the index is missing; it is rebuilt at the next start (or run gov store rebuild-index)');
  let db: Database.Database;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
  } catch (err) {
    return unreadableHere(err, path) ?? broken(`the index cannot be opened (${(err as Error).message})`, 0);
  }
  let rows: Iterator<Row> | null = null;
  let verdict: IndexReport | null = null;
  let next: Row | null = null;
  let seen = 0;
  let meta = { lastSeq: 0, lastHash: null as string | null, logOffset: 0 };
  let atLastSeq: { hash: string | null; end: number } | null = null;
  const close = () => {
    try {
      rows?.return?.();
      db.close();
    } catch {
      // A corrupt file may fail to close cleanly too; the verdict is already taken.
    }
    rows = null;
  };
  /** Every SQLite read may meet a corrupt page: that ends the comparison with `corrupt`. */
  const guarded = (read: () => void) => {
    if (verdict !== null) return;
    try {
      read();
    } catch (err) {
      const where = rows === null ? '' : ` after seq ${seen}`;
      verdict = (rows === null ? unreadableHere(err, path)?.finish(0) : undefined) ?? corruptIndex(`reading it failed${where} (${(err as Error).message})`, seen);
      close();
    }
  };
  const pull = () => {
    const step = rows!.next();
    next = step.done ? null : step.value;
  };
  const disagree = (code: IndexCode, seq: number | null, column: string | null, detail: string) => {
    verdict = { status: 'disagrees', index_seq: seen, detail, code, first_bad_seq: seq, column };
    close();
  };

  guarded(() => {
    db.exec('BEGIN');
    const version = db.pragma('user_version', { simple: true }) as number;
    const hasEvents = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'events'").get() !== undefined;
    if (version === 0 && !hasEvents) {
      verdict = { status: 'missing', index_seq: 0, detail: 'the index was never initialised; it is built at the next start', code: null, first_bad_seq: null, column: null };
      close();
      return;
    }
    const found = new Map(db.prepare<[], { key: string; value: unknown }>('SELECT key, value FROM meta').all().map((r) => [r.key, r.value]));
    meta = { lastSeq: Number(found.get('last_seq') ?? 0), lastHash: (found.get('last_hash') as string | undefined) ?? null, logOffset: Number(found.get('log_offset') ?? 0) };
    const problems = (db.pragma('integrity_check(5)') as Array<{ integrity_check: string }>).map((r) => r.integrity_check.split('\n').map((line) => line.trim()).join(' ')).filter((m) => m !== 'ok');
    if (problems.length > 0) {
      verdict = corruptIndex(`PRAGMA integrity_check: ${problems.join('; ')}`, 0);
      close();
      return;
    }
    rows = db
      .prepare<[], Row>('SELECT seq, event_id, scope, kind, task_id, session_id, recorded_at, event_hash, CAST(line AS BLOB) AS line FROM events ORDER BY seq')
      .iterate();
    pull();
  });

  return {
    line(seq, line, event) {
      guarded(() => {
        if (next !== null && next.seq < seq) return disagree('index_row_extra', next.seq, 'seq', `the index holds a row with seq ${next.seq}, which is not a place in the log`);
        if (seq === meta.lastSeq) atLastSeq = { hash: event?.event_hash ?? null, end: line.end };
        if (next === null) return;
        if (next.seq > seq) return disagree('index_row_missing', seq, 'seq', `the index lacks seq ${seq} but holds seq ${next.seq}`);
        const row = next;
        seen = seq;
        if (!(row.line instanceof Buffer) || !row.line.equals(line.bytes)) return disagree('index_row_differs', seq, 'line', `the index's line of seq ${seq} differs from the log's line`);
        if (event !== null) {
          for (const [column, of] of COLUMNS) {
            if (row[column] !== of(event)) return disagree('index_row_differs', seq, column, `the index's ${column} of seq ${seq} differs from the log's event`);
          }
        }
        pull();
      });
    },
    finish(logSeq) {
      guarded(() => {
        if (next !== null) return disagree('index_row_extra', next.seq, 'seq', `the index holds seq ${next.seq} but the log ends at seq ${logSeq}`);
        if (meta.lastSeq !== seen) return disagree('index_meta_differs', seen, 'meta.last_seq', `the index's meta names last_seq ${meta.lastSeq} but its last row is seq ${seen}`);
        const expected = seen === 0 ? { hash: null, end: 0 } : atLastSeq!;
        if (meta.lastHash !== expected.hash) return disagree('index_meta_differs', seen, 'meta.last_hash', `the index's meta last_hash is not the event_hash of seq ${seen} in the log`);
        if (meta.logOffset !== expected.end) return disagree('index_meta_differs', seen, 'meta.log_offset', `the index's meta names log_offset ${meta.logOffset} but seq ${seen} ends at byte ${expected.end} of the log`);
        verdict = seen < logSeq
          ? { status: 'behind', index_seq: seen, detail: `the index is ${logSeq - seen} events behind the log (a running preview catches up in the background, a stopped one at its next start); the ${seen} it holds equal the log`, code: null, first_bad_seq: null, column: null }
          : { status: 'agrees', index_seq: seen, detail: `integrity_check ok; every one of its ${seen} events equals the log's line byte for byte, column by column, and its meta names the log's last seq, hash and offset`, code: null, first_bad_seq: null, column: null };
        close();
      });
      return verdict!;
    },
  };
}

export function corruptIndex(why: string, seen: number, remedy = 'run gov store rebuild-index with the preview stopped'): IndexReport {
  return { status: 'corrupt', index_seq: seen, detail: `the index is corrupt: ${why}; ${remedy}`, code: 'index_corrupt', first_bad_seq: null, column: null };
}

function broken(why: string, seen: number): IndexComparison {
  const report = corruptIndex(why, seen);
  return { line: () => {}, finish: () => report };
}

/**
 * The index is in WAL mode, and SQLite reads such a file only beside its shared-memory file
 * (index.sqlite-shm), which it makes when it opens the file: in a directory it may not write (a
 * read-only file system, a backup mounted read-only) and without one left there, it cannot open a
 * healthy index. That is no finding about the index, which then is simply not checked.
 */
function unreadableHere(err: unknown, path: string): IndexComparison | null {
  if ((err as { code?: unknown })?.code !== 'SQLITE_CANTOPEN' || existsSync(`${path}-shm`)) return null;
  try {
    accessSync(dirname(path), constants.W_OK);
    return null;
  } catch {
    const report: IndexReport = {
      status: 'unreadable', index_seq: 0, code: null, first_bad_seq: null, column: null,
      detail: `not checked: SQLite reads the index only beside its ${path}-shm file, which it cannot make in a directory it may not write (a read-only file system); copy the data dir somewhere writable and verify the copy to check the index`,
    };
    return { line: () => {}, finish: () => report };
  }
}

function absent(detail: string): IndexComparison {
  const report: IndexReport = { status: 'missing', index_seq: 0, detail, code: null, first_bad_seq: null, column: null };
  return { line: () => {}, finish: () => report };
}
