// The adapters' raw write (POST /v1/events): a kind with a template (evidence.attached; the
// session.bind.v1 template describes POST /v1/sessions) first passes that template's gate, the one
// POST /v1/templates/validate runs; then envelope schema, scope, kind catalogue, the kind's payload
// schema, and one durable append that expects the task (if any) open and the event id (if chosen)
// new. Only adapter kinds pass; every kind a route derives is reserved, so no gate can be bypassed
// through this door.
import { classifyKind, payloadSchemaOf, type EventDraft } from '../domain/event.ts';
import { isRecord } from '../domain/gate-context.ts';
import { AppError } from '../errors.ts';
import type { AppendResult } from '../store/event-log.ts';
import type { Expectation } from '../store/expectations.ts';
import type { ServiceDeps } from './deps.ts';
import { eventTemplateOf, gateWrite, type Gated } from './templates-service.ts';
import { assertScopeMatches, expectTask } from './write-checks.ts';
import { expectedVersion, pendingEvent, type WriteContext } from './write-context.ts';

const EVENT_REQUEST_SCHEMA = 'api/event-request.json';

export async function submitRawEvent(deps: ServiceDeps, ctx: WriteContext, body: unknown): Promise<Gated<AppendResult>> {
  const template = eventTemplateOf(deps, body);
  if (template !== undefined) {
    const validation = gateWrite(deps, template, body);
    if (!validation.ok) return { ok: false, validation };
  }
  // A template's gate that passed has checked the body against the envelope schema, and an object
  // payload against its kind's schema (closeout-gates.ts): those checks are not run twice.
  const gated = template !== undefined && template.request_schema === EVENT_REQUEST_SCHEMA;
  if (!gated) deps.registry.assert(EVENT_REQUEST_SCHEMA, body, 'event');
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
  if (payloadSchema && !(gated && isRecord(draft.payload))) deps.registry.assert(payloadSchema, draft.payload, `${draft.kind} payload`);
  if (ctx.ifMatch !== null && !draft.task_id) {
    throw new AppError('invalid_if_match', 'If-Match names the version of the task an event is written to, and this event has no task_id; leave If-Match out or send the event to a task.', { details: [{ pointer: '/headers/If-Match', detail: 'no task_id to match' }] });
  }
  const expect: Expectation[] = [];
  if (draft.task_id) expect.push(expectTask(ctx.scope, draft.task_id, 'open', expectedVersion(ctx.ifMatch)));
  if (draft.event_id) {
    const eventId = draft.event_id;
    expect.push({ type: 'event_id_unused', eventId, orElse: () => new AppError('event_id_exists', `An event with id ${eventId} is already recorded; send a new event_id, or leave it out and the server makes one.`) });
  }
  // The scope members are the context's (assertScopeMatches made sure they agree).
  const write = await deps.store.append([pendingEvent(ctx, deps.newId, draft)], expect);
  return { ok: true, write };
}
