// The evidence pool of a set of task events (docs/contract.md §8, §9): the latest evidence_ref per
// artifact_id in seq order, with content_trust raised where an `evidence.sanitized` event says so.
// The claim boundary engine and the packet assembly both read evidence through this one function.
import { AppError } from '../errors.ts';
import type { EvidenceRef, StoredEvent } from './event.ts';

export const EVIDENCE_SANITIZED_KIND = 'evidence.sanitized';

/**
 * The payload of `evidence.sanitized` as this module reads it: `{artifact_id, note?}`, naming the
 * artifact whose raw evidence a sanitizer or reviewer turned into a safe projection. The event may
 * also carry the projection itself in its envelope `evidence_refs`, which enter the pool first.
 */
export type EvidenceSanitizedPayload = { artifact_id: string; note?: string };

/** Trust levels a sanitizer lifts: raw external or customer text becomes a sanitized projection. */
const RAISABLE = new Set<EvidenceRef['content_trust']>(['untrusted_external', 'customer_asserted']);

/**
 * Latest ref per artifact_id, keyed in first-seen order. Events must come in strictly increasing seq
 * order (a timeline is), otherwise "latest" would be a guess: `events_out_of_order`.
 *
 * A sanitization applies to the ref that is current when it is recorded. A later re-attachment of
 * the same artifact is new raw evidence and starts untrusted again; a sanitization of an artifact
 * not yet in the pool has nothing to lift and is ignored. trusted_internal is never lowered.
 */
export function buildEvidencePool(events: readonly StoredEvent[]): Map<string, EvidenceRef> {
  const pool = new Map<string, EvidenceRef>();
  let lastSeq = 0;
  for (const event of events) {
    if (!(event.seq > lastSeq)) {
      throw new AppError('events_out_of_order', `Events must be in increasing seq order; seq ${event.seq} follows ${lastSeq}.`);
    }
    lastSeq = event.seq;
    for (const ref of event.evidence_refs ?? []) pool.set(ref.artifact_id, ref);
    if (event.kind === EVIDENCE_SANITIZED_KIND) {
      const artifactId = (event.payload as Partial<EvidenceSanitizedPayload>).artifact_id;
      const current = typeof artifactId === 'string' ? pool.get(artifactId) : undefined;
      if (current && RAISABLE.has(current.content_trust)) {
        pool.set(current.artifact_id, { ...current, content_trust: 'sanitized_projection' });
      }
    }
  }
  return pool;
}
