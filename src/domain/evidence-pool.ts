// The evidence pool of a set of task events (docs/contract.md §8, §9; docs/governance/trust.md): the
// latest evidence_ref per artifact_id in seq order, with its EFFECTIVE trust. Trust is earned, never
// asserted: whatever content_trust and confidence a caller wrote on a ref, the pool caps them at
// customer_asserted and claimed, and only an `evidence.sanitized` (the sanitizer's projection) or an
// `evidence.reviewed` (a governance reviewer's decision) event raises them. The claim boundary
// engine and the packet assembly both read evidence through this one function.
import { AppError } from '../errors.ts';
import type { EvidenceRef, StoredEvent } from './event.ts';

export const EVIDENCE_SANITIZED_KIND = 'evidence.sanitized';
/**
 * Who holds evidence attached outside any task (an adapter's evidence.attached without task_id):
 * the scope itself. The index keeps it as a holder beside the tasks (the artifacts table's task_id
 * ''), so it is in the scope's evidence pool, and reviews and the sanitizer raise it as they raise a
 * task's, with events that name no task either.
 */
export const SCOPE_HOLDER = '';
export const EVIDENCE_REVIEWED_KIND = 'evidence.reviewed';

type Trust = EvidenceRef['content_trust'];
type Confidence = EvidenceRef['confidence'];

/**
 * What `evidence.sanitized` says, as this module reads it: the artifact and the sha256 of the raw
 * bytes the sanitizer read (the ref must be bound to those bytes for the projection to stand for it).
 */
export type EvidenceSanitizedFacts = { artifact_id: string; raw_sha256: string };
/** What `evidence.reviewed` says: a reviewer accepted (with the trust they grant) or rejected the artifact. */
export type EvidenceReviewedFacts = { artifact_id: string; decision: 'accept' | 'reject'; content_trust?: 'trusted_internal' | 'untrusted_external'; reason?: string };

/** Why a ref has the trust it has: capped as asserted, raised by a sanitizer or a reviewer, or kept capped by a rejection. */
export type TrustBasis = 'asserted' | 'sanitized' | 'reviewed' | 'review_rejected';

/** One artifact of the pool: the ref with its effective trust and confidence, what was asserted, and why. */
export type PoolEntry = {
  ref: EvidenceRef;
  asserted: { content_trust: Trust; confidence: Confidence };
  basis: TrustBasis;
  /** The event that raised (or rejected) it. */
  basis_event_id?: string;
};

/** A caller's word is worth customer_asserted at most (untrusted_external stays as low as it says). */
function capTrust(asserted: Trust): Trust {
  return asserted === 'untrusted_external' ? 'untrusted_external' : 'customer_asserted';
}

/** verified is earned; any lower confidence stands as asserted. */
function capConfidence(asserted: Confidence): Confidence {
  return asserted === 'verified' ? 'claimed' : asserted;
}

/** A sha256 as hex, whether written bare (an evidence ref, the sanitizer) or as `sha256:` + hex. */
export function sha256Hex(value: string): string {
  return value.startsWith('sha256:') ? value.slice('sha256:'.length) : value;
}

/** The hex sha256 a ref is bound to, or null when it has none. */
export function refSha256(ref: EvidenceRef): string | null {
  return ref.sha256 ? sha256Hex(ref.sha256) : null;
}

/**
 * Latest entry per artifact_id, keyed in first-seen order. Events must come in strictly increasing
 * seq order (a timeline is), otherwise "latest" would be a guess: `events_out_of_order`.
 *
 * A raising event applies to the ref that is current when it is recorded. A later re-attachment of
 * the same artifact is new asserted evidence and starts capped again; a raising event for an
 * artifact not in the pool, or (sanitized) for bytes other than the ref's sha256, has nothing to
 * raise and is ignored. The sanitizer never grants trusted_internal; a reviewer may.
 */
export function buildTrustPool(events: readonly StoredEvent[]): Map<string, PoolEntry> {
  const pool = new Map<string, PoolEntry>();
  let lastSeq = 0;
  for (const event of events) {
    if (!(event.seq > lastSeq)) {
      throw new AppError('events_out_of_order', `Events must be in increasing seq order; seq ${event.seq} follows ${lastSeq}.`);
    }
    lastSeq = event.seq;
    applyTrustEvent(pool, event);
  }
  return pool;
}

/** Where applyTrustEvent reads and writes entries: a Map, or the index's projection of a scope's pool. */
export type TrustPoolStore = { get(artifactId: string): PoolEntry | undefined; set(artifactId: string, entry: PoolEntry): unknown };

/**
 * One event's effect on a pool (buildTrustPool's step, for a caller that keeps the pool elsewhere
 * and feeds it events in increasing seq order): its evidence refs replace their entries, then a
 * raising event raises (or a rejection keeps capped) the entry current at that point.
 */
export function applyTrustEvent(pool: TrustPoolStore, event: StoredEvent): void {
  for (const ref of event.evidence_refs ?? []) {
    const asserted = { content_trust: ref.content_trust, confidence: ref.confidence };
    pool.set(ref.artifact_id, { ref: { ...ref, content_trust: capTrust(ref.content_trust), confidence: capConfidence(ref.confidence) }, asserted, basis: 'asserted' });
  }
  if (event.kind === EVIDENCE_SANITIZED_KIND) {
    const facts = event.payload as Partial<EvidenceSanitizedFacts>;
    const current = typeof facts.artifact_id === 'string' ? pool.get(facts.artifact_id) : undefined;
    if (current && current.basis === 'asserted' && typeof facts.raw_sha256 === 'string' && refSha256(current.ref) === sha256Hex(facts.raw_sha256)) {
      pool.set(current.ref.artifact_id, {
        ...current,
        ref: { ...current.ref, content_trust: 'sanitized_projection', confidence: current.asserted.confidence },
        basis: 'sanitized',
        basis_event_id: event.event_id,
      });
    }
  } else if (event.kind === EVIDENCE_REVIEWED_KIND) {
    const facts = event.payload as Partial<EvidenceReviewedFacts>;
    const current = typeof facts.artifact_id === 'string' ? pool.get(facts.artifact_id) : undefined;
    if (!current) return;
    if (facts.decision === 'accept' && (facts.content_trust === 'trusted_internal' || facts.content_trust === 'untrusted_external')) {
      pool.set(current.ref.artifact_id, { ...current, ref: { ...current.ref, content_trust: facts.content_trust, confidence: current.asserted.confidence }, basis: 'reviewed', basis_event_id: event.event_id });
    } else if (facts.decision === 'reject') {
      pool.set(current.ref.artifact_id, {
        ...current,
        ref: { ...current.ref, content_trust: capTrust(current.asserted.content_trust), confidence: capConfidence(current.asserted.confidence) },
        basis: 'review_rejected',
        basis_event_id: event.event_id,
      });
    }
  }
}

/** The pool's refs with their effective trust and confidence (what packets list and claims cite). */
export function buildEvidencePool(events: readonly StoredEvent[]): Map<string, EvidenceRef> {
  return new Map([...buildTrustPool(events)].map(([id, entry]) => [id, entry.ref]));
}

/** Why an entry has its trust, in a few words for a claim's reason. */
export function trustNote(entry: PoolEntry): string {
  const { ref, asserted } = entry;
  const eff = `${ref.content_trust}, ${ref.confidence}`;
  switch (entry.basis) {
    case 'asserted':
      return asserted.content_trust === ref.content_trust && asserted.confidence === ref.confidence
        ? `${eff} as asserted`
        : `${eff}: asserted ${asserted.content_trust}, ${asserted.confidence}, capped until sanitized or reviewed`;
    case 'sanitized':
      return `${eff}: sanitized (${entry.basis_event_id})`;
    case 'reviewed':
      return `${eff}: reviewed (${entry.basis_event_id})`;
    case 'review_rejected':
      return `${eff}: rejected by review (${entry.basis_event_id})`;
  }
}
