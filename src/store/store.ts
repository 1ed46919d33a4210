// The local store: the data-dir lock, start-up recovery of the log (torn tail, incomplete unit),
// the index caught up with the log (or rebuilt) at start and kept up by a worker thread while
// running, and the append path that ties them together.
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ZERO_HASH, type StoredEvent } from '../domain/event.ts';
import { AppError } from '../errors.ts';
import { acquireDataDirLock, type DataDirLock } from './data-dir-lock.ts';
import type { StreamState } from '../domain/streams.ts';
import { committedReads } from './committed-state.ts';
import { openEventLog, readLastLine, truncateDurably, type AppendResult, type EventLog, type LogTail, type PendingEvent } from './event-log.ts';
import type { Expectation } from './expectations.ts';
import { openIndexDb, readLogLines, removeIndexFiles, type IndexDb, type ProjectionFactory } from './index-db.ts';
import { startIndexWriter, type IndexStatus } from './index-writer.ts';
import { EVENT_INDEXES } from './migrations.ts';
import { EXTRA_PROJECTIONS } from './projections/registry.ts';
import { createWriteGate } from './write-gate.ts';

export type Store = {
  readonly dataDir: string;
  /** The index as the main thread reads it; a worker thread applies durable batches to it. */
  readonly index: IndexDb;
  tail(): LogTail;
  /**
   * Appends a unit (all or nothing, consecutive seqs) once its Idempotency-Key is new and every
   * expectation holds when the single writer seals it; no lock is held by any caller. A used key
   * with the same request answers the original unit (`replayed`); a failed expectation rejects
   * with the error the expectation names and writes nothing. Resolves once the unit is on disk;
   * the index follows in the background (see `settled`).
   */
  append(unit: PendingEvent[], expect?: readonly Expectation[]): Promise<AppendResult>;
  /**
   * Resolves once the index holds every event durable now: wait for it before reading the index
   * (a read then sees every acknowledged write, its own included).
   */
  settled(): Promise<void>;
  /** The last seq the index holds (a snapshot read from the index is complete up to it). */
  indexedSeq(): number;
  /** How the index writer is doing (for /health). */
  indexStatus(): IndexStatus;
  /** A read found the index corrupt: reads answer 503 index_unavailable, and the next start rebuilds it. */
  markIndexCorrupt(message: string): void;
  /** A stream's state as the index holds it (consistent with the index's projections). */
  stream(id: string): StreamState | undefined;
  close(): Promise<void>;
};

export type StoreOptions = {
  dataDir: string;
  clock: () => Date;
  warn: (message: string) => void;
  /** Called once per written batch (one write + one fsync): units and events in it. */
  onBatch?: (units: number, events: number) => void;
};

export function logPathOf(dataDir: string): string {
  return join(dataDir, 'events.jsonl');
}

export function indexPathOf(dataDir: string): string {
  return join(dataDir, 'index.sqlite');
}

/** A file that says the index was found corrupt while running: the next start rebuilds it. */
export function rebuildMarkerOf(dataDir: string): string {
  return join(dataDir, 'index.rebuild');
}

export async function openStore(options: StoreOptions): Promise<Store> {
  const { dataDir, warn } = options;
  mkdirSync(dataDir, { recursive: true });
  const lock: DataDirLock = await acquireDataDirLock(dataDir, warn);
  try {
    const logPath = logPathOf(dataDir);
    if (!existsSync(logPath)) writeFileSync(logPath, '');
    const tail = recoverTail(logPath, warn);
    const index = openCaughtUpIndex(dataDir, tail, EXTRA_PROJECTIONS, warn);
    try {
      const gate = createWriteGate(committedReads(index.db));
      let log: EventLog | null = null;
      const writer = await startIndexWriter({
        path: indexPathOf(dataDir),
        logPath,
        startSeq: tail.seq,
        checkInBackground: statSync(indexPathOf(dataDir)).size > QUICK_CHECK_MAX_BYTES,
        onCorrupt: (message) => {
          // The next start rebuilds the index, whatever it finds then.
          if (!existsSync(rebuildMarkerOf(dataDir))) writeFileSync(rebuildMarkerOf(dataDir), `${message}\n`);
          warn(`The index is corrupt (${message}); reads answer 503 index_unavailable until a restart rebuilds it.`);
        },
        onIndexed: (seq) => gate.indexed(seq),
        onFailed: (error) => {
          // The events stay durable in the log; the next start catches the index up.
          warn(error.message);
          log?.fail(error);
        },
      });
      log = openEventLog({
        path: logPath,
        tail,
        clock: options.clock,
        gate,
        onDurable: (batch) => writer.apply(batch),
        ready: () => writer.ready(),
        ...(options.onBatch ? { onBatch: options.onBatch } : {}),
      });
      const opened = log;
      let closing: Promise<void> | null = null;
      return {
        dataDir,
        index,
        tail: () => opened.tail(),
        append: (unit, expect) => opened.append(unit, expect),
        settled: () => writer.settled(opened.tail().seq),
        indexedSeq: () => writer.indexedSeq(),
        indexStatus: () => writer.status(),
        markIndexCorrupt: (message) => writer.markCorrupt(message),
        stream: (id) => gate.indexedStream(id),
        close() {
          // Idempotent: a second close waits for the first.
          closing ??= (async () => {
            await opened.close();
            await writer.close();
            index.close();
            await lock.release();
          })();
          return closing;
        },
      };
    } catch (err) {
      index.close();
      throw err;
    }
  } catch (err) {
    await lock.release();
    throw err;
  }
}

/**
 * Finds the last good event. A line without its newline, or one that does not parse, is a torn
 * write that was never acknowledged; an event whose unit is incomplete belongs to a unit that was
 * never acknowledged either. Both are cut off, with a warning.
 */
export function recoverTail(logPath: string, warn: (m: string) => void): LogTail {
  for (;;) {
    const { size, lastLine, lastLineStart, endsWithNewline } = readLastLine(logPath);
    if (lastLine === null) return { seq: 0, hash: ZERO_HASH, recordedAt: '', size: 0 };
    let event: StoredEvent | null = null;
    if (endsWithNewline) {
      try {
        event = JSON.parse(lastLine) as StoredEvent;
      } catch {
        event = null;
      }
    }
    if (event === null || typeof event !== 'object' || typeof event.seq !== 'number') {
      warn(`Cut off a torn last line of ${logPath} (${size - lastLineStart} bytes at byte ${lastLineStart}); it was never acknowledged.`);
      truncateDurably(logPath, lastLineStart);
      continue;
    }
    const unit = event.unit as { index?: unknown; size?: unknown } | null | undefined;
    if (unit != null && typeof unit.index === 'number' && typeof unit.size === 'number' && unit.index < unit.size - 1) {
      warn(`Cut off seq ${event.seq} of an incomplete ${unit.size}-event unit in ${logPath}; it was never acknowledged.`);
      truncateDurably(logPath, lastLineStart);
      continue;
    }
    return { seq: event.seq, hash: event.event_hash, recordedAt: event.recorded_at, size };
  }
}

function openCaughtUpIndex(dataDir: string, tail: LogTail, projections: ProjectionFactory[], warn: (m: string) => void): IndexDb {
  const indexPath = indexPathOf(dataDir);
  const marker = rebuildMarkerOf(dataDir);
  let index: IndexDb | null = null;
  if (existsSync(marker)) {
    warn(`The index at ${indexPath} was found corrupt while the preview ran (${readFileSync(marker, 'utf8').trim()}); rebuilding it from the log.`);
  } else {
    if (tail.seq > 0 && !existsSync(indexPath)) warn(`The index at ${indexPath} is missing; rebuilding it from the log.`);
    try {
      index = openIndexDb(indexPath, projections);
      const damage = indexDamage(index, indexPath, logPathOf(dataDir), tail);
      if (damage !== null) {
        warn(`The index at ${indexPath} is damaged (${damage}); rebuilding it from the log.`);
      } else {
        const seq = index.lastSeq();
        if (seq === tail.seq && (seq === 0 || index.lastHash() === tail.hash)) return index;
        if (seq < tail.seq && index.logOffset() <= tail.size) {
          catchUp(index, logPathOf(dataDir), index.logOffset(), tail);
          return index;
        }
        warn(`The index (seq ${seq}) does not match the log (seq ${tail.seq}); rebuilding it from the log.`);
      }
    } catch (err) {
      if (err instanceof AppError && err.code === 'store_corrupt') throw err;
      if (err instanceof AppError && err.code === 'index_outdated') warn(`The index at ${indexPath} was made by an older version (${err.message}); rebuilding it from the log.`);
      else warn(`The index at ${indexPath} is missing or unreadable (${(err as Error).message}); rebuilding it from the log.`);
    }
  }
  index?.close();
  const rebuilt = rebuildIndex(dataDir, tail, projections);
  rmSync(marker, { force: true });
  return rebuilt;
}

/**
 * An index up to this size gets SQLite's quick_check at every start (~0.3 s per 64 MiB here, so at
 * most ~80 ms of a cold start); a bigger one is checked by the index writer once the preview runs.
 */
const QUICK_CHECK_MAX_BYTES = 16 * 1024 * 1024;
/** How many of the newest indexed events are compared byte for byte with the log at every start. */
const TAIL_ROWS_CHECKED = 256;

/**
 * Why the index cannot be trusted, or null: SQLite's quick_check (for an index of moderate size),
 * then the newest indexed rows against the log's own lines. A bigger index is quick-checked by the
 * index writer in the background once the preview runs.
 */
function indexDamage(index: IndexDb, indexPath: string, logPath: string, tail: LogTail): string | null {
  if (statSync(indexPath).size <= QUICK_CHECK_MAX_BYTES) {
    const verdict = String(index.db.pragma('quick_check', { simple: true }));
    if (verdict !== 'ok') return `quick_check: ${verdict}`;
  }
  const rows = index.db.prepare<[number, number], { seq: number; line: string }>('SELECT seq, line FROM events WHERE seq <= ? ORDER BY seq DESC LIMIT ?').all(tail.seq, TAIL_ROWS_CHECKED);
  if (rows.length === 0) return null;
  const logLines = lastLogLines(logPath, tail.size, rows.length);
  for (const row of rows) {
    const line = logLines.get(row.seq);
    if (line !== undefined && line !== row.line) return `the indexed event seq ${row.seq} differs from the log`;
  }
  return null;
}

/** The log's last `count` lines by seq (read back from its end). */
function lastLogLines(logPath: string, size: number, count: number): Map<number, string> {
  const out = new Map<number, string>();
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
      for (const line of lines.slice(-count)) {
        try {
          out.set((JSON.parse(line) as StoredEvent).seq, line);
        } catch {
          // recovery already cut a torn tail; a bad line elsewhere is for gov events verify
        }
      }
      return out;
    }
    chunk *= 4;
  }
}

function catchUp(index: IndexDb, logPath: string, from: number, tail: LogTail): void {
  let expected = index.lastSeq() + 1;
  readLogLines(logPath, from, tail.size, (batch, endOffset) => {
    for (const { event } of batch) {
      if (event.seq !== expected) {
        throw new AppError('store_corrupt', `The event log has seq ${event.seq} where ${expected} was expected; run gov events verify.`);
      }
      expected++;
    }
    index.applyBatch(batch, endOffset);
  });
}

/** Deletes the index and replays the whole log into a fresh one. */
export function rebuildIndex(dataDir: string, tail: LogTail, projections: ProjectionFactory[] = EXTRA_PROJECTIONS): IndexDb {
  const indexPath = indexPathOf(dataDir);
  removeIndexFiles(indexPath);
  const index = openIndexDb(indexPath, projections);
  try {
    // A fresh index that a crash would simply rebuild again: no journal, no syncs while replaying.
    index.db.pragma('journal_mode = OFF');
    index.db.pragma('synchronous = OFF');
    index.db.pragma('cache_size = -65536');
    for (const [name] of EVENT_INDEXES) index.db.exec(`DROP INDEX ${name}`);
    catchUp(index, logPathOf(dataDir), 0, tail);
    try {
      for (const [, ddl] of EVENT_INDEXES) index.db.exec(ddl);
    } catch (cause) {
      throw new AppError('store_corrupt', 'Two events of the log share one event_id; the log was changed by hand. Run gov events verify.', { cause });
    }
    index.db.pragma('synchronous = NORMAL');
    index.db.pragma('journal_mode = WAL');
    return index;
  } catch (err) {
    index.close();
    throw err;
  }
}
