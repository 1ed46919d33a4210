// The governed task lifecycle: create (task.created), checkpoint (task.checkpoint.written) and
// closeout (task.closed), and the scope's task list. Each body first passes its template's gate,
// the one POST /v1/templates/validate runs; a failed gate writes nothing. Whether the task exists
// and is open is stated as an expectation the log checks when it seals the event, so a closeout
// racing other writes to the task can never be followed by one of them.
import type { CheckpointRequest, CloseoutRequest } from '../domain/contract/schema-types.gen.ts';
import type { Scope, StoredEvent } from '../domain/event.ts';
import { foldTask, type Task } from '../domain/task.ts';
import { AppError } from '../errors.ts';
import type { AppendResult } from '../store/event-log.ts';
import type { ServiceDeps } from './deps.ts';
import { committedReplay } from './idempotency.ts';
import { gateRouteBody, type Gated } from './templates-service.ts';
import { assertTaskWritable, expectTask, preconditionFailed } from './write-checks.ts';
import { expectedVersion, pendingEvent, type WriteContext } from './write-context.ts';
import { settledAfterWrite } from './answer-after-write.ts';

/** `line` is the event's stored canonical text, which the route answers with. */
export type TaskWrite = { replayed: boolean; task: Task; event: StoredEvent; line: string };
export type EventWrite = { replayed: boolean; event: StoredEvent; line: string };

type Json = StoredEvent['payload'][string];

/**
 * The task.create.v1 gate (title TBD, a `<…>` token, an unknown member → refused) before the append.
 * `conditional`: the request sent If-Match (a version, or `*`), which only an existing task can
 * meet (RFC 9110 §13.1.1): a create under it is 412, or 409 task_exists when the task is there at
 * the version named.
 */
export async function createTask(deps: ServiceDeps, ctx: WriteContext, body: unknown, conditional = false): Promise<Gated<TaskWrite>> {
  const gate = gateRouteBody(deps, 'task.create.v1', 'api/task-create-request.json', body);
  if (!gate.ok) return { ok: false, validation: gate.validation };
  const req = gate.body;
  if (conditional) await checkCreateCondition(deps, ctx, req.task_id);
  const taskId = req.task_id ?? deps.newId('task');
  const result = await deps.store.append([pendingEvent(ctx, deps.newId, {
    kind: 'task.created', task_id: taskId, ...(req.actor ? { actor: req.actor } : {}), session_id: req.session_id,
    payload: pick(req, ['title', 'description', 'labels']),
  })], [expectTask(ctx.scope, taskId, 'absent')]);
  // A new task is its task.created alone: the answer folds that event, and never waits on the index
  // (a 503 after a durable create would invite a retry that, without a task_id, creates it twice).
  const written = result.events[0]!;
  return { ok: true, write: { replayed: result.replayed, task: foldTask([written])!, event: written, line: result.lines[0]! } };
}

/**
 * The checkpoint.write.v1 gate (progress TODO → refused), then the append. The gate is pure, so a
 * checkpoint still reads nothing from the index: the log's gate checks the task when it seals it.
 */
export async function writeCheckpoint(deps: ServiceDeps, ctx: WriteContext, taskId: string, body: unknown): Promise<Gated<EventWrite>> {
  const gate = gateRouteBody(deps, 'checkpoint.write.v1', 'api/checkpoint-request.json', body);
  if (!gate.ok) return { ok: false, validation: gate.validation };
  const result = await appendToOpenTask(deps, ctx, taskId, 'task.checkpoint.written', gate.body, ['progress', 'blockers', 'next_actions', 'context_lines']);
  return { ok: true, write: { replayed: result.replayed, event: result.events[0]!, line: result.lines[0]! } };
}

/** If-Match on a create: 412 unless the task exists at the version it names (then the append's 409). */
async function checkCreateCondition(deps: ServiceDeps, ctx: WriteContext, taskId: string | undefined): Promise<void> {
  await deps.store.settled();
  const current = taskId === undefined ? undefined : deps.queries.task(ctx.scope, taskId);
  if (current === undefined) {
    const which = taskId === undefined ? 'a task the server has not made yet' : `task ${taskId}, which does not exist`;
    throw new AppError('precondition_failed', `If-Match names a version of ${which}: a create has no current version to match. Leave If-Match out to create a task. Nothing was written.`, { extra: { current_version: 0 } });
  }
  const named = expectedVersion(ctx.ifMatch);
  if (named !== undefined && named !== current.last_seq) throw preconditionFailed(`Task ${current.task_id}`, named, current.last_seq);
}

/**
 * A replay of a committed closeout answers first. Then existence (404) and openness (409) are
 * checked before the gates, so a caller learns the task is gone before repairing a body; the log
 * checks both again when it seals task.closed. A failed gate is a value, not an error.
 */
export async function closeTask(deps: ServiceDeps, ctx: WriteContext, taskId: string, body: unknown): Promise<Gated<TaskWrite>> {
  await deps.store.settled();
  const replay = committedReplay(deps, ctx);
  if (replay) return { ok: true, write: await withTask(deps, ctx, replay) };
  assertTaskWritable(deps, ctx.scope, taskId);
  const gate = gateRouteBody(deps, 'task_closeout.v1', 'api/closeout-request.json', body);
  if (!gate.ok) return { ok: false, validation: gate.validation };
  const result = await appendToOpenTask(deps, ctx, taskId, 'task.closed', gate.body, ['outcome', 'summary', 'verification', 'context_lines', 'future_agent_traps', 'blockers', 'gaps', 'next_actions']);
  return { ok: true, write: await withTask(deps, ctx, result) };
}

/**
 * Appends one event of a gated body to a task that must still be open when the log seals it (and
 * at the caller's If-Match version): the envelope members the body names, `payloadKeys` as payload.
 */
function appendToOpenTask(deps: ServiceDeps, ctx: WriteContext, taskId: string, kind: string, req: CheckpointRequest | CloseoutRequest, payloadKeys: string[]): Promise<AppendResult> {
  return deps.store.append([pendingEvent(ctx, deps.newId, {
    kind, task_id: taskId, ...(req.actor ? { actor: req.actor } : {}),
    ...(req.session_id ? { session_id: req.session_id } : {}),
    ...(req.evidence_refs ? { evidence_refs: req.evidence_refs } : {}),
    payload: pick(req, payloadKeys),
  })], [expectTask(ctx.scope, taskId, 'open', expectedVersion(ctx.ifMatch))]);
}

/** The task as it stood right after the event (so a replay answers what the original answered). */
async function withTask(deps: ServiceDeps, ctx: WriteContext, result: AppendResult): Promise<TaskWrite> {
  await settledAfterWrite(deps, result);
  const written = result.events[0]!;
  const task = foldTask(deps.queries.taskEventsUpTo(ctx.scope, written.task_id!, written.seq));
  return { replayed: result.replayed, task: task!, event: written, line: result.lines[0]! };
}

/** The payload: the listed members the body has. */
function pick(source: { [key: string]: Json | undefined }, keys: string[]): { [key: string]: Json } {
  const out: { [key: string]: Json } = {};
  for (const key of keys) {
    const value = source[key];
    if (value !== undefined) out[key] = value;
  }
  return out;
}

/** `GET /v1/tasks`: one page of the scope's tasks, newest created first. */
export type TaskListQuery = { status?: 'open' | 'closed'; limit: number; cursor?: string };

/**
 * The scope's task projections, newest created first, `limit` to a page. The cursor is the last
 * task of the previous page (its task_id): the page goes on with the tasks created before it, so
 * tasks created meanwhile never shift a page. A cursor naming no task of the scope is a 400.
 */
export function listTasks(deps: ServiceDeps, scope: Scope, q: TaskListQuery): { tasks: Task[]; next_cursor: string | null } {
  let beforeSeq = Number.MAX_SAFE_INTEGER;
  if (q.cursor !== undefined) {
    const seq = deps.queries.taskCreatedSeq(scope, q.cursor);
    if (seq === undefined) throw new AppError('invalid_query', 'cursor must be a next_cursor value from a previous page of this list.', { details: [{ pointer: '/query/cursor', detail: 'no task of this scope has this id' }] });
    beforeSeq = seq;
  }
  // One row more than asked tells whether another page exists.
  const rows = deps.queries.tasks(scope, { beforeSeq, status: q.status ?? null, limit: q.limit + 1 });
  const page = rows.slice(0, q.limit).map((r) => r.task);
  return { tasks: page, next_cursor: rows.length > q.limit ? page[page.length - 1]!.task_id : null };
}
