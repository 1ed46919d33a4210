// The main thread's side of the index writer: hands durable batches to the worker thread
// (index-worker.ts) in log order, knows up to which seq the index is applied, lets readers wait for
// it (`settled`), and holds the log back while the worker is too far behind (bounded memory).
import { Worker } from 'node:worker_threads';
import { AppError } from '../errors.ts';

/** A durable batch: bytes `from` to `to` of the log (whole lines), ending with seq `lastSeq`. */
export type IndexRequest = { type: 'apply'; from: number; to: number; lastSeq: number } | { type: 'close' };
export type IndexReply = { type: 'ready' } | { type: 'applied'; seq: number } | { type: 'failed'; seq: number; message: string } | { type: 'closed' };

export type IndexWriter = {
  /** Hands a durable batch to the worker, which reads its lines from the log. */
  apply(batch: { from: number; to: number; lastSeq: number }): void;
  /** The last seq the index holds. */
  indexedSeq(): number;
  /** Resolves once the index holds every event up to `seq`. */
  settled(seq: number): Promise<void>;
  /** Resolves when the worker is at most MAX_BEHIND events behind. */
  ready(): Promise<void>;
  close(): Promise<void>;
};

/** How far (in events) the index may trail the log before the log waits for it. */
const MAX_BEHIND = 20_000;

export async function startIndexWriter(options: {
  path: string;
  logPath: string;
  startSeq: number;
  onIndexed: (seq: number) => void;
  onFailed: (error: AppError) => void;
}): Promise<IndexWriter> {
  const worker = spawnWorker({ path: options.path, logPath: options.logPath });
  let indexed = options.startSeq;
  let sent = options.startSeq;
  let failure: AppError | null = null;
  let waiters: Array<{ seq: number; resolve: () => void; reject: (err: unknown) => void }> = [];
  let onClosed: (() => void) | null = null;

  const wake = () => {
    const due = waiters.filter((w) => failure !== null || w.seq <= indexed);
    waiters = waiters.filter((w) => !due.includes(w));
    for (const w of due) (failure ? w.reject(failure) : w.resolve());
  };
  const fail = (error: AppError) => {
    failure ??= error;
    options.onFailed(failure);
    wake();
  };

  await new Promise<void>((resolve, reject) => {
    worker.once('message', (m: IndexReply) => (m.type === 'ready' ? resolve() : reject(new Error(`the index writer answered ${m.type} before ready`))));
    worker.once('error', reject);
  });
  // The worker keeps the process alive only while it has batches to apply: a process that ends
  // without closing the store leaves the rest to the next start's catch-up.
  worker.unref();
  worker.on('message', (m: IndexReply) => {
    if (m.type === 'applied') {
      indexed = m.seq;
      if (indexed >= sent) worker.unref();
      options.onIndexed(m.seq);
      wake();
    } else if (m.type === 'failed') {
      fail(new AppError('store_unavailable', `The index fell behind the event log (${m.message}); restart the preview to rebuild it.`));
    } else if (m.type === 'closed') {
      onClosed?.();
    }
  });
  worker.on('error', (err) => fail(new AppError('store_unavailable', 'The index writer stopped; restart the preview to rebuild the index.', { cause: err })));
  worker.on('exit', () => {
    if (onClosed === null) fail(new AppError('store_unavailable', 'The index writer exited; restart the preview to rebuild the index.'));
  });

  const settled = (seq: number): Promise<void> => {
    if (failure) return Promise.reject(failure);
    if (seq <= indexed) return Promise.resolve();
    return new Promise((resolve, reject) => waiters.push({ seq, resolve, reject }));
  };

  return {
    apply({ from, to, lastSeq }) {
      sent = lastSeq;
      worker.ref();
      // Offsets only: the worker reads the lines from the log (the page cache has them), so the
      // event loop neither copies nor clones a batch.
      worker.postMessage({ type: 'apply', from, to, lastSeq } satisfies IndexRequest);
    },
    indexedSeq: () => indexed,
    settled,
    ready: () => (sent - indexed <= MAX_BEHIND ? Promise.resolve() : settled(sent - MAX_BEHIND)),
    async close() {
      // Everything sent is applied first (a failure leaves the rest for the next start's catch-up).
      await settled(sent).catch(() => {});
      worker.ref();
      await new Promise<void>((resolve) => {
        onClosed = resolve;
        worker.once('exit', () => resolve());
        worker.postMessage({ type: 'close' } satisfies IndexRequest);
      });
      await worker.terminate();
    },
  };
}

/**
 * The worker's module sits next to this one: index-worker.mjs in the bundle, index-worker.ts in the
 * sources. A worker runs plain Node, so from the sources it first registers tsx's loader (loader
 * flags of the parent, like tap's --import=tsx, do not reach a worker's module loading here).
 */
function spawnWorker(workerData: { path: string; logPath: string }): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./index-worker.mjs', import.meta.url), { workerData });
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  const entry = JSON.stringify(new URL('./index-worker.ts', import.meta.url).href);
  const boot = `import(${tsx}).then((api) => { api.register(); return import(${entry}); }).catch((err) => { throw err; });`;
  return new Worker(boot, { eval: true, workerData });
}
