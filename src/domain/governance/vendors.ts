// Vendor assessment (docs/governance/vendors.md): the `vendor.assessed` payload derived from a
// questionnaire and its answers — points, open findings, vendor_maturity, valid_until — and the fold
// that reads vendors back, with `expired` decided at read time. Pure: the clock is a parameter.
import { formatDateTime } from '../date-time.ts';
import { derivedId } from '../derived-id.ts';
import type { Actor, StoredEvent } from '../event.ts';
import type { DerivedVendorMaturity } from './risk.ts';
import { checkVendorAssessment, vendorAssessmentError, type FactValue, type VendorAnswer, type VendorAssessmentInput } from './vendors-answers.ts';
import { POOR, requiredQuestionIds, type Points, type VendorQuestion, type VendorQuestionnaire } from './vendors-questionnaire.ts';
import { addDays, eventActor, instant, type Tier } from './types.ts';

export const VENDOR_ASSESSED = 'vendor.assessed';

/** An answer as recorded: the value (a multi_select list in the questionnaire's option order) and its points. */
export type AssessedAnswer = { question_id: string; value: string | string[]; points: Points; facts?: Record<string, FactValue>; evidence_refs?: string[] };
/**
 * A question the assessment leaves open: a required question without an answer, or an answer at 2
 * points (poor). Critical when the question is critical.
 */
export type VendorFinding = { question_id: string; severity: 'critical' | 'major'; reason: 'unanswered' | 'poor_answer' };
/** Which rule gave vendor_maturity: a required question unanswered, the critical cap, or the points band alone. */
export type MaturityRule = 'required_unanswered' | 'critical_cap' | 'points_band';
export type VendorDerived = {
  /** Sum over every question: the answer's points, 2 for a question left unanswered. */
  points: number;
  points_max: number;
  /** Questions without an answer, required or not, in questionnaire order. */
  unanswered: string[];
  open_findings: VendorFinding[];
  /** The maturity the points band alone gives. */
  band_maturity: number;
  /** 0–4, higher is safer: what a risk evaluation's vendor_maturity is compared with. */
  vendor_maturity: number;
  maturity_rule: MaturityRule;
};
export type VendorAssessedPayload = {
  assessment_id: string;
  vendor_id: string;
  name: string;
  website?: string;
  assessed_for_asset_ids?: string[];
  questionnaire: { id: string; version: string; sha256: string };
  /** The tier whose questions were required; null when none was given and every question was. */
  required_tier: Tier | null;
  answers: AssessedAnswer[];
  /** The answers are what the assessor said (docs/governance/vendors.md): never read as verified fact. */
  content_trust: 'customer_asserted';
  derived: VendorDerived;
  assessed_at: string;
  valid_until: string;
  non_claims: string[];
};

/**
 * Derives the `vendor.assessed` payload. A body checkVendorAssessment refuses throws its
 * `validation_failed` error. `required_tier` is the highest tier among the assets the vendor is
 * assessed for (undefined: every question is required); `assessment_id` defaults to one derived from
 * the vendor, questionnaire pin, answers and time: equal inputs at the same instant give equal payloads.
 */
export function assessVendor(
  questionnaire: VendorQuestionnaire,
  input: VendorAssessmentInput,
  now: Date,
  options: { required_tier?: Tier; assessment_id?: string } = {},
): VendorAssessedPayload {
  const checked = checkVendorAssessment(questionnaire, input);
  if (!checked.ok) throw vendorAssessmentError(checked.problems);
  const doc = questionnaire.document;
  const given = new Map(checked.input.answers.map((a) => [a.question_id, a]));
  const required = new Set(requiredQuestionIds(questionnaire, options.required_tier));

  const answers: AssessedAnswer[] = [];
  const unanswered: string[] = [];
  const findings: VendorFinding[] = [];
  let points = 0;
  let criticalPoor = false;
  for (const question of doc.questions) {
    const answer = given.get(question.question_id);
    const severity = question.critical ? 'critical' : 'major';
    // What is not answered is not known: it counts as poor, so leaving questions out never raises maturity.
    const scored = answer ? answerPoints(question, answer.value) : POOR;
    points += scored;
    if (question.critical && scored === POOR) criticalPoor = true;
    if (answer) {
      answers.push(recorded(question, answer, scored));
      if (scored === POOR) findings.push({ question_id: question.question_id, severity, reason: 'poor_answer' });
    } else {
      unanswered.push(question.question_id);
      if (required.has(question.question_id)) findings.push({ question_id: question.question_id, severity, reason: 'unanswered' });
    }
  }

  const { maturity } = doc;
  // The loader checked that the last band reaches points_max, so a band always matches.
  const band = maturity.bands.find((b) => points <= b.max_points)!.vendor_maturity;
  let vendorMaturity = band;
  let rule: MaturityRule = 'points_band';
  if (findings.some((f) => f.reason === 'unanswered')) {
    vendorMaturity = maturity.unanswered_required;
    rule = 'required_unanswered';
  } else if (criticalPoor && band > maturity.critical_poor_cap) {
    vendorMaturity = maturity.critical_poor_cap;
    rule = 'critical_cap';
  }

  const assessedAt = formatDateTime(now.getTime());
  const questionnaireRef = { id: questionnaire.id, version: questionnaire.version, sha256: questionnaire.sha256 };
  const body = checked.input;
  const payload: VendorAssessedPayload = {
    assessment_id: options.assessment_id ?? derivedId('vsa', { vendor_id: body.vendor_id, questionnaire: questionnaire.sha256, answers, assessed_at: assessedAt }),
    vendor_id: body.vendor_id,
    name: body.name,
    questionnaire: questionnaireRef,
    required_tier: options.required_tier ?? null,
    answers,
    content_trust: 'customer_asserted',
    derived: { points, points_max: doc.points_max, unanswered, open_findings: findings, band_maturity: band, vendor_maturity: vendorMaturity, maturity_rule: rule },
    assessed_at: assessedAt,
    valid_until: addDays(now, findings.length > 0 ? doc.valid_days.open_findings : doc.valid_days.no_open_findings),
    non_claims: [...doc.non_claims],
  };
  if (body.website !== undefined) payload.website = body.website;
  if (body.assessed_for_asset_ids !== undefined) payload.assessed_for_asset_ids = [...body.assessed_for_asset_ids];
  return payload;
}

/** An option's points; for multi_select the lowest chosen (the strongest attestation counts). */
export function answerPoints(question: VendorQuestion, value: string | readonly string[]): Points {
  const chosen = typeof value === 'string' ? [value] : value;
  const points = question.options.filter((o) => chosen.includes(o.value)).map((o) => o.points);
  return Math.min(...points) as Points;
}

function recorded(question: VendorQuestion, answer: VendorAnswer, points: Points): AssessedAnswer {
  const value = typeof answer.value === 'string' ? answer.value : question.options.map((o) => o.value).filter((v) => answer.value.includes(v));
  const out: AssessedAnswer = { question_id: question.question_id, value, points };
  if (answer.facts !== undefined && Object.keys(answer.facts).length > 0) {
    // In the question's fact order, so equal answers record equal bytes.
    out.facts = Object.fromEntries(question.facts.filter((f) => Object.hasOwn(answer.facts!, f.fact_id)).map((f) => [f.fact_id, structuredClone(answer.facts![f.fact_id]!)]));
  }
  if (answer.evidence_refs !== undefined) out.evidence_refs = [...answer.evidence_refs];
  return out;
}

/** One vendor's assessments: the latest wins; earlier ones stay listed. */
export type VendorState = {
  vendor_id: string;
  latest: VendorAssessedPayload;
  /** Who recorded the latest assessment: the envelope's actor. */
  assessed_by: Actor;
  history: { assessment_id: string; assessed_at: string; vendor_maturity: number; valid_until: string; seq: number }[];
  last_seq: number;
};

export type VendorView = {
  vendor_id: string;
  name: string;
  website?: string;
  content_trust: 'customer_asserted';
  assessment_id: string;
  questionnaire: VendorAssessedPayload['questionnaire'];
  assessed_at: string;
  assessed_by: Actor;
  assessed_for_asset_ids: string[];
  points: number;
  points_max: number;
  vendor_maturity: number;
  open_findings: VendorFinding[];
  valid_until: string;
  /** valid_until has passed at the time of reading: the vendor is due for a new assessment. */
  expired: boolean;
  assessments: number;
  last_seq: number;
};

/** One vendor's events in log order; other vendors' events and other kinds pass through. */
export function applyVendorEvent(state: VendorState | undefined, event: StoredEvent): VendorState | undefined {
  if (event.kind !== VENDOR_ASSESSED) return state;
  const p = event.payload as unknown as VendorAssessedPayload;
  if (state && p.vendor_id !== state.vendor_id) return state;
  const entry = { assessment_id: p.assessment_id, assessed_at: p.assessed_at, vendor_maturity: p.derived.vendor_maturity, valid_until: p.valid_until, seq: event.seq };
  return { vendor_id: p.vendor_id, latest: p, assessed_by: eventActor(event), history: [...(state?.history ?? []), entry], last_seq: event.seq };
}

/** Where applyVendorsEvent reads and writes vendors, by vendor_id: a Map, or the index's projection. */
export type VendorStore = { get(vendorId: string): VendorState | undefined; set(vendorId: string, state: VendorState): unknown };

/**
 * One event's effect on a scope's vendors (foldVendors's step, for a caller that holds the vendors
 * itself and feeds them events in log order): an assessment with a vendor_id folds into its
 * vendor's state; anything else passes through.
 */
export function applyVendorsEvent(vendors: VendorStore, event: StoredEvent): void {
  if (event.kind !== VENDOR_ASSESSED) return;
  const id = (event.payload as { vendor_id?: unknown }).vendor_id;
  if (typeof id !== 'string') return;
  vendors.set(id, applyVendorEvent(vendors.get(id), event)!);
}

/** Every vendor named by the events, by vendor_id. */
export function foldVendors(events: Iterable<StoredEvent>): Map<string, VendorState> {
  const vendors = new Map<string, VendorState>();
  for (const event of events) applyVendorsEvent(vendors, event);
  return vendors;
}

/** Expired from valid_until on (the same instant the reviews' vendor_expired trigger fires). */
export function vendorExpired(state: VendorState, now: Date): boolean {
  return instant(state.latest.valid_until) <= now.getTime();
}

export function vendorViewOf(state: VendorState, now: Date): VendorView {
  const p = state.latest;
  return {
    vendor_id: state.vendor_id,
    name: p.name,
    ...(p.website !== undefined ? { website: p.website } : {}),
    content_trust: 'customer_asserted',
    assessment_id: p.assessment_id,
    questionnaire: { ...p.questionnaire },
    assessed_at: p.assessed_at,
    assessed_by: state.assessed_by,
    assessed_for_asset_ids: [...(p.assessed_for_asset_ids ?? [])],
    points: p.derived.points,
    points_max: p.derived.points_max,
    vendor_maturity: p.derived.vendor_maturity,
    open_findings: p.derived.open_findings.map((f) => ({ ...f })),
    valid_until: p.valid_until,
    expired: vendorExpired(state, now),
    assessments: state.history.length,
    last_seq: state.last_seq,
  };
}

/** The vendors the events name, by vendor_id, each read at `now`. */
export function vendorView(events: readonly StoredEvent[], now: Date): VendorView[] {
  return [...foldVendors(events).values()].sort((a, b) => (a.vendor_id < b.vendor_id ? -1 : a.vendor_id > b.vendor_id ? 1 : 0)).map((state) => vendorViewOf(state, now));
}

/**
 * What a risk evaluation of an asset compares its vendor_maturity with (evaluateRisk's
 * `vendor_maturity_derived`): the lowest derived maturity among the asset's vendors that have a
 * current assessment. Vendors never assessed, or whose assessment has expired, add nothing — the
 * expiry brings the asset's review forward instead (reviews.ts vendorExpiryTrigger).
 */
export function derivedVendorMaturity(vendors: ReadonlyMap<string, VendorState>, vendorIds: readonly string[], now: Date): DerivedVendorMaturity | undefined {
  let lowest: DerivedVendorMaturity | undefined;
  for (const id of vendorIds) {
    const state = vendors.get(id);
    if (!state || vendorExpired(state, now)) continue;
    const value = state.latest.derived.vendor_maturity;
    if (lowest === undefined || value < lowest.value) lowest = { value, source: `${VENDOR_ASSESSED} ${state.latest.assessment_id} (vendor ${id})` };
  }
  return lowest;
}
