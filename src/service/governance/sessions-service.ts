// Sessions (docs/governance/sessions.md): POST /v1/sessions, the derived door
// for session.bound (the host stored only as a per-tenant salted hash, an IP only as its class), and
// GET /v1/sessions/{session_id}/provenance, folded from the binding and the envelopes of the
// session's events, access-logged (viewed; a session outside the scope is a 404 logged as denied).
// The rules are pure (src/domain/governance/provenance.ts); the raw adapter write of session.bound
// stays in events-service.ts and keeps its payload as sent.
import type { Actor } from '../../domain/event.ts';
import { bindPayload, containsIp, provenanceView, SESSION_BOUND, tenantHostKey, type SessionBindBody } from '../../domain/governance/provenance.ts';
import { AppError } from '../../errors.ts';
import type { PendingEvent } from '../../store/event-log.ts';
import { sessionEvents } from '../../store/session-queries.ts';
import type { ServiceDeps } from '../deps.ts';
import { actingAs, pendingEvent, type WriteContext } from '../write-context.ts';
import { binding, decideAndAppend, type Decision } from './decide.ts';
import { accessEvent, notInScope } from './refusals.ts';

type Json = PendingEvent['payload'][string];

const resourceOf = (sessionId: string) => ({ type: 'session', id: sessionId });

/** `POST /v1/sessions`: appends session.bound (and its access-log entry) for the scope's session. */
export async function bindSession(deps: ServiceDeps, ctx: WriteContext, body: SessionBindBody) {
  const actor: Actor = actingAs(ctx, body.actor);
  const key = tenantHostKey(deps.keys.hmac.secret, ctx.scope.tenant_id);
  const result = await decideAndAppend(deps, ctx, async (): Promise<Decision> => {
    const checked = bindPayload(body, key);
    if (!checked.ok) {
      // Nothing of the request is logged but the refusal: the member that held an IP is not echoed.
      await deps.store.append([accessEvent(deps, ctx, actor, { action: 'attempted', outcome: 'denied', resource: resourceOf(containsIp(body.session_id) ? 'refused-session-id' : body.session_id), reason_code: 'validation_failed', reason: `A raw IP address in ${checked.pointer}` })]);
      throw new AppError('validation_failed', `${checked.pointer} holds an IP address: POST /v1/sessions stores no raw IP. Send the address as ip (it is classified and dropped) or its class as ip_class, and leave it out of the other members.`, { details: [{ pointer: checked.pointer, detail: 'raw IP address' }] });
    }
    deps.registry.assert('events/session-bound.json', checked.payload, 'session.bound payload');
    return {
      events: [
        pendingEvent(ctx, deps.newId, { kind: SESSION_BOUND, session_id: body.session_id, actor, payload: checked.payload as unknown as { [key: string]: Json } }),
        accessEvent(deps, ctx, actor, { action: 'created', outcome: 'allowed', resource: resourceOf(body.session_id) }),
      ],
      read: [],
    };
  });
  const event = result.events[0]!;
  return { session: { session_id: event.session_id!, ...(event.payload as Record<string, unknown>) }, event: binding(result), replayed: result.replayed };
}

/** `GET /v1/sessions/{session_id}/provenance`. */
export async function sessionProvenance(deps: ServiceDeps, ctx: WriteContext, sessionId: string) {
  const resource = resourceOf(sessionId);
  if (!deps.queries.sessionExists(ctx.scope, sessionId)) return notInScope(deps, ctx, ctx.principal, resource, 'session');
  const events = sessionEvents(deps.store.index.db, ctx.scope, sessionId, deps.store.indexedSeq());
  const view = provenanceView(sessionId, events, tenantHostKey(deps.keys.hmac.secret, ctx.scope.tenant_id), deps.identities);
  await deps.store.append([accessEvent(deps, ctx, ctx.principal, { action: 'viewed', outcome: 'allowed', resource })]);
  return view;
}
