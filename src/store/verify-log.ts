// `gov events verify`: every line parses, seq is gapless from 1, every prev_hash links and every
// event_hash recomputes, recorded_at never decreases, units are whole, and the index agrees with
// the log. Reports the first bad seq, a torn tail (what start-up would cut, which is never an
// acknowledged write but is not a clean log either) and the log's RFC 9162 root (as receipts).
import Database from 'better-sqlite3';
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { eventHash } from '../domain/event-hash.ts';
import { ZERO_HASH, type StoredEvent } from '../domain/event.ts';
import { hashChainRoot } from '../domain/packet-hash.ts';
import { AppError } from '../errors.ts';
import { readLogLines } from './index-db.ts';
import { indexPathOf, logPathOf } from './store.ts';

export type LogVerification = {
  ok: boolean;
  event_count: number;
  last_seq: number;
  merkle_root: string;
  first_bad_seq: number | null;
  problem: string | null;
  index: { status: 'agrees' | 'behind' | 'missing' | 'disagrees'; index_seq: number; detail: string };
  tail: TailReport;
};

/**
 * What start-up would cut off the end of the log (store.ts recoverTail): last lines that are
 * unterminated or not an event, then the events of a multi-event unit whose last line is missing.
 * The other counts (events, root, index) describe the log before `cut_at`, as start-up keeps it.
 */
export type TailReport = {
  status: 'clean' | 'torn';
  /** The byte offset start-up would truncate the log to (the log's size when clean). */
  cut_at: number;
  cut_bytes: number;
  /** Unterminated or unreadable lines at the end. */
  torn_lines: number;
  /** The seqs of an incomplete multi-event unit at the end, and the unit's size. */
  incomplete_unit: { first_seq: number; last_seq: number; size: number } | null;
  detail: string;
};

export function verifyLog(dataDir: string, onProgress?: (seq: number) => void): LogVerification {
  const logPath = logPathOf(dataDir);
  if (!existsSync(logPath)) throw new AppError('not_found', `There is no event log at ${logPath}; point --data-dir at a preview's data dir.`);
  // Read the index first: a running writer only ever moves it forward, behind the log.
  const indexHashes = readIndexHashes(indexPathOf(dataDir));
  const tail = tailOf(logPath);
  const hashes: string[] = [];
  let prev = ZERO_HASH;
  let recorded = '';
  let openUnit: { size: number; next: number } | null = null;
  let problem: string | null = null;
  let badSeq: number | null = null;
  const fail = (seq: number, why: string) => {
    if (problem === null) {
      problem = why;
      badSeq = seq;
    }
  };
  try {
    readLogLines(logPath, 0, tail.cut_at, (batch) => {
      for (const { event } of batch) {
        if (problem !== null) return;
        const expected = hashes.length + 1;
        checkEvent(event, expected, prev, recorded, fail);
        if (event.unit) {
          if (event.unit.index === 0) openUnit = { size: event.unit.size, next: 1 };
          else if (!openUnit || openUnit.next !== event.unit.index) fail(expected, 'an event of a multi-event unit is out of place');
          else openUnit.next++;
          if (openUnit && openUnit.next === openUnit.size) openUnit = null;
        } else if (openUnit) fail(expected, 'a multi-event unit is incomplete');
        hashes.push(event.event_hash);
        prev = event.event_hash;
        recorded = event.recorded_at;
        onProgress?.(expected);
      }
    });
  } catch (err) {
    if (!(err instanceof AppError && err.code === 'store_corrupt')) throw err;
    fail(hashes.length + 1, 'a line is not valid JSON');
  }
  // tailOf cut any unit left open at the end, so one still open here lost a line in the middle.
  if (problem === null && openUnit) fail(hashes.length, 'the log ends inside a multi-event unit');
  const index = compareIndex(indexHashes, hashes);
  return {
    ok: problem === null && index.status !== 'disagrees' && tail.status === 'clean',
    event_count: hashes.length,
    last_seq: hashes.length,
    merkle_root: hashChainRoot(hashes),
    first_bad_seq: badSeq ?? (index.status === 'disagrees' ? index.firstBad : null),
    problem: problem ?? (index.status === 'disagrees' ? index.detail : null),
    index: { status: index.status, index_seq: indexHashes?.length ?? 0, detail: index.detail },
    tail,
  };
}

/** Applies start-up's tail rules (store.ts recoverTail) to the log without writing to it. */
export function tailOf(logPath: string): TailReport {
  const fd = openSync(logPath, 'r');
  try {
    const size = statSync(logPath).size;
    let end = size;
    let torn = 0;
    let unit = null as TailReport['incomplete_unit'];
    for (;;) {
      const last = lastLine(fd, end);
      if (last === null) break;
      const event = last.terminated ? parseEvent(last.text) : null;
      if (event === null) torn++;
      else if (event.unit !== undefined && event.unit.index < event.unit.size - 1) {
        unit = { first_seq: event.seq, last_seq: unit?.last_seq ?? event.seq, size: event.unit.size };
      } else break;
      end = last.start;
    }
    // In the log's order: the unit's events come before any torn line.
    const parts: string[] = [];
    if (unit !== null) {
      const seqs = unit.first_seq === unit.last_seq ? `seq ${unit.first_seq}` : `seq ${unit.first_seq}–${unit.last_seq}`;
      parts.push(`${seqs} of a ${unit.size}-event unit whose last event never reached the log`);
    }
    if (torn > 0) parts.push(torn === 1 ? 'a last line that is unterminated or not an event' : `${torn} last lines that are unterminated or not events`);
    return {
      status: end === size ? 'clean' : 'torn',
      cut_at: end,
      cut_bytes: size - end,
      torn_lines: torn,
      incomplete_unit: unit,
      detail: end === size ? 'the log ends with a whole line and a whole unit' : `${size - end} bytes: ${parts.join(', then ')}; never acknowledged`,
    };
  } finally {
    closeSync(fd);
  }
}

function parseEvent(text: string): StoredEvent | null {
  try {
    const event = JSON.parse(text) as StoredEvent | null;
    return event !== null && typeof event === 'object' && typeof event.seq === 'number' ? event : null;
  } catch {
    return null;
  }
}

/** The last line of the log's first `end` bytes: where it starts, its text, and whether a newline ends it. */
function lastLine(fd: number, end: number): { start: number; text: string; terminated: boolean } | null {
  if (end === 0) return null;
  const terminated = readByte(fd, end - 1) === 0x0a;
  const stop = terminated ? end - 1 : end;
  // Read backwards in chunks up to the newline before the line (or the start of the file).
  const chunks: Buffer[] = [];
  let start = stop;
  for (;;) {
    const from = Math.max(0, start - 64 * 1024);
    const buf = Buffer.alloc(start - from);
    readSync(fd, buf, 0, buf.length, from);
    const nl = buf.lastIndexOf(0x0a);
    if (nl >= 0) {
      chunks.unshift(buf.subarray(nl + 1));
      start = from + nl + 1;
      break;
    }
    chunks.unshift(buf);
    start = from;
    if (from === 0) break;
  }
  return { start, text: Buffer.concat(chunks).toString('utf8'), terminated };
}

function readByte(fd: number, at: number): number {
  const one = Buffer.alloc(1);
  readSync(fd, one, 0, 1, at);
  return one[0]!;
}

function checkEvent(event: StoredEvent, expected: number, prev: string, recorded: string, fail: (seq: number, why: string) => void): void {
  if (event.seq !== expected) return fail(expected, `seq ${event.seq} found where ${expected} was expected (a gap or a repeat)`);
  if (event.prev_hash !== prev) return fail(expected, 'prev_hash does not match the previous event_hash');
  let recomputed: string;
  try {
    recomputed = eventHash(event as unknown as Record<string, unknown>);
  } catch {
    return fail(expected, 'the event is not plain JSON');
  }
  if (recomputed !== event.event_hash) return fail(expected, 'event_hash does not recompute from the event');
  if (typeof event.recorded_at !== 'string' || event.recorded_at < recorded) return fail(expected, 'recorded_at decreases');
}

function readIndexHashes(path: string): string[] | null {
  if (!existsSync(path)) return null;
  try {
    const db = new Database(path, { readonly: true, fileMustExist: true });
    try {
      return db.prepare<[], { event_hash: string }>('SELECT event_hash FROM events ORDER BY seq').all().map((r) => r.event_hash);
    } finally {
      db.close();
    }
  } catch {
    return null;
  }
}

function compareIndex(index: string[] | null, log: string[]): { status: LogVerification['index']['status']; detail: string; firstBad: number | null } {
  if (index === null) return { status: 'missing', detail: 'the index is missing or unreadable; it is rebuilt at the next start (or run gov store rebuild-index)', firstBad: null };
  if (index.length > log.length) return { status: 'disagrees', detail: `the index holds ${index.length} events but the log only ${log.length}`, firstBad: log.length + 1 };
  for (let i = 0; i < index.length; i++) {
    if (index[i] !== log[i]) return { status: 'disagrees', detail: `the index's event ${i + 1} differs from the log's`, firstBad: i + 1 };
  }
  if (index.length < log.length) return { status: 'behind', detail: `the index is ${log.length - index.length} events behind the log; it catches up at the next start`, firstBad: null };
  return { status: 'agrees', detail: 'every indexed event equals the log', firstBad: null };
}
