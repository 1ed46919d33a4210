// Streams: every aggregate a route guards (a task today; assets, approvals, reviews, incidents and
// posture items next) is a stream of events with a version, the seq of its last event. A write that
// depends on an aggregate's state states that dependency as an expectation the log checks when it
// seals the unit (docs/write-path.md); this module says which stream an event belongs to.
import type { Scope } from './event.ts';
import { QUOTA_SCOPE } from './quota/quota-events.ts';

/** What the log knows about a stream: its version (last seq) and whether a terminal event closed it. */
export type StreamState = { version: number; closed: boolean };

/** The forge quota state is one instance-wide stream: a quota write is decided against all of it. */
export const QUOTA_STREAM = 'quota';

export function taskStream(scope: Scope, taskId: string): string {
  // ids cannot contain '/', so the name is unambiguous.
  return `task:${scope.tenant_id}/${scope.workspace_id}/${scope.project_id}/${taskId}`;
}

type StreamMember = Scope & { kind: string; task_id?: string };

/** The stream an event extends, or null for events no route guards (notes, access logs, packets). */
export function streamOf(event: StreamMember): string | null {
  if (event.task_id !== undefined) return taskStream(event, event.task_id);
  if (event.tenant_id === QUOTA_SCOPE.tenant_id && event.workspace_id === QUOTA_SCOPE.workspace_id && event.project_id === QUOTA_SCOPE.project_id) {
    return QUOTA_STREAM;
  }
  return null;
}

/** Terminal events: nothing more may be appended to their stream (a closed task takes no writes). */
export function closesStream(event: StreamMember): boolean {
  return event.kind === 'task.closed';
}

/** The state of `stream` after `event` (which belongs to it). */
export function nextStreamState(before: StreamState | undefined, event: StreamMember & { seq: number }): StreamState {
  return { version: event.seq, closed: (before?.closed ?? false) || closesStream(event) };
}
