// The governed task lifecycle: create (task.created), checkpoint (task.checkpoint.written) and
// closeout (task.closed only after the closeout gates pass; a failed gate writes nothing).
import { validateTemplatePayload, type ValidationResult } from '../domain/closeout-gates.ts';
import type { EvidenceRef, StoredEvent } from '../domain/event.ts';
import { foldTask, type Task } from '../domain/task.ts';
import { AppError } from '../errors.ts';
import type { ServiceDeps } from './deps.ts';
import { taskLock } from './events-service.ts';
import { idempotentWrite } from './idempotency.ts';
import { assertTaskWritable } from './write-checks.ts';
import type { WriteContext } from './write-context.ts';

export type TaskWrite = { replayed: boolean; task: Task; event: StoredEvent };
export type CloseoutOutcome = { ok: true; write: TaskWrite } | { ok: false; validation: ValidationResult };

type Json = StoredEvent['payload'][string];

export async function createTask(deps: ServiceDeps, ctx: WriteContext, body: unknown): Promise<TaskWrite> {
  deps.registry.assert('api/task-create-request.json', body, 'task');
  const req = body as { task_id?: string; title: string; session_id: string; description?: string; labels?: string[] };
  const taskId = req.task_id ?? deps.newId('task');
  const outcome = await idempotentWrite(deps.store, deps.queries, ctx, [taskLock(ctx, taskId)], async () => {
    if (deps.queries.task(ctx.scope, taskId)) {
      throw new AppError('task_exists', `A task ${taskId} already exists in this scope; pick another task_id, or leave it out and the server makes one.`);
    }
    return deps.store.append([{
      ...ctx.scope, ...envelope(ctx), event_id: deps.newId('evt'), kind: 'task.created', task_id: taskId, session_id: req.session_id,
      payload: pick(req, ['title', 'description', 'labels']),
    }]);
  });
  return withTask(deps, ctx, outcome.replayed, outcome.events[0]!);
}

export async function writeCheckpoint(deps: ServiceDeps, ctx: WriteContext, taskId: string, body: unknown): Promise<{ replayed: boolean; event: StoredEvent }> {
  deps.registry.assert('api/checkpoint-request.json', body, 'checkpoint');
  const req = body as { session_id?: string; evidence_refs?: EvidenceRef[] } & Record<string, Json>;
  const outcome = await idempotentWrite(deps.store, deps.queries, ctx, [taskLock(ctx, taskId)], async () => {
    assertTaskWritable(deps, ctx.scope, taskId);
    return deps.store.append([{
      ...ctx.scope, ...envelope(ctx), event_id: deps.newId('evt'), kind: 'task.checkpoint.written', task_id: taskId,
      ...(req.session_id ? { session_id: req.session_id } : {}),
      ...(req.evidence_refs ? { evidence_refs: req.evidence_refs } : {}),
      payload: pick(req, ['progress', 'blockers', 'next_actions', 'context_lines']),
    }]);
  });
  return { replayed: outcome.replayed, event: outcome.events[0]! };
}

/** Existence (404) and openness (409) are checked before the gates; a failed gate is a value. */
export async function closeTask(deps: ServiceDeps, ctx: WriteContext, taskId: string, body: unknown): Promise<CloseoutOutcome> {
  const template = deps.templates.resolve('task_closeout.v1');
  if (!template) throw new Error('the closeout template is missing from fixtures/templates');
  let failed: ValidationResult | null = null;
  const outcome = await idempotentWrite(deps.store, deps.queries, ctx, [taskLock(ctx, taskId)], async () => {
    assertTaskWritable(deps, ctx.scope, taskId);
    const validation = validateTemplatePayload(template, body, { registry: deps.templates, validateSchema: deps.registry.validate });
    if (!validation.ok) {
      failed = validation;
      return [];
    }
    const req = body as { session_id?: string; evidence_refs?: EvidenceRef[] } & Record<string, Json>;
    return deps.store.append([{
      ...ctx.scope, ...envelope(ctx), event_id: deps.newId('evt'), kind: 'task.closed', task_id: taskId,
      ...(req.session_id ? { session_id: req.session_id } : {}),
      ...(req.evidence_refs ? { evidence_refs: req.evidence_refs } : {}),
      payload: pick(req, ['outcome', 'summary', 'verification', 'context_lines', 'future_agent_traps', 'blockers', 'gaps', 'next_actions']),
    }]);
  });
  if (failed) return { ok: false, validation: failed };
  return { ok: true, write: withTask(deps, ctx, outcome.replayed, outcome.events[0]!) };
}

/** The task as it stood right after `event` (so a replay answers what the original answered). */
function withTask(deps: ServiceDeps, ctx: WriteContext, replayed: boolean, event: StoredEvent): TaskWrite {
  const task = foldTask(deps.queries.taskEventsUpTo(ctx.scope, event.task_id!, event.seq));
  return { replayed, task: task!, event };
}

function envelope(ctx: WriteContext) {
  return { transport: ctx.transport, idempotency_key: ctx.idempotencyKey, request_sha256: ctx.requestSha256 };
}

function pick(source: Record<string, unknown>, keys: string[]): { [key: string]: Json } {
  const out: { [key: string]: Json } = {};
  for (const key of keys) if (source[key] !== undefined) out[key] = source[key] as Json;
  return out;
}
