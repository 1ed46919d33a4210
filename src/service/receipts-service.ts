// Receipts, keys, signature verification and the DSSE attestation: everything a stranger needs to
// check a packet, served from event truth and the preview's public keys.
import { CLAIM_BOUNDARY_NON_CLAIMS } from '../domain/claim-boundary.ts';
import { attestPacket, type DsseEnvelope } from '../domain/dsse.ts';
import { leafHash, SubtreeCache } from '../domain/merkle.ts';
import { hashBytes } from '../domain/packet-hash.ts';
import { verifyPacket, type PacketVerification, type Receipt } from '../domain/packet-verify.ts';
import { sameScope, type Scope, type StoredEvent } from '../domain/event.ts';
import { formatCheckpoint, signNote } from '../domain/signed-note.ts';
import { AppError } from '../errors.ts';
import type { KeyRing } from '../store/keys.ts';
import type { ServiceDeps } from './deps.ts';
import { accessEvent, deny } from './governance/refusals.ts';
import { packetEventOrDeny, packetResource } from './proofs-service.ts';
import type { WriteContext } from './write-context.ts';

export function publicKeys(keys: KeyRing) {
  return {
    // The current keys first (a verifier that takes the first ed25519 key checks the log's checkpoints with it).
    keys: [keys.ed25519, keys.ecdsa, ...(keys.retired ?? []).flatMap((r) => [r.ed25519, r.ecdsa])].map((k) => ({ key_id: k.keyId, alg: k.alg, public_key_pem: k.publicKeyPem })),
  };
}

/**
 * The log's Merkle tree, one per store: the hashes of its perfect subtrees are kept, as events are
 * never changed or removed, so a receipt costs O(log n) of them, not a pass over the whole log (each
 * receipt read hashed every event: ~1 s at 63,000 events).
 */
const logTrees = new WeakMap<ServiceDeps['store'], SubtreeCache>();

function logTree(deps: ServiceDeps): SubtreeCache {
  let tree = logTrees.get(deps.store);
  if (tree === undefined) {
    // Leaf i is the event of seq i + 1.
    tree = new SubtreeCache((from, to) => deps.queries.eventHashesBetween(from + 1, to).map((h) => leafHash(hashBytes(h))));
    logTrees.set(deps.store, tree);
  }
  return tree;
}

/**
 * The receipt of a receipted packet: the receipted event, its RFC 9162 inclusion proof in the
 * current log, and a C2SP checkpoint of that log signed as a C2SP note with the ed25519 key.
 */
export function getReceipt(deps: ServiceDeps, scope: Scope, receiptId: string): Receipt {
  const event = deps.queries.eventById(receiptId);
  if (!event || event.kind !== 'proof_packet.receipted' || !sameScope(event, scope)) {
    throw new AppError('not_found', `No receipt ${receiptId} in this tenant, workspace and project.`);
  }
  const size = deps.store.index.lastSeq();
  const tree = logTree(deps);
  const index = event.seq - 1;
  const body = formatCheckpoint({ origin: deps.keys.logOrigin, size, rootHash: tree.rootOf(size) });
  const checkpoint = signNote(body, { name: deps.keys.logOrigin, privateKey: deps.keys.ed25519.privateKey, publicKey: deps.keys.ed25519.publicKey });
  return {
    receipt_id: receiptId,
    packet_sha256: String(event.payload.packet_sha256),
    event,
    log_index: index,
    inclusion_proof: tree.inclusionProof(index, size).map((b) => b.toString('hex')),
    checkpoint,
  };
}

/** POST /v1/signatures/verify: hash, signature, hash chain (recomputed from the timeline) and receipt. */
export async function verifySignatures(deps: ServiceDeps, ctx: WriteContext, body: unknown): Promise<PacketVerification & { non_claims: string[] }> {
  deps.registry.assert('api/signature-verify-request.json', body, 'signature verification request');
  const { packet } = body;
  const scope = ctx.scope;
  if (!sameScope(packet, scope)) {
    // A packet of another scope is not verified against this one: a denial, logged as every 404 across scopes is.
    await deny(deps, ctx, ctx.principal, packetResource(packet.packet_id), { code: 'not_found_in_scope', message: 'The packet belongs to another tenant, workspace or project; verify it with the scope headers of its own scope.' });
  }
  const events: StoredEvent[] = packet.task_ids.flatMap((id) => deps.queries.taskEventsUpTo(scope, id, Number.MAX_SAFE_INTEGER));
  let receipt: Receipt | null | undefined;
  const receiptId = packet.integrity.receipt_id;
  if (receiptId) {
    try {
      receipt = getReceipt(deps, scope, receiptId);
    } catch {
      receipt = null; // not in this log: the verifier reports receipt_missing
    }
  }
  const result = verifyPacket({
    packet,
    events,
    keys: publicKeys(deps.keys).keys,
    hmacSecret: deps.keys.hmac.secret,
    ...(receipt !== undefined ? { receipt } : {}),
    log: { publicKey: deps.keys.ed25519.publicKey, origin: deps.keys.logOrigin },
  });
  return { ...result, non_claims: [...CLAIM_BOUNDARY_NON_CLAIMS] };
}

/**
 * A read of one of a packet's views (the packet, its redaction manifest, its attestation), which the
 * access log records (docs/governance/exports.md): `viewed` when answered, `attempted`/denied with
 * the 404 when the scope holds no such packet.
 */
export async function viewPacket<T>(deps: ServiceDeps, ctx: WriteContext, packetId: string, view: (event: StoredEvent) => T): Promise<T> {
  const answer = view(await packetEventOrDeny(deps, ctx, packetId));
  await deps.store.append([accessEvent(deps, ctx, ctx.principal, { action: 'viewed', outcome: 'allowed', resource: packetResource(packetId) })]);
  return answer;
}

/** GET /v1/receipts/{receipt_id}: the receipt, its read access-logged as a packet's are. */
export async function viewReceipt(deps: ServiceDeps, ctx: WriteContext, receiptId: string): Promise<Receipt> {
  const resource = { type: 'receipt', id: receiptId };
  let receipt: Receipt;
  try {
    receipt = getReceipt(deps, ctx.scope, receiptId);
  } catch (err) {
    if (!(err instanceof AppError) || err.code !== 'not_found') throw err;
    return deny(deps, ctx, ctx.principal, resource, { code: 'not_found', message: err.message });
  }
  await deps.store.append([accessEvent(deps, ctx, ctx.principal, { action: 'viewed', outcome: 'allowed', resource })]);
  return receipt;
}

export function packetAttestation(packetEvent: StoredEvent, keys: KeyRing): DsseEnvelope {
  const packet = packetEvent.payload.packet as Record<string, unknown>;
  return attestPacket(packet, { keyid: keys.ed25519.keyId, privateKey: keys.ed25519.privateKey });
}

export function packetManifest(packetEvent: StoredEvent) {
  const packet = packetEvent.payload.packet as { redaction_manifest: unknown };
  return { redaction_manifest: packet.redaction_manifest, actions: packetEvent.payload.redaction_actions };
}
