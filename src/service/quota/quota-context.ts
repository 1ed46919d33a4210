// What every quota operation works with: the service deps, the quota configuration, the quota
// queries, the current forge data view, and the one append path for quota and forge events.
import type { EventDraft, StoredEvent } from '../../domain/event.ts';
import { groupListResolver, type GroupListSource, type QuotaGroup } from '../../domain/quota/evaluate.ts';
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
  /** Who is in which group: the group list of a user or organisation (the engine's resolver). */
  groupLists(): (owner: string) => { source: GroupListSource; groups: QuotaGroup[] };
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
  // Rules, groups and memberships change only through `append` below: the resolver built from them
  // is kept until the next quota write, so a check does not re-read the whole policy.
  let version = 0;
  let lists: { version: number; resolve: ReturnType<QuotaContext['groupLists']> } | null = null;
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
    groupLists() {
      if (lists?.version !== version) {
        lists = {
          version,
          resolve: groupListResolver({ assignments: q.assignments(), groups: q.groups(), defaultGroups: config.default_groups, defaultTotal: config.default_total }),
        };
      }
      return lists.resolve;
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
      try {
        return await deps.store.append(unit);
      } finally {
        // After the append has reached the index: a resolver built meanwhile saw the old state.
        version++;
      }
    },
    lock: (fn) => deps.store.mutex.run([QUOTA_LOCK], fn),
  };
}
