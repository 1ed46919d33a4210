// Checks shared by the write services: the body's own scope against the headers, a task's
// existence and openness in the caller's scope (read now, or stated as an expectation that the
// log checks when it seals the write).
import type { Scope } from '../domain/event.ts';
import { taskStream } from '../domain/streams.ts';
import type { Task } from '../domain/task.ts';
import { AppError } from '../errors.ts';
import type { Expectation, StreamFailure } from '../store/expectations.ts';
import type { ServiceDeps } from './deps.ts';
import { ANY_VERSION, NO_VERSION } from './write-context.ts';

export function assertScopeMatches(scope: Scope, body: Partial<Scope>): void {
  for (const key of ['tenant_id', 'workspace_id', 'project_id'] as const) {
    if (body[key] !== undefined && body[key] !== scope[key]) {
      throw new AppError('scope_mismatch', `The body's ${key} differs from the scope headers; send the same tenant, workspace and project in both.`, { details: [{ pointer: `/${key}`, detail: 'differs from the scope headers' }] });
    }
  }
}

export function findTask(deps: ServiceDeps, scope: Scope, taskId: string): Task {
  const task = deps.queries.task(scope, taskId);
  if (!task) throw taskNotFound(taskId);
  return task;
}

export function assertTaskWritable(deps: ServiceDeps, scope: Scope, taskId: string): Task {
  const task = findTask(deps, scope, taskId);
  if (task.status === 'closed') throw taskClosed(taskId);
  return task;
}

/**
 * The task's stream must be `state` when the write is sealed: `absent` for a create, `open` for
 * anything written to a task. `version` is the caller's If-Match (412 when the task moved on).
 */
export function expectTask(scope: Scope, taskId: string, state: 'absent' | 'open', version?: number): Expectation {
  return {
    type: 'stream',
    stream: taskStream(scope, taskId),
    state,
    ...(version === undefined ? {} : { version }),
    orElse: (failure: StreamFailure) => {
      if (failure.reason === 'exists') return new AppError('task_exists', `A task ${taskId} already exists in this scope; pick another task_id, or leave it out and the server makes one.`);
      if (failure.reason === 'missing') return taskNotFound(taskId);
      if (failure.reason === 'closed') return taskClosed(taskId);
      return preconditionFailed(`Task ${taskId}`, version!, failure.actual?.version ?? 0);
    },
  };
}

export function preconditionFailed(what: string, expected: number, actual: number): AppError {
  if (expected === ANY_VERSION) {
    return new AppError('precondition_failed', `${what} does not exist yet, and If-Match: * asks for any current version of it; leave If-Match out to create it. Nothing was written.`, { extra: { current_version: actual } });
  }
  const named = expected === NO_VERSION ? 'which If-Match does not name (an ETag that is none of its versions)' : `not ${expected} as If-Match says`;
  return new AppError('precondition_failed', `${what} is at version ${actual}, ${named}; read it again (its ETag is the current version) and decide again. Nothing was written.`, { extra: { current_version: actual } });
}

function taskNotFound(taskId: string): AppError {
  return new AppError('task_not_found', `No task ${taskId} exists in this tenant, workspace and project; create it with POST /v1/tasks first.`);
}

function taskClosed(taskId: string): AppError {
  return new AppError('task_closed', `Task ${taskId} is closed; nothing more can be written to it. Create a follow-up task instead.`);
}
