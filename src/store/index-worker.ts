// The index writer thread's entry: reads each durable batch's lines from the log and applies them
// to the SQLite index on a connection of its own, in log order, and reports each. Batches that
// queue up while one is applied go into the next transaction together (bigger FTS segments, fewer
// commits). Projections, FTS merges and WAL checkpoints run here, never on the server's event loop.
// Asked to rebuild, it first builds the index afresh from the log and puts it in place of the
// corrupt one (a failure ends the thread before it is ready: the store reports it).
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { flushIndexFiles, openIndexDb, readLogLines, replaceIndexFile } from './index-db.ts';
import type { IndexReply, IndexRequest, IndexWorkerData } from './index-writer.ts';
import { EXTRA_PROJECTIONS } from './projections/registry.ts';

const port = parentPort!;
/**
 * How often an unsynced index is handed to the disk all the same. Left to the kernel, its dirty
 * pages went out in bursts ~30 s old, and the log's durable writes queued behind them: an open loop
 * of 2,000 appends/s after 30 s of load saw single log writes take 90–150 ms and a p99 of 165–210 ms.
 * Flushed every 250 ms, the p99 was 10–13 ms (synced as before: 11–17 ms), and the pages rewritten
 * in between still reach the disk once (130 MB written for 22,000 events, against 640 MB synced).
 */
const FLUSH_EVERY_MS = 250;
/** How much lower than the event loop's this thread's priority is (Linux nice value). */
const INDEX_WRITER_NICE = 10;
lowerThreadPriority();
const { path, logPath, check, unsynced, rebuild } = workerData as IndexWorkerData;
const index = rebuild === null ? openIndexDb(path, EXTRA_PROJECTIONS) : replaceIndexFile(path, logPath, rebuild, EXTRA_PROJECTIONS);
// No fsync for this connection's commits and checkpoints: the store rebuilds the index after a
// restart of the machine and flushes it at a clean stop (unsynced-index.ts).
if (unsynced) index.db.pragma('synchronous = OFF');
let flushedAt = performance.now();

/** Hands the index's dirty pages to the disk; one that fails is left to the kernel (nothing depends on it). */
function flush(): void {
  flushedAt = performance.now();
  try {
    flushIndexFiles(path);
  } catch {
    // The marker already says the index may lack what the disk did not get.
  }
}
const reply = (message: IndexReply) => port.postMessage(message);
let queued: Array<Extract<IndexRequest, { type: 'apply' }>> = [];
let closing = false;
let draining = false;

/** After a failed batch the worker waits before it tries again, longer each time (disk full, locked). */
const RETRY_MS = [100, 250, 500, 1000, 2000, 5000];
let failures = 0;
let retry: NodeJS.Timeout | null = null;

function drain(): void {
  draining = false;
  const batches = queued;
  queued = [];
  if (batches.length > 0) {
    const last = batches[batches.length - 1]!;
    try {
      // Queued batches are consecutive: one read covers them all, applied in one transaction (a
      // failure rolls all of it back, and the batches are tried again whole).
      let rows: Parameters<typeof index.applyBatch>[0] = [];
      readLogLines(logPath, batches[0]!.from, last.to, (all) => (rows = all), Number.POSITIVE_INFINITY);
      const lastRead = rows[rows.length - 1]?.event.seq;
      if (lastRead !== last.lastSeq) throw new Error(`the log ends before seq ${last.lastSeq}: bytes ${batches[0]!.from}–${last.to} end with seq ${lastRead ?? 'none'}`);
      index.applyBatch(rows, last.to);
      failures = 0;
      reply({ type: 'applied', seq: last.lastSeq });
      if (unsynced && performance.now() - flushedAt >= FLUSH_EVERY_MS) flush();
    } catch (err) {
      // Nothing of the transaction stayed: keep the batches and try again later, in order.
      queued = batches.concat(queued);
      const code = typeof (err as { code?: unknown })?.code === 'string' ? (err as { code: string }).code : null;
      reply({ type: 'failed', seq: last.lastSeq, code, message: (err as Error)?.message ?? String(err) });
      if (!closing) {
        retry = setTimeout(() => {
          retry = null;
          drain();
        }, RETRY_MS[Math.min(failures++, RETRY_MS.length - 1)]);
        return;
      }
    }
  }
  if (closing) {
    if (retry) clearTimeout(retry);
    index.close();
    reply({ type: 'closed' });
  }
}

port.on('message', (message: IndexRequest) => {
  if (message.type === 'close') closing = true;
  else queued.push(message);
  // Every message that arrived in this turn joins the same transaction; while a retry is pending,
  // new batches wait for it (they come after the failed ones).
  if (!draining && (retry === null || closing)) {
    if (retry) clearTimeout(retry);
    retry = null;
    draining = true;
    setImmediate(drain);
  }
});
reply({ type: 'ready' });
// An index too big to check at start is checked here, while the preview already serves.
if (check) {
  setImmediate(() => {
    try {
      const verdict = String(index.db.pragma('quick_check', { simple: true }));
      if (verdict !== 'ok') reply({ type: 'corrupt', message: `quick_check: ${verdict}` });
    } catch (err) {
      reply({ type: 'corrupt', message: (err as Error)?.message ?? String(err) });
    }
  });
}

/**
 * The event loop answers requests; this thread only keeps the index up with them. Where the
 * threads compete for the cores (two here, shared with whatever sends the load) the event loop
 * should win: on Linux this thread gets a lower priority (nice +INDEX_WRITER_NICE; a thread is a
 * task with its own id there). It falls behind under a burst and catches up after (the log waits
 * for it past MAX_BEHIND events), and its transactions grow meanwhile, which costs less per event.
 * Elsewhere, or without permission, it keeps the process's priority.
 */
function lowerThreadPriority(): void {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0) setPriority(tid, INDEX_WRITER_NICE);
  } catch {
    // Not Linux, or not allowed: the thread keeps the process's priority.
  }
}
