// What every quota operation works with: the service deps, the quota configuration, the quota
// queries, the current forge data view, and the one append path for quota and forge events.
import type { EventDraft, StoredEvent } from '../../domain/event.ts';
import { QUOTA_SCOPE, type QuotaEventDraft } from '../../domain/quota/quota-events.ts';
import type { PreviewConfig } from '../../deps.ts';
import { createQuotaQueries, type QuotaQueries } from '../../store/quota-queries.ts';
import type { ServiceDeps } from '../deps.ts';
import { payloadSchemaOf } from '../write-checks.ts';
import { EMPTY_FORGE_DATA, forgeState, type ForgeState } from './forge-state.ts';

export type QuotaConfig = PreviewConfig['quota'];

export type QuotaContext = {
  deps: ServiceDeps;
  config: QuotaConfig;
  q: QuotaQueries;
  /** The current forge data set (empty until one is loaded). */
  forge(): ForgeState;
  /**
   * Appends the drafts as one unit (all or none, consecutive seqs, one fsync) in the quota scope
   * over the operator transport. Callers hold `lock` from their checks to this append.
   */
  append(drafts: QuotaEventDraft[]): Promise<StoredEvent[]>;
  /** One lock for every quota write, so a check and its append see no interleaved write. */
  lock<T>(fn: () => Promise<T>): Promise<T>;
};

export const QUOTA_LOCK = 'quota';

export function quotaContext(deps: ServiceDeps, config: QuotaConfig): QuotaContext {
  const q = createQuotaQueries(deps.store.index.db);
  let state: { seq: number; view: ForgeState } | null = null;
  return {
    deps,
    config,
    q,
    forge() {
      const stored = q.forgeData();
      const seq = stored?.seq ?? 0;
      if (state?.seq !== seq) state = { seq, view: forgeState(stored?.data ?? EMPTY_FORGE_DATA, stored?.recordedAt ?? '1970-01-01T00:00:00.000Z') };
      return state.view;
    },
    async append(drafts) {
      const unit = drafts.map((draft) => {
        // The payload schemas are the events' contract; a failure here is a bug, not a bad request.
        deps.registry.assert(payloadSchemaOf(draft.kind)!, draft.payload, `${draft.kind} payload`, 'quota_event_invalid');
        return {
          ...QUOTA_SCOPE,
          kind: draft.kind,
          payload: draft.payload as unknown as EventDraft['payload'],
          actor: { type: 'service_account' as const, id: 'operator' },
          event_id: deps.newId('evt'),
          transport: 'operator' as const,
          idempotency_key: null,
          request_sha256: null,
        };
      });
      return deps.store.append(unit);
    },
    lock: (fn) => deps.store.mutex.run([QUOTA_LOCK], fn),
  };
}
