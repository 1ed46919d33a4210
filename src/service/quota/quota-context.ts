// What every quota operation works with: the service deps, the quota configuration, the quota
// queries, the current forge data view, and the one append path for quota and forge events.
import { payloadSchemaOf, type EventDraft } from '../../domain/event.ts';
import { groupListResolver, type GroupListSource, type QuotaGroup } from '../../domain/quota/evaluate.ts';
import { QUOTA_SCOPE, type QuotaEventDraft } from '../../domain/quota/quota-events.ts';
import { QUOTA_STREAM } from '../../domain/streams.ts';
import type { QuotaConfig } from '../../config.ts';
import { createQuotaQueries, type QuotaQueries } from '../../store/quota-queries.ts';
import type { ServiceDeps } from '../deps.ts';
import { retryOnConflict, writeConflict } from '../optimistic.ts';
import { operatorContext, pendingEvent } from '../write-context.ts';
import { EMPTY_FORGE_DATA, forgeState, type ForgeState } from './forge-state.ts';

export type QuotaContext = {
  deps: ServiceDeps;
  config: QuotaConfig;
  q: QuotaQueries;
  /** The current forge data set (empty until one is loaded). */
  forge(): ForgeState;
  /** Who is in which group: the group list of a user or organisation (the engine's resolver). */
  groupLists(): (owner: string) => { source: GroupListSource; groups: QuotaGroup[] };
  /**
   * Decides a quota write on the current state (`decide` checks and returns the events, none for a
   * write that changes nothing) and appends them as one unit (all or none, consecutive seqs, one
   * fsync) in the quota scope over the operator transport, expecting the quota stream still at the
   * version the decision read. If another quota write got in first, it decides again on the new
   * state: no lock is held across the fsync.
   */
  write<T>(decide: () => { events: QuotaEventDraft[]; result: T }): Promise<T>;
};

const QUOTA_WRITE_ATTEMPTS = 64;

export function quotaContext(deps: ServiceDeps, config: QuotaConfig): QuotaContext {
  const q = createQuotaQueries(deps.store.index.db);
  // Quota and forge events are the server's own writes over the operator transport.
  const operator = operatorContext(QUOTA_SCOPE);
  let state: { seq: number; view: ForgeState } | null = null;
  // Rules, groups and memberships change only by quota events: the resolver built from them is kept
  // while the quota stream's version stays the same, so a check does not re-read the whole policy.
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
      const version = deps.store.stream(QUOTA_STREAM)?.version ?? 0;
      if (lists?.version !== version) {
        lists = {
          version,
          resolve: groupListResolver({ assignments: q.assignments(), groups: q.groups(), defaultGroups: config.default_groups, defaultTotal: config.default_total }),
        };
      }
      return lists.resolve;
    },
    write<T>(decide: () => { events: QuotaEventDraft[]; result: T }): Promise<T> {
      // Every quota write is decided against the whole quota state, so of N concurrent writers one
      // wins each batch and the others decide again: allow as many rounds as admin traffic needs.
      return retryOnConflict(async () => {
        // The decision reads the quota projection: it must hold every durable quota event.
        await deps.store.settled();
        const version = deps.store.stream(QUOTA_STREAM)?.version ?? 0;
        const { events, result } = decide();
        if (events.length === 0) return result;
        await append(events, version);
        return result;
      }, QUOTA_WRITE_ATTEMPTS);
    },
  };

  async function append(drafts: QuotaEventDraft[], version: number): Promise<void> {
    const unit = drafts.map((draft) => {
      // The payload schemas are the events' contract; a failure here is a bug, not a bad request.
      deps.registry.assert(payloadSchemaOf(draft.kind)!, draft.payload, `${draft.kind} payload`, 'quota_event_invalid');
      return pendingEvent(operator, deps.newId, { kind: draft.kind, payload: draft.payload as unknown as EventDraft['payload'] });
    });
    await deps.store.append(unit, [{ type: 'stream', stream: QUOTA_STREAM, version, orElse: () => writeConflict('The quota state') }]);
  }
}
