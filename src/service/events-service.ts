// The adapters' raw write (POST /v1/events): envelope schema, scope, kind catalogue, the kind's
// payload schema, task state, then one durable append. Only adapter kinds pass; every kind a route
// derives is reserved, so no gate can be bypassed through this door.
import { classifyKind, type EventDraft, type StoredEvent } from '../domain/event.ts';
import { AppError } from '../errors.ts';
import type { ServiceDeps } from './deps.ts';
import { idempotentWrite, type WriteOutcome } from './idempotency.ts';
import { assertScopeMatches, assertTaskWritable, payloadSchemaOf } from './write-checks.ts';
import type { WriteContext } from './write-context.ts';

export async function submitRawEvent(deps: ServiceDeps, ctx: WriteContext, body: unknown): Promise<WriteOutcome> {
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
  const locks = draft.task_id ? [taskLock(ctx, draft.task_id)] : [];
  if (draft.event_id) locks.push(`event:${draft.event_id}`);
  return idempotentWrite(deps.store, deps.queries, ctx, locks, async (): Promise<StoredEvent[]> => {
    if (draft.task_id) assertTaskWritable(deps, ctx.scope, draft.task_id);
    if (draft.event_id && deps.queries.eventById(draft.event_id)) {
      throw new AppError('event_id_exists', `An event with id ${draft.event_id} is already recorded; send a new event_id, or leave it out and the server makes one.`);
    }
    return deps.store.append([{
      ...draft,
      event_id: draft.event_id ?? deps.newId('evt'),
      transport: ctx.transport,
      idempotency_key: ctx.idempotencyKey,
      request_sha256: ctx.requestSha256,
    }]);
  });
}

export function taskLock(ctx: WriteContext, taskId: string): string {
  return `task:${ctx.scope.tenant_id}/${ctx.scope.workspace_id}/${ctx.scope.project_id}/${taskId}`;
}
