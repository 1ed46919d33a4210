// DSSE v1 envelopes (secure-systems-lab/dsse) signed with ed25519 over the pre-authentication
// encoding, and the in-toto Statement v1 that `GET /v1/proof-packets/{id}/attestation` wraps.
// API: pae, signEnvelope, verifyEnvelope, inTotoStatementForPacket, IN_TOTO_PAYLOAD_TYPE.
import { sign, verify, type KeyObject } from 'node:crypto';
import { canonicalJson, sha256Hex } from './canonical-json.ts';

export const IN_TOTO_PAYLOAD_TYPE = 'application/vnd.in-toto+json';
export const PROOF_PACKET_PREDICATE_TYPE = 'https://schemas.gov.local/api/proof-packet.json';

export type DsseSignature = { keyid: string; sig: string };
export type DsseEnvelope = { payloadType: string; payload: string; signatures: DsseSignature[] };

// DSSE allows standard or URL-safe base64, padded or not; Node's decoder reads both alphabets.
const BASE64_ANY = /^[A-Za-z0-9+/_-]*={0,2}$/;

/**
 * PAE(type, body) = "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body, LEN being the byte length
 * in ASCII decimal. Signing this rather than the payload binds the type, so a signed payload cannot
 * be replayed under another type.
 */
export function pae(payloadType: string, payload: Uint8Array): Buffer {
  const type = Buffer.from(payloadType, 'utf8');
  return Buffer.concat([
    Buffer.from(`DSSEv1 ${type.length} `, 'ascii'), type,
    Buffer.from(` ${payload.length} `, 'ascii'), payload,
  ]);
}

/** One ed25519 signature; payload and sig in standard base64, as DSSE tooling writes them. */
export function signEnvelope(
  payloadType: string, payload: Uint8Array, signer: { keyid: string; privateKey: KeyObject },
): DsseEnvelope {
  const sig = sign(null, pae(payloadType, payload), signer.privateKey).toString('base64');
  return { payloadType, payload: Buffer.from(payload).toString('base64'), signatures: [{ keyid: signer.keyid, sig }] };
}

/** True when the envelope is well formed and at least one signature verifies with the ed25519 key. */
export function verifyEnvelope(envelope: unknown, publicKey: KeyObject): boolean {
  if (!isEnvelope(envelope) || !BASE64_ANY.test(envelope.payload)) return false;
  const message = pae(envelope.payloadType, Buffer.from(envelope.payload, 'base64'));
  return envelope.signatures.some((s) => {
    if (!BASE64_ANY.test(s.sig)) return false;
    const sig = Buffer.from(s.sig, 'base64');
    return sig.length === 64 && verify(null, message, publicKey, sig);
  });
}

export type InTotoStatement = {
  _type: 'https://in-toto.io/Statement/v1';
  subject: { name: string; digest: { sha256: string }; annotations: { packet_sha256: string } }[];
  predicateType: string;
  predicate: Record<string, unknown>;
};

/**
 * The statement for a packet. The subject digest is the SHA-256 of the packet's full RFC 8785 form,
 * integrity block included: those are the bytes the service hands out, so `sha256sum` of the
 * canonical packet (or of the canonicalised predicate) matches it with no project-specific rule.
 * The packet's own `packet_sha256` (which leaves out `integrity` and `receipt_id`) rides along as a
 * subject annotation, linking the attestation to the packet's signature and receipt.
 */
export function inTotoStatementForPacket(packet: Record<string, unknown>): InTotoStatement {
  const integrity = packet.integrity as { packet_sha256?: unknown } | undefined;
  return {
    _type: 'https://in-toto.io/Statement/v1',
    subject: [{
      name: `proof-packet:${String(packet.packet_id)}`,
      digest: { sha256: sha256Hex(canonicalJson(packet)) },
      annotations: { packet_sha256: String(integrity?.packet_sha256) },
    }],
    predicateType: PROOF_PACKET_PREDICATE_TYPE,
    predicate: packet,
  };
}

/** The attestation: the statement's canonical JSON in a DSSE envelope of type in-toto. */
export function attestPacket(packet: Record<string, unknown>, signer: { keyid: string; privateKey: KeyObject }): DsseEnvelope {
  const statement = inTotoStatementForPacket(packet);
  return signEnvelope(IN_TOTO_PAYLOAD_TYPE, Buffer.from(canonicalJson(statement), 'utf8'), signer);
}

function isEnvelope(value: unknown): value is DsseEnvelope {
  if (typeof value !== 'object' || value === null) return false;
  const e = value as Record<string, unknown>;
  return typeof e.payloadType === 'string' && typeof e.payload === 'string' && Array.isArray(e.signatures)
    && e.signatures.length > 0
    && e.signatures.every((s) => typeof s === 'object' && s !== null && typeof (s as DsseSignature).sig === 'string');
}
