// Idempotency-Key semantics (IETF draft, contract section 5): keys are per tenant and live in the
// log (the index's idempotency table is their projection). Same key + same request → the original
// events again (a replay); same key + another request → 422; concurrent same key → one event,
// because the key's lock is held from the look-up to the durable append.
import type { StoredEvent } from '../domain/event.ts';
import { AppError } from '../errors.ts';
import type { Store } from '../store/store.ts';
import type { Queries } from '../store/queries.ts';
import type { WriteContext } from './write-context.ts';

export type WriteOutcome = { replayed: boolean; events: StoredEvent[] };

export async function idempotentWrite(
  store: Store,
  queries: Queries,
  ctx: WriteContext,
  lockKeys: string[],
  write: () => Promise<StoredEvent[]>,
): Promise<WriteOutcome> {
  const key = ctx.idempotencyKey;
  const keys = key === null ? lockKeys : [`idem:${ctx.scope.tenant_id}:${key}`, ...lockKeys];
  return store.mutex.run(keys, async () => {
    if (key !== null) {
      const record = queries.idempotency(ctx.scope.tenant_id, key);
      if (record) {
        if (record.request_sha256 !== ctx.requestSha256) {
          throw new AppError('idempotency_key_reused', 'This Idempotency-Key was already used with a different request; use a new key for a new request.');
        }
        return { replayed: true, events: queries.eventsBySeq(record.first_seq, record.first_seq + record.size - 1) };
      }
    }
    return { replayed: false, events: await write() };
  });
}
