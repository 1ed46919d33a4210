// The task projection as a pure fold over a task's events (docs/contract.md §6). The SQLite writer
// and the idempotent replay of a task route both use it, so they cannot drift apart.
import type { StoredEvent } from './event.ts';

export type Task = {
  task_id: string;
  title: string;
  status: 'open' | 'closed';
  outcome?: 'completed' | 'blocked' | 'deferred';
  session_ids: string[];
  created_at: string;
  closed_at?: string;
  last_seq: number;
};

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
