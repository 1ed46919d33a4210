// Streams: every aggregate a route guards (tasks, assets, approvals, the team; incidents and
// posture items next) is a stream of events with a version, the seq of its last event. A write that
// depends on an aggregate's state states that dependency as an expectation the log checks when it
// seals the unit (docs/write-path.md); this module says which stream an event belongs to.
import { sameScope, type Scope } from './event.ts';
import { QUOTA_SCOPE } from './quota/quota-events.ts';

/** What the log knows about a stream: its version (last seq) and whether a terminal event closed it. */
export type StreamState = { version: number; closed: boolean };

/** The forge quota state is one instance-wide stream: a quota write is decided against all of it. */
export const QUOTA_STREAM = 'quota';

/** Every stream's name starts with its kind: `task:`, `asset:`, … */
const TASK_PREFIX = 'task:';

export function taskStream(scope: Scope, taskId: string): string {
  // ids cannot contain '/', so the name is unambiguous.
  return `${TASK_PREFIX}${scope.tenant_id}/${scope.workspace_id}/${scope.project_id}/${taskId}`;
}

/** A governed AI asset (docs/governance/approvals.md): its revisions, evaluations and reviews. */
export function assetStream(scope: Scope, assetId: string): string {
  return `asset:${scope.tenant_id}/${scope.workspace_id}/${scope.project_id}/${assetId}`;
}

/** One approval request and its decisions. */
export function approvalStream(scope: Scope, approvalId: string): string {
  return `approval:${scope.tenant_id}/${scope.workspace_id}/${scope.project_id}/${approvalId}`;
}

/** One vendor's assessments. */
export function vendorStream(scope: Scope, vendorId: string): string {
  return `vendor:${scope.tenant_id}/${scope.workspace_id}/${scope.project_id}/${vendorId}`;
}

/**
 * One regulatory posture item (docs/governance/regulatory.md §3): the scope's own item of a
 * requirement, or one asset's (ids hold no '/', so the two forms cannot collide).
 */
export function postureStream(scope: Scope, requirementId: string, assetId?: string | null): string {
  return `posture:${scope.tenant_id}/${scope.workspace_id}/${scope.project_id}/${assetId == null ? '' : `${assetId}/`}${requirementId}`;
}

/** One incident: its logging and its updates (docs/governance/incidents.md). */
export function incidentStream(scope: Scope, incidentId: string): string {
  return `incident:${scope.tenant_id}/${scope.workspace_id}/${scope.project_id}/${incidentId}`;
}

/** The team is the tenant's: its members, roles and invites, whichever workspace wrote them. */
export function teamStream(tenantId: string): string {
  return `team:${tenantId}`;
}

type StreamMember = Scope & { kind: string; task_id?: string; payload?: Readonly<Record<string, unknown>> };

const ASSET_KINDS = new Set(['governance.asset.registered', 'risk.evaluated', 'review.completed']);

function payloadId(event: StreamMember, member: string): string | null {
  const value = event.payload?.[member];
  return typeof value === 'string' ? value : null;
}

/**
 * The streams an event extends: its task's, when it names one, and the aggregate's its kind guards
 * (an asset, an approval, the team, …), when it has one. A governance decision written to a task
 * extends both, so a write that expects either version sees it. None for events no route guards
 * (notes without a task, access logs, packets).
 */
export function streamsOf(event: StreamMember): string[] {
  const aggregate = aggregateStreamOf(event);
  if (event.task_id === undefined) return aggregate === null ? [] : [aggregate];
  const task = taskStream(event, event.task_id);
  return aggregate === null ? [task] : [task, aggregate];
}

/** The aggregate stream an event's kind guards, whether or not it is also written to a task. */
function aggregateStreamOf(event: StreamMember): string | null {
  if (sameScope(event, QUOTA_SCOPE)) return QUOTA_STREAM;
  if (ASSET_KINDS.has(event.kind)) {
    const id = payloadId(event, 'asset_id');
    return id === null ? null : assetStream(event, id);
  }
  if (event.kind.startsWith('approval.')) {
    const id = payloadId(event, 'approval_id');
    return id === null ? null : approvalStream(event, id);
  }
  if (event.kind === 'regulatory.posture.updated') {
    const id = payloadId(event, 'requirement_id');
    return id === null ? null : postureStream(event, id, payloadId(event, 'asset_id'));
  }
  if (event.kind.startsWith('team.')) return teamStream(event.tenant_id);
  if (event.kind === 'incident.logged' || event.kind === 'incident.updated') {
    const id = payloadId(event, 'incident_id');
    return id === null ? null : incidentStream(event, id);
  }
  if (event.kind === 'vendor.assessed') {
    const id = payloadId(event, 'vendor_id');
    return id === null ? null : vendorStream(event, id);
  }
  return null;
}

/** Terminal events: nothing more may be appended to their stream (a closed task takes no writes). */
export function closesStream(event: StreamMember): boolean {
  return event.kind === 'task.closed';
}

/**
 * The state of `stream` (one of streamsOf(event)) after `event`. Only a task's stream ever closes,
 * so only a task's stream needs the state before it (`before`, which may cost a look-up in the
 * index): any other stream's state is its new version alone. An evaluation's new approval stream,
 * say, is not looked for in the index to learn that it was not closed.
 */
export function nextStreamState(before: () => StreamState | undefined, event: StreamMember & { seq: number }, stream: string): StreamState {
  if (!stream.startsWith(TASK_PREFIX)) return { version: event.seq, closed: false };
  return { version: event.seq, closed: (before()?.closed ?? false) || closesStream(event) };
}
