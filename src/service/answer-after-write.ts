// A write's answer built from the index after its own durable append. The event is safe in the log
// from the moment the append resolves; a 503 after that must not read as "nothing was recorded",
// or a client retries without its Idempotency-Key and writes the same thing twice.
import { AppError } from '../errors.ts';
import type { AppendResult } from '../store/event-log.ts';
import type { ServiceDeps } from './deps.ts';

/**
 * How long a write whose event is durable waits for an index being rebuilt (docs/write-path.md): a
 * rebuild of a preview's log usually takes a few seconds, and an answer late is better than a 503
 * the client must make sense of.
 */
export const REBUILD_WAIT_MS = 10_000;

/**
 * Waits until the index holds the caller's own append, to read the answer from it. An index still
 * unavailable (being rebuilt past REBUILD_WAIT_MS, or failed) or one that cannot be written answers
 * 503 as before, but saying that the write was recorded, which event it is, and how to get its
 * answer without writing it again.
 */
export async function settledAfterWrite(deps: ServiceDeps, result: AppendResult): Promise<void> {
  try {
    await deps.store.settled({ rebuildWaitMs: REBUILD_WAIT_MS });
  } catch (err) {
    if (!(err instanceof AppError) || (err.code !== 'index_unavailable' && err.code !== 'index_behind')) throw err;
    const first = result.events[0]!;
    // The store's own sentence says "try again", which for a recorded write means "write it again".
    const why = err.code === 'index_behind'
      ? 'cannot be written now (a full disk, say)'
      : err.extra?.index_rebuild === 'failed'
        ? 'could not be rebuilt from the log (restart the preview: its start rebuilds the index)'
        : 'is being rebuilt from the log';
    throw new AppError(
      err.code,
      `The write was recorded as event ${first.event_id} (seq ${first.seq}) and is safe in the log, but its answer is read from the index, which ${why}. Do not send it again as a new write: send the same request with the same Idempotency-Key once GET /health says ok, and its answer comes back as a replay; or read the resource then.`,
      { cause: err },
    );
  }
}
