// The AI use registry, risk evaluations, approvals and reviews (docs/governance/approvals.md,
// docs/governance/risk.md): each write reads its aggregates, lets the domain rule decide, and appends
// under the versions it read; each read derives what time changes from the injected clock.
import { sameScope, type Actor, type Scope } from '../../domain/event.ts';
import { applyApprovalEvent, approvalRequestFor, approvalStatus, checkDecision, currentStep, type Approval, type DecisionBody } from '../../domain/governance/approvals.ts';
import { applyAssetEvent, ASSET_REGISTERED, assetIdOf, assetRegisteredPayload, assetView, compactAsset, latestEvaluation, type AssetRegistration, type AssetState } from '../../domain/governance/assets.ts';
import { checkReviewCompletion, parseReviewId, REVIEW_COMPLETED, reviewSchedule, type ReviewCompleteBody, type ReviewSchedule } from '../../domain/governance/reviews.ts';
import { checkRiskInputs, riskInputsError } from '../../domain/governance/risk-inputs.ts';
import { evaluateRisk } from '../../domain/governance/risk.ts';
import { sha256Hex } from '../../domain/canonical-json.ts';
import { approvalStream, assetStream, teamStream, vendorStream } from '../../domain/streams.ts';
import type { ServiceDeps } from '../deps.ts';
import { actingAs, pendingEvent, type WriteContext } from '../write-context.ts';
import type { SealedView } from '../../store/expectations.ts';
import { assetRead, binding, boundTo, checkIfMatch, decideAndAppend, decidingTeam, streamRead, type Decision, type StreamRead } from './decide.ts';
import { accessEvent, checkTaskToBind, deny, notInScope } from './refusals.ts';
import { incidentTriggers } from './incidents-service.ts';
import { assetVendorMaturity, vendorTriggers } from './vendors-service.ts';
import { settledAfterWrite } from '../answer-after-write.ts';

type Json = Parameters<typeof pendingEvent>[2]['payload'][string];
const json = (value: object) => value as unknown as { [key: string]: Json };

/** Page sizes of the governance lists. */
export const GOV_PAGE = { default: 50, max: 200 } as const;

function policyOptions(deps: ServiceDeps) {
  return { policy_version: deps.riskPolicy.version };
}

// ---- the registry ----

export type AssetBody = AssetRegistration & { asset_id?: string; actor?: Actor; task_id?: string };

export async function registerAsset(deps: ServiceDeps, ctx: WriteContext, body: AssetBody) {
  const assetId = body.asset_id ?? deps.newId('ast');
  const actor = actingAs(ctx, body.actor);
  const { actor: _a, asset_id: _i, task_id: _t, ...registration } = body;
  // The asset each decision was made on, by its registration event's id: the answer is the asset as
  // the sealed one left it, not as later writes (concurrent re-posts of it, say) have left it since.
  // (The append expected the asset's stream where the decision read it; an approval decided on the
  // asset in between is on the approval's stream, and its status shows in the next read.)
  const decidedOn = new Map<string, AssetState | undefined>();
  // The next revision of the asset as it stands (the first when there is none).
  const decideOn = (asset: AssetState | undefined, read: StreamRead): Decision => {
    const payload = assetRegisteredPayload(asset, assetId, registration);
    const registered = pendingEvent(ctx, deps.newId, { kind: ASSET_REGISTERED, actor, payload: json(payload) });
    decidedOn.set(registered.event_id, asset);
    return {
      events: [
        registered,
        accessEvent(deps, ctx, actor, { action: payload.revision === 1 ? 'created' : 'changed', outcome: 'allowed', resource: { type: 'asset', id: assetId } }),
      ],
      read: [read],
      ifMatch: read,
      ...boundTo(body.task_id),
    };
  };
  const result = await decideAndAppend(deps, ctx, async (attempt) => {
    const read = assetRead(deps, ctx.scope, assetId); // before the state: see StreamRead in decide.ts
    const asset = deps.gov.asset(ctx.scope, assetId);
    await checkTaskToBind(deps, attempt, actor, body.task_id);
    return decideOn(asset, read);
  }, {
    // Re-posts of one asset sent at once: each is decided again in the writer on the revision sealed
    // before it, so each is the next revision. With If-Match, a moved-on asset stays a 412.
    redecide: (view) => {
      const asset = sealedAsset(deps, ctx.scope, assetId, view);
      return asset === undefined ? null : decideOn(asset, assetRead(deps, ctx.scope, assetId, view.streamVersion));
    },
  });
  // Answered once the index holds the write, as every governance write is: what the caller sends
  // next (an evaluation of the asset) is decided on an index that has it.
  await settledAfterWrite(deps, result);
  const event = result.events[0]!;
  if (!result.replayed && decidedOn.has(event.event_id)) {
    // The registration is the unit's one event on the asset's stream: its seq is the asset's version.
    const asset = compactAsset(applyAssetEvent(decidedOn.get(event.event_id), event)!);
    return { asset: assetView(asset, deps.clock(), policyOptions(deps)), version: event.seq, event: binding(result), replayed: false };
  }
  // A replay reads the asset as it is (docs/contract.md, Idempotency). Its registration names the
  // asset (an id the server chose is not this request's).
  const written = (event.payload as { asset_id: string }).asset_id;
  const version = deps.gov.streamVersion(assetStream(ctx.scope, written)); // before the state, as getAsset
  return { asset: assetView(deps.gov.asset(ctx.scope, written)!, deps.clock(), policyOptions(deps)), version, event: binding(result), replayed: result.replayed };
}

export function listAssets(deps: ServiceDeps, scope: Scope, q: { tier?: string; status?: string; cursor?: string; limit?: number }) {
  const limit = q.limit ?? GOV_PAGE.default;
  const now = deps.clock();
  const rows = deps.gov.assets(scope, { ...(q.tier ? { tier: q.tier } : {}), ...(q.status ? { status: q.status } : {}), ...(q.cursor ? { after: q.cursor } : {}), limit: limit + 1, now });
  const page = rows.slice(0, limit);
  return {
    assets: page.map((a) => assetView(a, now, policyOptions(deps))),
    next_cursor: rows.length > limit ? page[page.length - 1]!.asset_id : null,
    as_of: now.toISOString(),
  };
}

/** The asset, or a 404 that leaves an access-log entry (outcome denied). */
export async function findAsset(deps: ServiceDeps, ctx: WriteContext, assetId: string, actor: Actor = ctx.principal): Promise<AssetState> {
  const asset = deps.gov.asset(ctx.scope, assetId);
  return asset ?? notInScope(deps, ctx, actor, { type: 'asset', id: assetId }, 'asset');
}

export async function getAsset(deps: ServiceDeps, ctx: WriteContext, assetId: string) {
  // The version before the state: an ETag older than the body can only make an If-Match fail (412),
  // never let a write through on a state its sender did not see (see StreamRead in decide.ts).
  const version = deps.gov.streamVersion(assetStream(ctx.scope, assetId));
  const asset = await findAsset(deps, ctx, assetId);
  return { view: assetView(asset, deps.clock(), policyOptions(deps)), version };
}

// ---- risk ----

export type RiskBody = { asset_id?: unknown; risk_inputs?: unknown; actor?: Actor; task_id?: string };

/** The request schema with its inputs left to the policy's own check. */
const RISK_FRAME_SCHEMA: string = 'api/risk-evaluation-request.json#/$defs/frame';

/**
 * The event_id of the asset's latest registration: its folded revision's, or (a revision folded by an
 * index made before revisions kept it) the event at its seq.
 */
function registrationEventId(deps: ServiceDeps, asset: AssetState): string {
  const latest = asset.revisions[asset.revisions.length - 1]!;
  return latest.event_id ?? deps.queries.rowsBySeq(latest.seq, latest.seq)[0]!.event.event_id;
}

/**
 * The asset's evaluation records, oldest first, as their events carry them (the log keeps the
 * history), each with its event and the evaluation that superseded it (the next; null for the latest).
 */
function evaluationRecords(deps: ServiceDeps, scope: Scope, assetId: string) {
  const events = deps.queries.assetEventsOfKind(scope, assetId, 'risk.evaluated');
  return events.map((event, i) => ({
    ...event.payload,
    superseded_by: (events[i + 1]?.payload.evaluation_id as string | undefined) ?? null,
    event: { event_id: event.event_id, seq: event.seq, event_hash: event.event_hash },
  }));
}

export async function evaluateAssetRisk(deps: ServiceDeps, ctx: WriteContext, body: RiskBody) {
  const policy = deps.riskPolicy;
  // The body's frame is checked by its schema; the inputs by the policy, whose refusals quote the
  // anchor sentences of the levels allowed (a schema's messages could not).
  // A body that is no object at all (null, an array, a number) is refused by the frame as it is.
  if (typeof body !== 'object' || body === null || Array.isArray(body)) deps.registry.assert(RISK_FRAME_SCHEMA, body, 'body');
  const { risk_inputs: inputs, ...frame } = body as Record<string, unknown>;
  deps.registry.assert(RISK_FRAME_SCHEMA, { ...frame, risk_inputs: {} }, 'body');
  const checked = checkRiskInputs(policy, inputs);
  if (!checked.ok) throw riskInputsError(checked.problems);
  const assetId = body.asset_id as string;
  const actor = actingAs(ctx, body.actor);
  const evaluationId = deps.newId('eval');
  // What the evaluation appends, decided on the asset as it stands: the evaluation, the approval it
  // needs (one unit: both or neither) and its access entry, expecting the asset and every vendor the
  // derived maturity read to be where they were.
  const decideOn = (asset: AssetState, read: StreamRead, versionOf: (stream: string) => number = deps.gov.streamVersion): Decision => {
    // The vendors' versions before their assessments are read (see StreamRead in decide.ts).
    const vendors = (asset.registration.vendor_ids ?? []).map((id) => streamRead(deps, vendorStream(ctx.scope, id), `Vendor ${id}`, versionOf));
    const now = deps.clock();
    // A vendor_maturity above what the asset's current vendor assessments derive is a warning.
    const derived = assetVendorMaturity(deps, ctx.scope, asset, now);
    const evaluation = evaluateRisk(policy, { asset_id: assetId, risk_inputs: checked.inputs }, derived === undefined ? {} : { vendor_maturity_derived: derived });
    const request = approvalRequestFor({ evaluation_id: evaluationId, asset_id: assetId, tier: evaluation.tier, input_sha256: evaluation.input_sha256, policy: { version: evaluation.policy.version } },
      { requested_by: actor, asset_owner: asset.registration.owner }, now);
    const record = {
      evaluation_id: evaluationId,
      ...evaluation,
      asset_revision: asset.registration.revision,
      // The registration the inputs describe, by its event (docs/governance/risk.md): the evaluation is bound to it.
      asset_event_id: registrationEventId(deps, asset),
      approval_id: request?.approval_id ?? null,
      supersedes: latestEvaluation(asset)?.evaluation_id ?? null,
      evaluated_at: now.toISOString(),
    };
    const events = [pendingEvent(ctx, deps.newId, { kind: 'risk.evaluated', actor, payload: json(record) })];
    if (request) events.push(pendingEvent(ctx, deps.newId, { kind: 'approval.requested', actor, payload: json(request) }));
    events.push(accessEvent(deps, ctx, actor, { action: 'created', outcome: 'allowed', resource: { type: 'risk_evaluation', id: evaluationId } }));
    // An evaluation moves its asset on (status, tier, the pending approval): If-Match names the asset's version.
    return { events, read: [read, ...vendors], ifMatch: read, ...boundTo(body.task_id) };
  };
  // `attempt` is the context a refusal sees: marked when the decision is tentative (decide.ts).
  const result = await decideAndAppend(deps, ctx, async (attempt) => {
    const read = assetRead(deps, ctx.scope, assetId); // before the state: see StreamRead in decide.ts
    const asset = await findAsset(deps, attempt, assetId, actor);
    checkIfMatch(attempt, read); // a stale view hears that first, before any rule
    if (asset.retired_at !== undefined) {
      return deny(deps, attempt, actor, { type: 'asset', id: assetId }, { code: 'asset_retired', message: `Asset ${assetId} was retired at ${asset.retired_at}; a retired asset is not evaluated. Register it again under a new asset_id to bring it back.` });
    }
    await checkTaskToBind(deps, attempt, actor, body.task_id);
    return decideOn(asset, read);
  }, {
    tentative: true,
    // Evaluations of one asset sent at once: each is decided again in the writer on the asset as the
    // evaluations sealed before it left it (it supersedes the one before), so all of them share a
    // batch. An asset retired meanwhile is refused the slow way (the denial is recorded there).
    redecide: (view) => {
      const asset = sealedAsset(deps, ctx.scope, assetId, view);
      return asset === undefined || asset.retired_at !== undefined ? null : decideOn(asset, assetRead(deps, ctx.scope, assetId, view.streamVersion), view.streamVersion);
    },
  });
  const evaluation = result.events[0]!;
  return { evaluation: evaluation.payload, event: binding(result), replayed: result.replayed };
}

/**
 * The asset as the index holds it plus the events the log's writer sealed since (SealedView), each
 * folded as the index folds it. The state reached is remembered for the next evaluation of the
 * asset in the writer, which then folds on from there rather than from the (trailing) index.
 */
function sealedAsset(deps: ServiceDeps, scope: Scope, assetId: string, view: SealedView): AssetState | undefined {
  const indexed = deps.gov.asset(scope, assetId);
  if (indexed === undefined) return undefined;
  const key = assetStream(scope, assetId);
  const memo = view.memo.get(key) as { seq: number; value: AssetState } | undefined;
  // A remembered state is current unless the index holds an event of the asset it did not see.
  let { seq, value: asset } = memo !== undefined && memo.seq >= indexed.last_seq ? memo : { seq: indexed.last_seq, value: indexed };
  for (const event of view.eventsAfter(seq)) {
    seq = event.seq;
    if (sameScope(event, scope) && assetIdOf(event) === assetId) {
      asset = compactAsset(applyAssetEvent(asset, event)!);
    }
  }
  view.memo.set(key, { seq, value: asset });
  return asset;
}

export async function assetRisk(deps: ServiceDeps, ctx: WriteContext, assetId: string) {
  await findAsset(deps, ctx, assetId);
  const history = evaluationRecords(deps, ctx.scope, assetId);
  return { asset_id: assetId, latest: history[history.length - 1] ?? null, history: history.reverse(), policy: { id: deps.riskPolicy.id, version: deps.riskPolicy.version, sha256: deps.riskPolicy.sha256 } };
}

// ---- approvals ----

/** `identities`: 'verified' in the hosted service, whose callers are authenticated (no identity non-claim then). */
export function approvalView(approval: Approval, now: Date, identities: ServiceDeps['identities'] = 'asserted') {
  const { status, current_step } = approvalStatus(approval, now);
  const step = status === 'pending' ? currentStep(approval) : undefined;
  return {
    ...approval,
    status,
    current_step: current_step ?? null,
    assignee_role: step?.role ?? null,
    non_claims: identities === 'verified' ? [] : ['Identities are asserted by the caller in the preview: the trail proves which rule held for the named actors, not that different people acted.'],
  };
}

/** `GET /v1/approvals`; an asset_id outside the scope is a 404 logged as denied, as on every governance list. */
export async function listApprovals(deps: ServiceDeps, ctx: WriteContext, q: { status?: string; asset_id?: string; assignee_role?: string; cursor?: string; limit?: number }) {
  const scope = ctx.scope;
  if (q.asset_id !== undefined) await findAsset(deps, ctx, q.asset_id);
  const limit = q.limit ?? GOV_PAGE.default;
  const now = deps.clock();
  const rows = deps.gov.approvals(scope, {
    ...(q.status ? { status: q.status } : {}), ...(q.asset_id ? { asset_id: q.asset_id } : {}), ...(q.assignee_role ? { assignee_role: q.assignee_role } : {}),
    ...(q.cursor ? { after: q.cursor } : {}), limit: limit + 1, now,
  });
  const page = rows.slice(0, limit);
  return { approvals: page.map((a) => approvalView(a, now, deps.identities)), next_cursor: rows.length > limit ? page[page.length - 1]!.approval_id : null, as_of: now.toISOString() };
}

export async function getApproval(deps: ServiceDeps, ctx: WriteContext, approvalId: string) {
  const version = deps.gov.streamVersion(approvalStream(ctx.scope, approvalId)); // before the state, as getAsset
  const approval = deps.gov.approval(ctx.scope, approvalId) ?? (await notInScope(deps, ctx, ctx.principal, { type: 'approval', id: approvalId }, 'approval'));
  return { view: approvalView(approval, deps.clock(), deps.identities), version };
}

export async function decideApproval(deps: ServiceDeps, ctx: WriteContext, approvalId: string, body: DecisionBody & { actor?: Actor; task_id?: string }) {
  const actor = actingAs(ctx, body.actor);
  // The approval each decision was made on, by its event's id: the answer is the approval as the
  // sealed decision left it (its every stream was where the decision read it), not as a later step's.
  const decidedOn = new Map<string, Approval>();
  const result = await decideAndAppend(deps, ctx, async () => {
    // The asset the approval is bound to never changes; its version, the approval's and the team's
    // (the decider's roles) are read before the approval, the asset (its owner) and the team are read
    // to be decided on (see StreamRead in decide.ts).
    const found = deps.gov.approval(ctx.scope, approvalId) ?? (await notInScope(deps, ctx, actor, { type: 'approval', id: approvalId }, 'approval'));
    const stream = approvalStream(ctx.scope, approvalId);
    const approvalRead: StreamRead = { stream, version: deps.gov.streamVersion(stream), what: `Approval ${approvalId}` };
    const subjectRead = assetRead(deps, ctx.scope, found.subject.asset_id);
    const teamRead = streamRead(deps, teamStream(ctx.scope.tenant_id), 'The team');
    const approval = deps.gov.approval(ctx.scope, approvalId)!;
    // SOD-5 holds for the asset's owner now as well as the one the request recorded.
    const owner = deps.gov.asset(ctx.scope, found.subject.asset_id)?.registration.owner;
    checkIfMatch(ctx, approvalRead);
    const checked = checkDecision(approval, body, actor, decidingTeam(deps, ctx), deps.clock(), owner);
    const action = body.decision === 'approve' ? 'approved' : body.decision === 'reject' ? 'rejected' : 'changed';
    if (!checked.ok) return deny(deps, ctx, actor, { type: 'approval', id: approvalId }, checked);
    await checkTaskToBind(deps, ctx, actor, body.task_id);
    const decided = pendingEvent(ctx, deps.newId, { kind: 'approval.decided', actor, payload: json(checked.payload) });
    decidedOn.set(decided.event_id, approval);
    return {
      ...boundTo(body.task_id),
      events: [
        decided,
        accessEvent(deps, ctx, actor, { action, outcome: 'allowed', resource: { type: 'approval', id: approvalId } }),
      ],
      // A decision racing another on the same approval, a new evaluation of its asset or a change of
      // the team's roles: decided again.
      read: [approvalRead, subjectRead, teamRead],
      ifMatch: approvalRead,
    };
  });
  await settledAfterWrite(deps, result);
  const event = result.events[0]!;
  const before = result.replayed ? undefined : decidedOn.get(event.event_id);
  if (before !== undefined) return { approval: approvalView(applyApprovalEvent(before, event)!, deps.clock(), deps.identities), event: binding(result), replayed: false };
  // A replay reads the approval as it is (docs/contract.md, Idempotency).
  return { approval: approvalView(deps.gov.approval(ctx.scope, approvalId)!, deps.clock(), deps.identities), event: binding(result), replayed: result.replayed };
}

// ---- reviews ----

function reviewView(schedule: ReviewSchedule) {
  return { ...schedule, trigger: schedule.trigger ?? null };
}

/** `GET /v1/reviews`; an asset_id outside the scope is a 404 logged as denied, as on every governance list. */
export async function listReviews(deps: ServiceDeps, ctx: WriteContext, q: { status?: 'upcoming' | 'due' | 'overdue'; asset_id?: string; cursor?: string; limit?: number }) {
  const scope = ctx.scope;
  if (q.asset_id !== undefined) await findAsset(deps, ctx, q.asset_id);
  const limit = q.limit ?? GOV_PAGE.default;
  const now = deps.clock();
  // An expired vendor assessment brings a review forward, so the status is decided here, on each
  // schedule with its triggers, not from the stored due date: a page may hold fewer than `limit`.
  const rows = deps.gov.reviewAssets(scope, { ...(q.asset_id ? { asset_id: q.asset_id } : {}), ...(q.cursor ? { after: q.cursor } : {}), limit: limit + 1 });
  const page = rows.slice(0, limit);
  const reviews = page.map((a) => reviewSchedule(a, [...vendorTriggers(deps, scope, a, now), ...incidentTriggers(deps, scope, a, now)], now)).filter((s): s is ReviewSchedule => s !== undefined && (q.status === undefined || s.status === q.status));
  return { reviews: reviews.map(reviewView), next_cursor: rows.length > limit ? page[page.length - 1]!.asset_id : null, as_of: now.toISOString() };
}

/** The asset a review id names: its middle part is the first 16 hex of sha256(asset_id). */
function assetOfReview(deps: ServiceDeps, scope: Scope, id: string): AssetState | undefined {
  const parsed = parseReviewId(id);
  if (!parsed) return undefined;
  return deps.gov.assetsByIdHash(scope, parsed.asset_hash).find((a) => sha256Hex(a.asset_id).startsWith(parsed.asset_hash));
}

export async function completeReview(deps: ServiceDeps, ctx: WriteContext, id: string, body: ReviewCompleteBody & { actor?: Actor; task_id?: string }) {
  const actor = actingAs(ctx, body.actor);
  const result = await decideAndAppend(deps, ctx, async () => {
    // The review id names its asset; the asset's version is read before the asset is read again to be
    // decided on (see StreamRead in decide.ts).
    const found = assetOfReview(deps, ctx.scope, id) ?? (await notInScope(deps, ctx, actor, { type: 'review', id }, 'review'));
    const read = assetRead(deps, ctx.scope, found.asset_id);
    const asset = deps.gov.asset(ctx.scope, found.asset_id)!;
    // The completion records the trigger that brought the review forward: its vendors' versions
    // before their assessments, whose expiry is such a trigger.
    const vendorReads = (asset.registration.vendor_ids ?? []).map((id) => streamRead(deps, vendorStream(ctx.scope, id), `Vendor ${id}`));
    const now = deps.clock();
    const { actor: _b, task_id: _t, ...completion } = body;
    const checked = checkReviewCompletion(reviewSchedule(asset, [...vendorTriggers(deps, ctx.scope, asset, now), ...incidentTriggers(deps, ctx.scope, asset, now)], now), id, completion, actor, asset.registration.owner, now);
    if (!checked.ok) return deny(deps, ctx, actor, { type: 'review', id }, checked);
    // REV-4: what the review cites is evidence of this scope (the pool only grows, so no stream to expect).
    const unknown = (completion.evidence_refs ?? []).filter((ref) => deps.gov.artifactHolders(ctx.scope, ref).length === 0);
    if (unknown.length > 0) {
      return deny(deps, ctx, actor, { type: 'review', id }, {
        code: 'evidence_required', rule: 'REV-4',
        message: `${unknown.join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not in this scope's evidence pool: attach the evidence first (a task's evidence_refs, or a raw evidence.attached event with or without a task), then cite its artifact_id.`,
      });
    }
    await checkTaskToBind(deps, ctx, actor, body.task_id);
    return {
      ...boundTo(body.task_id),
      events: [
        pendingEvent(ctx, deps.newId, { kind: REVIEW_COMPLETED, actor, payload: json(checked.payload) }),
        accessEvent(deps, ctx, actor, { action: 'changed', outcome: 'allowed', resource: { type: 'review', id } }),
      ],
      read: [read, ...vendorReads],
      // A review is a cycle of its asset's stream: If-Match names the asset's version (its ETag).
      ifMatch: read,
    };
  });
  const event = result.events[0]!;
  await settledAfterWrite(deps, result);
  const asset = deps.gov.asset(ctx.scope, event.payload.asset_id as string)!;
  const now = deps.clock();
  const next = reviewSchedule(asset, [...vendorTriggers(deps, ctx.scope, asset, now), ...incidentTriggers(deps, ctx.scope, asset, now)], now);
  return { review: event.payload, next_review: next ? reviewView(next) : null, event: binding(result), replayed: result.replayed };
}
