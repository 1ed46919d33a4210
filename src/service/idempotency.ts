// Idempotency-Key semantics (IETF draft, docs/contract.md §5): keys are per tenant and live in the
// log (the index's idempotency table is their projection). Same key + same request → the original
// events again (a replay); same key + another request → 422. The log's single writer settles
// concurrent first uses (one event, the rest replays); this look-up lets a route answer a replay of
// a committed request before it repeats its checks and work (a closed task must still replay its
// closeout, a packet is not assembled again).
import { AppError } from '../errors.ts';
import type { AppendResult } from '../store/event-log.ts';
import type { ServiceDeps } from './deps.ts';
import type { WriteContext } from './write-context.ts';

export function committedReplay(deps: ServiceDeps, ctx: WriteContext): AppendResult | null {
  if (ctx.idempotencyKey === null) return null;
  const record = deps.store.idempotency(ctx.scope.tenant_id, ctx.idempotencyKey);
  if (!record) return null;
  if (record.request_sha256 !== ctx.requestSha256) {
    throw new AppError('idempotency_key_reused', 'This Idempotency-Key was already used with a different request; use a new key for a new request.');
  }
  const rows = deps.queries.rowsBySeq(record.first_seq, record.first_seq + record.size - 1);
  return { replayed: true, events: rows.map((r) => r.event), lines: rows.map((r) => r.line) };
}
