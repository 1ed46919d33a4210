// The Proof Packet v1 shapes (schemas/api/proof-packet.json is the contract, these types
// follow it) and the request of POST /v1/proof-packets (docs/contract.md §9).
import type { EvidenceRef, Scope } from './event.ts';
import type { ClaimBoundary, ClaimInput } from './claim-boundary.ts';
import type { RedactionSummary } from './redaction.ts';
import type { SignatureAlg } from './signing.ts';

export type { SignatureAlg };

export const PACKET_SCHEMA_VERSION = 'service.proof_packet.v1';
export const CANONICALIZATION = 'json-c14n-v1';
export const HASH_ONLY_KEY_ID = 'hash-only';

export type IntegrityClass = 'hash_bound' | 'signed' | 'signed_and_receipted';
export type PacketStatus = 'draft' | 'final' | 'exported' | 'revoked';

/** POST /v1/proof-packets body, already validated against api/proof-packet-request.json. */
export type ProofPacketRequest = {
  task_ids: string[];
  session_ids?: string[];
  claims?: ClaimInput[];
  integrity_class?: IntegrityClass;
  signature_alg?: SignatureAlg;
  packet_status?: 'draft' | 'final';
  non_claims?: string[];
  as_of?: string;
};

export type RedactionManifest = {
  manifest_id: string; policy_id: string; manifest_sha256: string; applied_at: string; summary: RedactionSummary;
};
export type EventRange = { first_event_id: string; last_event_id: string; event_count: number };
export type PacketBody = Scope & {
  schema_version: typeof PACKET_SCHEMA_VERSION;
  packet_id: string;
  task_ids: string[];
  session_ids: string[];
  event_range: EventRange;
  hash_chain_root: string;
  evidence_refs: EvidenceRef[];
  claim_boundary: ClaimBoundary;
  redaction_manifest: RedactionManifest;
  access_log_ids: string[];
  non_claims: string[];
  assembled_at: string;
  packet_status: PacketStatus;
};
export type PacketIntegrity = {
  packet_sha256: string;
  manifest_sha256?: string;
  canonicalization: typeof CANONICALIZATION;
  key_id: string;
  integrity_class: IntegrityClass;
  signature?: { alg: SignatureAlg; value: string };
  receipt_id?: string;
};
export type ProofPacket = PacketBody & { receipt_id?: string; integrity: PacketIntegrity };
