// The local store: the data-dir lock, start-up recovery of the log (torn tail, incomplete unit),
// the index kept caught up with the log (or rebuilt), and the append path that ties them together.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ZERO_HASH, type StoredEvent } from '../domain/event.ts';
import { AppError } from '../errors.ts';
import { acquireDataDirLock, type DataDirLock } from './data-dir-lock.ts';
import type { StreamState } from '../domain/streams.ts';
import { committedReads } from './committed-state.ts';
import { openEventLog, readLastLine, truncateDurably, type AppendResult, type EventLog, type LogTail, type PendingEvent } from './event-log.ts';
import type { Expectation } from './expectations.ts';
import { openIndexDb, readLogLines, removeIndexFiles, type IndexDb, type ProjectionFactory } from './index-db.ts';
import { EVENT_INDEXES } from './migrations.ts';
import { EXTRA_PROJECTIONS } from './projections/registry.ts';
import { createWriteGate } from './write-gate.ts';

export type Store = {
  readonly dataDir: string;
  readonly index: IndexDb;
  tail(): LogTail;
  /**
   * Appends a unit (all or nothing, consecutive seqs) once its Idempotency-Key is new and every
   * expectation holds when the single writer seals it; no lock is held by any caller. A used key
   * with the same request answers the original unit (`replayed`); a failed expectation rejects
   * with the error the expectation names and writes nothing.
   */
  append(unit: PendingEvent[], expect?: readonly Expectation[]): Promise<AppendResult>;
  /** A stream's committed state (its version is the ETag of the aggregate). */
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

export async function openStore(options: StoreOptions): Promise<Store> {
  const { dataDir, warn } = options;
  mkdirSync(dataDir, { recursive: true });
  const lock: DataDirLock = await acquireDataDirLock(dataDir, warn);
  try {
    const logPath = logPathOf(dataDir);
    if (!existsSync(logPath)) writeFileSync(logPath, '');
    const tail = recoverTail(logPath, warn);
    const index = openCaughtUpIndex(dataDir, tail, EXTRA_PROJECTIONS, warn);
    const committed = committedReads(index.db);
    const gate = createWriteGate(committed);
    const log: EventLog = openEventLog({
      path: logPath,
      tail,
      clock: options.clock,
      gate,
      readRows: committed.rows,
      onDurable: (rows, endOffset) => applyDurable(index, rows, endOffset, warn),
      ...(options.onBatch ? { onBatch: options.onBatch } : {}),
    });
    return {
      dataDir,
      index,
      tail: () => log.tail(),
      append: (unit, expect) => log.append(unit, expect),
      stream: (id) => gate.committedStream(id),
      async close() {
        await log.close();
        index.close();
        await lock.release();
      },
    };
  } catch (err) {
    await lock.release();
    throw err;
  }
}

function applyDurable(index: IndexDb, rows: Array<{ event: StoredEvent; line: string }>, endOffset: number, warn: (m: string) => void): void {
  try {
    index.applyBatch(rows, endOffset);
  } catch (err) {
    // The events are durable in the log; the index catches up on the next start.
    warn(`The index could not record seq ${rows[0]?.event.seq}–${rows[rows.length - 1]?.event.seq} (${(err as Error).message}); it is rebuilt from the log on the next start.`);
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
    if (event === null || typeof event.seq !== 'number') {
      warn(`Cut off a torn last line of ${logPath} (${size - lastLineStart} bytes at byte ${lastLineStart}); it was never acknowledged.`);
      truncateDurably(logPath, lastLineStart);
      continue;
    }
    if (event.unit !== undefined && event.unit.index < event.unit.size - 1) {
      warn(`Cut off seq ${event.seq} of an incomplete ${event.unit.size}-event unit in ${logPath}; it was never acknowledged.`);
      truncateDurably(logPath, lastLineStart);
      continue;
    }
    return { seq: event.seq, hash: event.event_hash, recordedAt: event.recorded_at, size };
  }
}

function openCaughtUpIndex(dataDir: string, tail: LogTail, projections: ProjectionFactory[], warn: (m: string) => void): IndexDb {
  const indexPath = indexPathOf(dataDir);
  let index: IndexDb | null = null;
  if (tail.seq > 0 && !existsSync(indexPath)) warn(`The index at ${indexPath} is missing; rebuilding it from the log.`);
  try {
    index = openIndexDb(indexPath, projections);
    const seq = index.lastSeq();
    if (seq === tail.seq && (seq === 0 || index.lastHash() === tail.hash)) return index;
    if (seq < tail.seq && index.logOffset() <= tail.size) {
      catchUp(index, logPathOf(dataDir), index.logOffset(), tail);
      return index;
    }
    warn(`The index (seq ${seq}) does not match the log (seq ${tail.seq}); rebuilding it from the log.`);
  } catch (err) {
    if (err instanceof AppError && err.code === 'store_corrupt') throw err;
    if (err instanceof AppError && err.code === 'index_outdated') warn(`The index at ${indexPath} was made by an older version (${err.message}); rebuilding it from the log.`);
    else warn(`The index at ${indexPath} is missing or unreadable (${(err as Error).message}); rebuilding it from the log.`);
  }
  index?.close();
  return rebuildIndex(dataDir, tail, projections);
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
