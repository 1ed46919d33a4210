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
