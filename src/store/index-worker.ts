// The index writer thread's entry: applies durable batches to the SQLite index on a connection of
// its own, in the order they arrive, and reports each. Batches that queue up while one is applied
// go into the next transaction together (bigger FTS segments, fewer commits). Projection work, FTS
// merges and WAL checkpoints run here, so they never block the server's event loop.
import { parentPort, workerData } from 'node:worker_threads';
import type { StoredEvent } from '../domain/event.ts';
import { openIndexDb } from './index-db.ts';
import type { IndexReply, IndexRequest } from './index-writer.ts';
import { EXTRA_PROJECTIONS } from './projections/registry.ts';

const port = parentPort!;
const index = openIndexDb((workerData as { path: string }).path, EXTRA_PROJECTIONS);
const reply = (message: IndexReply) => port.postMessage(message);
let queued: Array<Extract<IndexRequest, { type: 'apply' }>> = [];
let closing = false;
let draining = false;
const decoder = new TextDecoder();

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
      const rows = batches.flatMap((b) => lineRows(decoder.decode(b.bytes)));
      index.applyBatch(rows, last.endOffset);
      reply({ type: 'applied', seq: last.lastSeq });
    } catch (err) {
      reply({ type: 'failed', seq: last.lastSeq, message: (err as Error)?.message ?? String(err) });
    }
  }
  if (closing) {
    index.close();
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
