// Sessions (docs/governance/sessions.md): POST /v1/sessions, the derived door
// for session.bound (the host stored only as a per-tenant salted hash, an IP only as its class), and
// GET /v1/sessions/{session_id}/provenance, folded from the binding and the envelopes of the
// session's events, access-logged (viewed; a session outside the scope is a 404 logged as denied).
// The rules are pure (src/domain/governance/provenance.ts); the raw adapter write of session.bound
// stays in events-service.ts and keeps its payload as sent.
import type { Actor } from '../../domain/event.ts';
import { bindPayload, containsIp, provenanceView, rawIpMember, SESSION_BOUND, tenantHostKey, type SessionBindBody } from '../../domain/governance/provenance.ts';
import type { ValidationResult } from '../../domain/closeout-gates.ts';
import type { PendingEvent } from '../../store/event-log.ts';
import { sessionEvents } from '../../store/session-queries.ts';
import type { ServiceDeps } from '../deps.ts';
import { gateRouteBody, type Gated } from '../templates-service.ts';
import { actingAs, pendingEvent, type WriteContext } from '../write-context.ts';
import { binding, decideAndAppend, type Decision } from './decide.ts';
import { accessEvent, notInScope } from './refusals.ts';

/** The template whose gate a bind passes (fixtures/templates/session.bind.v1.json). */
const SESSION_BIND_TEMPLATE = 'session.bind.v1';

type Json = PendingEvent['payload'][string];

const resourceOf = (sessionId: string) => ({ type: 'session', id: sessionId });

/**
 * The session a refusal's access entry names: its id, or `refused-session-id` for one that is not a
 * valid id or holds an IP address (DOMAIN §7.2: no raw IP goes into the log).
 */
const refusedResource = (sessionId: unknown) => resourceOf(typeof sessionId === 'string' && !containsIp(sessionId) ? sessionId : 'refused-session-id');

/**
 * `POST /v1/sessions`: appends session.bound (and its access-log entry) for the scope's session,
 * once the body passes the session.bind.v1 gate (its schema, placeholder text, and no raw IP outside
 * `ip`); a gate that refuses answers its validation body, as POST /v1/templates/validate does.
 */
export async function bindSession(deps: ServiceDeps, ctx: WriteContext, raw: unknown): Promise<Gated<SessionWrite>> {
  const gate = gateRouteBody(deps, SESSION_BIND_TEMPLATE, 'api/session-bind-request.json', raw);
  if (!gate.ok) {
    const ipAt = rawIpMember(raw);
    if (ipAt !== null) await logRawIpRefusal(deps, ctx, raw, gate.validation, ipAt);
    return gate;
  }
  const body = gate.body as SessionBindBody;
  const actor: Actor = actingAs(ctx, body.actor);
  const key = tenantHostKey(deps.keys.hmac.secret, ctx.scope.tenant_id);
  const result = await decideAndAppend(deps, ctx, async (): Promise<Decision> => {
    const payload = bindPayload(body, key);
    deps.registry.assert('events/session-bound.json', payload, 'session.bound payload');
    return {
      events: [
        pendingEvent(ctx, deps.newId, { kind: SESSION_BOUND, session_id: body.session_id, actor, payload: payload as unknown as { [key: string]: Json } }),
        accessEvent(deps, ctx, actor, { action: 'created', outcome: 'allowed', resource: resourceOf(body.session_id) }),
      ],
      read: [],
    };
  });
  const event = result.events[0]!;
  return { ok: true, write: { session: { session_id: event.session_id!, ...(event.payload as Record<string, unknown>) }, event: binding(result), replayed: result.replayed } };
}

type SessionWrite = { session: Record<string, unknown>; event: ReturnType<typeof binding>; replayed: boolean };

/**
 * A bind refused for a raw IP address is logged as denied, without the request's values: the
 * session's id and the actor only where the gate found nothing wrong with them.
 */
async function logRawIpRefusal(deps: ServiceDeps, ctx: WriteContext, raw: unknown, validation: ValidationResult, pointer: string): Promise<void> {
  const body = raw as { session_id?: unknown; actor?: Actor };
  const refused = (at: string) => validation.blockers.some((b) => b.pointer === at || b.pointer.startsWith(`${at}/`));
  const actor = actingAs(ctx, refused('/actor') ? undefined : body.actor);
  const sessionId = refused('/session_id') ? undefined : body.session_id;
  await deps.store.append([accessEvent(deps, ctx, actor, { action: 'attempted', outcome: 'denied', resource: refusedResource(sessionId), reason_code: 'validation_failed', reason: `A raw IP address in ${pointer}` })]);
}

/** `GET /v1/sessions/{session_id}/provenance`. */
export async function sessionProvenance(deps: ServiceDeps, ctx: WriteContext, sessionId: string) {
  const resource = resourceOf(sessionId);
  if (!deps.queries.sessionExists(ctx.scope, sessionId)) return notInScope(deps, ctx, ctx.principal, refusedResource(sessionId), 'session');
  const events = sessionEvents(deps.store.index.db, ctx.scope, sessionId, deps.store.indexedSeq());
  const view = provenanceView(sessionId, events, tenantHostKey(deps.keys.hmac.secret, ctx.scope.tenant_id), deps.identities);
  await deps.store.append([accessEvent(deps, ctx, ctx.principal, { action: 'viewed', outcome: 'allowed', resource })]);
  return view;
}
