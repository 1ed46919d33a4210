// The access log (docs/governance/exports.md): the scope's access.logged entries in seq order,
// filtered and paged by seq, read at the index position of the request's start. Reading it is itself
// an access: a `viewed` entry (resource access_log) is appended in the same request, after the page
// was read, so a page never lists the read that produced it (the next read does).
import type { Actor, StoredEvent } from '../../domain/event.ts';
import { eventActor } from '../../domain/governance/types.ts';
import { scopeEventsOfKind } from '../../store/export-queries.ts';
import type { ServiceDeps } from '../deps.ts';
import type { WriteContext } from '../write-context.ts';
import { accessEvent, type AccessAction, type Resource } from './refusals.ts';

export const ACCESS_LOGGED = 'access.logged';
/** Page sizes of GET /v1/access-log. */
export const ACCESS_LOG_PAGE = { default: 50, max: 500 } as const;

export type AccessLogFilter = {
  actor_id?: string;
  action?: AccessAction;
  outcome?: 'allowed' | 'denied';
  resource_type?: string;
  resource_id?: string;
};

/** One entry as the access log and its export list it: the envelope's who and when, the payload's what. */
export type AccessEntry = {
  seq: number;
  event_id: string;
  recorded_at: string;
  actor: Actor;
  transport: StoredEvent['transport'];
  session_id: string | null;
  action: AccessAction;
  outcome: 'allowed' | 'denied';
  resource: Resource;
  reason_code: string | null;
  reason: string | null;
  route: { method: string; path_template: string } | null;
  status: number | null;
  ip_class: string | null;
  task_ids: string[];
  session_ids: string[];
};

type AccessPayload = {
  action: AccessAction; outcome: 'allowed' | 'denied'; resource: Resource; reason_code?: string; reason?: string;
  route?: { method: string; path_template: string }; status?: number; ip_class?: string; task_ids?: string[]; session_ids?: string[];
  /** reason_code as entries written before 2026-12-03 named it. */
  code?: string;
};

export function accessEntryOf(event: StoredEvent): AccessEntry {
  const p = event.payload as AccessPayload;
  return {
    seq: event.seq,
    event_id: event.event_id,
    recorded_at: event.recorded_at,
    actor: eventActor(event),
    transport: event.transport,
    session_id: event.session_id ?? null,
    action: p.action,
    outcome: p.outcome,
    resource: { type: p.resource.type, id: p.resource.id },
    reason_code: p.reason_code ?? p.code ?? null,
    reason: p.reason ?? null,
    route: p.route === undefined ? null : { method: p.route.method, path_template: p.route.path_template },
    status: p.status ?? null,
    ip_class: p.ip_class ?? null,
    task_ids: [...(p.task_ids ?? [])],
    session_ids: [...(p.session_ids ?? [])],
  };
}

export function matchesFilter(entry: AccessEntry, f: AccessLogFilter): boolean {
  return (f.actor_id === undefined || entry.actor.id === f.actor_id)
    && (f.action === undefined || entry.action === f.action)
    && (f.outcome === undefined || entry.outcome === f.outcome)
    && (f.resource_type === undefined || entry.resource.type === f.resource_type)
    && (f.resource_id === undefined || entry.resource.id === f.resource_id);
}

/**
 * `GET /v1/access-log`: up to `limit` entries after `after_seq` that match every filter given, and
 * next_after_seq (the last listed entry's seq) while more may match; then the read's own entry.
 */
export async function readAccessLog(deps: ServiceDeps, ctx: WriteContext, q: AccessLogFilter & { after_seq?: number; limit?: number }) {
  const limit = q.limit ?? ACCESS_LOG_PAGE.default;
  const readAt = deps.store.indexedSeq();
  const entries: AccessEntry[] = [];
  let more = false;
  for (const event of scopeEventsOfKind(deps.store.index.db, ctx.scope, ACCESS_LOGGED, q.after_seq ?? 0, readAt)) {
    const entry = accessEntryOf(event);
    if (!matchesFilter(entry, q)) continue;
    if (entries.length === limit) {
      more = true;
      break;
    }
    entries.push(entry);
  }
  await deps.store.append([accessEvent(deps, ctx, ctx.principal, { action: 'viewed', outcome: 'allowed', resource: { type: 'access_log', id: ctx.scope.tenant_id } })]);
  return {
    entries,
    next_after_seq: more ? entries[entries.length - 1]!.seq : null,
    read_at_seq: readAt,
    non_claims: [
      deps.identities === 'verified'
        ? 'Actors are the subjects of the OIDC tokens this service verified; it does not know who held a token.'
        : 'Actors are the identities callers asserted or their tokens stand for; the preview does not authenticate people.',
      'The log lists accesses through this service only; reads of the data dir on disk leave no entry.',
    ],
  };
}
