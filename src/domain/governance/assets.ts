// The AI use registry (docs/governance/approvals.md §2): an asset's revisions, the fold over the
// events that name it (registrations, evaluations, approvals, reviews) and its status derived at
// read time, which alone says whether the asset may be in use.
import { canonicalJson } from '../canonical-json.ts';
import type { Actor, StoredEvent } from '../event.ts';
import { applyApprovalEvent, approvalStatus, type Approval } from './approvals.ts';
import type { ReviewCompletedPayload } from './reviews.ts';
import { evaluationRefOf, type EvaluationRef, type Tier } from './types.ts';

export const ASSET_REGISTERED = 'governance.asset.registered';

export type AssetModel = { provider: string; name: string; version?: string };
/** What a caller registers (the body of POST /v1/governance/assets without asset_id and actor). */
export type AssetRegistration = {
  name: string;
  purpose: string;
  owner: Actor;
  deployment_context: string;
  models: AssetModel[];
  vendor_ids?: string[];
  people_affected?: string[];
  regulatory_hints?: string[];
};
export type AssetRegisteredPayload = AssetRegistration & { asset_id: string; revision: number };

/** The fields whose change makes a "changed revision": the review falls due and the evaluation is stale. */
export const MATERIAL_FIELDS = ['purpose', 'deployment_context', 'models', 'vendor_ids'] as const;
export type MaterialField = (typeof MATERIAL_FIELDS)[number];

export type AssetStatus = 'registered' | 'pending_approval' | 'approved' | 'rejected' | 'blocked' | 'evaluation_required' | 'retired';

/**
 * One registration of the asset: `event_id` and `seq` are its governance.asset.registered event's (an
 * evaluation binds to it). An index folded before 2026-12-03 holds revisions without event_id.
 */
export type AssetRevision = { revision: number; registered_at: string; event_id?: string; seq: number; changed: MaterialField[] };
export type AssetReviewRecord = Pick<ReviewCompletedPayload, 'review_id' | 'cycle' | 'due_at' | 'outcome' | 'next_due_at'> & { completed_at: string; seq: number };
export type AssetState = {
  asset_id: string;
  /** The latest registration: the latest revision wins. */
  registration: AssetRegisteredPayload;
  registered_at: string;
  updated_at: string;
  revisions: AssetRevision[];
  evaluations: EvaluationRef[];
  approvals: Readonly<Record<string, Approval>>;
  last_review?: AssetReviewRecord;
  retired_at?: string;
  last_seq: number;
};
export type AssetView = AssetRegisteredPayload & {
  /** The registry's text is what the caller said (docs/governance/approvals.md): never read as verified fact. */
  content_trust: 'customer_asserted';
  registered_at: string;
  updated_at: string;
  status: AssetStatus;
  in_use_allowed: boolean;
  tier: Tier | null;
  latest_evaluation: EvaluationRef | null;
  approval: { approval_id: string; status: string; current_step?: number } | null;
  last_review: AssetReviewRecord | null;
  last_seq: number;
};

/** The payload that registers `body` as the asset's next revision (1 for a new asset). */
export function assetRegisteredPayload(current: AssetState | undefined, assetId: string, body: AssetRegistration): AssetRegisteredPayload {
  const payload: AssetRegisteredPayload = {
    asset_id: assetId,
    revision: (current?.registration.revision ?? 0) + 1,
    name: body.name,
    purpose: body.purpose,
    owner: body.owner,
    deployment_context: body.deployment_context,
    models: body.models.map((m) => ({ ...m })),
  };
  if (body.vendor_ids !== undefined) payload.vendor_ids = [...body.vendor_ids];
  if (body.people_affected !== undefined) payload.people_affected = [...body.people_affected];
  if (body.regulatory_hints !== undefined) payload.regulatory_hints = [...body.regulatory_hints];
  return payload;
}

/** Models and vendors compare as sets (their order says nothing); text compares exactly. */
export function changedFields(before: AssetRegistration, after: AssetRegistration): MaterialField[] {
  const asSet = (items: readonly unknown[] | undefined) =>
    (items ?? [])
      .map((i) => canonicalJson(i))
      .sort()
      .join('\n');
  return MATERIAL_FIELDS.filter((field) => {
    if (field === 'models') return asSet(before.models) !== asSet(after.models);
    if (field === 'vendor_ids') return asSet(before.vendor_ids) !== asSet(after.vendor_ids);
    return before[field] !== after[field];
  });
}

const ASSET_KINDS = new Set([ASSET_REGISTERED, 'risk.evaluated', 'approval.requested', 'approval.decided', 'review.completed']);

/** The asset an event names: payload.asset_id, or an approval request's subject.asset_id. */
export function assetIdOf(event: StoredEvent): string | undefined {
  if (!ASSET_KINDS.has(event.kind)) return undefined;
  const p = event.payload as { asset_id?: unknown; subject?: { asset_id?: unknown } };
  const id = p.asset_id ?? p.subject?.asset_id;
  return typeof id === 'string' ? id : undefined;
}

/** One asset's events, in log order; events of other assets and kinds pass through. */
export function applyAssetEvent(asset: AssetState | undefined, event: StoredEvent): AssetState | undefined {
  const assetId = assetIdOf(event);
  if (assetId === undefined || (asset && assetId !== asset.asset_id)) return asset;
  const at = event.recorded_at;
  if (event.kind === ASSET_REGISTERED) {
    const p = event.payload as unknown as AssetRegisteredPayload;
    if (!asset) {
      return {
        asset_id: assetId,
        registration: p,
        registered_at: at,
        updated_at: at,
        revisions: [{ revision: p.revision, registered_at: at, event_id: event.event_id, seq: event.seq, changed: [] }],
        evaluations: [],
        approvals: {},
        last_seq: event.seq,
      };
    }
    const revision: AssetRevision = { revision: p.revision, registered_at: at, event_id: event.event_id, seq: event.seq, changed: changedFields(asset.registration, p) };
    return { ...asset, registration: p, updated_at: at, revisions: [...asset.revisions, revision], last_seq: event.seq };
  }
  if (!asset) return asset; // evaluations and approvals follow a registration
  const approvals: Record<string, Approval> = {};
  for (const [id, approval] of Object.entries(asset.approvals)) approvals[id] = applyApprovalEvent(approval, event)!;
  const next: AssetState = { ...asset, approvals, last_seq: event.seq };
  if (event.kind === 'risk.evaluated') {
    const ref = evaluationRefOf(event);
    if (ref) next.evaluations = [...asset.evaluations, ref];
  } else if (event.kind === 'approval.requested') {
    const id = (event.payload as { approval_id?: unknown }).approval_id;
    if (typeof id === 'string' && !approvals[id]) approvals[id] = applyApprovalEvent(undefined, event)!;
  } else if (event.kind === 'review.completed') {
    const p = event.payload as unknown as ReviewCompletedPayload;
    next.last_review = { review_id: p.review_id, cycle: p.cycle, due_at: p.due_at, outcome: p.outcome, next_due_at: p.next_due_at, completed_at: at, seq: event.seq };
    if (p.outcome === 'retire' && next.retired_at === undefined) next.retired_at = at;
  }
  return next;
}

/**
 * The asset state as the index stores it: what its status, review and next evaluation still read —
 * the latest evaluation, and the approvals that are open or belong to it. Decided and superseded
 * approvals keep their own rows and the evaluation history stays in the log (GET …/risk reads it
 * there), so an asset evaluated a thousand times is no heavier to decide on than one evaluated once.
 */
export function compactAsset(asset: AssetState): AssetState {
  const latest = asset.evaluations[asset.evaluations.length - 1];
  const approvals = Object.fromEntries(Object.entries(asset.approvals).filter(([id, a]) => id === latest?.approval_id || (a.outcome === undefined && a.superseded_by === undefined)));
  return { ...asset, evaluations: latest ? [latest] : [], approvals };
}

export function foldAsset(events: readonly StoredEvent[]): AssetState | undefined {
  return events.reduce<AssetState | undefined>(applyAssetEvent, undefined);
}

export function latestEvaluation(asset: AssetState): EvaluationRef | undefined {
  return asset.evaluations[asset.evaluations.length - 1];
}

/** The approval the latest evaluation asked for (by its approval_id, else by the subject). */
export function latestApproval(asset: AssetState): Approval | undefined {
  const evaluation = latestEvaluation(asset);
  if (!evaluation) return undefined;
  const all = Object.values(asset.approvals);
  return (evaluation.approval_id ? asset.approvals[evaluation.approval_id] : undefined) ?? all.find((a) => a.subject.evaluation_id === evaluation.evaluation_id);
}

/** Why the latest evaluation no longer stands, or undefined while it does (§2.2). */
export function reevaluationReason(asset: AssetState, options: { policy_version?: string } = {}): string | undefined {
  const evaluation = latestEvaluation(asset);
  if (!evaluation) return undefined;
  const changed = asset.revisions.find((r) => r.seq > evaluation.seq && r.changed.length > 0);
  if (changed) return `revision ${changed.revision} changed ${changed.changed.join(', ')}`;
  if (asset.last_review && asset.last_review.seq > evaluation.seq && asset.last_review.outcome === 'reevaluate')
    return `review ${asset.last_review.review_id} asked for a re-evaluation`;
  if (options.policy_version !== undefined && options.policy_version !== evaluation.policy.version) return `policy ${options.policy_version} replaced ${evaluation.policy.version}`;
  return undefined;
}

/**
 * The status at `now`, first match wins: retired; registered (never evaluated); blocked
 * (prohibited); evaluation_required (the evaluation no longer stands); approved (minimal needs no
 * approval); then the latest approval's status — pending → pending_approval, approved, rejected;
 * withdrawn, expired or superseded → evaluation_required (only a new evaluation opens a new request).
 * `policy_version` is the current risk policy's version, when the caller knows it.
 */
export function assetStatus(asset: AssetState, now: Date, options: { policy_version?: string } = {}): AssetStatus {
  if (asset.retired_at !== undefined) return 'retired';
  const evaluation = latestEvaluation(asset);
  if (!evaluation) return 'registered';
  if (evaluation.tier === 'prohibited') return 'blocked';
  if (reevaluationReason(asset, options) !== undefined) return 'evaluation_required';
  if (evaluation.tier === 'minimal') return 'approved';
  const approval = latestApproval(asset);
  // The request is appended with its evaluation; should it be missing, the asset is still not approved.
  if (!approval) return 'pending_approval';
  const { status } = approvalStatus(approval, now);
  if (status === 'pending') return 'pending_approval';
  if (status === 'approved' || status === 'rejected') return status;
  return 'evaluation_required';
}

export function assetView(asset: AssetState, now: Date, options: { policy_version?: string } = {}): AssetView {
  const status = assetStatus(asset, now, options);
  const evaluation = latestEvaluation(asset);
  const approval = latestApproval(asset);
  return {
    ...asset.registration,
    content_trust: 'customer_asserted',
    registered_at: asset.registered_at,
    updated_at: asset.updated_at,
    status,
    in_use_allowed: status === 'approved',
    tier: evaluation?.tier ?? null,
    latest_evaluation: evaluation ?? null,
    approval: approval ? { approval_id: approval.approval_id, ...approvalStatus(approval, now) } : null,
    last_review: asset.last_review ?? null,
    last_seq: asset.last_seq,
  };
}
