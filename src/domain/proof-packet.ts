// The Proof Packet v1 shapes, generated from schemas/api/proof-packet.json (the contract), the parts
// assembly works with, and the request of POST /v1/proof-packets (docs/contract.md §9).
import type { PacketIntegrity, ProofPacket, ProofPacketRequest, RedactionManifest } from './contract/schema-types.gen.ts';
import type { SignatureAlg } from './signing.ts';

export type { PacketIntegrity, ProofPacket, ProofPacketRequest, RedactionManifest, SignatureAlg };

export const PACKET_SCHEMA_VERSION = 'service.proof_packet.v1';
export const CANONICALIZATION = 'json-c14n-v1';
export const HASH_ONLY_KEY_ID = 'hash-only';

export type IntegrityClass = PacketIntegrity['integrity_class'];
export type PacketStatus = ProofPacket['packet_status'];
export type EventRange = ProofPacket['event_range'];
/** A packet before it is sealed: everything but the integrity block (and the receipt it may name). */
export type PacketBody = Omit<ProofPacket, 'integrity' | 'receipt_id'>;

/**
 * The status moves of a packet (docs/contract.md §9): draft → final → exported, and any status but
 * revoked → revoked. Nothing moves back, nothing stays where it is, and revoked is final.
 */
export const PACKET_STATUS_MOVES: Readonly<Record<PacketStatus, readonly PacketStatus[]>> = {
  draft: ['final', 'revoked'],
  final: ['exported', 'revoked'],
  exported: ['revoked'],
  revoked: [],
};

export function canMovePacket(from: PacketStatus, to: PacketStatus): boolean {
  return PACKET_STATUS_MOVES[from].includes(to);
}

/** The body of a re-issue: the issued packet without its integrity block and receipt, at the new status. */
export function reissueBody(packet: ProofPacket, status: PacketStatus): PacketBody {
  const { integrity: _integrity, receipt_id: _receiptId, ...body } = packet;
  return { ...body, packet_status: status };
}

/** A packet_id's latest issue as a verifier reads it from the service; null when it has none. */
export type LatestIssue = { packet_status: string | null; packet_sha256: string | null } | null;

/** Why a packet file is not a current packet; each transport words it. */
export type NotCurrent = 'revoked' | 'revoked_since' | 'not_issued' | 'not_latest';

/**
 * Whether a packet file is current (docs/contract.md §9), whatever its integrity says: a revoked
 * packet never is (its own status says so, or the service's latest issue of its packet_id does),
 * and, read against the service (`latest` given; undefined offline), only that latest issue is — an
 * earlier issue (a status move re-issues the packet) or a body the service never issued is not.
 */
export function notCurrent(file: { packet_status: string | null; packet_sha256: string | null }, latest: LatestIssue | undefined): NotCurrent | null {
  if (file.packet_status === 'revoked') return 'revoked';
  if (latest === undefined) return null;
  if (latest === null) return 'not_issued';
  if (latest.packet_status === 'revoked') return 'revoked_since';
  return latest.packet_sha256 === file.packet_sha256 ? null : 'not_latest';
}
