// Checks shared by the write services: the body's own scope against the headers, a task's
// existence and openness in the caller's scope, and where each kind's payload schema lives.
import type { Scope } from '../domain/event.ts';
import type { Task } from '../domain/task.ts';
import { AppError } from '../errors.ts';
import type { ServiceDeps } from './deps.ts';

export function assertScopeMatches(scope: Scope, body: Partial<Scope>): void {
  for (const key of ['tenant_id', 'workspace_id', 'project_id'] as const) {
    if (body[key] !== undefined && body[key] !== scope[key]) {
      throw new AppError('scope_mismatch', `The body's ${key} differs from the scope headers; send the same tenant, workspace and project in both.`, { details: [{ pointer: `/${key}`, detail: 'differs from the scope headers' }] });
    }
  }
}

export function findTask(deps: ServiceDeps, scope: Scope, taskId: string): Task {
  const task = deps.queries.task(scope, taskId);
  if (!task) {
    throw new AppError('task_not_found', `No task ${taskId} exists in this tenant, workspace and project; create it with POST /v1/tasks first.`);
  }
  return task;
}

export function assertTaskWritable(deps: ServiceDeps, scope: Scope, taskId: string): Task {
  const task = findTask(deps, scope, taskId);
  if (task.status === 'closed') {
    throw new AppError('task_closed', `Task ${taskId} is closed (${task.outcome}); nothing more can be written to it. Create a follow-up task instead.`);
  }
  return task;
}

/** schemas/events/<kind with dots as dashes>.json; extension kinds take any object. */
export function payloadSchemaOf(kind: string): string | null {
  if (kind.startsWith('ext.')) return null;
  return `events/${kind.replace(/[._]/g, '-')}.json`;
}
