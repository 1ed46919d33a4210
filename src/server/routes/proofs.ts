// Claim boundaries, Proof Packets, receipts, keys, signature verification and attestations.
import { assemblePacket, changePacketStatus, evaluateClaims } from '../../service/proofs-service.ts';
import { packetAttestation, packetManifest, publicKeys, verifySignatures, viewPacket, viewReceipt } from '../../service/receipts-service.ts';
import { requirePathId } from '../request-input.ts';
import { P, U } from '../responses.ts';
import type { Route } from '../route-spec.ts';
import { readContextOf, writeContextOf, writeResponse } from '../write-context.ts';

const packetId = (value: string | undefined) => requirePathId(value ?? '', 'proof packet');

export const PROOF_ROUTES: Route[] = [
  {
    method: 'POST', path: '/v1/claim-boundaries/evaluate', status: 'preview', access: 'write', scoped: true,
    summary: 'Claim Boundary decision (engine cb-2: trust earned, never asserted) with the semantic-correctness non-claim.',
    readme: 'engine `cb-2` (asserted trust capped until reviewed or sanitized) → `claim_boundary.evaluated`',
    request: 'api/claim-evaluate-request.json', responses: { 200: 'api/claim-decision.json', 400: P, 404: P, 422: P },
    handler: async (c, deps) => {
      const { replayed, decision } = await evaluateClaims(deps, writeContextOf(c), c.get('body'));
      if (replayed) c.header('Idempotent-Replayed', 'true');
      return c.json(decision, 200);
    },
  },
  {
    method: 'POST', path: '/v1/proof-packets', status: 'preview', access: 'write', scoped: true,
    summary: 'Assemble a schema-valid Proof Packet v1 (deterministic at a given as_of).',
    readme: 'Proof Packet v1 → `proof_packet.assembled` + `access.logged`',
    request: 'api/proof-packet-request.json', responses: { 201: 'api/proof-packet.json', 200: 'api/proof-packet.json', 400: P, 404: P, 409: P, 422: U },
    handler: async (c, deps) => {
      const outcome = await assemblePacket(deps, writeContextOf(c), c.get('body'));
      // A body the template's gate refuses answers the validation body, as POST /v1/templates/validate does.
      if (!outcome.ok) return c.json(outcome.validation, 422);
      const { replayed, packet } = outcome.write;
      return writeResponse(c, replayed, packet as unknown as Record<string, unknown>);
    },
  },
  {
    method: 'GET', path: '/v1/proof-packets/{packet_id}', status: 'preview', access: 'read', scoped: true,
    summary: 'A packet as assembled (its latest issue). Access-logged.', readme: 'the packet as assembled; `access.logged` viewed; another scope → 404 logged as denied', responses: { 200: 'api/proof-packet.json', 404: P },
    handler: async (c, deps) => c.json(await viewPacket(deps, readContextOf(c), packetId(c.req.param('packet_id')), (e) => e.payload.packet as object)),
  },
  {
    method: 'POST', path: '/v1/proof-packets/{packet_id}/status', status: 'preview', access: 'write', scoped: true, accessLog: { resource: 'proof_packet', idParam: 'packet_id' },
    summary: 'Move a packet draft → final → exported, or any → revoked (reason required), re-issuing it with its new status and integrity.',
    readme: 'draft → final → exported, any → revoked (reason) → `proof_packet.status_changed` + re-issued `proof_packet.assembled`; other moves → 409 `invalid_transition`',
    request: 'api/packet-status-request.json', responses: { 201: 'api/proof-packet.json', 200: 'api/proof-packet.json', 400: P, 404: P, 409: P, 422: P },
    handler: async (c, deps) => {
      const { replayed, packet } = await changePacketStatus(deps, writeContextOf(c), packetId(c.req.param('packet_id')), c.get('body'));
      return writeResponse(c, replayed, packet as unknown as Record<string, unknown>);
    },
  },
  {
    method: 'GET', path: '/v1/proof-packets/{packet_id}/redaction-manifest', status: 'preview', access: 'read', scoped: true,
    summary: "The packet's redaction manifest and the actions its manifest_sha256 hashes. Access-logged.", readme: 'manifest + the actions it hashes; `access.logged` viewed',
    responses: { 200: 'api/redaction-manifest-response.json', 404: P },
    handler: async (c, deps) => c.json(await viewPacket(deps, readContextOf(c), packetId(c.req.param('packet_id')), packetManifest)),
  },
  {
    method: 'GET', path: '/v1/proof-packets/{packet_id}/attestation', status: 'preview', access: 'read', scoped: true,
    summary: 'DSSE envelope of an in-toto Statement v1 about the packet (ed25519). Access-logged.', readme: 'DSSE / in-toto Statement v1; `access.logged` viewed',
    responses: { 200: 'api/attestation.json', 404: P },
    handler: async (c, deps) => c.json(await viewPacket(deps, readContextOf(c), packetId(c.req.param('packet_id')), (e) => packetAttestation(e, deps.keys))),
  },
  {
    method: 'GET', path: '/v1/receipts/{receipt_id}', status: 'preview', access: 'read', scoped: true,
    summary: 'Receipt: the receipted event, its RFC 9162 inclusion proof and a signed C2SP checkpoint. Access-logged.', readme: 'event, inclusion proof, signed checkpoint; `access.logged` viewed',
    responses: { 200: 'api/receipt.json', 404: P },
    handler: async (c, deps) => c.json(await viewReceipt(deps, readContextOf(c), requirePathId(c.req.param('receipt_id') ?? '', 'receipt'))),
  },
  {
    method: 'POST', path: '/v1/signatures/verify', status: 'preview', access: 'read', scoped: true,
    summary: 'Verify packet hash, signature, hash chain and receipt binding.', readme: 'hash, signature, hash chain, receipt; computes only',
    request: 'api/signature-verify-request.json', responses: { 200: 'api/signature-verify-response.json', 400: P, 404: P, 422: P },
    handler: async (c, deps) => c.json(await verifySignatures(deps, readContextOf(c), c.get('body'))),
  },
  {
    method: 'GET', path: '/v1/keys', status: 'preview', access: 'read', scoped: false,
    summary: 'Public halves of the signing keys (never the HMAC secret).', readme: 'public keys (never the HMAC secret)',
    responses: { 200: 'api/keys.json' },
    handler: (c, deps) => c.json(publicKeys(deps.keys)),
  },
];
