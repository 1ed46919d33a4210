// The hash of one stored event (docs/contract.md §5), as `gov events verify` and the packet verifier
// recompute it. The log seals with the same definition inline (one canonicalization gives the hash
// and the line, src/store/event-log.ts); a store test checks every sealed event recomputes here.
import { canonicalSha256Uri } from './canonical-json.ts';

/** `sha256:` + hex SHA-256 of the RFC 8785 form of the event without its own `event_hash`. */
export function eventHash(event: object): string {
  const { event_hash: _eventHash, ...hashed } = event as Record<string, unknown>;
  return canonicalSha256Uri(hashed);
}
