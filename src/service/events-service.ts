// The adapters' raw write (POST /v1/events): envelope schema, scope, kind catalogue, the kind's
// payload schema, then one durable append that expects the task (if any) open and the event id (if
// chosen) new. Only adapter kinds pass; every kind a route derives is reserved, so no gate can be
// bypassed through this door.
import { classifyKind, type EventDraft } from '../domain/event.ts';
import { AppError } from '../errors.ts';
import type { AppendResult } from '../store/event-log.ts';
import type { Expectation } from '../store/expectations.ts';
import type { ServiceDeps } from './deps.ts';
import { assertScopeMatches, expectTask, payloadSchemaOf } from './write-checks.ts';
import type { WriteContext } from './write-context.ts';

export async function submitRawEvent(deps: ServiceDeps, ctx: WriteContext, body: unknown): Promise<AppendResult> {
  deps.registry.assert('api/event-request.json', body, 'event');
  const draft = body as EventDraft;
  assertScopeMatches(ctx.scope, draft);
  const kindClass = classifyKind(draft.kind);
  if (kindClass === 'reserved') {
    throw new AppError('reserved_event_kind', `Events of kind ${draft.kind} are derived by their own route and cannot be written raw; use that route (for example POST /v1/tasks/{task_id}/closeout for task.closed).`, { details: [{ pointer: '/kind', detail: 'reserved kind' }] });
  }
  if (kindClass === 'unknown') {
    throw new AppError('unknown_event_kind', `Unknown event kind ${draft.kind}: raw writes accept evidence.attached, session.bound and ext.<vendor>.<name>.`, { details: [{ pointer: '/kind', detail: 'unknown kind' }] });
  }
  const payloadSchema = payloadSchemaOf(draft.kind);
  if (payloadSchema) deps.registry.assert(payloadSchema, draft.payload, `${draft.kind} payload`);
  if (draft.kind === 'evidence.attached' && !(draft.evidence_refs && draft.evidence_refs.length > 0)) {
    throw new AppError('validation_failed', 'An evidence.attached event carries its evidence in evidence_refs: send at least one evidence_ref.', { details: [{ pointer: '/evidence_refs', detail: 'at least one evidence_ref is required' }] });
  }
  if (draft.kind === 'session.bound' && draft.session_id === undefined) {
    throw new AppError('validation_failed', 'A session.bound event names the session it binds: send session_id.', { details: [{ pointer: '/session_id', detail: 'required for session.bound' }] });
  }
  if (ctx.ifMatch !== null && !draft.task_id) {
    throw new AppError('invalid_if_match', 'If-Match names the version of the task an event is written to, and this event has no task_id; leave If-Match out or send the event to a task.', { details: [{ pointer: '/headers/If-Match', detail: 'no task_id to match' }] });
  }
  const expect: Expectation[] = [];
  if (draft.task_id) expect.push(expectTask(ctx.scope, draft.task_id, 'open', ctx.ifMatch ?? undefined));
  if (draft.event_id) {
    const eventId = draft.event_id;
    expect.push({ type: 'event_id_unused', eventId, orElse: () => new AppError('event_id_exists', `An event with id ${eventId} is already recorded; send a new event_id, or leave it out and the server makes one.`) });
  }
  return deps.store.append([{
    ...draft,
    event_id: draft.event_id ?? deps.newId('evt'),
    transport: ctx.transport,
    idempotency_key: ctx.idempotencyKey,
    request_sha256: ctx.requestSha256,
  }], expect);
}
