// Regulatory profiles and posture (docs/governance/regulatory.md): the profiles the composition root
// loaded, a scope's (or an asset's) posture per profile with every requirement listed, and the
// PATCH of one posture item. The rules are the pure ones of src/domain/governance/regulatory.ts;
// this module reads what they need (the items folded from the log's regulatory.posture.updated
// events, the scope's evidence pool), appends what they decide under the item's stream version, and
// lets the claim engine (cb-2) say at read time how far each item's cited evidence is trusted.
import { evaluateClaimsOnPool, evidenceNonClaims, type ClaimResult } from '../../domain/claim-boundary.ts';
import { buildTrustPool, type PoolEntry } from '../../domain/evidence-pool.ts';
import type { Actor, Scope, StoredEvent } from '../../domain/event.ts';
import { requirementOf, type ProfileRequirement, type RegulatoryProfile } from '../../domain/governance/regulatory-profile.ts';
import {
  checkPostureUpdate, postureItemKey, postureSummary, POSTURE_NON_CLAIM, REGULATORY_POSTURE_UPDATED,
  type EvidenceConfidence, type PosturePatch, type PostureItem, type PostureRefusal, type PostureUpdatedPayload,
} from '../../domain/governance/regulatory.ts';
import { eventActor } from '../../domain/governance/types.ts';
import { postureStream } from '../../domain/streams.ts';
import { AppError } from '../../errors.ts';
import type { ServiceDeps } from '../deps.ts';
import { actingAs, pendingEvent, type WriteContext } from '../write-context.ts';
import { binding, checkIfMatch, decideAndAppend, type Decision, type StreamRead } from './decide.ts';
import { findAsset } from './registry-service.ts';
import { accessEvent, deny, type Resource } from './refusals.ts';

type Json = Parameters<typeof pendingEvent>[2]['payload'][string];

/** The loaded profiles by id (src/deps.ts reads fixtures/regulatory/*.json and checks them). */
/** What GET /v1/regulatory/profiles says of itself (docs/governance/regulatory.md, the non-claim). */
export const PROFILES_NON_CLAIM =
  'The profiles are planning data compiled from public sources, with ids, references and short titles of our own: re-read the official text before relying on an item. They are not legal advice.';

// ---- profiles ----

export function listProfiles(deps: ServiceDeps) {
  const profiles = [...deps.regulatoryProfiles.values()].sort((a, b) => a.id.localeCompare(b.id)).map((p) => p.document);
  return { profiles, non_claims: [PROFILES_NON_CLAIM] };
}

function profileOrNotFound(deps: ServiceDeps, profileId: string): RegulatoryProfile {
  const profile = deps.regulatoryProfiles.get(profileId);
  if (!profile) throw new AppError('not_found', `No regulatory profile ${profileId}; GET /v1/regulatory/profiles lists them.`);
  return profile;
}

// ---- posture: the items and what the claim engine makes of their evidence ----

/**
 * One posture item of the scope as its updates leave it: the index's row of the item (gov_posture,
 * the fold of the item's own regulatory.posture.updated events), not a fold of every update of the
 * scope, which grew with the whole registry's posture.
 */
function postureItemIn(deps: ServiceDeps, scope: Scope, requirementId: string, assetId?: string | null): PostureItem | undefined {
  return deps.gov.postureItem(scope, postureItemKey(requirementId, assetId));
}

type Confidence = { evidence_confidence: EvidenceConfidence; evidence_reason: string | null };
const NO_EVIDENCE: Confidence = { evidence_confidence: 'none', evidence_reason: null };

/** What the claim engine's class of an item's evidence means for a posture item. */
function confidenceOfClass(result: ClaimResult): Confidence {
  const c = result.confidence;
  const evidence_confidence: EvidenceConfidence = c === 'verified' ? 'verified' : c === 'claimed' || c === 'stale' || c === 'inferred' ? 'claimed' : 'none';
  return { evidence_confidence, evidence_reason: result.reason };
}

/**
 * The evidence confidence of each item (by its key), computed now by the claim engine cb-2 over the
 * events of the scope's tasks that cite the items' artifacts: one claim per item citing its
 * evidence_refs, so an item is verified only when every cited artifact's EFFECTIVE trust is trusted
 * (a reviewer or the sanitizer raised it) and its own confidence verified. Posture judges trust, not
 * age: the engine's freshness window is for a task's claims, while a requirement's cadence (an
 * annual bias audit) is the team's to track, so no window applies here. An item citing nothing is
 * `none`.
 */
function evidenceConfidence(deps: ServiceDeps, scope: Scope, items: ReadonlyArray<PostureEvidence>, now: Date): PostureConfidence {
  const cited = items.filter((i) => i.evidence_refs.length > 0);
  const holders = new Set(cited.flatMap((i) => i.evidence_refs).flatMap((ref) => deps.gov.artifactHolders(scope, ref).map((h) => h.task_id)));
  // Each event belongs to one holder (a task, or the scope itself), so the union has no duplicates;
  // the pool wants it in seq order.
  const events: StoredEvent[] = [...holders].flatMap((holder) => deps.queries.holderEventsUpTo(scope, holder, Number.MAX_SAFE_INTEGER)).sort((a, b) => a.seq - b.seq);
  return confidenceFromPool(items, cited.length === 0 ? new Map() : buildTrustPool(events), now);
}

type PostureEvidence = { key: string; requirement_id: string; evidence_refs: readonly string[] };

/**
 * Each item's confidence by its key, and the non-claims the engine's decision adds to the posture
 * answer: "checked for form, not truth" when an item cites sanitized evidence (the claim engine's
 * judgement with its non-claims, wherever it shows: docs/governance/trust.md).
 */
type PostureConfidence = { byKey: Map<string, Confidence>; nonClaims: string[] };

/** The posture answer's non-claims: the standing one and what the engine added. */
function postureNonClaims(confidence: PostureConfidence): string[] {
  return [POSTURE_NON_CLAIM, ...confidence.nonClaims];
}

/**
 * evidenceConfidence's judgement over a pool already built (the dashboard reads the scope's from the
 * index): the pool need only hold the cited artifacts, as the tasks that hold them left them.
 */
export function confidenceFromPool(items: ReadonlyArray<PostureEvidence>, pool: Map<string, PoolEntry>, now: Date): PostureConfidence {
  const out = new Map<string, Confidence>();
  const cited = items.filter((i) => i.evidence_refs.length > 0);
  for (const item of items) if (item.evidence_refs.length === 0) out.set(item.key, NO_EVIDENCE);
  if (cited.length === 0) return { byKey: out, nonClaims: [] };
  const at = now.toISOString();
  const decision = evaluateClaimsOnPool({
    claims: cited.map((i) => ({ claim: `Evidence cited for posture item ${i.requirement_id}`, evidence: [...i.evidence_refs] })),
    pool,
    asOf: at,
    staleAfterDays: Number.POSITIVE_INFINITY,
    decisionId: 'posture',
    evaluatedAt: at,
  });
  cited.forEach((item, i) => out.set(item.key, confidenceOfClass(decision.results[i]!)));
  return { byKey: out, nonClaims: evidenceNonClaims(decision) };
}

/** One posture item as the routes answer it: the requirement, its state (not_started when never touched) and its evidence confidence. */
function itemView(profileId: string, requirement: Readonly<ProfileRequirement>, assetId: string | null, item: PostureItem | undefined, confidence: Confidence) {
  return {
    profile_id: profileId,
    requirement_id: requirement.requirement_id,
    ref: requirement.ref,
    title: requirement.title,
    group_id: requirement.group_id,
    asset_id: assetId,
    status: item?.status ?? 'not_started',
    owner: item?.owner ?? null,
    evidence_refs: [...(item?.evidence_refs ?? [])],
    note: item?.note ?? null,
    justification: item?.justification ?? null,
    // The stream version (the seq of the item's last event; 0 when untouched): the ETag, sent back in If-Match.
    version: item?.seq ?? 0,
    item_version: item?.item_version ?? 0,
    updated_at: item?.updated_at ?? null,
    updated_by: item?.updated_by ?? null,
    last_event_id: item?.event_id ?? null,
    ...confidence,
  };
}

/**
 * `GET /v1/regulatory/posture?profile_id=&asset_id=`: every requirement of the profile for the
 * scope (or one of its assets), with the summary (met %, verified %) and the non-claim. An asset
 * outside the scope is a 404 logged as denied.
 */
export async function readPosture(deps: ServiceDeps, ctx: WriteContext, q: { profile_id: string; asset_id?: string }) {
  const profile = profileOrNotFound(deps, q.profile_id);
  const assetId = q.asset_id ?? null;
  if (assetId !== null) await findAsset(deps, ctx, assetId);
  const now = deps.clock();
  const requirements = [...profile.requirements.values()];
  const recorded = requirements.map((r) => postureItemIn(deps, ctx.scope, r.requirement_id, assetId));
  const confidence = evidenceConfidence(deps, ctx.scope, requirements.map((r, i) => ({ key: r.requirement_id, requirement_id: r.requirement_id, evidence_refs: recorded[i]?.evidence_refs ?? [] })), now);
  const byRequirement = new Map([...confidence.byKey].map(([id, c]) => [id, c.evidence_confidence]));
  return {
    profile_id: profile.id,
    title: profile.document.title,
    asset_id: assetId,
    items: requirements.map((r, i) => itemView(profile.id, r, assetId, recorded[i], confidence.byKey.get(r.requirement_id)!)),
    summary: postureSummary(profile, deps.gov.postureItems(ctx.scope, profile.id, assetId), byRequirement),
    as_of: now.toISOString(),
    non_claims: postureNonClaims(confidence),
  };
}

// ---- the PATCH ----

export type PostureBody = PosturePatch & { actor?: Actor };

/** A requirement's full id (`profile:local`) however the path spells it, when the profile has it. */
export function postureRequirementId(deps: ServiceDeps, profileId: string | undefined, requirementParam: string | undefined): string | undefined {
  const profile = profileId === undefined ? undefined : deps.regulatoryProfiles.get(profileId);
  return profile && requirementParam !== undefined ? requirementOf(profile, requirementParam)?.requirement_id : undefined;
}

/** The access-log resource of an item: its requirement id, prefixed by the asset's id when it is an asset's and that fits an id. */
function postureResource(requirementId: string, assetId: string | undefined): Resource {
  const both = assetId === undefined ? requirementId : `${assetId}:${requirementId}`;
  return { type: 'posture_item', id: both.length <= 128 ? both : requirementId };
}

/** The item an appended (or replayed) event wrote, as that event says it: a replay answers the same item. */
function itemOfEvent(event: StoredEvent): PostureItem {
  const p = event.payload as unknown as PostureUpdatedPayload;
  return {
    ...p.state,
    evidence_refs: [...p.state.evidence_refs],
    profile_id: p.profile_id,
    requirement_id: p.requirement_id,
    asset_id: p.asset_id ?? null,
    item_version: p.item_version,
    updated_at: event.recorded_at,
    updated_by: eventActor(event),
    event_id: event.event_id,
    seq: event.seq,
  };
}

/**
 * `PATCH /v1/regulatory/frameworks/{profile_id}/requirements/{requirement_id}`: REG-1 (404), then
 * the asset (404, outside the scope logged as denied), then REG-2…4 of checkPostureUpdate on the
 * item as it will be, each refusal logged as denied; If-Match names the item's version (its stream
 * version, 412 when stale). Appends regulatory.posture.updated with its access entry (changed) as
 * one unit, under the item's stream version, and answers the item with its new version.
 */
export async function updatePosture(deps: ServiceDeps, ctx: WriteContext, profileId: string, requirementParam: string, body: PostureBody) {
  const { actor: bodyActor, ...patch } = body;
  const actor = actingAs(ctx, bodyActor);
  const target = { profile_id: profileId, requirement_id: requirementParam };
  const result = await decideAndAppend(deps, ctx, async (): Promise<Decision> => {
    const profile = deps.regulatoryProfiles.get(profileId);
    const requirement = profile && requirementOf(profile, requirementParam);
    const resource = postureResource(requirement?.requirement_id ?? requirementParam, patch.asset_id);
    const refused = (r: PostureRefusal) => deny(deps, ctx, actor, resource, r);
    if (!requirement) {
      // REG-1 answers whatever else the patch holds.
      const checked = checkPostureUpdate(deps.regulatoryProfiles, target, patch, undefined, new Set());
      if (!checked.ok) return refused(checked);
      throw new Error(`REG-1 passed for ${profileId} ${requirementParam}, which no loaded profile has.`);
    }
    if (patch.asset_id !== undefined) await findAsset(deps, ctx, patch.asset_id, actor);
    const stream = postureStream(ctx.scope, requirement.requirement_id, patch.asset_id);
    const what = `Posture item ${resource.id}`;
    const version = deps.gov.streamVersion(stream); // before the item: see StreamRead in decide.ts
    const current = postureItemIn(deps, ctx.scope, requirement.requirement_id, patch.asset_id);
    // The version If-Match compares is the item's as folded (the seq of its last event), which is its
    // stream version once the streams know the kind.
    const ifMatch: StreamRead = { stream, version: current?.seq ?? 0, what };
    checkIfMatch(ctx, ifMatch);
    // The pool only needs to answer for the artifacts the item will cite.
    const cited = patch.evidence_refs ?? current?.evidence_refs ?? [];
    const pool = new Set(cited.filter((ref) => deps.gov.artifactHolders(ctx.scope, ref).length > 0));
    const checked = checkPostureUpdate(deps.regulatoryProfiles, target, patch, current, pool);
    if (!checked.ok) return refused(checked);
    return {
      events: [
        pendingEvent(ctx, deps.newId, { kind: REGULATORY_POSTURE_UPDATED, actor, payload: checked.payload as unknown as { [key: string]: Json } }),
        accessEvent(deps, ctx, actor, { action: 'changed', outcome: 'allowed', resource }),
      ],
      // A concurrent update of the item decides again.
      read: [{ stream, version, what }],
      ifMatch,
    };
  });
  const event = result.events[0]!;
  const item = itemOfEvent(event);
  const profile = deps.regulatoryProfiles.get(item.profile_id)!;
  const requirement = profile.requirements.get(item.requirement_id)!;
  const confidence = evidenceConfidence(deps, ctx.scope, [{ key: item.requirement_id, requirement_id: item.requirement_id, evidence_refs: item.evidence_refs }], deps.clock());
  return {
    item: itemView(profile.id, requirement, item.asset_id, item, confidence.byKey.get(item.requirement_id)!),
    event: binding(result),
    non_claims: postureNonClaims(confidence),
    version: item.seq,
    replayed: result.replayed,
  };
}
