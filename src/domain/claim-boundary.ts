// Claim Boundary engine cb-2 (docs/contract.md §8): classifies each claim as one of the seven
// confidence values against the tasks' evidence pool. It judges support, never truth: semantic
// correctness is never automatic, so wording that asserts it is blocked. cb-2 (after cb-1) reads
// each ref's EFFECTIVE trust (evidence-pool.ts): what a caller asserted is capped at
// customer_asserted / claimed until a sanitizer or a reviewer raised it (docs/governance/trust.md),
// and every reason names the trust it used and why.
import type { ClaimBoundary, ClaimBoundaryBlockedClaim, ClaimBoundarySummary, ClaimDecision, ClaimEvaluateRequestClaim } from './contract/schema-types.gen.ts';
import type { EvidenceRef, StoredEvent } from './event.ts';
import { parseDateTime } from './date-time.ts';
import { buildTrustPool, trustNote, type PoolEntry } from './evidence-pool.ts';
import { derivedId } from './derived-id.ts';
import { SEMANTIC_CORRECTNESS_PHRASES, semanticCorrectnessPhrase } from './claim-phrases.ts';

export { SEMANTIC_CORRECTNESS_PHRASES, semanticCorrectnessPhrase };

export const ENGINE_VERSION = 'cb-2';
export const DEFAULT_STALE_AFTER_DAYS = 30;

export const SEMANTIC_NON_CLAIM =
  'Semantic correctness was not evaluated: the claim boundary classifies how each claim is supported by recorded evidence, never whether it is true or correct.';
export const INTEGRITY_NON_CLAIM =
  'Integrity proofs (hash, signature, hash chain, receipt) prove event integrity only, not semantic correctness.';
export const CLAIM_BOUNDARY_NON_CLAIMS: readonly string[] = [SEMANTIC_NON_CLAIM, INTEGRITY_NON_CLAIM];
/** Added to a decision whose claims cite sanitized evidence. */
export const SANITIZED_NON_CLAIM = 'Sanitised evidence is checked for form, not truth: the sanitizer neutralised hidden and instruction-like content, it did not check that the evidence is true, safe or free of personal data.';

export type ClaimConfidence = EvidenceRef['confidence'];
/** One claim of a request (schemas/api/claim-evaluate-request.json). */
export type ClaimInput = ClaimEvaluateRequestClaim;
export type ClaimResult = ClaimDecision['results'][number];
export type ClaimSummary = ClaimBoundarySummary;
export type BlockedClaim = ClaimBoundaryBlockedClaim;
/** ClaimBoundary: the five members a Proof Packet's claim_boundary carries (docs/contract.md §8); ClaimDecision adds results and non_claims. */
export type { ClaimBoundary, ClaimDecision };

export type EvaluateClaimBoundaryInput = {
  claims: readonly ClaimInput[];
  /** Every event of the listed tasks up to as_of, in seq order. */
  events: readonly StoredEvent[];
  asOf: string;
  staleAfterDays?: number;
  decisionId: string;
  evaluatedAt: string;
};

const DAY_MS = 86_400_000;
const REASON_MAX = 500;
const TRUSTED = new Set<EvidenceRef['content_trust']>(['trusted_internal', 'sanitized_projection']);
/** A dependency lends support only if it came out verified or inferred; others cap the claim. */
const DEP_CAP: Record<ClaimConfidence, ClaimConfidence | null> = {
  verified: null, inferred: null, stale: 'stale', claimed: 'claimed', missing: 'missing', blocked: 'missing', not_claimed: 'missing',
};

/** `cbd_` + 32 hex of SHA-256 over the canonical inputs (scope, request, as_of). */
export function decisionIdFor(canonicalInputs: unknown): string {
  return derivedId('cbd', canonicalInputs);
}

/** The five members of the decision that go inside a Proof Packet. */
export function toClaimBoundary(d: ClaimDecision): ClaimBoundary {
  return { decision_id: d.decision_id, engine_version: d.engine_version, evaluated_at: d.evaluated_at, summary: d.summary, blocked_claims: d.blocked_claims };
}

export function emptySummary(): ClaimSummary {
  return { verified: 0, claimed: 0, inferred: 0, stale: 0, missing: 0, blocked: 0, not_claimed: 0 };
}

export function evaluateClaimBoundary(input: EvaluateClaimBoundaryInput): ClaimDecision {
  const { events, ...rest } = input;
  return evaluateClaimsOnPool({ ...rest, pool: buildTrustPool(events) });
}

/** The same, against a pool already built (the index keeps a scope's: projections/governance.ts). */
export function evaluateClaimsOnPool(input: Omit<EvaluateClaimBoundaryInput, 'events'> & { pool: Map<string, PoolEntry> }): ClaimDecision {
  const { claims } = input;
  const asOfMs = parseDateTime(input.asOf, 'as_of');
  const staleAfterDays = input.staleAfterDays ?? DEFAULT_STALE_AFTER_DAYS;
  const ctx: Ctx = { pool: input.pool, asOfMs, staleAfterDays, results: new Array(claims.length) };

  // Dependencies may point forward, so claims are classified in dependency order (Kahn). Whatever is
  // left once no claim is ready sits on or behind a cycle, which can lend no support.
  const deps = claims.map((c) => [...new Set(c.depends_on ?? [])]);
  const valid = deps.map((d) => d.filter((j) => Number.isInteger(j) && j >= 0 && j < claims.length));
  const waiting = valid.map((d) => d.length);
  const dependents: number[][] = claims.map(() => []);
  valid.forEach((d, i) => d.forEach((j) => dependents[j]!.push(i)));
  const ready = waiting.flatMap((w, i) => (w === 0 ? [i] : []));
  for (let k = 0; k < ready.length; k++) {
    const i = ready[k]!;
    ctx.results[i] = classify(claims[i]!, deps[i]!, false, ctx);
    for (const d of dependents[i]!) if (--waiting[d]! === 0) ready.push(d);
  }
  claims.forEach((c, i) => { if (!ctx.results[i]) ctx.results[i] = classify(c, deps[i]!, true, ctx); });

  const results = ctx.results as ClaimResult[];
  const summary = emptySummary();
  for (const r of results) summary[r.confidence]++;
  return {
    decision_id: input.decisionId,
    engine_version: ENGINE_VERSION,
    evaluated_at: input.evaluatedAt,
    summary,
    blocked_claims: results.filter((r) => r.confidence === 'blocked').map((r) => ({ claim: r.claim, reason: r.reason })),
    results,
    non_claims: citesSanitized(claims, ctx.pool) ? [...CLAIM_BOUNDARY_NON_CLAIMS, SANITIZED_NON_CLAIM] : [...CLAIM_BOUNDARY_NON_CLAIMS],
  };
}

/**
 * What a decision says of the evidence it judged beyond the engine's standing non-claims (today:
 * "checked for form, not truth" when it cites sanitized evidence). Whatever shows the judgement — a
 * packet, a posture answer — carries these with its own non-claims (docs/governance/trust.md).
 */
export function evidenceNonClaims(decision: Pick<ClaimDecision, 'non_claims'>): string[] {
  return decision.non_claims.filter((c) => !CLAIM_BOUNDARY_NON_CLAIMS.includes(c));
}

function citesSanitized(claims: readonly ClaimInput[], pool: Map<string, PoolEntry>): boolean {
  return claims.some((c) => c.kind !== 'non_claim' && (c.evidence ?? []).some((id) => pool.get(id)?.basis === 'sanitized'));
}

type Ctx = { pool: Map<string, PoolEntry>; asOfMs: number; staleAfterDays: number; results: (ClaimResult | undefined)[] };

/** The first class that applies, in the order 1..7 of docs/contract.md §8; the reason names what decided it. */
function classify(c: ClaimInput, deps: number[], cyclic: boolean, ctx: Ctx): ClaimResult {
  const out = (confidence: ClaimConfidence, reason: string): ClaimResult => ({ claim: c.claim, confidence, reason: clip(reason) });
  if (c.kind === 'non_claim') return out('not_claimed', 'Declared kind non_claim: recorded as explicitly not claimed.');

  const phrase = semanticCorrectnessPhrase(c.claim);
  if (phrase) return out('blocked', `Asserts semantic correctness ("${phrase}"); semantic correctness is never automatic and no evidence can verify it here.`);
  const cited = [...new Set(c.evidence ?? [])];
  const removed = cited.filter((id) => ctx.pool.get(id)?.ref.redaction === 'removed');
  if (removed.length) return out('blocked', `Cites evidence whose redaction is removed: ${list(removed)}.`);

  const absent = cited.filter((id) => !ctx.pool.has(id));
  if (absent.length) return out('missing', `Cites evidence not in the tasks' evidence pool: ${list(absent)}.`);
  if (cited.length === 0 && deps.length === 0) return out('missing', 'Cites no evidence and depends on no other claim.');
  const invalid = deps.filter((j) => !(Number.isInteger(j) && j >= 0 && j < ctx.results.length));
  if (invalid.length) return out('missing', `depends_on names ${list(invalid.map(String))}, which is not the index of a claim in this request.`);
  if (cyclic) return out('missing', 'Its depends_on chain runs into a cycle, so its dependencies lend no support.');
  const capped = (cap: ClaimConfidence) => deps.filter((j) => DEP_CAP[ctx.results[j]!.confidence] === cap);
  const depNote = (js: number[]) => js.map((j) => `claim ${j} (${ctx.results[j]!.confidence})`).join(', ');
  const weakDeps = capped('missing');
  if (weakDeps.length) return out('missing', `Depends on claims that lend no support: ${depNote(weakDeps)}.`);

  const entries = cited.map((id) => ctx.pool.get(id)!);
  const refs = entries.map((e) => e.ref);
  const why = (e: PoolEntry) => `${e.ref.artifact_id} (${trustNote(e)})`;
  const limitMs = ctx.staleAfterDays * DAY_MS;
  const stale = refs.filter((r) => !(ctx.asOfMs - parseDateTime(r.captured_at, 'captured_at') <= limitMs));
  if (stale.length) {
    return out('stale', `Cites evidence captured more than ${ctx.staleAfterDays} days before as_of: ${list(stale.map((r) => `${r.artifact_id} (${r.captured_at})`))}.`);
  }
  const staleDeps = capped('stale');
  if (staleDeps.length) return out('stale', `Depends on stale claims: ${depNote(staleDeps)}.`);

  const untrusted = entries.filter((e) => !TRUSTED.has(e.ref.content_trust));
  if (untrusted.length) return out('claimed', `Cites evidence that is not trusted: ${list(untrusted.map(why))}.`);
  const weak = entries.filter((e) => e.ref.confidence !== 'verified');
  if (weak.length) return out('claimed', `Cites evidence whose own confidence is below verified: ${list(weak.map(why))}.`);
  const unbound = refs.filter((r) => !r.sha256 && !r.etag);
  if (unbound.length) return out('claimed', `Cites evidence bound by neither sha256 nor etag: ${list(unbound.map((r) => r.artifact_id))}.`);
  const claimedDeps = capped('claimed');
  if (claimedDeps.length) return out('claimed', `Depends on claims that are only claimed: ${depNote(claimedDeps)}.`);

  if (cited.length === 0) return out('inferred', `Cites no evidence; every claim it depends on came out verified or inferred: ${depNote(deps)}.`);
  const also = deps.length ? `; its dependencies came out verified or inferred: ${depNote(deps)}` : '';
  return out('verified', `Every cited evidence is present, fresh, bound by sha256 or etag, trusted and itself verified: ${list(entries.map(why))}${also}.`);
}

function list(items: string[]): string {
  return items.join(', ');
}

/** Reasons are bounded by the schema (1..500 characters); a long artifact list is cut, not dropped. */
function clip(reason: string): string {
  return reason.length <= REASON_MAX ? reason : `${reason.slice(0, REASON_MAX - 1)}…`;
}
