// `gov events verify`: every line parses, seq is gapless from 1, every prev_hash links and every
// event_hash recomputes, recorded_at never decreases, units are whole, and the index agrees with
// the log. Reports the first bad seq and the log's RFC 9162 root (the same function as receipts).
import Database from 'better-sqlite3';
import { existsSync, statSync } from 'node:fs';
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
};

export function verifyLog(dataDir: string, onProgress?: (seq: number) => void): LogVerification {
  const logPath = logPathOf(dataDir);
  if (!existsSync(logPath)) throw new AppError('not_found', `There is no event log at ${logPath}; point --data-dir at a preview's data dir.`);
  // Read the index first: a running writer only ever moves it forward, behind the log.
  const indexHashes = readIndexHashes(indexPathOf(dataDir));
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
    readLogLines(logPath, 0, statSync(logPath).size, (batch) => {
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
  if (problem === null && openUnit) fail(hashes.length, 'the log ends inside a multi-event unit');
  const index = compareIndex(indexHashes, hashes);
  return {
    ok: problem === null && index.status !== 'disagrees',
    event_count: hashes.length,
    last_seq: hashes.length,
    merkle_root: hashChainRoot(hashes),
    first_bad_seq: badSeq ?? (index.status === 'disagrees' ? index.firstBad : null),
    problem: problem ?? (index.status === 'disagrees' ? index.detail : null),
    index: { status: index.status, index_seq: indexHashes?.length ?? 0, detail: index.detail },
  };
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
