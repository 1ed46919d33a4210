// The index writer thread's entry: applies durable batches to the SQLite index on a connection of
// its own, in the order they arrive, and reports each one. Projection work, FTS merges and WAL
// checkpoints run here, so they never block the server's event loop.
import { parentPort, workerData } from 'node:worker_threads';
import type { StoredEvent } from '../domain/event.ts';
import { openIndexDb } from './index-db.ts';
import type { IndexReply, IndexRequest } from './index-writer.ts';
import { EXTRA_PROJECTIONS } from './projections/registry.ts';

const port = parentPort!;
const index = openIndexDb((workerData as { path: string }).path, EXTRA_PROJECTIONS);
const reply = (message: IndexReply) => port.postMessage(message);

port.on('message', (message: IndexRequest) => {
  if (message.type === 'close') {
    index.close();
    reply({ type: 'closed' });
    return;
  }
  try {
    index.applyBatch(message.lines.map((line) => ({ event: JSON.parse(line) as StoredEvent, line })), message.endOffset);
    reply({ type: 'applied', seq: message.lastSeq });
  } catch (err) {
    reply({ type: 'failed', seq: message.lastSeq, message: (err as Error)?.message ?? String(err) });
  }
});
reply({ type: 'ready' });
