// What every write carries from its transport to the services: scope, transport and its principal,
// the Idempotency-Key, the canonical fingerprint of the request (for replay comparison) and the
// version the caller's If-Match names.
import { transportPrincipal, type Actor, type EventDraft, type Scope, type Transport } from '../domain/event.ts';
import type { IpClass } from '../domain/governance/provenance.ts';
import type { TeamRole } from '../domain/governance/team.ts';
import { AppError } from '../errors.ts';
import type { PendingEvent } from '../store/event-log.ts';

export type WriteContext = {
  scope: Scope;
  transport: Transport;
  /**
   * The actor of every event the write records unless its body names one: the transport's
   * principal (transportPrincipal), so every event names who did it.
   */
  principal: Actor;
  idempotencyKey: string | null;
  /**
   * sha256 URI of the canonical {method, path, scope, body} of the request, which a replay with the
   * same Idempotency-Key is compared against; null when the request carries no key.
   */
  requestSha256: string | null;
  /**
   * The aggregate version the write is conditional on (If-Match: "<version>"; NO_VERSION for an
   * ETag that is none of ours; ANY_VERSION for `*`); null without one.
   */
  ifMatch: number | null;
  /**
   * The caller a verified token names (the hosted service): `principal` is its actor, and decisions
   * read its roles from the token, not from the recorded team. Absent in the preview.
   */
  verified?: { actor: Actor; roles: readonly TeamRole[] };
  /**
   * The HTTP request the write or read came over, as its access-log entries record it (route,
   * status, ip_class; docs/governance/exports.md). Every request comes over HTTP (gov mcp calls
   * the HTTP API too), so it is absent only for the server's own writes. Read only when an access
   * entry is made, so the hot write paths never compute it.
   */
  request?: () => RequestFacts;
  /**
   * Set while a governance write is decided tentatively, on the index as it is (which may trail the
   * log by the batches the index writer has not applied yet): a refusal then is not recorded but
   * sends the write back to be decided on the settled index (governance/decide.ts, refusals.ts).
   */
  tentative?: true;
};

/** What the access log records of an HTTP request: the route it matched, its success status and the class of the peer's address. */
export type RequestFacts = { method: string; path_template: string; ok_status: number; ip_class: IpClass };

/** What a write decides about one of its events; the envelope's other members come from the context. */
export type EventFields = Omit<EventDraft, keyof Scope>;

/**
 * The one way a service makes an event: the caller's scope and transport, the actor the body named
 * or else the transport's principal, the request's Idempotency-Key and fingerprint, and a fresh id
 * unless the caller chose one.
 */
export function pendingEvent(ctx: WriteContext, newId: (prefix: string) => string, fields: EventFields): PendingEvent {
  // Member by member, not by spreading `fields` and the scope: V8 takes a slow path for spreads
  // whose members repeat, which cost microseconds on every write.
  const event: PendingEvent = {
    event_id: fields.event_id ?? newId('evt'),
    kind: fields.kind,
    tenant_id: ctx.scope.tenant_id,
    workspace_id: ctx.scope.workspace_id,
    project_id: ctx.scope.project_id,
    actor: actingAs(ctx, fields.actor),
    payload: fields.payload,
    transport: ctx.transport,
    idempotency_key: ctx.idempotencyKey,
    request_sha256: ctx.requestSha256,
  };
  if (fields.task_id !== undefined) event.task_id = fields.task_id;
  if (fields.session_id !== undefined) event.session_id = fields.session_id;
  if (fields.occurred_at !== undefined) event.occurred_at = fields.occurred_at;
  if (fields.evidence_refs !== undefined) event.evidence_refs = fields.evidence_refs;
  return event;
}

/**
 * Who a write acts as: the actor its body names, else the transport's principal. A verified caller
 * (the hosted service's OIDC token) acts as itself: a body naming anyone else is refused, 403
 * actor_not_token_subject, so every event the hosted service records names who authenticated.
 */
export function actingAs(ctx: WriteContext, named: Actor | undefined): Actor {
  const verified = ctx.verified?.actor;
  if (verified !== undefined && named !== undefined && !(named.type === verified.type && named.id === verified.id)) {
    throw new AppError('actor_not_token_subject', `The body names actor ${JSON.stringify(named)}, but the bearer token authenticates ${verified.type} ${verified.id}; leave actor out (the token's subject acts) or send it as {"type":"${verified.type}","id":"${verified.id}"}.`);
  }
  return named ?? ctx.principal;
}

/** The context of writes the server makes on its own behalf over the operator transport (quota, forge data). */
export function operatorContext(scope: Scope): WriteContext {
  return { scope, transport: 'operator', principal: transportPrincipal('operator'), idempotencyKey: null, requestSha256: null, ifMatch: null };
}

/** If-Match named an entity-tag that is no version of ours: it matches nothing (412). */
export const NO_VERSION = -1;
/** If-Match: * matches any current version: the aggregate must exist (RFC 9110 §13.1.1), else 412. */
export const ANY_VERSION = -2;

/** The version a store expectation checks for If-Match: none for `*` on a write that needs the aggregate to exist anyway. */
export function expectedVersion(ifMatch: number | null): number | undefined {
  return ifMatch === null || ifMatch === ANY_VERSION ? undefined : ifMatch;
}
