// Regulatory posture (docs/governance/regulatory.md §2): a scope's — or an asset's — self-assessed
// status per profile requirement, the check of a PATCH (met needs evidence, not_applicable needs a
// justification), the fold over regulatory.posture.updated and the summary a dashboard shows.
import { canonicalJson } from '../canonical-json.ts';
import type { Actor, StoredEvent } from '../event.ts';
import { requirementOf, type RegulatoryProfile } from './regulatory-profile.ts';
import { eventActor, type Refusal } from './types.ts';

export const REGULATORY_POSTURE_UPDATED = 'regulatory.posture.updated';
/** The PATCH body's schema (a $id relative to the schema base); the payload's is events/regulatory-posture-updated.json. */
export const POSTURE_PATCH_SCHEMA = 'api/posture-patch-request.json';

export const POSTURE_STATUSES = ['not_started', 'in_progress', 'met', 'not_applicable'] as const;
export type PostureStatus = (typeof POSTURE_STATUSES)[number];

/** Characters (code points) of a trimmed not_applicable justification, as in a Statement of Applicability. */
export const JUSTIFICATION_MIN = 20;
export const JUSTIFICATION_MAX = 500;

/** What every posture answer says of itself: the service records a self-assessment and judges nothing. */
export const POSTURE_NON_CLAIM = 'Posture is a self-assessment recorded in this service; it is not certification, an audit or a conformity assessment, and it is not legal advice.';

/** What the claim engine (cb-2, at read time) makes of an item's cited evidence; the caller computes it. */
export type EvidenceConfidence = 'verified' | 'claimed' | 'none';

/** The body of the PATCH, without the envelope's actor. null clears owner, note or justification. */
export type PosturePatch = {
  status?: PostureStatus;
  owner?: Actor | null;
  evidence_refs?: string[];
  note?: string | null;
  justification?: string | null;
  asset_id?: string;
};
/** The members of an item a patch can change. */
export type PostureItemState = { status: PostureStatus; owner: Actor | null; evidence_refs: string[]; note: string | null; justification: string | null };

export type PostureUpdatedPayload = {
  profile_id: string;
  requirement_id: string;
  /** Absent for the scope's own item. */
  asset_id?: string;
  /** The item's version after this event: 1 for its first. */
  item_version: number;
  previous_status: PostureStatus;
  /** The whole item after the change. */
  state: PostureItemState;
  /** What the request changed, as accepted (asset_id picks the item and is not a change). */
  patch: Omit<PosturePatch, 'asset_id'>;
};

export type PostureItem = PostureItemState & {
  profile_id: string;
  requirement_id: string;
  asset_id: string | null;
  /** The number of events that wrote the item. If-Match compares `seq`, its stream's version. */
  item_version: number;
  updated_at: string;
  updated_by: Actor;
  event_id: string;
  seq: number;
};
export type Posture = { items: Readonly<Record<string, PostureItem>>; last_seq: number };

/** A posture refusal: the governance Refusal, with the 422s of this area. */
export type PostureRefusal = Omit<Refusal, 'status'> & { status: 404 | 422 };
export type PostureChecked<T> = PostureRefusal | ({ ok: true } & T);

function refusePosture(status: PostureRefusal['status'], code: PostureRefusal['code'], rule: string, message: string): PostureRefusal {
  return { ok: false, status, code, rule, message };
}

const UNTOUCHED: PostureItemState = { status: 'not_started', owner: null, evidence_refs: [], note: null, justification: null };

/** The key of an item within a scope: an asset's items apart from the scope's (ids hold no '/'). */
export function postureItemKey(requirementId: string, assetId?: string | null): string {
  return assetId == null ? requirementId : `${assetId}/${requirementId}`;
}

export function postureItemOf(posture: Posture | undefined, requirementId: string, assetId?: string | null): PostureItem | undefined {
  return posture?.items[postureItemKey(requirementId, assetId)];
}

const codePoints = (text: string): number => [...text].length;

/**
 * `PATCH /v1/regulatory/frameworks/{profile_id}/requirements/{requirement_id}`, after the body
 * passed POSTURE_PATCH_SCHEMA, in this order: REG-1 the profile and requirement exist (the path
 * may name the requirement by its full or local id); REG-2 the patch changes something (members
 * sent with the values they hold change nothing); REG-3
 * every cited artifact is in the scope's evidence pool (`pool`: its artifact ids) and a resulting
 * `met` cites at least one; REG-4 a resulting `not_applicable` has a justification, and any
 * justification is 20–500 characters once trimmed. The rules judge the item as it will be, so a
 * patch of the note alone cannot leave an unbacked `met` behind. `current` is the item as folded.
 */
export function checkPostureUpdate(
  profiles: ReadonlyMap<string, RegulatoryProfile>,
  target: { profile_id: string; requirement_id: string },
  patch: PosturePatch,
  current: PostureItem | undefined,
  pool: ReadonlySet<string>,
): PostureChecked<{ payload: PostureUpdatedPayload }> {
  const profile = profiles.get(target.profile_id);
  if (!profile) return refusePosture(404, 'not_found', 'REG-1', `No regulatory profile ${target.profile_id}; GET /v1/regulatory/profiles lists them.`);
  const requirement = requirementOf(profile, target.requirement_id);
  if (!requirement) {
    return refusePosture(404, 'not_found', 'REG-1', `Profile ${profile.id} has no requirement ${target.requirement_id}; GET /v1/regulatory/profiles lists its requirement ids.`);
  }
  const { asset_id: assetId, ...change } = patch;
  if (change.evidence_refs !== undefined) change.evidence_refs = [...change.evidence_refs];
  if (change.justification != null) change.justification = change.justification.trim();
  if (Object.keys(change).length === 0) {
    return refusePosture(422, 'validation_failed', 'REG-2', 'The patch changes nothing: send at least one of status, owner, evidence_refs, note or justification.');
  }
  const before: PostureItemState = current ?? UNTOUCHED;
  const state: PostureItemState = {
    status: change.status ?? before.status,
    owner: change.owner !== undefined ? change.owner : before.owner,
    evidence_refs: [...(change.evidence_refs ?? before.evidence_refs)],
    note: change.note !== undefined ? change.note : before.note,
    justification: change.justification !== undefined ? change.justification : before.justification,
  };
  const unchanged: PostureItemState = { status: before.status, owner: before.owner, evidence_refs: before.evidence_refs, note: before.note, justification: before.justification };
  if (canonicalJson(state) === canonicalJson(unchanged)) {
    return refusePosture(422, 'validation_failed', 'REG-2', 'The patch changes nothing: every member it sends already holds that value.');
  }
  const missing = state.evidence_refs.filter((ref) => !pool.has(ref));
  if (missing.length > 0) {
    return refusePosture(
      422,
      'evidence_required',
      'REG-3',
      `${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not in this scope's evidence pool: attach the evidence first, then cite its artifact_id.`,
    );
  }
  if (state.status === 'met' && state.evidence_refs.length === 0) {
    return refusePosture(
      422,
      'evidence_required',
      'REG-3',
      `${requirement.ref} can be met only with evidence: cite artifact ids from this scope's evidence pool in evidence_refs.`,
    );
  }
  const length = state.justification === null ? 0 : codePoints(state.justification);
  if ((state.status === 'not_applicable' && state.justification === null) || (state.justification !== null && (length < JUSTIFICATION_MIN || length > JUSTIFICATION_MAX))) {
    return refusePosture(
      422,
      'justification_required',
      'REG-4',
      `${state.status === 'not_applicable' ? `Marking ${requirement.ref} not_applicable needs a justification:` : 'A justification is'} ${JUSTIFICATION_MIN}–${JUSTIFICATION_MAX} characters saying why the requirement does not apply${state.justification === null ? '' : ` (this one has ${length})`}.`,
    );
  }
  const payload: PostureUpdatedPayload = {
    profile_id: profile.id,
    requirement_id: requirement.requirement_id,
    item_version: (current?.item_version ?? 0) + 1,
    previous_status: before.status,
    state,
    patch: change,
  };
  if (assetId !== undefined) payload.asset_id = assetId;
  return { ok: true, payload };
}

/** Where applyPostureItemEvent reads and writes items, by postureItemKey: a Map, or a posture's items. */
export type PostureItemStore = { get(key: string): PostureItem | undefined; set(key: string, item: PostureItem): unknown };

/**
 * One event's effect on a scope's items (applyPostureEvent's step, for a caller that holds the items
 * itself and feeds them events in log order): the item it writes replaces its entry. Events of
 * other kinds pass through.
 */
export function applyPostureItemEvent(items: PostureItemStore, event: StoredEvent): void {
  if (event.kind !== REGULATORY_POSTURE_UPDATED) return;
  const p = event.payload as unknown as PostureUpdatedPayload;
  const key = postureItemKey(p.requirement_id, p.asset_id);
  const before = items.get(key);
  items.set(key, {
    ...p.state,
    evidence_refs: [...p.state.evidence_refs],
    profile_id: p.profile_id,
    requirement_id: p.requirement_id,
    asset_id: p.asset_id ?? null,
    // The log orders an item's events, so its version counts them; the payload's equals it when the
    // append went through the item's stream expectation, as every PATCH does.
    item_version: (before?.item_version ?? 0) + 1,
    updated_at: event.recorded_at,
    updated_by: eventActor(event),
    event_id: event.event_id,
    seq: event.seq,
  });
}

/** One scope's posture items, in log order; events of other kinds pass through. */
export function applyPostureEvent(posture: Posture | undefined, event: StoredEvent): Posture | undefined {
  if (event.kind !== REGULATORY_POSTURE_UPDATED) return posture;
  let written: { key: string; item: PostureItem } | undefined;
  applyPostureItemEvent({ get: (key) => posture?.items[key], set: (key, item) => (written = { key, item }) }, event);
  return { items: { ...posture?.items, [written!.key]: written!.item }, last_seq: event.seq };
}

export function foldPosture(events: Iterable<StoredEvent>): Posture | undefined {
  let posture: Posture | undefined;
  for (const event of events) posture = applyPostureEvent(posture, event);
  return posture;
}

/** The recorded items of one profile for one subject: the scope's own (no asset_id) or one asset's. */
export function postureItemsOf(posture: Posture | undefined, profileId: string, assetId?: string | null): PostureItem[] {
  return Object.values(posture?.items ?? {}).filter((item) => item.profile_id === profileId && item.asset_id === (assetId ?? null));
}

export type PostureSummary = {
  profile_id: string;
  requirements: number;
  counts: Record<PostureStatus, number>;
  /** Requirements not marked not_applicable. */
  applicable: number;
  /** floor(100 · met / applicable); null when nothing is applicable. */
  met_pct: number | null;
  /** Met items by the confidence of their evidence. */
  met_by_confidence: Record<EvidenceConfidence, number>;
  /** floor(100 · verified / met): the share of met items whose evidence is verified; null when nothing is met. */
  verified_pct: number | null;
  non_claims: string[];
};

/**
 * The summary of one subject's items of `profile` (items of other profiles are ignored; a
 * requirement without an item is not_started). `confidence` maps a requirement id to the
 * evidence_confidence the claim engine gave the item; a met item it lacks counts as `none`.
 * Percentages round down, so 100 % means every applicable requirement is met, never nearly so.
 */
export function postureSummary(profile: RegulatoryProfile, items: readonly PostureItem[], confidence: ReadonlyMap<string, EvidenceConfidence> = new Map()): PostureSummary {
  const status = new Map<string, PostureStatus>();
  for (const item of items) if (item.profile_id === profile.id && profile.requirements.has(item.requirement_id)) status.set(item.requirement_id, item.status);
  const counts: Record<PostureStatus, number> = { not_started: 0, in_progress: 0, met: 0, not_applicable: 0 };
  const metBy: Record<EvidenceConfidence, number> = { verified: 0, claimed: 0, none: 0 };
  for (const requirementId of profile.requirements.keys()) {
    const s = status.get(requirementId) ?? 'not_started';
    counts[s] += 1;
    if (s === 'met') metBy[confidence.get(requirementId) ?? 'none'] += 1;
  }
  const applicable = profile.requirements.size - counts.not_applicable;
  const pct = (part: number, whole: number) => (whole === 0 ? null : Math.floor((100 * part) / whole));
  return {
    profile_id: profile.id,
    requirements: profile.requirements.size,
    counts,
    applicable,
    met_pct: pct(counts.met, applicable),
    met_by_confidence: metBy,
    verified_pct: pct(metBy.verified, counts.met),
    non_claims: [POSTURE_NON_CLAIM],
  };
}
