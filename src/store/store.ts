// The local store: the data-dir lock, start-up recovery of the log (torn tail, incomplete unit),
// the index caught up with the log (or rebuilt) at start, kept up by a worker thread while running
// and rebuilt by a new one when it is found corrupt while running, and the append path that ties
// them together.
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ZERO_HASH, type StoredEvent } from '../domain/event.ts';
import { AppError } from '../errors.ts';
import { acquireDataDirLock, type DataDirLock } from './data-dir-lock.ts';
import type { StreamState } from '../domain/streams.ts';
import { committedReads } from './committed-state.ts';
import { openEventLog, readLastLine, truncateDurably, type AppendResult, type EventLog, type LogTail, type PendingEvent } from './event-log.ts';
import type { Expectation } from './expectations.ts';
import { pastInstant, type AppendOptions } from './seal-batch.ts';
import { writeFileDurably } from './durable-files.ts';
import { catchUpIndex, freshIndexPathOf, openIndexDb, removeIndexFiles, replaceIndexFile, replayProgress, type IndexDb, type ProjectionFactory, type ReplayProgress } from './index-db.ts';
import { indexHandle } from './index-handle.ts';
import { indexListeners } from './index-listeners.ts';
import { refuseIndexAheadOf, refuseLostEvents } from './lost-events.ts';
import { MAX_BEHIND, startIndexWriter, type IndexStatus, type IndexWriter } from './index-writer.ts';
import { EXTRA_PROJECTIONS } from './projections/registry.ts';
import { currentBootId, markIndexUnsynced, settleUnsyncedIndex, unsyncedIndexLost } from './unsynced-index.ts';
import { createWriteGate, type IdempotencyRecord } from './write-gate.ts';

export type Store = {
  readonly dataDir: string;
  /**
   * The index as the main thread reads it; a worker thread applies durable batches to it. After a
   * rebuild while running it reads the new file: queries built on it (queries.ts, quota-queries.ts)
   * follow; while it is rebuilt every read throws 503 index_unavailable.
   */
  readonly index: IndexDb;
  tail(): LogTail;
  /**
   * Appends a unit (all or nothing, consecutive seqs) once its Idempotency-Key is new and every
   * expectation holds when the single writer seals it; no lock is held by any caller. A used key
   * with the same request answers the original unit (`replayed`); a failed expectation rejects
   * with the error the expectation names and writes nothing. Resolves once the unit is on disk;
   * the index follows in the background (see `settled`). `options.redecide` lets the writer make
   * the unit's decision again when a stream it read moved on (expectations.ts, Redecide).
   */
  append(unit: PendingEvent[], expect?: readonly Expectation[], options?: AppendOptions): Promise<AppendResult>;
  /**
   * Resolves once the index holds every event durable now: wait for it before reading the index
   * (a read then sees every acknowledged write, its own included). While the index is rebuilt it
   * rejects with 503 index_unavailable at once, or, given `rebuildWaitMs` (a write reading its own
   * answer), first waits that long for the rebuild to finish.
   */
  settled(options?: { rebuildWaitMs?: number }): Promise<void>;
  /**
   * Resolves once the index holds every event recorded at or before `asOfMs` (epoch ms, not later
   * than the clock): wait for it before a snapshot as of that instant (packets, claim evaluations,
   * exports), whose append expects the snapshot complete. `settled` is not enough there: a batch
   * sealed but still being written, or sealed later in asOfMs's own millisecond, is recorded at or
   * before it too, and under a steady write load one nearly always is.
   */
  settledAsOf(asOfMs: number): Promise<void>;
  /** The last seq the index holds (a snapshot read from the index is complete up to it). */
  indexedSeq(): number;
  /**
   * Calls `listener` with the new indexed seq whenever the index advances (a batch applied, a
   * rebuilt index swapped in), so a long-lived reader (the event stream) waits for new events
   * without polling. Returns the unsubscribe. A listener must not throw; one that does is dropped.
   */
  onIndexed(listener: (seq: number) => void): () => void;
  /** How the index writer is doing (for /health). */
  indexStatus(): IndexStatus;
  /**
   * A read found the index corrupt: reads answer 503 index_unavailable while the index is rebuilt
   * from the log in the background (`rebuilt()`); if that fails, until the next start rebuilds it.
   * A message of the store's own refusals (a read refused meanwhile) changes nothing.
   */
  markIndexCorrupt(message: string): void;
  /** Resolves once no rebuild is under way: true if the index is usable (rebuilt, or never corrupt). */
  rebuilt(): Promise<boolean>;
  /** A stream's state as the index holds it (consistent with the index's projections). */
  stream(id: string): StreamState | undefined;
  /**
   * An Idempotency-Key's record as the index holds it, else undefined (a key only a batch not yet
   * indexed holds is found by `append`, which answers the replay). The preview keeps a filter of the
   * keys used, so a new key (nearly every keyed write) is known new without a look-up.
   */
  idempotency(tenantId: string, key: string): IdempotencyRecord | undefined;
  close(): Promise<void>;
};

export type StoreOptions = {
  dataDir: string;
  clock: () => Date;
  warn: (message: string) => void;
  /** Called once per written batch (one durable write): units and events in it. */
  onBatch?: (units: number, events: number) => void;
  /** How long durable batches wait to be indexed together (index-writer.ts); its defaults unless given (tests). */
  indexLinger?: { ms: number; events: number; quietMs?: number };
  /**
   * Work of the caller's that runs while the index writer's thread starts (its module, SQLite, the
   * index's check: ~100 ms on the 2-core machine, on the other core), rather than after the store is
   * open. If it throws, the store closes again (the lock is released) and openStore throws that.
   */
  whileIndexStarts?: () => void;
};

export function logPathOf(dataDir: string): string {
  return join(dataDir, 'events.jsonl');
}

/**
 * Refuses a log path that holds something other than a file (a directory, a socket): reading one
 * fails without naming it (`EISDIR` comes from the read, which knows only a descriptor).
 */
export function refuseNonFileLog(logPath: string): void {
  const stat = statSync(logPath, { throwIfNoEntry: false });
  if (stat !== undefined && !stat.isFile()) {
    throw new AppError('file_system_refused', `${logPath} is ${stat.isDirectory() ? 'a directory' : 'not a regular file'} where the event log belongs; move it away and run the command again.`);
  }
}

export function indexPathOf(dataDir: string): string {
  return join(dataDir, 'index.sqlite');
}

/**
 * A file that says the index was found corrupt while running: it stays until a rebuild succeeds (the
 * running preview's, or else the next start's).
 */
export function rebuildMarkerOf(dataDir: string): string {
  return join(dataDir, 'index.rebuild');
}

export async function openStore(options: StoreOptions): Promise<Store> {
  const { dataDir, warn } = options;
  mkdirSync(dataDir, { recursive: true });
  const lock: DataDirLock = await acquireDataDirLock(dataDir, warn);
  try {
    const logPath = logPathOf(dataDir);
    refuseNonFileLog(logPath);
    if (!existsSync(logPath)) writeFileSync(logPath, '');
    const indexPath = indexPathOf(dataDir);
    // An index holding what the cut would remove proves those lines acknowledged: refused first.
    const tail = recoverTail(logPath, warn, (kept) => refuseIndexAheadOf(indexPath, logPath, kept, startOverAtStart(indexPath)));
    const bootId = currentBootId();
    const index = indexHandle(openCaughtUpIndex(dataDir, tail, EXTRA_PROJECTIONS, warn, bootId));
    try {
      // From here the index writer writes without fsync (unsynced-index.ts): where this boot can be
      // told, a marker says so first, and a start after a restart of the machine rebuilds the index.
      const unsynced = bootId !== null;
      if (unsynced) markIndexUnsynced(dataDir, bootId);
      // The data-dir lock makes this gate the only writer of the log: it may filter the keys (read
      // from the index once the preview is up, not on its way up).
      const gate = createWriteGate(committedReads(index.db, { filterKeys: { startAfterMs: 1_000 } }));
      const listeners = indexListeners(warn);
      const indexedTo = listeners.indexedTo;
      let log: EventLog | null = null;
      /** Callbacks of a writer count only while it is the current one (a retired writer's are ignored). */
      let generation = 0;
      const startWriter = (startSeq: number, rebuildUpTo: LogTail | null, checkInBackground: boolean): Promise<IndexWriter> => {
        const mine = ++generation;
        return startIndexWriter({
          path: indexPath,
          logPath,
          startSeq,
          checkInBackground,
          unsynced,
          ...(options.indexLinger ? { linger: options.indexLinger } : {}),
          ...(rebuildUpTo === null ? {} : { rebuildUpTo: { seq: rebuildUpTo.seq, size: rebuildUpTo.size } }),
          onCorrupt: (message) => {
            if (mine === generation) corrupt(message);
          },
          onIndexed: (seq) => {
            if (mine !== generation) return;
            gate.indexed(seq);
            indexedTo(seq);
          },
          onFailed: (error) => {
            if (mine !== generation) return;
            // The events stay durable in the log; the next start catches the index up.
            warn(error.message);
            log?.fail(error);
          },
        });
      };
      const starting = startWriter(tail.seq, null, statSync(indexPath).size > QUICK_CHECK_MAX_BYTES);
      if (options.whileIndexStarts) {
        try {
          options.whileIndexStarts();
        } catch (err) {
          await starting.then((w) => w.close(), () => undefined);
          throw err;
        }
      }
      let writer = await starting;

      /**
       * Set from the moment the index is found corrupt until a rebuilt one is in place: reads are
       * refused with `error`; the index holds every event up to `indexedSeq` (the gate's overlays
       * cover the rest); durable batches wait in `parked` for the new writer.
       */
      let rebuild: { error: AppError; indexedSeq: number; failed: boolean; done: Promise<void> } | null = null;
      let parked: Array<{ from: number; to: number; lastSeq: number }> = [];
      let stopping = false;
      /** The messages of the store's own refusals: a request refused with one reports it back through markIndexCorrupt. */
      const refusals: string[] = [];
      /** `index_rebuild` says whether the rebuild is still under way, for a caller that words its own answer. */
      const refusal = (message: string, rebuilding: 'running' | 'failed'): AppError => {
        refusals.push(message);
        if (refusals.length > 16) refusals.shift();
        return new AppError('index_unavailable', message, { extra: { index_rebuild: rebuilding } });
      };

      const corrupt = (message: string): void => {
        if (rebuild !== null) return;
        writeMarker(rebuildMarkerOf(dataDir), message, warn);
        if (stopping) {
          warn(`The index is corrupt (${message}); the next start rebuilds it from the log.`);
          return;
        }
        const old = writer;
        generation++;
        warn(`The index is corrupt (${message}); rebuilding it from the log while the preview runs. Reads answer 503 index_unavailable meanwhile; every acknowledged event is safe in the log.`);
        const error = refusal(`The index is corrupt (${message}) and is being rebuilt from the log; every acknowledged event is safe in the log. Try again in a few seconds.`, 'running');
        rebuild = { error, indexedSeq: old.indexedSeq(), failed: false, done: Promise.resolve() };
        // Reads that wait for the old writer are refused at once; nothing reads the old file any more.
        old.markCorrupt(message);
        const closed = index.detach(error);
        rebuild.done = rebuildWhileRunning(old, message, closed);
      };

      const rebuildWhileRunning = async (old: IndexWriter, message: string, detached: boolean): Promise<void> => {
        const current = rebuild!;
        let next: IndexWriter | null = null;
        let upTo: LogTail;
        try {
          if (!detached) throw new Error('the main thread could not close its connection to the old index');
          // The old writer's thread closes its connection (the last one to the old file) first.
          await old.close();
          // Everything durable now goes into the new file; later batches wait in `parked`.
          upTo = log!.tail();
          parked = parked.filter((b) => b.lastSeq > upTo.seq);
          next = await startWriter(upTo.seq, upTo, false);
          index.attach(openIndexDb(indexPath, EXTRA_PROJECTIONS));
        } catch (err) {
          generation++;
          await next?.close().catch(() => {});
          const why = (err as Error)?.message ?? String(err);
          current.failed = true;
          current.error = refusal(`The index is corrupt (${message}) and rebuilding it failed (${why}); every acknowledged event is safe in the log. Restart the preview: its start rebuilds the index.`, 'failed');
          index.detach(current.error);
          warn(`Rebuilding the corrupt index from the log failed (${why}); reads answer 503 index_unavailable until the next start rebuilds it.`);
          return;
        }
        // The new file is in place and both connections read it: the gate drops the overlays it
        // holds, the new writer gets the batches that became durable meanwhile, reads answer again.
        gate.indexed(upTo.seq);
        gate.forgetIndexed();
        writer = next;
        rebuild = null;
        const due = parked;
        parked = [];
        for (const batch of due) next.apply(batch);
        // The new file holds everything up to upTo, some of it never announced by the old writer.
        indexedTo(upTo.seq);
        try {
          rmSync(rebuildMarkerOf(dataDir), { force: true });
        } catch (err) {
          warn(`Could not remove ${rebuildMarkerOf(dataDir)} (${(err as Error).message}); the next start rebuilds the index once more.`);
        }
        warn(`Rebuilt the index from the log (${upTo.seq} events) while the preview runs; reads answer again.`);
      };

      log = openEventLog({
        path: logPath,
        tail,
        clock: options.clock,
        gate,
        onDurable: (batch) => {
          if (rebuild === null) writer.apply(batch);
          else parked.push(batch);
        },
        // While the index is rebuilt the gate's overlays hold what the log got since: as many
        // events as the writer may trail by, then appends are refused.
        ready: () => {
          if (rebuild === null) return writer.ready();
          return opened().tail().seq - rebuild.indexedSeq <= MAX_BEHIND ? Promise.resolve() : Promise.reject(rebuild.error);
        },
        ...(options.onBatch ? { onBatch: options.onBatch } : {}),
      });
      const opened = (): EventLog => log!;
      const settled = async (wait?: { rebuildWaitMs?: number }): Promise<void> => {
        const current = rebuild;
        if (current !== null && !current.failed && (wait?.rebuildWaitMs ?? 0) > 0) {
          let timer: NodeJS.Timeout | undefined;
          const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, wait!.rebuildWaitMs)));
          await Promise.race([current.done, waited]);
          clearTimeout(timer);
        }
        if (rebuild !== null) throw rebuild.error;
        await writer.settled(opened().tail().seq);
      };
      let closing: Promise<void> | null = null;
      return {
        dataDir,
        index,
        tail: () => opened().tail(),
        append: (unit, expect, options) => opened().append(unit, expect, options),
        settled,
        async settledAsOf(asOfMs) {
          // Once the clock is past asOfMs every batch recorded at or before it has been sealed
          // (recorded_at is the clock when a batch is sealed, never less): the one being written
          // then becomes durable, and settled() takes in everything durable.
          await pastInstant(options.clock, asOfMs);
          await opened().written();
          await settled();
        },
        indexedSeq: () => (rebuild === null ? writer.indexedSeq() : rebuild.indexedSeq),
        onIndexed: (listener) => listeners.add(listener),
        indexStatus: () => (rebuild === null ? writer.status() : { state: 'unavailable', indexed_seq: rebuild.indexedSeq, last_error: rebuild.error.message }),
        markIndexCorrupt: (message) => {
          if (!refusals.includes(message)) corrupt(message);
        },
        rebuilt: async () => {
          while (rebuild !== null && !rebuild.failed) await rebuild.done;
          return rebuild === null;
        },
        stream: (id) => gate.indexedStream(id),
        idempotency: (tenantId, key) => gate.indexedKey(tenantId, key),
        close() {
          // Idempotent: a second close waits for the first.
          closing ??= (async () => {
            await opened().close();
            // A rebuild under way ends first (the new writer then applies what was parked).
            await rebuild?.done;
            stopping = true;
            await writer.close();
            index.close();
            // Nothing writes the index now: flushed to disk, it no longer needs its marker.
            try {
              settleUnsyncedIndex(dataDir, indexPath);
            } catch (err) {
              warn(`Could not flush the index to disk (${(err as Error).message}); the next start after a restart of the machine rebuilds it from the log.`);
            }
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
 *
 * `refuseLoss`, when given, sees the tail that would be left before anything is cut, and throws when
 * an index proves the lines to be cut were acknowledged (the log lost what came after them): then
 * the log stays as it is, since those lines may be all that is left of the events besides the index.
 */
export function recoverTail(logPath: string, warn: (m: string) => void, refuseLoss?: (tail: LogTail) => void): LogTail {
  const found = findTail(logPath);
  // Without a cut the start compares the index with the log anyway (checkIndexAgainstLog).
  if (found.cuts.length === 0) return found.tail;
  refuseLoss?.(found.tail);
  for (const cut of found.cuts) warn(cut);
  truncateDurably(logPath, found.tail.size);
  return found.tail;
}

/** What recoverTail keeps (the tail) and why it cuts the rest (one sentence a cut), writing nothing. */
function findTail(logPath: string): { tail: LogTail; cuts: string[] } {
  const cuts: string[] = [];
  let end: number | undefined;
  for (;;) {
    const { size, lastLine, lastLineStart, endsWithNewline } = readLastLine(logPath, end);
    if (lastLine === null) return { tail: { seq: 0, hash: ZERO_HASH, recordedAt: '', size: 0 }, cuts };
    let event: StoredEvent | null = null;
    if (endsWithNewline) {
      try {
        event = JSON.parse(lastLine) as StoredEvent;
      } catch {
        event = null;
      }
    }
    if (event === null || typeof event !== 'object' || typeof event.seq !== 'number') {
      cuts.push(`Cut off a torn last line of ${logPath} (${size - lastLineStart} bytes at byte ${lastLineStart}); it was never acknowledged.`);
      end = lastLineStart;
      continue;
    }
    const unit = event.unit as { index?: unknown; size?: unknown } | null | undefined;
    if (unit != null && typeof unit.index === 'number' && typeof unit.size === 'number' && unit.index < unit.size - 1) {
      cuts.push(`Cut off seq ${event.seq} of an incomplete ${unit.size}-event unit in ${logPath}; it was never acknowledged.`);
      end = lastLineStart;
      continue;
    }
    return { tail: { seq: event.seq, hash: event.event_hash, recordedAt: event.recorded_at, size }, cuts };
  }
}

function openCaughtUpIndex(dataDir: string, tail: LogTail, projections: ProjectionFactory[], warn: (m: string) => void, bootId: string | null): IndexDb {
  const indexPath = indexPathOf(dataDir);
  const marker = rebuildMarkerOf(dataDir);
  const lost = unsyncedIndexLost(dataDir, bootId);
  let index: IndexDb | null = null;
  if (existsSync(marker)) {
    warn(`The index at ${indexPath} was found corrupt while the preview ran (${readFileSync(marker, 'utf8').trim()}); rebuilding it from the log.`);
  } else if (lost !== null) {
    warn(`The index at ${indexPath} may have lost writes: ${lost}; rebuilding it from the log.`);
  } else if (tail.seq > 0 && !existsSync(indexPath)) {
    // Built beside and renamed once whole, as any rebuild: a log that refuses the replay leaves no
    // empty index behind.
    warn(`The index at ${indexPath} is missing; rebuilding it from the log.`);
  } else {
    try {
      index = openIndexDb(indexPath, projections, (from, to) => warn(`The index at ${indexPath} is version ${from}; migrating it to version ${to} (this start takes longer: it may reindex every event).`));
      // The log is the truth, but an index ahead of it, or holding an intact line the log has lost,
      // proves the log lost acknowledged events: refused (exit 3), the index kept as it is.
      const damage = checkIndexAgainstLog(index, indexPath, logPathOf(dataDir), tail);
      if (damage !== null) {
        warn(`The index at ${indexPath} is damaged (${damage}); rebuilding it from the log.`);
      } else {
        const seq = index.lastSeq();
        if (seq === tail.seq && (seq === 0 || index.lastHash() === tail.hash)) return index;
        if (seq < tail.seq && index.logOffset() <= tail.size) {
          catchUpIndex(index, logPathOf(dataDir), index.logOffset(), tail);
          return index;
        }
        warn(`The index (seq ${seq}) does not match the log (seq ${tail.seq}); rebuilding it from the log.`);
      }
    } catch (err) {
      if (err instanceof AppError && err.code === 'store_corrupt') {
        index?.close();
        throw err;
      }
      if (err instanceof AppError && err.code === 'index_outdated') warn(`The index at ${indexPath} was made by an older version (${err.message}); rebuilding it from the log.`);
      else warn(`The index at ${indexPath} is missing or unreadable (${(err as Error).message}); rebuilding it from the log.`);
    }
  }
  index?.close();
  // A long replay (an upgrade's, a big log's) says how far it got every few seconds.
  const rebuilt = rebuildIndex(dataDir, tail, projections, replayProgress(tail.seq, warn));
  // A rebuild that a running preview left unfinished.
  removeIndexFiles(freshIndexPathOf(indexPath));
  rmSync(marker, { force: true });
  return rebuilt;
}

/** How a start refused for lost events says to go on from the log as it is. */
function startOverAtStart(indexPath: string): string {
  return `to start over from the log as it is and lose those events, run gov store rebuild-index --accept-loss (with the preview stopped), or delete ${indexPath}.`;
}

/**
 * An index up to this size gets SQLite's quick_check at every start (~0.3 s per 64 MiB here, so at
 * most ~80 ms of a cold start); a bigger one is checked by the index writer once the preview runs.
 */
const QUICK_CHECK_MAX_BYTES = 16 * 1024 * 1024;
/**
 * Checks the index against the log at start: the log must not have lost events the index holds
 * (lost-events.ts: refused, the index kept, the way to start over named); then SQLite's quick_check
 * (for an index of moderate size; a bigger one is quick-checked by the index writer in the
 * background once the preview runs) and whether a newest row differs from an intact log line
 * answer why the index cannot be trusted, or null.
 */
function checkIndexAgainstLog(index: IndexDb, indexPath: string, logPath: string, tail: LogTail): string | null {
  const damage = refuseLostEvents(index.db, index.lastSeq(), indexPath, logPath, tail, startOverAtStart(indexPath), index.logOffset());
  if (statSync(indexPath).size <= QUICK_CHECK_MAX_BYTES) {
    const verdict = String(index.db.pragma('quick_check', { simple: true }));
    if (verdict !== 'ok') return `quick_check: ${verdict}`;
  }
  return damage;
}

/**
 * Replays the whole log into a fresh index beside the old one, which it replaces only once complete:
 * a log that fails the replay's checks leaves the old index (perhaps the last intact copy of a
 * damaged line) as it was. Nothing may hold the old index open.
 */
export function rebuildIndex(dataDir: string, tail: LogTail, projections: ProjectionFactory[] = EXTRA_PROJECTIONS, progress?: ReplayProgress): IndexDb {
  return replaceIndexFile(indexPathOf(dataDir), logPathOf(dataDir), tail, projections, progress);
}

/** Writes the marker durably (it must outlive a crash during the rebuild), unless one is there already. */
function writeMarker(marker: string, message: string, warn: (m: string) => void): void {
  if (existsSync(marker)) return;
  try {
    writeFileDurably(marker, `${message}\n`);
  } catch (err) {
    warn(`Could not write ${marker} (${(err as Error).message}); if the preview stops before the index is rebuilt, run gov store rebuild-index.`);
  }
}
