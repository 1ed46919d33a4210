// The hash of one stored event (contract section 5): the one function the event log, the packet
// verifier and `gov events verify` share, so they cannot disagree on what an event's hash covers.
import { canonicalSha256Uri } from './canonical-json.ts';

/** `sha256:` + hex SHA-256 of the RFC 8785 form of the event without its own `event_hash`. */
export function eventHash(event: object): string {
  const { event_hash: _eventHash, ...hashed } = event as Record<string, unknown>;
  return canonicalSha256Uri(hashed);
}
