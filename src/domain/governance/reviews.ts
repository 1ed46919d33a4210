// Periodic reviews of an asset (docs/governance/approvals.md §4): the derived review id, the cadence
// of each tier, the triggers that bring a review forward, the status read against the clock, and the
// checks of completing one.
import { sha256Hex } from '../canonical-json.ts';
import type { Actor } from '../event.ts';
import { latestEvaluation, type AssetState } from './assets.ts';
import { addDays, instant, refuse, sameActor, showActor, type Checked, type Tier } from './types.ts';

export const REVIEW_COMPLETED = 'review.completed';

/** Days from the clock's start to the next review, by the tier of the latest evaluation. */
export const REVIEW_CADENCE_DAYS: Readonly<Record<Tier, number>> = { minimal: 365, limited: 180, high: 90, prohibited: 30 };
/** A trigger makes the review due this many days after it happened. */
export const TRIGGER_DUE_DAYS = 14;
/** A review is `due` from this many days before its due date (`upcoming` before that). */
export const DUE_WINDOW_DAYS = 14;

export const REVIEW_OUTCOMES = ['no_change', 'changes_required', 'reevaluate', 'retire'] as const;
export type ReviewOutcome = (typeof REVIEW_OUTCOMES)[number];
export type ReviewStatus = 'upcoming' | 'due' | 'overdue';

export type ReviewTriggerKind = 'incident' | 'asset_changed' | 'vendor_expired' | 'policy_changed';
/** Something that happened at `at` and brings the review forward; `ref` names it (incident, revision, vendor, policy version). */
export type ReviewTrigger = { kind: ReviewTriggerKind; at: string; ref?: string };

export type ReviewCompletedPayload = {
  review_id: string;
  asset_id: string;
  cycle: number;
  tier: Tier;
  due_at: string;
  outcome: ReviewOutcome;
  notes: string;
  evidence_refs?: string[];
  /** What made this cycle due early, if anything did. */
  trigger?: ReviewTrigger;
  /** When the next cycle falls due by cadence; null when the asset is retired. */
  next_due_at: string | null;
};
export type ReviewCompleteBody = { outcome: ReviewOutcome; notes: string; evidence_refs?: string[] };

export type ReviewSchedule = {
  review_id: string;
  asset_id: string;
  cycle: number;
  tier: Tier;
  /** The later of the latest evaluation and the latest completed review. */
  clock_from: string;
  due_at: string;
  status: ReviewStatus;
  trigger?: ReviewTrigger;
};

/**
 * `rvw_` + the first 16 hex of SHA-256(asset_id) + `_` + cycle: deterministic, so a retried
 * completion names the same review, and within the 128 characters of an id.
 */
export function reviewId(assetId: string, cycle: number): string {
  return `rvw_${sha256Hex(assetId).slice(0, 16)}_${cycle}`;
}

/** The parts of a review id, or null when it is not one. */
export function parseReviewId(id: string): { asset_hash: string; cycle: number } | null {
  const m = /^rvw_([0-9a-f]{16})_([1-9][0-9]{0,8})$/.exec(id);
  return m ? { asset_hash: m[1]!, cycle: Number(m[2]) } : null;
}

/** upcoming until DUE_WINDOW_DAYS before due_at, due until due_at, overdue after it. */
export function reviewStatus(dueAt: string, now: Date): ReviewStatus {
  const t = now.getTime();
  const due = instant(dueAt);
  if (t > due) return 'overdue';
  return t >= instant(addDays(dueAt, -DUE_WINDOW_DAYS)) ? 'due' : 'upcoming';
}

/** A sev1 or sev2 incident on the asset is a trigger; milder ones are not. */
export function incidentTrigger(assetId: string, incident: { incident_id?: string; severity: string; asset_ids?: readonly string[]; at: string }): ReviewTrigger | undefined {
  if (incident.severity !== 'sev1' && incident.severity !== 'sev2') return undefined;
  if (!(incident.asset_ids ?? []).includes(assetId)) return undefined;
  return { kind: 'incident', at: incident.at, ...(incident.incident_id !== undefined ? { ref: incident.incident_id } : {}) };
}

/**
 * The review triggers incidents raise for an asset at `now`: each time one became sev1 or sev2 on
 * it (logged so, raised to it, or the asset added to such an incident), as the incidents record them.
 */
export function incidentReviewTriggers(
  incidents: Iterable<{ incident_id: string; review_triggers: ReadonlyArray<{ asset_id: string; severity: string; at: string }> }>,
  assetId: string,
  now: Date,
): ReviewTrigger[] {
  const out: ReviewTrigger[] = [];
  for (const incident of incidents) {
    for (const t of incident.review_triggers) {
      if (t.asset_id !== assetId || instant(t.at) > now.getTime()) continue;
      const trigger = incidentTrigger(assetId, { incident_id: incident.incident_id, severity: t.severity, asset_ids: [t.asset_id], at: t.at });
      if (trigger) out.push(trigger);
    }
  }
  return out;
}

/** A vendor assessment the asset uses triggers when it expires: at valid_until, once that has passed. */
export function vendorExpiryTrigger(vendor: { vendor_id: string; valid_until: string }, now: Date): ReviewTrigger | undefined {
  return instant(vendor.valid_until) <= now.getTime() ? { kind: 'vendor_expired', at: vendor.valid_until, ref: vendor.vendor_id } : undefined;
}

/**
 * The open review of an asset at `now`, or undefined when there is none (never evaluated, or
 * retired). Its due date is the clock's start plus the tier's cadence, brought forward to 14 days
 * after the earliest trigger since the clock started (never pushed back). The asset's own changed
 * revisions are triggers; the caller adds incidents, expired vendor assessments and a new policy
 * version. Triggers before the clock started were answered by that review or evaluation; triggers
 * after `now` have not happened yet.
 */
export function reviewSchedule(asset: AssetState, triggers: readonly ReviewTrigger[], now: Date): ReviewSchedule | undefined {
  const evaluation = latestEvaluation(asset);
  if (!evaluation || asset.retired_at !== undefined) return undefined;
  const review = asset.last_review;
  const clockFrom = review && instant(review.completed_at) > instant(evaluation.evaluated_at) ? review.completed_at : evaluation.evaluated_at;
  const start = instant(clockFrom);
  const own: ReviewTrigger[] = asset.revisions.filter((r) => r.changed.length > 0).map((r) => ({ kind: 'asset_changed', at: r.registered_at, ref: `revision ${r.revision}` }));
  const trigger = [...own, ...triggers].filter((tr) => instant(tr.at) > start && instant(tr.at) <= now.getTime()).sort((a, b) => instant(a.at) - instant(b.at))[0];
  const byCadence = addDays(clockFrom, REVIEW_CADENCE_DAYS[evaluation.tier]);
  const byTrigger = trigger ? addDays(trigger.at, TRIGGER_DUE_DAYS) : undefined;
  const early = byTrigger !== undefined && instant(byTrigger) < instant(byCadence);
  const dueAt = early ? byTrigger : byCadence;
  const cycle = (review?.cycle ?? 0) + 1;
  return {
    review_id: reviewId(asset.asset_id, cycle),
    asset_id: asset.asset_id,
    cycle,
    tier: evaluation.tier,
    clock_from: clockFrom,
    due_at: dueAt,
    status: reviewStatus(dueAt, now),
    ...(early ? { trigger } : {}),
  };
}

/**
 * `POST /v1/reviews/{review_id}/complete` against the asset's open review (`schedule`, from
 * reviewSchedule; the caller answers 404 for an id naming no asset in scope). REV-1 the id is the
 * open cycle; REV-2 the completer is a user; REV-3 not the owner of a high-tier asset.
 */
export function checkReviewCompletion(
  schedule: ReviewSchedule | undefined,
  reviewIdGiven: string,
  body: ReviewCompleteBody,
  actor: Actor,
  assetOwner: Actor,
  now: Date,
): Checked<{ payload: ReviewCompletedPayload }> {
  if (!schedule || schedule.review_id !== reviewIdGiven) {
    const open = schedule ? `the open review is ${schedule.review_id} (cycle ${schedule.cycle})` : 'the asset has no open review (not evaluated, or retired)';
    return refuse(409, 'review_cycle_stale', 'REV-1', `Review ${reviewIdGiven} is not open: ${open}. Read GET /v1/reviews?asset_id=… and complete the open one.`);
  }
  if (actor.type !== 'user') {
    return refuse(403, 'actor_type_not_allowed', 'REV-2', `Only users complete reviews; send the completion as a user, not ${showActor(actor)}.`);
  }
  if (schedule.tier === 'high' && sameActor(actor, assetOwner)) {
    return refuse(403, 'owner_cannot_review', 'REV-3', `${showActor(actor)} owns high-tier asset ${schedule.asset_id} and cannot complete its review; another user must.`);
  }
  const payload: ReviewCompletedPayload = {
    review_id: schedule.review_id,
    asset_id: schedule.asset_id,
    cycle: schedule.cycle,
    tier: schedule.tier,
    due_at: schedule.due_at,
    outcome: body.outcome,
    notes: body.notes,
    next_due_at: body.outcome === 'retire' ? null : addDays(now, REVIEW_CADENCE_DAYS[schedule.tier]),
  };
  if (body.evidence_refs !== undefined) payload.evidence_refs = [...body.evidence_refs];
  if (schedule.trigger) payload.trigger = schedule.trigger;
  return { ok: true, payload };
}
