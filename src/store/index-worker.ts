// The index writer thread's entry: reads each durable batch's lines from the log and applies them
// to the SQLite index on a connection of its own, in log order, and reports each. Batches that
// queue up while one is applied go into the next transaction together (bigger FTS segments, fewer
// commits). Projections, FTS merges and WAL checkpoints run here, never on the server's event loop.
import { closeSync, openSync, readSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import type { StoredEvent } from '../domain/event.ts';
import { openIndexDb } from './index-db.ts';
import type { IndexReply, IndexRequest } from './index-writer.ts';
import { EXTRA_PROJECTIONS } from './projections/registry.ts';

const port = parentPort!;
const { path, logPath } = workerData as { path: string; logPath: string };
const index = openIndexDb(path, EXTRA_PROJECTIONS);
const log = openSync(logPath, 'r');
const reply = (message: IndexReply) => port.postMessage(message);
let queued: Array<Extract<IndexRequest, { type: 'apply' }>> = [];
let closing = false;
let draining = false;

/** A batch's text is its lines, each ending in a newline. */
function lineRows(text: string): Array<{ event: StoredEvent; line: string }> {
  const lines = text.split('\n');
  lines.pop();
  return lines.map((line) => ({ event: JSON.parse(line) as StoredEvent, line }));
}

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
      index.applyBatch(lineRows(bytes.toString('utf8')), last.to);
      reply({ type: 'applied', seq: last.lastSeq });
    } catch (err) {
      reply({ type: 'failed', seq: last.lastSeq, message: (err as Error)?.message ?? String(err) });
    }
  }
  if (closing) {
    index.close();
    closeSync(log);
    reply({ type: 'closed' });
  }
}

port.on('message', (message: IndexRequest) => {
  if (message.type === 'close') closing = true;
  else queued.push(message);
  // Every message that arrived in this turn joins the same transaction.
  if (!draining) {
    draining = true;
    setImmediate(drain);
  }
});
reply({ type: 'ready' });
