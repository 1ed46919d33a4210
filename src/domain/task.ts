// The task projection as a pure fold over a task's events (docs/contract.md §6). The SQLite writer
// and the idempotent replay of a task route both use it, so they cannot drift apart.
import type { Task } from './contract/schema-types.gen.ts';
import type { StoredEvent } from './event.ts';

/** The projection as GET /v1/tasks/{task_id} answers it (schemas/api/task.json). */
export type { Task };

export function applyTaskEvent(task: Task | undefined, event: StoredEvent): Task | undefined {
  if (event.task_id === undefined) return task;
  if (event.kind === 'task.created') {
    if (task) return task; // the route refuses a second create; a replayed log must not reset it
    return {
      task_id: event.task_id,
      title: String(event.payload.title ?? ''),
      status: 'open',
      session_ids: event.session_id ? [event.session_id] : [],
      created_at: event.recorded_at,
      last_seq: event.seq,
    };
  }
  if (!task) return task;
  const next: Task = { ...task, last_seq: event.seq };
  if (event.session_id && !next.session_ids.includes(event.session_id)) {
    next.session_ids = [...next.session_ids, event.session_id].sort();
  }
  if (event.kind === 'task.closed') {
    next.status = 'closed';
    next.outcome = event.payload.outcome as Task['outcome'];
    next.closed_at = event.recorded_at;
  }
  return next;
}

export function foldTask(events: StoredEvent[]): Task | undefined {
  return events.reduce<Task | undefined>(applyTaskEvent, undefined);
}
