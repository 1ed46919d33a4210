// The governed task lifecycle: create (task.created), checkpoint (task.checkpoint.written) and
// closeout (task.closed only after the closeout gates pass; a failed gate writes nothing). Whether
// the task exists and is open is stated as an expectation the log checks when it seals the event,
// so a closeout racing other writes to the task can never be followed by one of them.
import { validateTemplatePayload, type ValidationResult } from '../domain/closeout-gates.ts';
import type { EvidenceRef, StoredEvent } from '../domain/event.ts';
import { foldTask, type Task } from '../domain/task.ts';
import type { AppendResult, PendingEvent } from '../store/event-log.ts';
import type { ServiceDeps } from './deps.ts';
import { committedReplay } from './idempotency.ts';
import { assertTaskWritable, expectTask } from './write-checks.ts';
import type { WriteContext } from './write-context.ts';

/** `line` is the event's stored canonical text, which the route answers with. */
export type TaskWrite = { replayed: boolean; task: Task; event: StoredEvent; line: string };
export type EventWrite = { replayed: boolean; event: StoredEvent; line: string };
export type CloseoutOutcome = { ok: true; write: TaskWrite } | { ok: false; validation: ValidationResult };

type Json = StoredEvent['payload'][string];

export async function createTask(deps: ServiceDeps, ctx: WriteContext, body: unknown): Promise<TaskWrite> {
  deps.registry.assert('api/task-create-request.json', body, 'task');
  const req = body as { task_id?: string; title: string; session_id: string; description?: string; labels?: string[] };
  const taskId = req.task_id ?? deps.newId('task');
  const result = await deps.store.append([{
    ...event(deps, ctx, 'task.created', taskId), session_id: req.session_id,
    payload: pick(req, ['title', 'description', 'labels']),
  }], [expectTask(ctx.scope, taskId, 'absent')]);
  return withTask(deps, ctx, result);
}

export async function writeCheckpoint(deps: ServiceDeps, ctx: WriteContext, taskId: string, body: unknown): Promise<EventWrite> {
  deps.registry.assert('api/checkpoint-request.json', body, 'checkpoint');
  const req = body as { session_id?: string; evidence_refs?: EvidenceRef[] } & Record<string, Json>;
  const result = await deps.store.append([{
    ...event(deps, ctx, 'task.checkpoint.written', taskId),
    ...(req.session_id ? { session_id: req.session_id } : {}),
    ...(req.evidence_refs ? { evidence_refs: req.evidence_refs } : {}),
    payload: pick(req, ['progress', 'blockers', 'next_actions', 'context_lines']),
  }], [expectTask(ctx.scope, taskId, 'open', ctx.ifMatch ?? undefined)]);
  return { replayed: result.replayed, event: result.events[0]!, line: result.lines[0]! };
}

/**
 * A replay of a committed closeout answers first. Then existence (404) and openness (409) are
 * checked before the gates, so a caller learns the task is gone before repairing a body; the log
 * checks both again when it seals task.closed. A failed gate is a value, not an error.
 */
export async function closeTask(deps: ServiceDeps, ctx: WriteContext, taskId: string, body: unknown): Promise<CloseoutOutcome> {
  const template = deps.templates.resolve('task_closeout.v1');
  if (!template) throw new Error('the closeout template is missing from fixtures/templates');
  await deps.store.settled();
  const replay = committedReplay(deps, ctx);
  if (replay) return { ok: true, write: await withTask(deps, ctx, replay) };
  assertTaskWritable(deps, ctx.scope, taskId);
  const validation = validateTemplatePayload(template, body, { registry: deps.templates, validateSchema: deps.registry.validate });
  if (!validation.ok) return { ok: false, validation };
  const req = body as { session_id?: string; evidence_refs?: EvidenceRef[] } & Record<string, Json>;
  const result = await deps.store.append([{
    ...event(deps, ctx, 'task.closed', taskId),
    ...(req.session_id ? { session_id: req.session_id } : {}),
    ...(req.evidence_refs ? { evidence_refs: req.evidence_refs } : {}),
    payload: pick(req, ['outcome', 'summary', 'verification', 'context_lines', 'future_agent_traps', 'blockers', 'gaps', 'next_actions']),
  }], [expectTask(ctx.scope, taskId, 'open', ctx.ifMatch ?? undefined)]);
  return { ok: true, write: await withTask(deps, ctx, result) };
}

/** The task as it stood right after the event (so a replay answers what the original answered). */
async function withTask(deps: ServiceDeps, ctx: WriteContext, result: AppendResult): Promise<TaskWrite> {
  await deps.store.settled();
  const written = result.events[0]!;
  const task = foldTask(deps.queries.taskEventsUpTo(ctx.scope, written.task_id!, written.seq));
  return { replayed: result.replayed, task: task!, event: written, line: result.lines[0]! };
}

function event(deps: ServiceDeps, ctx: WriteContext, kind: string, taskId: string): Omit<PendingEvent, 'payload'> {
  return {
    ...ctx.scope, kind, task_id: taskId, event_id: deps.newId('evt'),
    transport: ctx.transport, idempotency_key: ctx.idempotencyKey, request_sha256: ctx.requestSha256,
  };
}

function pick(source: Record<string, unknown>, keys: string[]): { [key: string]: Json } {
  const out: { [key: string]: Json } = {};
  for (const key of keys) if (source[key] !== undefined) out[key] = source[key] as Json;
  return out;
}
