// Vendors (docs/governance/vendors.md): the questionnaire, assessments (`vendor.assessed`, with the
// derived points, findings, vendor_maturity and valid_until), and what assets read of them: the
// maturity a risk evaluation compares its vendor_maturity input with, and the expiry that brings
// an asset's review forward.
import type { Actor, Scope } from '../../domain/event.ts';
import type { AssetState } from '../../domain/governance/assets.ts';
import { latestEvaluation } from '../../domain/governance/assets.ts';
import { vendorExpiryTrigger, type ReviewTrigger } from '../../domain/governance/reviews.ts';
import { TIERS, type Tier } from '../../domain/governance/types.ts';
import { checkVendorAssessment, VENDOR_ASSESS_REQUEST_SCHEMA, vendorAssessmentError, type VendorAssessmentInput } from '../../domain/governance/vendors-answers.ts';
import { assessVendor, derivedVendorMaturity, VENDOR_ASSESSED, vendorViewOf, type VendorAssessedPayload, type VendorState } from '../../domain/governance/vendors.ts';
import type { DerivedVendorMaturity } from '../../domain/governance/risk.ts';
import { vendorStream } from '../../domain/streams.ts';
import { AppError } from '../../errors.ts';
import type { ServiceDeps } from '../deps.ts';
import { actingAs, pendingEvent, type WriteContext } from '../write-context.ts';
import { assetRead, binding, decideAndAppend, type Decision, type StreamRead } from './decide.ts';
import { accessEvent, notInScope } from './refusals.ts';
import { settledAfterWrite } from '../answer-after-write.ts';

type Json = Parameters<typeof pendingEvent>[2]['payload'][string];

/**
 * The questionnaire as GET /v1/vendors/questions answers it: the document's members (docs/governance/vendors.md names
 * questionnaire_id, version, questions and sections_required_by_tier, its name for required_by_tier)
 * and its pin, the sha256 of the document as shipped (this answer less the last two members).
 */
export function vendorQuestions(deps: ServiceDeps) {
  const document = deps.vendorQuestions.document;
  return { ...document, sections_required_by_tier: document.required_by_tier, sha256: deps.vendorQuestions.sha256 };
}

/** The highest tier among the assets' latest evaluations (the questions that tier requires), if any. */
function requiredTier(assets: readonly AssetState[]): Tier | undefined {
  const tiers = assets.map((a) => latestEvaluation(a)?.tier).filter((t): t is Tier => t !== undefined);
  return tiers.length === 0 ? undefined : tiers.reduce((a, b) => (TIERS.indexOf(a) >= TIERS.indexOf(b) ? a : b));
}

/** Assesses a vendor from a POST /v1/vendors body, which may be any JSON: it is checked whole before anything reads it. */
export async function assessVendorAnswers(deps: ServiceDeps, ctx: WriteContext, body: unknown) {
  const { actor: named, input } = checkedBody(deps, body);
  const actor = actingAs(ctx, named);
  const vendorId = input.vendor_id;
  const stream = vendorStream(ctx.scope, vendorId);
  // The assessment does not depend on the vendor's earlier ones; only its access entry does (created
  // for a new vendor, else changed), and the version the append expects. It depends on the assets
  // it is made for (their highest tier says which questions are required): the append expects each
  // to be where it was read.
  const decisionOn = (payload: VendorAssessedPayload, version: number, assetReads: StreamRead[]): Decision => ({
    events: [
      pendingEvent(ctx, deps.newId, { kind: VENDOR_ASSESSED, actor, payload: payload as unknown as { [key: string]: Json } }),
      accessEvent(deps, ctx, actor, { action: version === 0 ? 'created' : 'changed', outcome: 'allowed', resource: { type: 'vendor', id: vendorId } }),
    ],
    read: [{ stream, version, what: `Vendor ${vendorId}` }, ...assetReads],
  });
  let assessed: { payload: VendorAssessedPayload; assetReads: StreamRead[] } | undefined;
  const result = await decideAndAppend(deps, ctx, async () => {
    const assetIds = input.assessed_for_asset_ids ?? [];
    // The assets' versions before the assets (see StreamRead in decide.ts).
    const assetReads = assetIds.map((id) => assetRead(deps, ctx.scope, id));
    const assets: AssetState[] = [];
    for (const assetId of assetIds) assets.push(deps.gov.asset(ctx.scope, assetId) ?? (await notInScope(deps, ctx, actor, { type: 'asset', id: assetId }, 'asset')));
    // Evidence an answer cites must be evidence of this scope (an artifact some task cites).
    const cited = [...new Set(input.answers.flatMap((a) => a.evidence_refs ?? []))];
    const unknown = cited.filter((id) => deps.gov.artifactHolders(ctx.scope, id).length === 0);
    if (unknown.length > 0) {
      throw new AppError('evidence_required', `The answers cite evidence that is not in this scope's evidence pool: ${unknown.join(', ')}; attach it first (a task's evidence_refs, or a raw evidence.attached event with or without a task), then cite its artifact_id.`, {
        details: unknown.map((id) => ({ pointer: '/answers', detail: `evidence ${id} is not in the scope's evidence pool` })),
      });
    }
    const tier = requiredTier(assets);
    assessed = { payload: assessVendor(deps.vendorQuestions, input, deps.clock(), tier === undefined ? {} : { required_tier: tier }), assetReads };
    return decisionOn(assessed.payload, deps.gov.streamVersion(stream), assetReads);
  }, {
    // Assessments of one vendor sent at once: each is decided again in the writer on the version the
    // ones sealed before it left, so they share a batch instead of failing one another (409). An
    // asset that moved on may have another tier: that is decided again the slow way.
    redecide: (view) => {
      if (assessed === undefined || assessed.assetReads.some((r) => view.streamVersion(r.stream) !== r.version)) return null;
      return decisionOn(assessed.payload, view.streamVersion(stream), assessed.assetReads);
    },
  });
  await settledAfterWrite(deps, result);
  // The vendor the assessment wrote: a replay's is in its event (an id the server chose is not this request's).
  const state = deps.gov.vendor(ctx.scope, (result.events[0]!.payload as { vendor_id: string }).vendor_id)!;
  // The version is the state's own last seq (the vendor stream holds only its assessments), so the
  // ETag is the body's even when later assessments were indexed meanwhile.
  return { vendor: vendorViewOf(state, deps.clock()), event: binding(result), replayed: result.replayed, version: state.last_seq };
}

/**
 * The body checked by the questionnaire, whose refusals name the question and what it allows (a
 * new vendor's id filled in first), then by the rest of the request schema (the actor).
 */
function checkedBody(deps: ServiceDeps, body: unknown): { actor: Actor | undefined; input: VendorAssessmentInput } {
  const isObject = body !== null && typeof body === 'object' && !Array.isArray(body);
  const { actor, ...rest } = isObject ? (body as Record<string, unknown>) : {};
  const checked = checkVendorAssessment(deps.vendorQuestions, !isObject ? body : 'vendor_id' in rest ? rest : { ...rest, vendor_id: deps.newId('vnd') });
  if (!checked.ok) throw vendorAssessmentError(checked.problems);
  deps.registry.assert(VENDOR_ASSESS_REQUEST_SCHEMA, body, 'body');
  return { actor: actor as Actor | undefined, input: checked.input };
}

export async function getVendor(deps: ServiceDeps, ctx: WriteContext, vendorId: string) {
  const state = deps.gov.vendor(ctx.scope, vendorId) ?? (await notInScope(deps, ctx, ctx.principal, { type: 'vendor', id: vendorId }, 'vendor'));
  return { view: vendorViewOf(state, deps.clock()), version: state.last_seq };
}

/** The assessed vendors of an asset, by id. */
function vendorsOf(deps: ServiceDeps, scope: Scope, asset: AssetState): Map<string, VendorState> {
  const out = new Map<string, VendorState>();
  for (const id of asset.registration.vendor_ids ?? []) {
    const state = deps.gov.vendor(scope, id);
    if (state) out.set(id, state);
  }
  return out;
}

/** What a risk evaluation of the asset compares its vendor_maturity input with (a warning when above). */
export function assetVendorMaturity(deps: ServiceDeps, scope: Scope, asset: AssetState, now: Date): DerivedVendorMaturity | undefined {
  return derivedVendorMaturity(vendorsOf(deps, scope, asset), asset.registration.vendor_ids ?? [], now);
}

/** The review triggers the asset's vendors raise at `now`: each expired assessment. */
export function vendorTriggers(deps: ServiceDeps, scope: Scope, asset: AssetState, now: Date): ReviewTrigger[] {
  return [...vendorsOf(deps, scope, asset).values()].flatMap((v) => {
    const trigger = vendorExpiryTrigger({ vendor_id: v.vendor_id, valid_until: v.latest.valid_until }, now);
    return trigger ? [trigger] : [];
  });
}
