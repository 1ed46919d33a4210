// Approvals of a risk evaluation (docs/governance/approvals.md §3): the request a tier asks for, the
// fold over approval.requested, approval.decided and the evaluations that supersede it, the status
// read against the clock, and the decision checks in their fixed order, separation of duties included.
import { derivedId } from '../derived-id.ts';
import type { Actor, StoredEvent } from '../event.ts';
import { rolesOf, type Team, type TeamRole } from './team.ts';
import { addDays, eventActor, instant, refuse, sameActor, showActor, type Checked, type EvaluationRef, type Refusal, type Tier } from './types.ts';

export const APPROVAL_DUE_DAYS = 14;

export const APPROVAL_KINDS = { requested: 'approval.requested', decided: 'approval.decided' } as const;

export type ApprovalStep = { step: number; role: TeamRole; min_approvers?: number };
export type ApprovalSubject = {
  type: 'risk_evaluation';
  asset_id: string;
  evaluation_id: string;
  input_sha256: string;
  policy_version: string;
  tier: 'limited' | 'high';
};
export type ApprovalRequestedPayload = {
  approval_id: string;
  subject: ApprovalSubject;
  steps: ApprovalStep[];
  requested_by: Actor;
  asset_owner: Actor;
  due_at: string;
};
export type ApprovalDecision = 'approve' | 'reject' | 'withdraw';
export type ApprovalDecidedPayload = {
  approval_id: string;
  /** Repeated from the subject so an asset's projection selects its events by payload alone. */
  asset_id: string;
  step: number;
  decision: ApprovalDecision;
  reason: string;
  bound: { evaluation_id: string; input_sha256: string };
};
/** A decision's body: approve and reject name their step; a withdraw's step is ignored (it may leave it out). */
export type DecisionBody =
  | { step: number; decision: 'approve' | 'reject'; reason: string; expected_input_sha256?: string }
  | { step?: number; decision: 'withdraw'; reason: string; expected_input_sha256?: string };
type StepDecisionBody = Extract<DecisionBody, { decision: 'approve' | 'reject' }>;

export type RecordedDecision = { step: number; decision: ApprovalDecision; reason: string; actor: Actor; decided_at: string; seq: number };
export type Approval = ApprovalRequestedPayload & {
  /**
   * When the request was made: the instant its evaluation was decided at (the evaluation's
   * evaluated_at), of which due_at is exactly APPROVAL_DUE_DAYS later. The event is recorded a
   * moment after the decision (when its batch is sealed), so its recorded_at would put the due date
   * a few milliseconds short of 14 days after the request.
   */
  requested_at: string;
  decisions: RecordedDecision[];
  /** How the decisions ended the request, if they did. */
  outcome?: 'approved' | 'rejected' | 'withdrawn';
  /** The newer evaluation of the asset that replaced this request's subject. */
  superseded_by?: string;
  last_seq: number;
};
export type ApprovalStatus = 'pending' | 'approved' | 'rejected' | 'withdrawn' | 'superseded' | 'expired';

/** The steps a tier asks for: none for minimal, null (no approval path) for prohibited. */
export function approvalStepsFor(tier: Tier): ApprovalStep[] | null {
  if (tier === 'prohibited') return null;
  if (tier === 'minimal') return [];
  const steps: ApprovalStep[] = [{ step: 1, role: 'governance_reviewer', min_approvers: 1 }];
  if (tier === 'high') steps.push({ step: 2, role: 'accountable_executive', min_approvers: 1 });
  return steps;
}

/** One evaluation, one approval: the id derives from the evaluation, so a retried request names the same one. */
export function approvalIdFor(evaluationId: string): string {
  return derivedId('apr', { evaluation_id: evaluationId });
}

/**
 * The `approval.requested` payload an evaluation asks for, due fourteen days from `now`; null when
 * its tier needs no approval (minimal) or allows none (prohibited). `steps` defaults to the tier's.
 */
export function approvalRequestFor(
  evaluation: Omit<EvaluationRef, 'seq' | 'approval_id' | 'evaluated_at'>,
  request: { approval_id?: string; requested_by: Actor; asset_owner: Actor; steps?: ApprovalStep[] },
  now: Date,
): ApprovalRequestedPayload | null {
  const tier = evaluation.tier;
  const steps = request.steps ?? approvalStepsFor(tier);
  if (tier === 'minimal' || tier === 'prohibited' || !steps || steps.length === 0) return null;
  return {
    approval_id: request.approval_id ?? approvalIdFor(evaluation.evaluation_id),
    subject: {
      type: 'risk_evaluation',
      asset_id: evaluation.asset_id,
      evaluation_id: evaluation.evaluation_id,
      input_sha256: evaluation.input_sha256,
      policy_version: evaluation.policy.version,
      tier,
    },
    steps: steps.map((s) => ({ ...s })),
    requested_by: request.requested_by,
    asset_owner: request.asset_owner,
    due_at: addDays(now, APPROVAL_DUE_DAYS),
  };
}

/**
 * One approval's events: its approval.requested and approval.decided, and every risk.evaluated of
 * its asset (a different evaluation after the request supersedes it). Other events pass through.
 */
export function applyApprovalEvent(approval: Approval | undefined, event: StoredEvent): Approval | undefined {
  if (event.kind === APPROVAL_KINDS.requested) {
    if (approval) return approval; // one request per id: a replayed log must not reset it
    const p = event.payload as unknown as ApprovalRequestedPayload;
    return { ...p, requested_at: addDays(p.due_at, -APPROVAL_DUE_DAYS), decisions: [], last_seq: event.seq };
  }
  if (!approval) return approval;
  if (event.kind === APPROVAL_KINDS.decided) {
    const p = event.payload as unknown as ApprovalDecidedPayload;
    if (p.approval_id !== approval.approval_id || approval.outcome !== undefined) return approval;
    const decision: RecordedDecision = { step: p.step, decision: p.decision, reason: p.reason, actor: eventActor(event), decided_at: event.recorded_at, seq: event.seq };
    const next: Approval = { ...approval, decisions: [...approval.decisions, decision], last_seq: event.seq };
    if (p.decision === 'reject') next.outcome = 'rejected';
    else if (p.decision === 'withdraw') next.outcome = 'withdrawn';
    else if (currentStep(next) === undefined) next.outcome = 'approved';
    return next;
  }
  if (event.kind === 'risk.evaluated') {
    const p = event.payload as { asset_id?: unknown; evaluation_id?: unknown };
    if (p.asset_id !== approval.subject.asset_id || typeof p.evaluation_id !== 'string' || p.evaluation_id === approval.subject.evaluation_id) return approval;
    if (approval.superseded_by !== undefined) return approval;
    return { ...approval, superseded_by: p.evaluation_id, last_seq: event.seq };
  }
  return approval;
}

export function foldApproval(events: readonly StoredEvent[]): Approval | undefined {
  return events.reduce<Approval | undefined>(applyApprovalEvent, undefined);
}

/** The first step that still lacks its approvals; undefined once every step has them. */
export function currentStep(approval: Approval): ApprovalStep | undefined {
  return [...approval.steps]
    .sort((a, b) => a.step - b.step)
    .find((s) => approval.decisions.filter((d) => d.step === s.step && d.decision === 'approve').length < (s.min_approvers ?? 1));
}

/**
 * The status at `now`. A decided request keeps its outcome even when superseded later (its
 * `superseded_by` says so); an open one reads superseded, or expired once `now` is past due_at.
 */
export function approvalStatus(approval: Approval, now: Date): { status: ApprovalStatus; current_step?: number } {
  if (approval.outcome !== undefined) return { status: approval.outcome };
  if (approval.superseded_by !== undefined) return { status: 'superseded' };
  if (now.getTime() > instant(approval.due_at)) return { status: 'expired' };
  return { status: 'pending', current_step: currentStep(approval)!.step };
}

/**
 * `POST /v1/approvals/{approval_id}/decision`, checked in the order of §3.3 (the caller has already
 * answered 404 for an approval outside the scope). The first refusal wins; a pass gives the payload
 * of the approval.decided to append and the status it leads to. `team` is the tenant's team view
 * (roles for SOD-3); `actor` is who decides (the envelope's actor); `currentOwner` is the owner of
 * the asset's latest registration, for SOD-5 beside the owner the request names.
 */
export function checkDecision(
  approval: Approval,
  body: DecisionBody,
  actor: Actor,
  team: Team | undefined,
  now: Date,
  currentOwner?: Actor,
): Checked<{ payload: ApprovalDecidedPayload; status: 'pending' | 'approved' | 'rejected' | 'withdrawn' }> {
  const id = approval.approval_id;
  // Superseded first: a request replaced by a newer evaluation says so, whatever else holds.
  if (approval.superseded_by !== undefined) {
    return refuse(
      409,
      'approval_superseded',
      'APR-1',
      `Approval ${id} was superseded by evaluation ${approval.superseded_by}; decide the approval that evaluation requested (GET /v1/approvals?asset_id=${approval.subject.asset_id}).`,
    );
  }
  const { status, current_step } = approvalStatus(approval, now);
  if (status !== 'pending') {
    return refuse(409, 'approval_not_pending', 'APR-2', `Approval ${id} is ${status} and takes no more decisions; a new evaluation of the asset opens a new request.`);
  }
  if (body.expected_input_sha256 !== undefined && body.expected_input_sha256 !== approval.subject.input_sha256) {
    return refuse(
      409,
      'approval_subject_changed',
      'APR-3',
      `Approval ${id} is bound to inputs ${approval.subject.input_sha256}, not the ${body.expected_input_sha256} you reviewed; read the approval again and decide on what it is bound to.`,
    );
  }
  const bound = { evaluation_id: approval.subject.evaluation_id, input_sha256: approval.subject.input_sha256 };
  const payloadOf = (step: number): ApprovalDecidedPayload => ({ approval_id: id, asset_id: approval.subject.asset_id, step, decision: body.decision, reason: body.reason, bound });
  if (body.decision === 'withdraw') {
    if (!sameActor(actor, approval.requested_by)) {
      return refuse(
        403,
        'not_requester',
        'APR-4',
        `Only the requester (${showActor(approval.requested_by)}) may withdraw approval ${id}; to stop it, reject it at the current step.`,
      );
    }
    return { ok: true, payload: payloadOf(current_step!), status: 'withdrawn' };
  }
  const refused = separationOfDuties(approval, body, actor, team, currentOwner);
  if (refused) return refused;
  if (body.step !== current_step) {
    return refuse(409, 'step_mismatch', 'APR-5', `Approval ${id} is at step ${current_step}, not step ${body.step}; send step ${current_step}.`);
  }
  const payload = payloadOf(body.step);
  if (body.decision === 'reject') return { ok: true, payload, status: 'rejected' };
  const decided: RecordedDecision = { step: body.step, decision: 'approve', reason: body.reason, actor, decided_at: approval.requested_at, seq: approval.last_seq };
  const next = currentStep({ ...approval, decisions: [...approval.decisions, decided] });
  return { ok: true, payload, status: next === undefined ? 'approved' : 'pending' };
}

/** SOD-1 to SOD-5, in order (§3.2), for approve and reject. */
function separationOfDuties(approval: Approval, body: StepDecisionBody, actor: Actor, team: Team | undefined, currentOwner: Actor | undefined): Refusal | undefined {
  const id = approval.approval_id;
  if (sameActor(actor, approval.requested_by)) {
    return refuse(403, 'self_approval_forbidden', 'SOD-1', `${showActor(actor)} requested approval ${id} and cannot decide it; another user holding the step's role must.`);
  }
  if (actor.type !== 'user') {
    return refuse(
      403,
      'actor_type_not_allowed',
      'SOD-2',
      `Only users decide approvals; ${showActor(actor)} may request but not decide. Send the decision as a user holding the step's role.`,
    );
  }
  const step = approval.steps.find((s) => s.step === body.step);
  if (!step) {
    const current = currentStep(approval)!.step;
    return refuse(409, 'step_mismatch', 'APR-5', `Approval ${id} has no step ${body.step}; it is at step ${current}, send step ${current}.`);
  }
  if (!rolesOf(team, actor).includes(step.role)) {
    return refuse(
      403,
      'role_required',
      'SOD-3',
      `Step ${step.step} of approval ${id} needs the ${step.role} role, which ${showActor(actor)} does not hold; ask an owner or admin to grant it, or have a holder decide.`,
    );
  }
  const earlier = approval.decisions.find((d) => sameActor(d.actor, actor));
  if (earlier) {
    return refuse(
      409,
      'one_person_one_step',
      'SOD-4',
      `${showActor(actor)} already decided step ${earlier.step} of approval ${id}; one person decides at most one step, so another holder of ${step.role} must decide.`,
    );
  }
  const last = Math.max(...approval.steps.map((s) => s.step));
  // An owner change is no material change, so the request stays open through it: the owner a
  // re-registration names is as much the owner as the one the request recorded, or naming the
  // intended approver as owner would let them finalise their own asset.
  const owns = currentOwner !== undefined && sameActor(actor, currentOwner);
  if (step.step === last && (owns || sameActor(actor, approval.asset_owner))) {
    const owner = owns ? `owns asset ${approval.subject.asset_id}` : `owned asset ${approval.subject.asset_id} when approval ${id} was requested`;
    return refuse(
      403,
      'owner_cannot_finalise',
      'SOD-5',
      `${showActor(actor)} ${owner} and cannot take the last step of approval ${id}; another holder of ${step.role} must decide.`,
    );
  }
  return undefined;
}
