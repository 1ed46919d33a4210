// The index writer thread's entry: reads each durable batch's lines from the log and applies them
// to the SQLite index on a connection of its own, in log order, and reports each. Batches that
// queue up while one is applied go into the next transaction together (bigger FTS segments, fewer
// commits). Projections, FTS merges and WAL checkpoints run here, never on the server's event loop.
// Asked to rebuild, it first builds the index afresh from the log and puts it in place of the
// corrupt one (a failure ends the thread before it is ready: the store reports it).
import { closeSync, openSync, readlinkSync, readSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import type { StoredEvent } from '../domain/event.ts';
import { openIndexDb, replaceIndexFile } from './index-db.ts';
import type { IndexReply, IndexRequest, IndexWorkerData } from './index-writer.ts';
import { EXTRA_PROJECTIONS } from './projections/registry.ts';

const port = parentPort!;
/** How much lower than the event loop's this thread's priority is (Linux nice value). */
const INDEX_WRITER_NICE = 10;
lowerThreadPriority();
const { path, logPath, check, rebuild } = workerData as IndexWorkerData;
const index = rebuild === null ? openIndexDb(path, EXTRA_PROJECTIONS) : replaceIndexFile(path, logPath, rebuild, EXTRA_PROJECTIONS);
const log = openSync(logPath, 'r');
const reply = (message: IndexReply) => port.postMessage(message);
let queued: Array<Extract<IndexRequest, { type: 'apply' }>> = [];
let closing = false;
let draining = false;

/**
 * A batch's bytes are its lines, each ending in a newline. Each line is decoded on its own: one
 * character outside Latin-1 anywhere in a batch would otherwise make the whole batch's text a
 * two-byte string (V8 decodes it slower, and every line sliced from it, parsed and bound to SQLite
 * stays two-byte), where now only the lines that hold such a character are.
 */
function lineRows(bytes: Buffer): Array<{ event: StoredEvent; line: string }> {
  const rows: Array<{ event: StoredEvent; line: string }> = [];
  for (let start = 0; start < bytes.length; ) {
    const end = bytes.indexOf(0x0a, start);
    if (end < 0) throw new Error(`the batch ends inside a line (byte ${start} of ${bytes.length})`);
    const line = bytes.toString('utf8', start, end);
    rows.push({ event: JSON.parse(line) as StoredEvent, line });
    start = end + 1;
  }
  return rows;
}

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
      // Queued batches are consecutive: one read covers them all.
      const bytes = Buffer.allocUnsafe(last.to - batches[0]!.from);
      let read = 0;
      while (read < bytes.length) {
        const n = readSync(log, bytes, read, bytes.length - read, batches[0]!.from + read);
        if (n === 0) throw new Error(`the log ends before byte ${batches[0]!.from + bytes.length}`);
        read += n;
      }
      index.applyBatch(lineRows(bytes), last.to);
      failures = 0;
      reply({ type: 'applied', seq: last.lastSeq });
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
    closeSync(log);
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
