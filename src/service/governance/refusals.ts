// Governance writes share one shape: read the aggregate, let a pure rule of src/domain/governance/
// decide, then append what it decided together with its access-log entry, stating the versions it
// read as expectations (a concurrent write → write_conflict → decided again). A refusal is appended
// as an access.logged entry with outcome denied (docs/governance/approvals.md) and answered with
// the rule's code.
import type { Actor, Scope } from '../../domain/event.ts';
import type { Refusal } from '../../domain/governance/types.ts';
import { errorSpecOf } from '../../error-catalogue.ts';
import { AppError, type ErrorCode } from '../../errors.ts';
import type { PendingEvent } from '../../store/event-log.ts';
import type { ServiceDeps } from '../deps.ts';
import { pendingEvent, type WriteContext } from '../write-context.ts';
import { DecideOnSettledIndex } from './decide.ts';

type Json = PendingEvent['payload'][string];

export type AccessAction = 'viewed' | 'viewed_raw' | 'exported' | 'created' | 'changed' | 'approved' | 'rejected' | 'invited' | 'revoked' | 'attempted';
export type Resource = { type: string; id: string };

/** What an access.logged entry says beyond the envelope (schemas/events/access-logged.json). */
export type AccessEntryInput = {
  action: AccessAction;
  outcome: 'allowed' | 'denied';
  resource: Resource;
  /** A denial's stable error code. */
  reason_code?: ErrorCode;
  reason?: string;
  task_ids?: readonly string[];
  session_ids?: readonly string[];
};

/**
 * An access.logged event of this request (same unit as its other events, no key of its own). Over
 * HTTP it also records the route, the status answered (a denial's from the error catalogue) and the
 * class of the caller's address (docs/governance/exports.md).
 */
export function accessEvent(deps: ServiceDeps, ctx: WriteContext, actor: Actor, entry: AccessEntryInput): PendingEvent {
  const payload: { [key: string]: Json } = { action: entry.action, outcome: entry.outcome, resource: entry.resource };
  if (entry.reason_code !== undefined) payload.reason_code = entry.reason_code;
  if (entry.reason !== undefined) payload.reason = entry.reason.slice(0, 500);
  if (entry.task_ids !== undefined) payload.task_ids = [...entry.task_ids];
  if (entry.session_ids !== undefined && entry.session_ids.length > 0) payload.session_ids = [...entry.session_ids];
  const request = ctx.request?.();
  if (request !== undefined) {
    payload.route = { method: request.method, path_template: request.path_template };
    payload.status = entry.reason_code === undefined ? request.ok_status : (errorSpecOf(entry.reason_code)?.http?.[0] ?? 500);
    payload.ip_class = request.ip_class;
  }
  return pendingEvent({ ...ctx, idempotencyKey: null, requestSha256: null }, deps.newId, { kind: 'access.logged', actor, payload });
}

/**
 * Records the refusal in the access log (action attempted, outcome denied, its reason_code:
 * docs/governance/exports.md), then throws it as the rule's error. A refusal decided tentatively (on an index that may
 * trail the log, decide.ts) is not recorded: the write is decided again on the settled index.
 */
export async function deny(deps: ServiceDeps, ctx: WriteContext, actor: Actor, resource: Resource, refusal: Pick<Refusal, 'code' | 'message'> & { rule?: string }): Promise<never> {
  if (ctx.tentative === true) throw new DecideOnSettledIndex(refusal.code);
  await deps.store.append([accessEvent(deps, ctx, actor, { action: 'attempted', outcome: 'denied', resource, reason_code: refusal.code, reason: `${refusal.rule ? `${refusal.rule}: ` : ''}${refusal.message}` })]);
  throw new AppError(refusal.code, refusal.message, { accessLogged: true });
}

/** A read of something outside the caller's scope (or nowhere): logged as denied, answered 404. */
export function notInScope(deps: ServiceDeps, ctx: WriteContext, actor: Actor, resource: Resource, what: string): Promise<never> {
  return deny(deps, ctx, actor, resource, { code: 'not_found_in_scope', message: `No ${what} ${resource.id} in this tenant, workspace and project.` });
}

/** The read-only context of a governance read (for its access-log entries). */
export function readContext(scope: Scope, ctx: Pick<WriteContext, 'transport' | 'principal' | 'verified' | 'request'>): WriteContext {
  return { scope, transport: ctx.transport, principal: ctx.principal, idempotencyKey: null, requestSha256: null, ifMatch: null, ...(ctx.verified === undefined ? {} : { verified: ctx.verified }), ...(ctx.request === undefined ? {} : { request: ctx.request }) };
}

/**
 * Checks on the index the task a governance write names in its optional `task_id` (Decision.task):
 * one of another scope (or none) is 404 and one closed is 409, each recorded as denied like the
 * write's other refusals; the append then expects the task still open (readExpectations).
 */
export async function checkTaskToBind(deps: ServiceDeps, ctx: WriteContext, actor: Actor, taskId: string | undefined): Promise<void> {
  if (taskId === undefined) return;
  const task = deps.queries.task(ctx.scope, taskId);
  if (task === undefined) await notInScope(deps, ctx, actor, { type: 'task', id: taskId }, 'task');
  else if (task.status === 'closed') {
    await deny(deps, ctx, actor, { type: 'task', id: taskId }, { code: 'task_closed', message: `Task ${taskId} is closed; a decision is no longer written to it. Leave task_id out, or name an open task.` });
  }
}
