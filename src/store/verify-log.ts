// `gov events verify`: every line is UTF-8 JSON with a whole service.event.v1 envelope in its canonical form, seq is
// gapless from 1, every prev_hash links and every event_hash recomputes, recorded_at never
// decreases, units are whole, and the index agrees with the log row by row (verify-index.ts).
// Reports the first bad seq and its byte offset, a torn tail (what start-up would cut, which is
// never an acknowledged write but is not a clean log either) and the log's RFC 9162 root (as
// receipts). Every finding is a value: nothing in a data dir makes it throw.
import { closeSync, existsSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { parseDateTime } from '../domain/date-time.ts';
import { envelopeProblem } from '../domain/event-envelope.ts';
import { canonicalJson } from '../domain/canonical-json.ts';
import { eventHash } from '../domain/event-hash.ts';
import { NOT_CANONICAL } from './replay-check.ts';
import { ZERO_HASH, type StoredEvent } from '../domain/event.ts';
import { hashChainRoot } from '../domain/packet-hash.ts';
import { AppError } from '../errors.ts';
import { logLines } from './log-lines.ts';
import { indexPathOf, logPathOf, rebuildMarkerOf, refuseNonFileLog } from './store.ts';
import { compareIndex, corruptIndex, type IndexCode, type IndexReport } from './verify-index.ts';

export type LogCode =
  | 'line_not_utf8' | 'line_not_json' | 'envelope_invalid' | 'line_not_canonical' | 'seq_gap' | 'prev_hash_mismatch'
  | 'event_not_plain_json' | 'event_hash_mismatch' | 'recorded_at_decreases' | 'unit_out_of_place' | 'unit_incomplete';

export type LogVerification = {
  ok: boolean;
  /** Whole lines before the tail start-up would cut. */
  event_count: number;
  /** The last seq verified: event_count when the log is good, else the one before first_bad_seq. */
  last_seq: number;
  /** RFC 9162 root over every event_hash; null when the log has a bad line. */
  merkle_root: string | null;
  /** The seq the first bad line holds or, where its seq is wrong or unreadable, should hold (line n is seq n). */
  first_bad_seq: number | null;
  /** The byte offset of the first bad line of the log; null when the finding is the index's. */
  first_bad_offset: number | null;
  problem: string | null;
  problem_code: LogCode | IndexCode | null;
  index: IndexReport;
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

export type Finding = { code: LogCode; seq: number; offset: number | null; detail: string };
type Chain = { seq: number; prev: string; recordedAt: number; unit: { size: number; next: number } | null; hashes: string[] };

export function verifyLog(dataDir: string, onProgress?: (seq: number) => void): LogVerification {
  const logPath = logPathOf(dataDir);
  if (!existsSync(logPath)) throw new AppError('not_found', `There is no event log at ${logPath}; point --data-dir at a preview's data dir.`);
  refuseNonFileLog(logPath);
  // The index's snapshot first: a running writer only ever moves it forward, behind the log.
  const index = compareIndex(indexPathOf(dataDir));
  const tail = tailOf(logPath);
  const chain = chainChecker();
  let finding: Finding | null = null;
  let count = 0;
  for (const line of logLines(logPath, 0, tail.cut_at)) {
    count++;
    const read = readLine(line.bytes);
    // Past the first bad line the chain means nothing, but every line is still compared with the index.
    if (finding === null) {
      finding = 'code' in read ? { ...read, seq: count, offset: line.offset } : chain.next(read, line.offset);
      if (finding === null) onProgress?.(count);
    }
    index.line(count, line, 'code' in read ? null : read);
  }
  // tailOf cut any unit left open at the end, so one still open here lost a line in the middle.
  finding ??= chain.end(count);
  const report = markedCorrupt(dataDir, index.finish(count));
  const indexFails = report.status === 'disagrees' || report.status === 'corrupt';
  return {
    ok: finding === null && !indexFails && tail.status === 'clean',
    event_count: count,
    last_seq: chain.seq(),
    merkle_root: finding === null ? chain.root() : null,
    first_bad_seq: finding?.seq ?? (indexFails ? report.first_bad_seq : null),
    first_bad_offset: finding?.offset ?? null,
    problem: finding?.detail ?? (indexFails ? report.detail : null),
    problem_code: finding?.code ?? (indexFails ? report.code : null),
    index: report,
    tail,
  };
}

/** A preview that met a corrupt index while running left a marker: the index is not to be trusted. */
function markedCorrupt(dataDir: string, report: IndexReport): IndexReport {
  const marker = rebuildMarkerOf(dataDir);
  if ((report.status !== 'agrees' && report.status !== 'behind') || !existsSync(marker)) return report;
  let why: string;
  try {
    why = readFileSync(marker, 'utf8').trim();
  } catch {
    why = 'its reason is unreadable';
  }
  return corruptIndex(`a running preview found it corrupt (${why})`, report.index_seq, `the running preview rebuilds it, or else its next start does (${marker} says so until then)`);
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The checks of `gov events verify` over a log read in seq order from seq 1, wherever its lines are
 * kept (the preview's file, the hosted service's table, a preview being imported): `next` checks
 * one well-formed event against the ones before it, `end` whether the log ends inside a unit, and
 * `root` is the RFC 9162 root over every event_hash checked (as receipts compute it).
 */
export function chainChecker(): { next(event: StoredEvent, offset: number | null): Finding | null; end(count: number): Finding | null; seq(): number; lastHash(): string; root(): string } {
  const chain: Chain = { seq: 0, prev: ZERO_HASH, recordedAt: Number.NEGATIVE_INFINITY, unit: null, hashes: [] };
  return {
    next: (event, offset) => checkChain(event, offset, chain),
    end: (count) => (chain.unit === null ? null : { code: 'unit_incomplete', seq: count, offset: null, detail: 'the log ends inside a multi-event unit' }),
    seq: () => chain.seq,
    lastHash: () => chain.prev,
    root: () => hashChainRoot(chain.hashes),
  };
}

/** Parse: UTF-8, then JSON, then the envelope every later check relies on. */
export function readLine(bytes: Uint8Array): StoredEvent | { code: LogCode; detail: string } {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return { code: 'line_not_utf8', detail: 'the line is not valid UTF-8' };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { code: 'line_not_json', detail: 'the line is not valid JSON' };
  }
  const problem = envelopeProblem(value);
  if (problem !== null) return { code: 'envelope_invalid', detail: `the line is not a service.event.v1 envelope: ${problem}` };
  // The bytes must be what was sealed: a line that parses to the same event in another form (or with
  // a repeated member, whose first copy a first-wins reader would take) is not.
  let canonical: string | null;
  try {
    canonical = canonicalJson(value);
  } catch {
    canonical = null; // not plain JSON: the hash check says so
  }
  if (canonical !== null && canonical !== text) return { code: 'line_not_canonical', detail: NOT_CANONICAL };
  return value as StoredEvent;
}

/** The checks of one well-formed event against the events before it, in a fixed order. */
function checkChain(event: StoredEvent, offset: number | null, chain: Chain): Finding | null {
  const expected = chain.seq + 1;
  const fail = (code: LogCode, detail: string): Finding => ({ code, seq: expected, offset, detail });
  if (event.seq !== expected) return fail('seq_gap', `seq ${event.seq} found where ${expected} was expected (a gap or a repeat)`);
  if (event.prev_hash !== chain.prev) return fail('prev_hash_mismatch', 'prev_hash does not match the previous event_hash');
  let recomputed: string;
  try {
    recomputed = eventHash(event);
  } catch {
    return fail('event_not_plain_json', 'the event is not plain JSON');
  }
  if (recomputed !== event.event_hash) return fail('event_hash_mismatch', 'event_hash does not recompute from the event');
  const recordedAt = parseDateTime(event.recorded_at); // the envelope checked it is one
  if (recordedAt < chain.recordedAt) return fail('recorded_at_decreases', 'recorded_at decreases');
  const unitProblem = placeInUnit(event, chain);
  if (unitProblem !== null) return fail(unitProblem.code, unitProblem.detail);
  chain.seq = expected;
  chain.prev = event.event_hash;
  chain.recordedAt = recordedAt;
  chain.hashes.push(event.event_hash);
  return null;
}

/** Moves the open unit along; a unit's events are consecutive, indexed 0 to size − 1. */
function placeInUnit(event: StoredEvent, chain: Chain): { code: LogCode; detail: string } | null {
  const open = chain.unit;
  if (event.unit === undefined) return open === null ? null : { code: 'unit_incomplete', detail: 'a multi-event unit is incomplete' };
  if (event.unit.index === 0) {
    if (open !== null) return { code: 'unit_incomplete', detail: 'a multi-event unit is incomplete' };
    chain.unit = { size: event.unit.size, next: 1 };
  } else if (open === null || open.next !== event.unit.index || open.size !== event.unit.size) {
    return { code: 'unit_out_of_place', detail: 'an event of a multi-event unit is out of place' };
  } else {
    open.next++;
  }
  if (chain.unit !== null && chain.unit.next === chain.unit.size) chain.unit = null;
  return null;
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
      // As start-up compares; a `unit` that is not an object (which start-up cannot read) stays for
      // the line checks to report.
      else if (isUnit(event.unit) && event.unit.index < event.unit.size - 1) {
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

function isUnit(unit: unknown): unit is { index: number; size: number } {
  return typeof unit === 'object' && unit !== null;
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
