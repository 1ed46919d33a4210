// The main thread's side of the index writer: hands durable batches to the worker thread
// (index-worker.ts) in log order, knows up to which seq the index is applied, lets readers wait for
// it (`settled`), and holds the log back while the worker is too far behind (bounded memory). A
// writer started with `rebuildUpTo` first builds the index afresh from the log in its thread (a
// running preview that found its index corrupt) and is ready once the new file is in place.
//
// Durable batches linger before they are handed over: consecutive batches are one byte range, sent
// as one message once LINGER_MS have passed or LINGER_EVENTS are waiting, or at once when a reader
// waits for them (`settled`). An index transaction has a fixed cost (every page it touches is
// written whole), which made the small batches of group commit cost twice as much per event as
// batches of a hundred; and every message costs the event loop. Acknowledgements never wait for
// this (they wait for the log's durable write), nor do reads (they flush). While nobody reads, the
// linger is longer (QUIET_LINGER_MS): a read waits for what lingers to be applied, so the short
// linger keeps reads beside writes quick, and the long one makes write-only bursts cheaper.
import { Worker } from 'node:worker_threads';
import { AppError } from '../errors.ts';
import type { LogExtent } from './index-db.ts';

/** A durable batch: bytes `from` to `to` of the log (whole lines), ending with seq `lastSeq`. */
export type IndexRequest = { type: 'apply'; from: number; to: number; lastSeq: number } | { type: 'close' };
export type IndexReply =
  | { type: 'ready' }
  | { type: 'applied'; seq: number }
  /** The batch could not be applied; the worker keeps it and tries again (`code`: SQLite's, if any). */
  | { type: 'failed'; seq: number; code: string | null; message: string }
  /** The background integrity check found the index file damaged. */
  | { type: 'corrupt'; message: string }
  | { type: 'closed' };

/**
 * `catching_up`: batches are on their way; `failing`: applying fails and is retried; `unavailable`:
 * the index file is corrupt (and is being rebuilt, or rebuilding it failed) or its writer stopped.
 */
export type IndexState = 'current' | 'catching_up' | 'failing' | 'unavailable';
export type IndexStatus = { state: IndexState; indexed_seq: number; last_error: string | null };

export type IndexWriter = {
  /** Hands a durable batch to the worker, which reads its lines from the log. */
  apply(batch: { from: number; to: number; lastSeq: number }): void;
  /** The last seq the index holds. */
  indexedSeq(): number;
  /**
   * Resolves once the index holds every event up to `seq`. While applying fails it rejects at once
   * (503 index_behind, or index_unavailable for a corrupt index) rather than answer from a stale index.
   */
  settled(seq: number): Promise<void>;
  /** Resolves when the worker is at most MAX_BEHIND events behind (rejects as `settled` does once it is failing). */
  ready(): Promise<void>;
  status(): IndexStatus;
  /** A read found the index corrupt: refuse reads (503 index_unavailable) from now on (the store rebuilds it with a new writer). */
  markCorrupt(message: string): void;
  /** Applies what it was sent (unless applying fails or the index is corrupt), then stops the thread. Idempotent. */
  close(): Promise<void>;
};

/** How far (in events) the index may trail the log before the log waits for it. */
export const MAX_BEHIND = 20_000;
/** How long a durable batch may wait for the next ones before the worker gets it, and how many events may wait. */
export const LINGER_MS = 10;
export const LINGER_EVENTS = 2_000;
/**
 * The linger while no reader has asked for the index in READERS_GONE_MS. Measured under appends at
 * concurrency 64 with nobody reading (`--only compare`, alternated builds): 50 ms instead of 10 took
 * the preview's CPU per append from 228 / 221 / 217 to 218 / 197 / 189 µs (spread / hot task /
 * checkpoints). A fixed 40 ms linger instead made timeline reads beside writes at concurrency 16
 * wait p50 17–20 ms instead of 10 (docs/write-path.md), which the short linger with readers avoids.
 */
export const QUIET_LINGER_MS = 50;
export const READERS_GONE_MS = 1_000;
/** SQLite's result codes (extended ones included) that say the file is damaged. */
const CORRUPT_CODE = /^SQLITE_(CORRUPT|NOTADB)/;

export async function startIndexWriter(options: {
  path: string;
  logPath: string;
  startSeq: number;
  /** Run SQLite's quick_check in the worker once it runs (an index too big to check at start). */
  checkInBackground: boolean;
  /** Write without fsync (synchronous = OFF): the caller rebuilds the index after a restart of the machine (unsynced-index.ts). */
  unsynced?: boolean;
  /**
   * Build the index afresh from the log up to here before anything else (beside the old file, which
   * nothing may hold open any more, then in its place); `startSeq` is this extent's seq.
   */
  rebuildUpTo?: LogExtent;
  onIndexed: (seq: number) => void;
  /** The index was found corrupt (by the worker or by a read): the store rebuilds it with a new writer. */
  onCorrupt: (message: string) => void;
  /** The worker is gone: nothing more can be indexed until a restart. */
  onFailed: (error: AppError) => void;
  /** LINGER_MS, LINGER_EVENTS and QUIET_LINGER_MS unless given (tests; `quietMs` is `ms` unless given). */
  linger?: { ms: number; events: number; quietMs?: number };
}): Promise<IndexWriter> {
  const linger = options.linger ? { ...options.linger, quietMs: options.linger.quietMs ?? options.linger.ms } : { ms: LINGER_MS, events: LINGER_EVENTS, quietMs: QUIET_LINGER_MS };
  /** When a reader last asked for the index (`settled`): readers are about for READERS_GONE_MS after. */
  let lastReadAt = Number.NEGATIVE_INFINITY;
  const worker = spawnWorker({ path: options.path, logPath: options.logPath, check: options.checkInBackground, unsynced: options.unsynced ?? false, rebuild: options.rebuildUpTo ?? null });
  let indexed = options.startSeq;
  /** The last seq handed to this writer, and the last one posted to the worker. */
  let sent = options.startSeq;
  let posted = options.startSeq;
  /** The durable batches not yet posted, as one byte range (batches are consecutive). */
  let lingering: { from: number; to: number; lastSeq: number } | null = null;
  let lingerTimer: NodeJS.Timeout | null = null;
  const post = () => {
    if (lingerTimer !== null) clearTimeout(lingerTimer);
    lingerTimer = null;
    if (lingering === null) return;
    worker.ref();
    // Offsets only: the worker reads the lines from the log (the page cache has them), so the
    // event loop neither copies nor clones a batch.
    worker.postMessage({ type: 'apply', ...lingering } satisfies IndexRequest);
    posted = lingering.lastSeq;
    lingering = null;
  };
  let fatal: AppError | null = null;
  /** Set while applying fails (the worker retries); cleared by the next batch applied. */
  let trouble: { error: AppError; state: 'failing' | 'unavailable'; message: string } | null = null;
  /** Set once the index is known corrupt: it stays for this writer (the store rebuilds the index with a new one). */
  let corrupt: { error: AppError; state: 'unavailable'; message: string } | null = null;
  const corruption = (message: string) => ({
    state: 'unavailable' as const,
    message,
    error: new AppError('index_unavailable', `The index is corrupt (${message}); every acknowledged event is safe in the log, from which the index is being rebuilt. Try again in a few seconds.`),
  });
  const markCorrupt = (message: string) => {
    if (corrupt) return;
    corrupt = corruption(message);
    options.onCorrupt(message);
    wake();
  };
  let waiters: Array<{ seq: number; resolve: () => void; reject: (err: unknown) => void }> = [];
  let onClosed: (() => void) | null = null;
  let exited = false;
  let closing: Promise<void> | null = null;

  const wake = () => {
    const refusal = fatal ?? corrupt?.error ?? trouble?.error ?? null;
    const due = waiters.filter((w) => refusal !== null || w.seq <= indexed);
    waiters = waiters.filter((w) => !due.includes(w));
    for (const w of due) (w.seq <= indexed ? w.resolve() : w.reject(refusal));
  };
  const die = (error: AppError) => {
    fatal ??= error;
    options.onFailed(fatal);
    wake();
  };

  worker.once('exit', () => {
    exited = true;
  });
  await new Promise<void>((resolve, reject) => {
    worker.once('message', (m: IndexReply) => (m.type === 'ready' ? resolve() : reject(new Error(`the index writer answered ${m.type} before ready`))));
    worker.once('error', reject);
  }).catch(async (err: unknown) => {
    // It failed before it was ready (a rebuild that failed, an index that does not open).
    await worker.terminate();
    throw err;
  });
  // The worker keeps the process alive only while it has batches to apply: a process that ends
  // without closing the store leaves the rest to the next start's catch-up.
  worker.unref();
  worker.on('message', (m: IndexReply) => {
    if (m.type === 'applied') {
      indexed = m.seq;
      trouble = null;
      if (indexed >= sent) worker.unref();
      options.onIndexed(m.seq);
      wake();
    } else if (m.type === 'failed') {
      if (m.code !== null && CORRUPT_CODE.test(m.code)) markCorrupt(m.message);
      trouble = { state: 'failing', message: m.message, error: new AppError('index_behind', `The index is behind the event log and cannot be written now (${m.message}); every acknowledged event is safe in the log and the index catches up by itself as soon as it can write again (free disk space). Try again shortly.`) };
      wake();
    } else if (m.type === 'corrupt') {
      markCorrupt(m.message);
    } else if (m.type === 'closed') {
      onClosed?.();
    }
  });
  worker.on('error', (err) => die(new AppError('store_unavailable', 'The index writer stopped; restart the preview to rebuild the index.', { cause: err })));
  worker.on('exit', () => {
    if (onClosed === null) die(new AppError('store_unavailable', 'The index writer exited; restart the preview to rebuild the index.'));
  });

  const waitFor = (seq: number): Promise<void> => {
    if (corrupt) return Promise.reject(corrupt.error);
    if (seq <= indexed) return Promise.resolve();
    const refusal = fatal ?? trouble?.error;
    if (refusal) return Promise.reject(refusal);
    // A reader never waits for the linger.
    if (seq > posted) post();
    return new Promise((resolve, reject) => waiters.push({ seq, resolve, reject }));
  };
  const settled = (seq: number): Promise<void> => {
    lastReadAt = performance.now();
    return waitFor(seq);
  };

  return {
    apply({ from, to, lastSeq }) {
      sent = lastSeq;
      lingering = lingering === null ? { from, to, lastSeq } : { from: lingering.from, to, lastSeq };
      if (sent - posted >= linger.events) post();
      else lingerTimer ??= setTimeout(post, performance.now() - lastReadAt < READERS_GONE_MS ? linger.ms : linger.quietMs);
    },
    indexedSeq: () => indexed,
    settled,
    // The log waiting for the index is not a reader: it leaves the linger as it is.
    ready: () => (sent - indexed <= MAX_BEHIND ? Promise.resolve() : waitFor(sent - MAX_BEHIND)),
    status: () => ({
      state: fatal || corrupt ? 'unavailable' : trouble ? trouble.state : indexed < sent ? 'catching_up' : 'current',
      indexed_seq: indexed,
      last_error: fatal?.message ?? corrupt?.message ?? trouble?.message ?? null,
    }),
    markCorrupt,
    close() {
      closing ??= (async () => {
        post();
        // Everything sent is applied first unless applying fails (the next start catches up).
        if (!fatal && !trouble && !corrupt) await waitFor(sent).catch(() => {});
        if (!exited) {
          worker.ref();
          await new Promise<void>((resolve) => {
            onClosed = resolve;
            worker.once('exit', () => resolve());
            worker.postMessage({ type: 'close' } satisfies IndexRequest);
          });
        }
        onClosed ??= () => {};
        await worker.terminate();
      })();
      return closing;
    },
  };
}

/**
 * The worker's module sits next to this one: index-worker.mjs in the bundle, index-worker.ts in the
 * sources. A worker runs plain Node, so from the sources it first registers tsx's loader (loader
 * flags of the parent, like tap's --import=tsx, do not reach a worker's module loading here).
 */
export type IndexWorkerData = { path: string; logPath: string; check: boolean; unsynced: boolean; rebuild: LogExtent | null };

function spawnWorker(workerData: IndexWorkerData): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./index-worker.mjs', import.meta.url), { workerData });
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  const entry = JSON.stringify(new URL('./index-worker.ts', import.meta.url).href);
  const boot = `import(${tsx}).then((api) => { api.register(); return import(${entry}); }).catch((err) => { throw err; });`;
  return new Worker(boot, { eval: true, workerData });
}
