// Whether the log has lost acknowledged events that the index still holds: the index reaches past
// the log's end, or one of the newest lines is broken where the index keeps an intact copy. Asked
// at every start, and the first by `gov store rebuild-index`, before either rebuilds the index from
// the log, which would throw away the last record of those events.
import Database from 'better-sqlite3';
import { closeSync, existsSync, openSync, readSync } from 'node:fs';
import { dirname } from 'node:path';
import { eventHash } from '../domain/event-hash.ts';
import type { StoredEvent } from '../domain/event.ts';
import { AppError } from '../errors.ts';
import type { LogExtent } from './index-db.ts';

/** How many of the newest indexed events are compared byte for byte with the log. */
const TAIL_ROWS_CHECKED = 256;

/**
 * Throws store_corrupt when the log has lost events the index (`db`, indexed up to `indexed`) holds:
 * the index reaches past the log's last seq (the log was cut back, replaced or removed), or one of
 * the newest lines differs from the indexed copy and the log's line is the broken one (it does not
 * parse, or its event_hash does not recompute, while the index's copy does). The message says to
 * restore the log, and `startOver` how to go on from the log as it is. Otherwise answers why the
 * index differs from an intact log (a newest row that differs from the log's line), or null.
 * `indexedUpTo`: the log byte the index reached (its meta's log_offset).
 */
export function refuseLostEvents(db: Database.Database, indexed: number, indexPath: string, logPath: string, tail: LogExtent, startOver: string, indexedUpTo: number = tail.size): string | null {
  refuseIndexAhead(indexed, indexPath, logPath, tail, startOver);
  // A damaged or missing line cannot be rebuilt past (the replay refuses it): only a backup helps.
  const restore = `Run gov events verify --data-dir ${dirname(logPath)} to see every damaged line, then restore ${logPath} from a backup (the index at ${indexPath} still holds what it indexed and is left as it is).`;
  const rows = db.prepare<[number, number], { seq: number; line: string }>('SELECT seq, line FROM events WHERE seq <= ? ORDER BY seq DESC LIMIT ?').all(tail.seq, TAIL_ROWS_CHECKED);
  // The lines the index's newest rows came from: those before the byte the index reached (an index
  // that trails the log, after a crash, is compared with its own lines, not the log's newest).
  const upTo = indexedUpTo > 0 && indexedUpTo <= tail.size ? lineEndFrom(logPath, indexedUpTo - 1, tail.size) : tail.size;
  const logLines = rows.length === 0 ? new Map<number, LogLine>() : lastLogLines(logPath, upTo, rows.length);
  const repeated = logLines.get(REPEATED);
  if (repeated !== undefined) {
    throw new AppError('store_corrupt', `The log ${logPath} holds seq ${repeated.text} twice: a line was copied in. ${restore}`, { extra: { first_bad_seq: Number(repeated.text) } });
  }
  const oldestRead = Math.min(...[...logLines.keys()].filter((seq) => seq > 0));
  let damage: string | null = null;
  for (const row of rows) {
    const logLine = logLines.get(row.seq);
    if (logLine === undefined) {
      // Within the lines read, a seq the index holds and the log does not: the line was removed.
      if (row.seq > oldestRead && lineIntact(row.line)) {
        throw new AppError('store_corrupt', `The log ${logPath} has no line for seq ${row.seq}, which the index holds intact: the log has lost an acknowledged event. ${restore}`, { extra: { first_bad_seq: row.seq } });
      }
      continue;
    }
    if (logLine.text === row.line) continue;
    if (lineIntact(row.line) && !(logLine.parsed && lineIntact(logLine.text))) {
      throw new AppError('store_corrupt', `The line of seq ${row.seq} in the log ${logPath} is damaged (it does not parse, or its event_hash does not recompute), and the index holds an intact copy of it. ${restore}`, { extra: { first_bad_seq: row.seq } });
    }
    // A line that does not parse is only placed by its neighbour: it proves nothing about the index.
    if (logLine.parsed) damage ??= `the indexed event seq ${row.seq} differs from the log`;
  }
  return damage;
}

function restoreSentence(indexPath: string, logPath: string, startOver: string): string {
  return `Restore ${logPath} from a backup (the index at ${indexPath} still holds what it indexed and is left as it is); ${startOver}`;
}

/** Throws store_corrupt when the index (indexed up to `indexed`) reaches past the log's last seq. */
function refuseIndexAhead(indexed: number, indexPath: string, logPath: string, tail: LogExtent, startOver: string): void {
  if (indexed <= tail.seq) return;
  const message = `The index holds events up to seq ${indexed}, but the log ${logPath} ends at seq ${tail.seq}: the log has lost acknowledged events.`;
  throw new AppError('store_corrupt', `${message} ${restoreSentence(indexPath, logPath, startOver)}`, { extra: { index_seq: indexed, log_seq: tail.seq } });
}

/**
 * Whether the index file at `indexPath`, as it lies, reaches past the log's last seq (then refused as
 * above). It is opened read-only (nothing is migrated or written); an index that is missing or
 * cannot be read holds nothing that could be kept. A damaged line of the log is for the rebuild's
 * replay to refuse (replay-check.ts), whatever the index holds: it cannot be rebuilt past.
 */
export function refuseIndexAheadOf(indexPath: string, logPath: string, tail: LogExtent, startOver: string): void {
  if (!existsSync(indexPath)) return;
  let indexed: number;
  try {
    const db = new Database(indexPath, { readonly: true, fileMustExist: true });
    try {
      indexed = Number(db.prepare<[], { value: string }>("SELECT value FROM meta WHERE key = 'last_seq'").get()?.value ?? 0);
    } finally {
      db.close();
    }
  } catch {
    return;
  }
  refuseIndexAhead(indexed, indexPath, logPath, tail, startOver);
}

/** Whether a stored line parses and its event_hash recomputes. */
function lineIntact(line: string): boolean {
  try {
    const event = JSON.parse(line) as StoredEvent;
    return typeof event.event_hash === 'string' && eventHash(event) === event.event_hash;
  } catch {
    return false;
  }
}

/**
 * The byte after the first line end at or after `offset` (or `size`): the index's offset ends a line
 * unless a line before it changed length, and then the line it falls in is read whole.
 */
function lineEndFrom(logPath: string, offset: number, size: number): number {
  const fd = openSync(logPath, 'r');
  try {
    const buf = Buffer.alloc(64 * 1024);
    for (let at = offset; at < size; at += buf.length) {
      const read = readSync(fd, buf, 0, Math.min(buf.length, size - at), at);
      const newline = buf.subarray(0, read).indexOf(0x0a);
      if (newline >= 0) return at + newline + 1;
      if (read === 0) break;
    }
    return size;
  } finally {
    closeSync(fd);
  }
}

/** The key under which lastLogLines says a seq it met twice (no event has seq 0). */
const REPEATED = 0;

/** One of the log's lines; `parsed` false for a line that does not parse (placed by its neighbour). */
type LogLine = { text: string; parsed: boolean };

/**
 * The log's last `count` lines by seq (read back from its end). A line that does not parse is kept
 * under the seq its position gives (line n holds seq n, counting back from the last).
 */
function lastLogLines(logPath: string, size: number, count: number): Map<number, LogLine> {
  const out = new Map<number, LogLine>();
  let chunk = 256 * 1024;
  for (;;) {
    const start = Math.max(0, size - chunk);
    const fd = openSync(logPath, 'r');
    const buf = Buffer.alloc(size - start);
    try {
      readSync(fd, buf, 0, buf.length, start);
    } finally {
      closeSync(fd);
    }
    const lines = buf.toString('utf8').split('\n');
    lines.pop();
    if (start > 0) lines.shift(); // the first piece may be a partial line
    if (lines.length >= count || start === 0) {
      const last = lines.slice(-count);
      let seqAfter: number | null = null;
      for (let i = last.length - 1; i >= 0; i--) {
        const text = last[i]!;
        try {
          const seq = (JSON.parse(text) as StoredEvent).seq;
          // A seq met twice is a copied line: said under REPEATED (the first such seq from the end).
          if (out.has(seq) && out.get(seq)!.parsed && !out.has(REPEATED)) out.set(REPEATED, { text: String(seq), parsed: false });
          else out.set(seq, { text, parsed: true });
          seqAfter = seq;
        } catch {
          // Recovery already cut a torn tail; a broken line before it is placed by its neighbour.
          if (seqAfter !== null) {
            seqAfter -= 1;
            out.set(seqAfter, { text, parsed: false });
          }
        }
      }
      return out;
    }
    chunk *= 4;
  }
}

