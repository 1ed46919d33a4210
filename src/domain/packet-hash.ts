// The two digests a Proof Packet carries (docs/contract.md §9): `packet_sha256` over the canonical
// packet minus its integrity block and receipt id, and `hash_chain_root` over its events' hashes.
import { AppError } from '../errors.ts';
import { canonicalJson, sha256Hex } from './canonical-json.ts';
import { leafHash, rootFromLeafHashes } from './merkle.ts';

const SHA256_URI = /^sha256:[0-9a-f]{64}$/;

/**
 * `sha256:` + hex SHA-256 of the RFC 8785 form of the packet without `integrity` and without the
 * top-level `receipt_id`: both are written after the hash is known (the receipt even after the
 * log has appended), so they cannot be inside what the hash covers.
 */
export function packetSha256(packet: Record<string, unknown>): string {
  const { integrity: _integrity, receipt_id: _receiptId, ...hashed } = packet;
  return `sha256:${sha256Hex(canonicalJson(hashed))}`;
}

/** The 32 raw bytes behind a `sha256:<hex>` URI; `invalid_hash` for anything else. */
export function hashBytes(uri: string): Buffer {
  if (typeof uri !== 'string' || !SHA256_URI.test(uri)) {
    throw new AppError('invalid_hash', 'Expected a hash of the form sha256:<64 lower-case hex>.', {
      details: [{ pointer: '', detail: `not a sha256 URI: ${String(uri).slice(0, 80)}` }],
    });
  }
  return Buffer.from(uri.slice('sha256:'.length), 'hex');
}

/** RFC 9162 root over the events' hashes in the given (seq) order; each leaf's data is the raw hash. */
export function hashChainRoot(eventHashes: readonly string[]): string {
  const root = rootFromLeafHashes(eventHashes.map((h) => leafHash(hashBytes(h))));
  return `sha256:${root.toString('hex')}`;
}
