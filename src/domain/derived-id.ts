// Deterministic ids derived from canonical inputs (docs/contract.md §9): the same request, scope and
// as_of always name the same packet, manifest and decision, so an assembly can be reproduced.
import { canonicalJson, sha256Hex } from './canonical-json.ts';

/**
 * `<prefix>_` + the first 32 hex of SHA-256 over `<prefix>\n<RFC 8785 inputs>`. The prefix is hashed
 * too, so a packet and a manifest derived from the same inputs still get unrelated ids. 128 bits
 * keep accidental collisions out of reach; the result is always a valid id (docs/contract.md §3).
 */
export function derivedId(prefix: string, canonicalInputs: unknown): string {
  return `${prefix}_${sha256Hex(`${prefix}\n${canonicalJson(canonicalInputs)}`).slice(0, 32)}`;
}
