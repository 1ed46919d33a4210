// The SQLite index (better-sqlite3, WAL): opening with migrations, applying a batch of events in
// one transaction, and rebuilding from the log (at start, by `gov store rebuild-index`, and in the
// index writer's thread when a running preview finds its index corrupt). Nothing here is a source
// of truth.
import Database from 'better-sqlite3';
import { existsSync, renameSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { ZERO_HASH, type StoredEvent } from '../domain/event.ts';
import { AppError } from '../errors.ts';
import { syncPath } from './durable-files.ts';
import { logLines } from './log-lines.ts';
import { EVENT_INDEXES, MIGRATIONS, REPROJECT_BELOW_VERSION } from './migrations.ts';
import { prepareCoreProjections, registerSearchFunctions, type Apply } from './projections/core.ts';
import { checkReplayed, type ReplayChain } from './replay-check.ts';

export type ProjectionFactory = (db: Database.Database) => Apply;

export type IndexDb = {
  db: Database.Database;
  lastSeq(): number;
  logOffset(): number;
  lastHash(): string | null;
  /** Applies durable events (already in the log, ending at byte `endOffset`) in one transaction. */
  applyBatch(events: Array<{ event: StoredEvent; line: string }>, endOffset: number): void;
  close(): void;
};

/**
 * Opens the index, migrating it to the latest version; `onMigrate` is told first when there is
 * anything to migrate in an index that holds events (a migration may take a while: 11 reindexes
 * every event's text).
 */
export function openIndexDb(path: string, projections: ProjectionFactory[], onMigrate?: (from: number, to: number) => void): IndexDb {
  const db = new Database(path);
  try {
    registerSearchFunctions(db);
    // 8 KiB pages, not SQLite's 4 KiB: an event row with its line is ~1.4 KB, and each transaction
    // writes every page it touches whole; the index writer spent ~12 % less CPU per event, with
    // sequential and with random Idempotency-Keys alike. Only a new file takes it (an index made
    // before keeps its pages until it is rebuilt).
    db.pragma('page_size = 8192');
    db.pragma('journal_mode = WAL');
    // The log is the durable record; the index may lose its last transactions on a crash and catch
    // up. (The preview's index writer goes further and skips every fsync: unsynced-index.ts.)
    db.pragma('synchronous = NORMAL');
    // Checkpoints run inside a batch's commit in the index writer's thread. Each writes the pages
    // the WAL holds into the file and, synced, fsyncs it, and while the disk flushes that the log's
    // own fdatasync waits: measured here, 32 MiB flushed beside a 400-byte write + fdatasync loop made
    // the loop stall up to 34 ms, 4 MiB up to 12 ms. So checkpoints stay small (500 pages, 4 MiB
    // with 8 KiB pages): acknowledgements' tail latency is worth more than copying a hot page once
    // less (an open loop at 2,000 appends/s: p99 ~55–90 ms with 32 MiB, ~20–45 ms with 4 MiB).
    // Unsynced, bigger checkpoints saved little more CPU (2,000 pages: ~60 against ~62 µs per event).
    db.pragma('wal_autocheckpoint = 500');
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > MIGRATIONS.length) throw new AppError('index_version_unknown', `Index version ${version} is newer than this program.`);
    if (version > 0 && version < REPROJECT_BELOW_VERSION) throw new AppError('index_outdated', `Index version ${version} lacks projections that only a rebuild can fill.`);
    if (version > 0 && version < MIGRATIONS.length) onMigrate?.(version, MIGRATIONS.length);
    for (let v = version; v < MIGRATIONS.length; v++) {
      db.transaction(() => {
        db.exec(MIGRATIONS[v]!);
        db.pragma(`user_version = ${v + 1}`);
      })();
    }
    // Touch the tables so a corrupt file fails here, not on the first request.
    db.prepare('SELECT count(*) FROM meta').get();
  } catch (err) {
    db.close();
    throw err;
  }
  const getMeta = db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE key = ?');
  const setMeta = db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)');
  const appliers = [prepareCoreProjections(db), ...projections.map((make) => make(db))];
  const transaction = db.transaction((events: Array<{ event: StoredEvent; line: string }>, endOffset: number) => {
    for (const { event, line } of events) for (const applyOne of appliers) applyOne(event, line);
    for (const applier of appliers) applier.finish?.();
    const last = events[events.length - 1];
    if (last) {
      setMeta.run('last_seq', String(last.event.seq));
      setMeta.run('last_hash', last.event.event_hash);
    }
    setMeta.run('log_offset', String(endOffset));
  });
  const apply = (events: Array<{ event: StoredEvent; line: string }>, endOffset: number) => {
    try {
      transaction(events, endOffset);
    } catch (err) {
      // Rolled back: what a projection kept for the commit belongs to no transaction now.
      for (const applier of appliers) applier.discard?.();
      throw err;
    }
  };
  const meta = (key: string) => getMeta.get(key)?.value;
  return {
    db,
    lastSeq: () => Number(meta('last_seq') ?? 0),
    logOffset: () => Number(meta('log_offset') ?? 0),
    lastHash: () => meta('last_hash') ?? null,
    applyBatch: (events, endOffset) => apply(events, endOffset),
    close: () => db.close(),
  };
}

export function removeIndexFiles(path: string): void {
  for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
}

/** Where a running preview builds the index afresh before it takes the place of a corrupt one. */
export function freshIndexPathOf(path: string): string {
  return `${path}.rebuilding`;
}

/** The log up to here: its last seq and its size in bytes (whole lines). */
export type LogExtent = { seq: number; size: number };

/** Told the seq applied so far after each batch of a replay (the tail's seq is the last). */
export type ReplayProgress = (seq: number) => void;

/**
 * Applies the log's lines from byte `from` up to `tail` to the index, checking each line first
 * (replay-check.ts): a line that fails is store_corrupt, naming its seq, and nothing of its batch is
 * applied. An index built from such a log would agree with it and so hide the damage.
 */
export function catchUpIndex(index: IndexDb, logPath: string, from: number, tail: LogExtent, progress?: ReplayProgress): void {
  const chain: ReplayChain = { seq: index.lastSeq(), prev: index.lastHash() ?? ZERO_HASH };
  readLogLines(logPath, from, tail.size, (batch, endOffset) => {
    for (const { event, line } of batch) {
      const problem = checkReplayed(event, line, chain);
      if (problem !== null) {
        throw new AppError('store_corrupt', `The event log ${logPath} fails at seq ${problem.seq}: ${problem.detail}; nothing from there on was indexed, and an index built before is left as it is. Restore the log from a backup (gov events verify --data-dir shows every damaged line).`, { extra: { first_bad_seq: problem.seq } });
      }
    }
    index.applyBatch(batch, endOffset);
    progress?.(chain.seq);
  });
}

/**
 * A progress line at most every `everyMs` of a long replay, through `say`: how far it got of the
 * tail's seq. A replay that ends sooner says nothing.
 */
export function replayProgress(tailSeq: number, say: (line: string) => void, everyMs = 2000, now: () => number = () => performance.now()): ReplayProgress {
  let next = now() + everyMs;
  return (seq) => {
    if (now() < next || seq >= tailSeq) return;
    next = now() + everyMs;
    say(`rebuilding the index: ${seq} of ${tailSeq} events (${Math.floor((seq * 100) / tailSeq)} %)`);
  };
}

/** Deletes the index at `path` and replays the log up to `tail` into a fresh one (left open, in WAL mode). */
export function rebuildIndexFile(path: string, logPath: string, tail: LogExtent, projections: ProjectionFactory[], progress?: ReplayProgress): IndexDb {
  removeIndexFiles(path);
  const index = openIndexDb(path, projections);
  try {
    beginBulkLoad(index);
    catchUpIndex(index, logPath, 0, tail, progress);
    endBulkLoad(index);
    return index;
  } catch (err) {
    index.close();
    throw err;
  }
}

/**
 * Readies a fresh, empty index for a replay of the whole log: no journal and no syncs (a crash
 * meanwhile just means building it again), a big cache, and the events' secondary indexes dropped
 * until `endBulkLoad` builds them once.
 */
export function beginBulkLoad(index: IndexDb): void {
  index.db.pragma('journal_mode = OFF');
  index.db.pragma('synchronous = OFF');
  index.db.pragma('cache_size = -65536');
  for (const [name] of EVENT_INDEXES) index.db.exec(`DROP INDEX ${name}`);
}

/** Builds the secondary indexes (a repeated event_id fails here) and puts the index back in WAL mode. */
export function endBulkLoad(index: IndexDb): void {
  try {
    for (const [, ddl] of EVENT_INDEXES) index.db.exec(ddl);
  } catch (cause) {
    throw new AppError('store_corrupt', 'Two events of the log share one event_id; the log was changed by hand. Run gov events verify.', { cause });
  }
  index.db.pragma('synchronous = NORMAL');
  index.db.pragma('journal_mode = WAL');
}

/**
 * Builds the index afresh from the log up to `tail` beside the one at `path` and puts it in its
 * place; returns it opened. Nothing may hold the old file open: its WAL and shared-memory files
 * are deleted first, so the new file never meets the old one's WAL. The old file stays in place
 * until the new one is complete and on disk, so a failure leaves things as they were.
 */
export function replaceIndexFile(path: string, logPath: string, tail: LogExtent, projections: ProjectionFactory[], progress?: ReplayProgress): IndexDb {
  const fresh = freshIndexPathOf(path);
  try {
    const built = rebuildIndexFile(fresh, logPath, tail, projections, progress);
    try {
      // A single file (no WAL beside it) that is renamed into place.
      built.db.pragma('journal_mode = DELETE');
    } finally {
      built.close();
    }
    syncPath(fresh);
  } catch (err) {
    try {
      removeIndexFiles(fresh);
    } catch {
      // the error that stopped the rebuild is the one to report
    }
    throw err;
  }
  try {
    for (const suffix of ['-wal', '-shm']) rmSync(path + suffix, { force: true });
    renameSync(fresh, path);
  } catch (err) {
    removeIndexFiles(fresh);
    // The new file was just written: what refuses is the place of the index (a directory there, say).
    if ((err as NodeJS.ErrnoException).syscall === 'rename') (err as NodeJS.ErrnoException).path = path;
    throw err;
  }
  syncPath(dirname(path));
  return openIndexDb(path, projections);
}

/** Flushes the index file and its WAL (whatever the journal holds) to disk. */
export function flushIndexFiles(indexPath: string): void {
  for (const path of [indexPath, `${indexPath}-wal`]) if (existsSync(path)) syncPath(path);
}

/**
 * Reads complete lines of the log from byte `from` to `to`, in chunks, handing each parsed event and
 * its line to `onBatch` in groups of `batchSize`. A line that does not parse is a corrupt store
 * (recovery already cut a torn tail), reported with its byte offset.
 */
export function readLogLines(
  logPath: string,
  from: number,
  to: number,
  onBatch: (batch: Array<{ event: StoredEvent; line: string }>, endOffset: number) => void,
  batchSize = 5_000,
): void {
  let batch: Array<{ event: StoredEvent; line: string }> = [];
  let consumed = from;
  // Split as bytes and decoded line by line (log-lines.ts): decoding a whole chunk at once would
  // make all of it a two-byte string for one character outside Latin-1 anywhere in it.
  for (const { offset, bytes, end } of logLines(logPath, from, to)) {
    // A last piece without its newline is not a line yet (only a log changed meanwhile has one).
    if (end === offset + bytes.length) break;
    const line = bytes.toString('utf8');
    let event: StoredEvent;
    try {
      event = JSON.parse(line) as StoredEvent;
    } catch (cause) {
      throw new AppError('store_corrupt', `The event log ${logPath} has an unreadable line at byte ${offset}; run gov events verify to see the first bad seq.`, { cause });
    }
    batch.push({ event, line });
    consumed = end;
    if (batch.length >= batchSize) {
      onBatch(batch, consumed);
      batch = [];
    }
  }
  if (batch.length > 0) onBatch(batch, consumed);
}
