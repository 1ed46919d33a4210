// Incidents (docs/governance/incidents.md): the payload of incident.logged, the merge-patch of
// incident.updated with its lifecycle (the transition table), the serious-incident closing rule,
// the fold over both kinds, the EU AI Act Art. 73 clocks and the review triggers a sev1/sev2
// incident raises. Pure: the caller passes the clock's instant, the reporter and what it read.
import { canonicalJson } from '../canonical-json.ts';
import { normalizeDateTime } from '../date-time.ts';
import type { Actor, StoredEvent } from '../event.ts';
import { addDays, eventActor, instant, sameActor, showActor, type Refusal } from './types.ts';

export const INCIDENT_LOGGED = 'incident.logged';
export const INCIDENT_UPDATED = 'incident.updated';
/** The request schemas ($ids relative to the schema base); the payloads' are events/incident-logged.json and events/incident-updated.json. */
export const INCIDENT_CREATE_SCHEMA = 'api/incident-create-request.json';
export const INCIDENT_PATCH_SCHEMA = 'api/incident-patch-request.json';

export const INCIDENT_STATUSES = ['open', 'investigating', 'mitigated', 'closed'] as const;
export type IncidentStatus = (typeof INCIDENT_STATUSES)[number];
export const SEVERITIES = ['sev1', 'sev2', 'sev3', 'sev4'] as const;
export type Severity = (typeof SEVERITIES)[number];
export const CLOSE_REASONS = ['duplicate', 'not_an_incident', 'resolved'] as const;
export type CloseReason = (typeof CLOSE_REASONS)[number];

/** The EU AI Act Art. 73 reporting periods in days, by the Art. 3(49) limb a serious incident meets (docs/governance/incidents.md). */
export const ART73_DAYS = {
  death: 10,
  critical_infrastructure: 2,
  widespread_infringement: 2,
  health_harm: 15,
  fundamental_rights: 15,
  property_or_environment: 15,
} as const;
export type SeriousBasis = keyof typeof ART73_DAYS;
export const SERIOUS_BASES = Object.keys(ART73_DAYS) as SeriousBasis[];
export const ART73_REGIME = 'eu-ai-act:art-73';

/** What every incident answer says of its clocks. */
export const CLOCK_NON_CLAIM =
  'The EU AI Act Art. 73 clocks are computed from the declared aware_at, in UTC, for planning, not legal advice: whether an incident is serious and which period applies is for you and your counsel to decide.';
/** What every incident answer says of its text. */
export const DESCRIPTION_NON_CLAIM = 'Titles, descriptions, notes and mitigations are customer_asserted text: recorded as sent, judged by nobody here.';

/** Characters (code points, trimmed) of a regression or reopen reason, and of mitigations and each resolution member. */
export const REASON_MAX = 500;
export const LONG_TEXT_MIN = 20;
export const LONG_TEXT_MAX = 2000;

export type Tag = { framework: string; version: string; id: string };
export type Serious = { is_serious: boolean; basis: SeriousBasis | null };
export type Resolution = { root_cause: string | null; corrective_actions: string | null; lessons: string | null };
export type RegulatoryReport = { status: 'submitted' | 'not_required'; reference: string | null; decided_by: Actor; decided_at: string };

/** An incident's members, as incident.logged records them and incident.updated restates them whole. */
export type IncidentFields = {
  class: 'incident' | 'hazard';
  title: string;
  description: string;
  asset_ids: string[];
  vendor_ids: string[];
  occurred_at: string | null;
  detected_at: string | null;
  aware_at: string;
  severity: Severity;
  harm_types: string[];
  affected_stakeholders: string[];
  serious: Serious;
  causal_link: 'confirmed' | 'suspected' | 'unknown';
  model_version: string | null;
  tags: Tag[];
  evidence_refs: string[];
  status: IncidentStatus;
  close_reason: CloseReason | null;
  note: string | null;
  immediate_mitigations: string | null;
  resolution: Resolution | null;
  regulatory_report: RegulatoryReport | null;
};

export type IncidentLoggedPayload = { incident_id: string } & IncidentFields;

/** The body of POST /v1/incidents (after its schema), without the envelope's actor. */
export type IncidentCreate = {
  class: IncidentFields['class'];
  title: string;
  description: string;
  aware_at: string;
  severity: Severity;
  asset_ids?: string[];
  vendor_ids?: string[];
  occurred_at?: string | null;
  detected_at?: string | null;
  harm_types?: string[];
  affected_stakeholders?: string[];
  serious?: { is_serious: boolean; basis?: SeriousBasis | null };
  causal_link?: IncidentFields['causal_link'];
  model_version?: string | null;
  tags?: Tag[];
  evidence_refs?: string[];
};

/** The body of the PATCH (a JSON merge-patch, RFC 7396, after its schema), without the envelope's actor. */
export type IncidentPatch = {
  [K in Exclude<keyof IncidentFields, 'aware_at' | 'regulatory_report' | 'resolution' | 'serious'>]?: IncidentFields[K];
} & {
  serious?: { is_serious?: boolean; basis?: SeriousBasis | null };
  resolution?: { root_cause?: string | null; corrective_actions?: string | null; lessons?: string | null } | null;
  regulatory_report?: { status: RegulatoryReport['status']; reference?: string | null; decided_by: Actor };
  /** Why a mitigated incident regresses or a closed one reopens (1–500 characters); recorded on the event, not kept as a member. */
  reason?: string;
};

export type IncidentUpdatedPayload = {
  incident_id: string;
  /** The incident's version after this event: 2 for the first update (the logging is 1). */
  incident_version: number;
  from_status: IncidentStatus;
  to_status: IncidentStatus;
  reason: string | null;
  /** The merge-patch as accepted (trimmed texts; reason apart). */
  patch: Omit<IncidentPatch, 'reason'>;
  /** The whole incident after the patch. */
  state: IncidentFields;
};

/** A sev1 or sev2 condition met on an asset, at the recorded time of the event that met it. */
export type IncidentAssetTrigger = { asset_id: string; severity: Severity; at: string };

export type Incident = IncidentFields & {
  incident_id: string;
  /** The actor of incident.logged: who reported it. */
  reported_by: Actor;
  logged_at: string;
  updated_at: string;
  updated_by: Actor;
  /** Events that wrote the incident (1 once logged). */
  incident_version: number;
  last_event_id: string;
  /** The seq of its last event: its stream version, the ETag. */
  seq: number;
  /** Each time the incident became sev1/sev2 on an asset (that asset's review is brought forward). */
  review_triggers: IncidentAssetTrigger[];
};

/** An incident refusal: the governance Refusal with the 422s of this area. */
export type IncidentRefusal = Omit<Refusal, 'status'> & { status: 403 | 404 | 409 | 422 };
export type IncidentChecked<T> = IncidentRefusal | ({ ok: true } & T);

function refuseIncident(status: IncidentRefusal['status'], code: IncidentRefusal['code'], rule: string, message: string): IncidentRefusal {
  return { ok: false, status, code, rule, message };
}

const trimmed = (text: string): string => text.trim();
const length = (text: string): number => [...text].length;
const dateOrNull = (at: string | null | undefined, what: string): string | null => (at == null ? null : normalizeDateTime(at, what));
const uniq = <T>(items: readonly T[] | undefined): T[] => [...new Set(items ?? [])];

// ---- the transition table ----

/** What a status change needs, besides the patch's other members. */
export type TransitionRule = { close_reasons?: readonly CloseReason[]; needs: 'nothing' | 'reason' | 'mitigations' | 'closure_note' | 'resolution' };

/**
 * Every allowed status change (docs/governance/incidents.md): the happy path open → investigating →
 * mitigated → closed; open or investigating → closed only as duplicate or not_an_incident (with a
 * note); mitigated → closed as resolved (with the resolution); mitigated → investigating (a
 * regression) and closed → investigating (a reopen) with a reason. Any pair not here is refused.
 */
export const TRANSITIONS: Readonly<Record<IncidentStatus, Partial<Record<IncidentStatus, TransitionRule>>>> = {
  open: { investigating: { needs: 'nothing' }, closed: { close_reasons: ['duplicate', 'not_an_incident'], needs: 'closure_note' } },
  investigating: { mitigated: { needs: 'mitigations' }, closed: { close_reasons: ['duplicate', 'not_an_incident'], needs: 'closure_note' } },
  mitigated: { closed: { close_reasons: ['resolved'], needs: 'resolution' }, investigating: { needs: 'reason' } },
  closed: { investigating: { needs: 'reason' } },
};

export function transitionRule(from: IncidentStatus, to: IncidentStatus): TransitionRule | undefined {
  return TRANSITIONS[from][to];
}

// ---- incident.logged ----

/** The serious member as stored: basis null unless serious. */
function seriousOf(s: { is_serious?: boolean; basis?: SeriousBasis | null } | undefined): Serious {
  return { is_serious: s?.is_serious ?? false, basis: s?.basis ?? null };
}

/** INC-2: a serious incident names the Art. 3(49) limb it meets; one that is not serious names none. */
function checkSerious(serious: Serious): IncidentRefusal | undefined {
  if (serious.is_serious && serious.basis === null) {
    return refuseIncident(422, 'validation_failed', 'INC-2', `A serious incident names its basis: one of ${SERIOUS_BASES.join(', ')} (it sets the Art. 73 clock).`);
  }
  if (!serious.is_serious && serious.basis !== null) {
    return refuseIncident(422, 'validation_failed', 'INC-2', 'serious.basis is only for a serious incident: set is_serious true, or basis null.');
  }
  return undefined;
}

/** The longest Art. 73 period: a later patch may make any incident serious on any basis. */
const LONGEST_CLOCK_DAYS = Math.max(...Object.values(ART73_DAYS));

/**
 * aware_at is fixed at logging and the clock is counted from it: an instant so late that the
 * longest clock would end after 9999-12-31 has no due date-time, and every read of the incident
 * would fail. It is refused before anything is written.
 */
function checkClockRoom(aware: string): IncidentRefusal | undefined {
  try {
    addDays(aware, LONGEST_CLOCK_DAYS);
    return undefined;
  } catch {
    return refuseIncident(422, 'validation_failed', 'INC-1', `aware_at ${aware} leaves no room for the Art. 73 clock, which may run ${LONGEST_CLOCK_DAYS} days from it past the last date-time (9999-12-31T23:59:59.999Z): send when the team became aware.`);
  }
}

/** INC-1 (logging): the payload of incident.logged for a body that passed INCIDENT_CREATE_SCHEMA. Every incident starts open. */
export function buildLoggedPayload(incidentId: string, body: IncidentCreate): IncidentChecked<{ payload: IncidentLoggedPayload }> {
  const serious = seriousOf(body.serious);
  const refused = checkSerious(serious);
  if (refused) return refused;
  const aware = normalizeDateTime(body.aware_at, 'aware_at');
  const late = checkClockRoom(aware);
  if (late) return late;
  return {
    ok: true,
    payload: {
      incident_id: incidentId,
      class: body.class,
      title: trimmed(body.title),
      description: trimmed(body.description),
      asset_ids: uniq(body.asset_ids),
      vendor_ids: uniq(body.vendor_ids),
      occurred_at: dateOrNull(body.occurred_at, 'occurred_at'),
      detected_at: dateOrNull(body.detected_at, 'detected_at'),
      aware_at: aware,
      severity: body.severity,
      harm_types: uniq(body.harm_types),
      affected_stakeholders: uniq(body.affected_stakeholders),
      serious,
      causal_link: body.causal_link ?? 'unknown',
      model_version: body.model_version ?? null,
      tags: [...(body.tags ?? [])],
      evidence_refs: uniq(body.evidence_refs),
      status: 'open',
      close_reason: null,
      note: null,
      immediate_mitigations: null,
      resolution: null,
      regulatory_report: null,
    },
  };
}

// ---- incident.updated ----

type PatchInput = { incident: Incident; patch: IncidentPatch; actor: Actor; now: Date };

/** Trims the texts of a patch, as they are recorded. */
function acceptedPatch(patch: Omit<IncidentPatch, 'reason'>): Omit<IncidentPatch, 'reason'> {
  const out: Omit<IncidentPatch, 'reason'> = { ...patch };
  for (const key of ['title', 'description', 'note', 'immediate_mitigations', 'model_version'] as const) {
    const value = out[key];
    if (typeof value === 'string') out[key] = value.trim();
  }
  if (out.resolution) {
    const r = { ...out.resolution };
    for (const key of ['root_cause', 'corrective_actions', 'lessons'] as const) if (typeof r[key] === 'string') r[key] = r[key].trim();
    out.resolution = r;
  }
  if (out.regulatory_report) out.regulatory_report = { ...out.regulatory_report, ...(typeof out.regulatory_report.reference === 'string' ? { reference: out.regulatory_report.reference.trim() } : {}) };
  for (const key of ['asset_ids', 'vendor_ids', 'harm_types', 'affected_stakeholders', 'evidence_refs'] as const) if (out[key]) out[key] = uniq(out[key]);
  for (const key of ['occurred_at', 'detected_at'] as const) if (typeof out[key] === 'string') out[key] = normalizeDateTime(out[key], key);
  return out;
}

/**
 * The incident's members after a merge-patch (RFC 7396): a member given replaces the member, null
 * clears a nullable one, arrays are replaced whole; `serious` and `resolution` merge member by member
 * (null clears one); a `regulatory_report` is a new decision and replaces the previous one whole,
 * stamped with `now`. Leaving `closed` clears close_reason.
 */
function merged(current: IncidentFields, patch: Omit<IncidentPatch, 'reason'>, now: Date): IncidentFields {
  const { serious, resolution, regulatory_report: report, ...flat } = patch;
  const next: IncidentFields = { ...current, ...(flat as Partial<IncidentFields>) };
  if (serious !== undefined) {
    const s = { ...current.serious, ...serious };
    next.serious = { is_serious: s.is_serious, basis: s.basis ?? null };
  }
  if (resolution !== undefined) {
    if (resolution === null) next.resolution = null;
    else {
      const r = { root_cause: null, corrective_actions: null, lessons: null, ...current.resolution, ...resolution };
      next.resolution = { root_cause: r.root_cause ?? null, corrective_actions: r.corrective_actions ?? null, lessons: r.lessons ?? null };
    }
  }
  if (report !== undefined) next.regulatory_report = { status: report.status, reference: report.reference ?? null, decided_by: report.decided_by, decided_at: now.toISOString() };
  if (next.status !== 'closed') next.close_reason = null;
  return next;
}

const longTextOk = (text: string | null | undefined): boolean => typeof text === 'string' && length(text) >= LONG_TEXT_MIN && length(text) <= LONG_TEXT_MAX;

/** INC-3 and INC-4: the status change is in the table, under a closure reason its from-status allows, and the patch holds what it needs. */
function checkTransition(from: IncidentStatus, next: IncidentFields, patch: IncidentPatch, reason: string | null): IncidentRefusal | undefined {
  const to = next.status;
  if (patch.close_reason !== undefined && !(to === 'closed' && from !== 'closed')) {
    return refuseIncident(422, 'validation_failed', 'INC-3', 'close_reason is sent only with a move to status closed.');
  }
  if (to === from) {
    if (patch.reason !== undefined) return refuseIncident(422, 'validation_failed', 'INC-4', 'reason is sent only with a regression (mitigated → investigating) or a reopen (closed → investigating).');
    return undefined;
  }
  const rule = transitionRule(from, to);
  const allowed = Object.keys(TRANSITIONS[from]).join(' or ');
  if (!rule) return refuseIncident(409, 'invalid_transition', 'INC-3', `An incident cannot move from ${from} to ${to}; from ${from} it moves to ${allowed}.`);
  if (rule.close_reasons) {
    if (next.close_reason === null) {
      return refuseIncident(422, 'transition_incomplete', 'INC-4', `Closing from ${from} needs close_reason: ${rule.close_reasons.join(' or ')}.`);
    }
    if (!rule.close_reasons.includes(next.close_reason)) {
      return refuseIncident(409, 'invalid_transition', 'INC-3', `From ${from} an incident closes only as ${rule.close_reasons.join(' or ')}, not ${next.close_reason}${from === 'mitigated' ? '' : ': mitigate it first to close it as resolved'}.`);
    }
  }
  if (rule.needs !== 'reason' && patch.reason !== undefined) {
    return refuseIncident(422, 'validation_failed', 'INC-4', 'reason is sent only with a regression (mitigated → investigating) or a reopen (closed → investigating).');
  }
  switch (rule.needs) {
    case 'reason':
      if (reason === null || length(reason) < 1 || length(reason) > REASON_MAX) {
        return refuseIncident(422, 'transition_incomplete', 'INC-4', `${from === 'closed' ? 'Reopening' : 'A regression'} (${from} → ${to}) needs a reason of 1–${REASON_MAX} characters in the patch.`);
      }
      return undefined;
    case 'closure_note':
      if (next.note === null || length(next.note) < 1) return refuseIncident(422, 'transition_incomplete', 'INC-4', `Closing as ${next.close_reason} needs a note saying why (the duplicate's id, or why it is no incident).`);
      return undefined;
    case 'mitigations':
      if (!longTextOk(next.immediate_mitigations)) {
        return refuseIncident(422, 'transition_incomplete', 'INC-4', `Mitigated needs immediate_mitigations of ${LONG_TEXT_MIN}–${LONG_TEXT_MAX} characters: what was done to contain the harm.`);
      }
      return undefined;
    case 'resolution': {
      const r = next.resolution;
      const missing = (['root_cause', 'corrective_actions', 'lessons'] as const).filter((k) => !longTextOk(r?.[k]));
      if (missing.length > 0) {
        return refuseIncident(422, 'transition_incomplete', 'INC-4', `Closing as resolved needs a resolution whose ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} ${LONG_TEXT_MIN}–${LONG_TEXT_MAX} characters.`);
      }
      return undefined;
    }
    default:
      return undefined;
  }
}

/**
 * INC-5, a regulatory_report decision in the patch: it is the patch's own actor's decision
 * (decided_by is the request's actor); `not_required` is decided by a user who is not the reporter
 * (the approvals' separation of duties: who reports an incident does not waive its report).
 */
export function checkReportDecision(report: NonNullable<IncidentPatch['regulatory_report']>, actor: Actor, reporter: Actor): IncidentRefusal | undefined {
  if (!sameActor(report.decided_by, actor)) {
    return refuseIncident(403, 'report_decider_mismatch', 'INC-5', `regulatory_report.decided_by (${showActor(report.decided_by)}) must be the actor sending the patch (${showActor(actor)}).`);
  }
  if (report.status !== 'not_required') return undefined;
  if (actor.type !== 'user') {
    return refuseIncident(403, 'actor_type_not_allowed', 'INC-5', 'Only a user decides that a serious incident needs no regulatory report; agents and service accounts may not.');
  }
  if (sameActor(actor, reporter)) {
    return refuseIncident(403, 'reporter_cannot_waive_report', 'INC-5', `${showActor(reporter)} reported this incident, so another user must decide that it needs no regulatory report.`);
  }
  return undefined;
}

/**
 * INC-5, a serious incident made not serious: that waives its report as `not_required` does, so it
 * follows the same separation of duties (a user who is not the reporter). Without it, the reporter
 * or an agent could clear the flag and close the incident in one patch, or in two.
 */
export function checkDeclassification(before: Serious, after: Serious, actor: Actor, reporter: Actor): IncidentRefusal | undefined {
  if (!before.is_serious || after.is_serious) return undefined;
  if (actor.type !== 'user') {
    return refuseIncident(403, 'actor_type_not_allowed', 'INC-5', 'Only a user decides that a serious incident is not serious (that waives its regulatory report); agents and service accounts may not.');
  }
  if (sameActor(actor, reporter)) {
    return refuseIncident(403, 'reporter_cannot_waive_report', 'INC-5', `${showActor(reporter)} reported this incident, so another user must decide that it is not serious (that waives its regulatory report).`);
  }
  return undefined;
}

/**
 * INC-1, once the status rules have read the patch (a misplaced member is named as such): members
 * sent with the values they hold change nothing, and write nothing. A report decision is new
 * whatever it says (stamped with the clock).
 */
function checkChanges(current: IncidentFields, next: IncidentFields, patch: Omit<IncidentPatch, 'reason'>): IncidentRefusal | undefined {
  if (patch.regulatory_report !== undefined || canonicalJson(next) !== canonicalJson(current)) return undefined;
  return refuseIncident(422, 'validation_failed', 'INC-1', 'The patch changes nothing: every member it sends already holds that value.');
}

/** INC-6: a serious incident is closed only once a regulatory_report decision is recorded (submitted, or not_required per INC-5). */
export function checkSeriousClosing(next: IncidentFields, from: IncidentStatus): IncidentRefusal | undefined {
  if (next.status !== 'closed' || from === 'closed' || !next.serious.is_serious || next.regulatory_report !== null) return undefined;
  return refuseIncident(
    422,
    'regulatory_report_required',
    'INC-6',
    'A serious incident is closed only with a regulatory_report decision: {status: submitted, reference} once reported, or {status: not_required} decided by a user other than the reporter.',
  );
}

/**
 * `PATCH /v1/incidents/{incident_id}` after the body passed INCIDENT_PATCH_SCHEMA, the incident
 * was found and its asset and evidence references checked, in this order: INC-1 the patch changes
 * a member (reason alone is no change; members sent with the values they hold are none either,
 * found once INC-3 has named misplaced members); INC-2 the serious member stays consistent; INC-3 a status
 * change is in the table (409 invalid_transition) and close_reason comes only with closing; INC-4
 * the change holds what it needs (422 transition_incomplete); INC-5 a regulatory_report decision
 * is the actor's and, as not_required, a user's other than the reporter's, as is making a serious
 * incident not serious (403); INC-6 closing a
 * serious incident needs a regulatory_report decision (422). Answers incident.updated's payload.
 */
export function checkIncidentPatch(input: PatchInput): IncidentChecked<{ payload: IncidentUpdatedPayload }> {
  const { incident, actor, now } = input;
  const { reason: rawReason, ...rest } = input.patch;
  if (Object.keys(rest).length === 0) {
    return refuseIncident(422, 'validation_failed', 'INC-1', 'The patch changes nothing: send at least one member of the incident (reason alone is not a change).');
  }
  const patch = acceptedPatch(rest);
  const reason = rawReason === undefined ? null : rawReason.trim();
  const from = incident.status;
  const { incident_id: _i, reported_by: _r, logged_at: _l, updated_at: _u, updated_by: _b, incident_version: _v, last_event_id: _e, seq: _s, review_triggers: _t, ...current } = incident;
  const next = merged(current, patch, now);
  const refusal =
    checkSerious(next.serious) ??
    checkTransition(from, next, { ...patch, ...(rawReason !== undefined ? { reason: rawReason } : {}) }, reason) ??
    checkChanges(current, next, patch) ??
    (patch.regulatory_report ? checkReportDecision(patch.regulatory_report, actor, incident.reported_by) : undefined) ??
    checkDeclassification(current.serious, next.serious, actor, incident.reported_by) ??
    checkSeriousClosing(next, from);
  if (refusal) return refusal;
  return {
    ok: true,
    payload: { incident_id: incident.incident_id, incident_version: incident.incident_version + 1, from_status: from, to_status: next.status, reason, patch, state: next },
  };
}

// ---- the fold ----

const triggering = (f: Pick<IncidentFields, 'severity'>): boolean => f.severity === 'sev1' || f.severity === 'sev2';

/** The assets the event newly puts under a sev1/sev2 incident. */
function newTriggers(before: IncidentFields | undefined, after: IncidentFields, at: string): IncidentAssetTrigger[] {
  if (!triggering(after)) return [];
  const had = before && triggering(before) ? new Set(before.asset_ids) : new Set<string>();
  return after.asset_ids.filter((id) => !had.has(id)).map((asset_id) => ({ asset_id, severity: after.severity, at }));
}

/** The incident an incident.* event names, or undefined for other events. */
export function incidentIdOf(event: StoredEvent): string | undefined {
  if (event.kind !== INCIDENT_LOGGED && event.kind !== INCIDENT_UPDATED) return undefined;
  const id = (event.payload as { incident_id?: unknown }).incident_id;
  return typeof id === 'string' ? id : undefined;
}

/** One incident's next state after one of its events (its first must be incident.logged). */
export function applyIncidentEvent(before: Incident | undefined, event: StoredEvent): Incident | undefined {
  const meta = { updated_at: event.recorded_at, updated_by: eventActor(event), last_event_id: event.event_id, seq: event.seq };
  if (event.kind === INCIDENT_LOGGED) {
    if (before) return before;
    const { incident_id, ...fields } = event.payload as unknown as IncidentLoggedPayload;
    return {
      ...fields, incident_id, reported_by: eventActor(event), logged_at: event.recorded_at, incident_version: 1, ...meta,
      review_triggers: newTriggers(undefined, fields, event.recorded_at),
    };
  }
  if (event.kind === INCIDENT_UPDATED && before) {
    const p = event.payload as unknown as IncidentUpdatedPayload;
    return {
      ...before, ...p.state, incident_version: p.incident_version, ...meta,
      review_triggers: [...before.review_triggers, ...newTriggers(before, p.state, event.recorded_at)],
    };
  }
  return before;
}

/** The incidents of a scope, folded from its incident.logged and incident.updated events (any order: folded by seq). */
export function foldIncidents(events: readonly StoredEvent[]): Map<string, Incident> {
  const out = new Map<string, Incident>();
  for (const event of [...events].sort((a, b) => a.seq - b.seq)) {
    const id = incidentIdOf(event);
    if (id === undefined) continue;
    const after = applyIncidentEvent(out.get(id), event);
    if (after) out.set(id, after);
  }
  return out;
}

// ---- clocks ----

export type IncidentClock = {
  regime: typeof ART73_REGIME;
  basis: SeriousBasis;
  days: number;
  /** aware_at: the clock counts whole UTC days of 24 hours from it. */
  from: string;
  due_at: string;
  /** running: before due_at; overdue: after it with no decision; answered: a regulatory_report decision is recorded. */
  status: 'running' | 'overdue' | 'answered';
  /** Whole seconds from now to due_at (negative once overdue); null once answered. */
  remaining_seconds: number | null;
  /** Whether the decision was recorded by due_at; null until answered. */
  answered_in_time: boolean | null;
};

/** The Art. 73 clock of an incident at `now`: only a serious one with a basis has one. */
export function incidentClocks(incident: Pick<IncidentFields, 'aware_at' | 'serious' | 'regulatory_report'>, now: Date): IncidentClock[] {
  const basis = incident.serious.basis;
  if (!incident.serious.is_serious || basis === null) return [];
  const days = ART73_DAYS[basis];
  const dueAt = addDays(incident.aware_at, days);
  const due = instant(dueAt);
  const report = incident.regulatory_report;
  const remaining = Math.trunc((due - now.getTime()) / 1000);
  return [{
    regime: ART73_REGIME,
    basis,
    days,
    from: incident.aware_at,
    due_at: dueAt,
    status: report ? 'answered' : now.getTime() > due ? 'overdue' : 'running',
    remaining_seconds: report ? null : remaining,
    answered_in_time: report ? instant(report.decided_at) <= due : null,
  }];
}
