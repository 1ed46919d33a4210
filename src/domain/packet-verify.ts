// The one Proof Packet verifier (docs/contract.md §9), shared by POST /v1/signatures/verify, `gov packet
// verify` and the tests: parse, then four checks in a fixed order, each failing with its own code.
// API: verifyPacket(input) → {ok, checks: {packet_hash, signature, hash_chain, receipt}}.
import { createPublicKey, type KeyObject } from 'node:crypto';
import type { Keys, SignatureVerifyResponse, SignatureVerifyResponseCheck } from './contract/schema-types.gen.ts';
import type { StoredEvent } from './event.ts';
import { eventHash } from './event-hash.ts';
import { leafHash, verifyInclusion } from './merkle.ts';
import { hashBytes, hashChainRoot, packetSha256 } from './packet-hash.ts';
import { parseCheckpoint, verifyNote, type Checkpoint } from './signed-note.ts';
import { isSignatureAlg, keyIdFor, verifyPacketHash } from './signing.ts';

/** One key of GET /v1/keys (schemas/api/keys.json). */
export type VerifyKey = Keys['keys'][number];
export type Receipt = {
  receipt_id: string; packet_sha256: string; event: StoredEvent;
  log_index: number; inclusion_proof: string[]; checkpoint: string;
};
export type PacketVerifyInput = {
  packet: unknown;
  /**
   * Timeline events of the packet's tasks, any order; absent → hash_chain is skipped. Given, they
   * are all there is: a packet naming events they do not hold fails (an empty list included).
   */
  events?: readonly StoredEvent[];
  keys: readonly VerifyKey[];
  /** The preview's HMAC secret; never served, so only the server itself can check hmac-sha256. */
  hmacSecret?: Uint8Array;
  /**
   * The receipt of a signed_and_receipted packet: absent → the receipt check is skipped (not given,
   * as a stranger holding only the packet and the keys); null → it was looked for where it must be
   * (the server's log) and is not there, which fails (receipt_missing).
   */
  receipt?: Receipt | null;
  /** The transparency log's ed25519 key; the note key name defaults to the origin. */
  log?: { publicKey: KeyObject | string; origin?: string; name?: string };
};
/** The verdict POST /v1/signatures/verify answers (schemas/api/signature-verify-response.json), less its non_claims. */
export type PacketVerification = Omit<SignatureVerifyResponse, 'non_claims'>;
export type CheckName = keyof PacketVerification['checks'];
export type CheckResult = SignatureVerifyResponseCheck;

type Integrity = {
  packet_sha256: string; canonicalization: string; key_id: string;
  integrity_class: 'hash_bound' | 'signed' | 'signed_and_receipted';
  signature?: { alg: string; value: string }; receipt_id?: string;
};
type Packet = Record<string, unknown> & { integrity: Integrity };

const pass = (detail: string): CheckResult => ({ status: 'pass', detail });
const fail = (code: string, detail: string): CheckResult => ({ status: 'fail', code, detail });
const skipped = (detail: string): CheckResult => ({ status: 'skipped', detail });

export function verifyPacket(input: PacketVerifyInput): PacketVerification {
  const packet = parsePacket(input.packet);
  if (typeof packet === 'string') {
    const broken = fail('malformed_packet', packet);
    return { ok: false, checks: { packet_hash: broken, signature: broken, hash_chain: broken, receipt: broken } };
  }
  const checks = {
    packet_hash: checkPacketHash(packet),
    signature: checkSignature(packet, input),
    hash_chain: checkHashChain(packet, input.events),
    receipt: checkReceipt(packet, input),
  };
  return { ok: Object.values(checks).every((c) => c.status !== 'fail'), checks };
}

/** Only the members every check relies on; the full shape is the JSON Schema's job. */
function parsePacket(value: unknown): Packet | string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'the packet is not an object';
  const integrity = (value as Record<string, unknown>).integrity as Partial<Integrity> | undefined;
  if (typeof integrity !== 'object' || integrity === null) return 'the packet has no integrity object';
  if (typeof integrity.packet_sha256 !== 'string' || typeof integrity.key_id !== 'string') {
    return 'integrity needs packet_sha256 and key_id';
  }
  if (!['hash_bound', 'signed', 'signed_and_receipted'].includes(String(integrity.integrity_class))) {
    return 'integrity_class is not hash_bound, signed or signed_and_receipted';
  }
  return value as Packet;
}

function checkPacketHash(packet: Packet): CheckResult {
  if (packet.integrity.canonicalization !== 'json-c14n-v1') {
    return fail('unsupported_canonicalization', 'only json-c14n-v1 (RFC 8785) is defined');
  }
  let actual: string;
  try {
    actual = packetSha256(packet);
  } catch {
    return fail('not_plain_json', 'the packet is not plain JSON');
  }
  if (actual !== packet.integrity.packet_sha256) return fail('packet_hash_mismatch', `the canonical packet hashes to ${actual}`);
  // integrity lies outside the hash: what it repeats from the hashed packet must agree with it.
  const manifest = (packet.redaction_manifest as { manifest_sha256?: unknown } | undefined)?.manifest_sha256;
  const repeated = (packet.integrity as { manifest_sha256?: unknown }).manifest_sha256;
  if (repeated !== undefined && repeated !== manifest) {
    return fail('manifest_hash_mismatch', `integrity.manifest_sha256 is ${String(repeated)}, the hashed redaction_manifest says ${String(manifest)}`);
  }
  return pass('the canonical packet (without integrity and receipt_id) hashes to integrity.packet_sha256');
}

function checkSignature(packet: Packet, input: PacketVerifyInput): CheckResult {
  const { integrity_class: cls, signature, key_id: keyId, packet_sha256: hash } = packet.integrity;
  // A hash_bound packet needs no signature, but one it shows is checked: a reader sees it, and
  // "skipped" would let a signature nobody made pass as part of a verified packet.
  if (cls === 'hash_bound' && signature === undefined) return skipped('hash_bound packets carry no signature');
  if (!signature || typeof signature.value !== 'string' || !isSignatureAlg(signature.alg)) {
    return fail('signature_missing', `${cls} needs integrity.signature with a known alg`);
  }
  let key: KeyObject | Uint8Array;
  if (signature.alg === 'hmac-sha256') {
    if (!input.hmacSecret || keyIdFor('hmac-sha256', input.hmacSecret) !== keyId) {
      return fail('unknown_key', `no HMAC secret for ${keyId} is available to this verifier`);
    }
    key = input.hmacSecret;
  } else {
    const known = input.keys.find((k) => k.key_id === keyId);
    if (!known) return fail('unknown_key', `no public key named ${keyId}`);
    if (known.alg !== signature.alg) return fail('key_alg_mismatch', `${keyId} is a ${known.alg} key, not ${signature.alg}`);
    try {
      key = createPublicKey(known.public_key_pem);
    } catch {
      return fail('invalid_key', `the public key of ${keyId} does not parse`);
    }
  }
  try {
    return verifyPacketHash(signature.alg, hash, signature.value, key)
      ? pass(`${signature.alg} signature by ${keyId} over packet_sha256 verifies`)
      : fail('signature_invalid', `the ${signature.alg} signature does not verify`);
  } catch {
    return fail('key_alg_mismatch', `the key of ${keyId} does not fit ${signature.alg}`);
  }
}

/**
 * The packet's events are those of its tasks in its scope, in seq order, from first_event_id to
 * last_event_id. Each must recompute its own hash, each link between consecutive seqs must hold,
 * and the Merkle root over their hashes must be the packet's hash_chain_root.
 */
function checkHashChain(packet: Packet, events: readonly StoredEvent[] | undefined): CheckResult {
  if (events === undefined) return skipped('no timeline events were given');
  const range = packet.event_range as { first_event_id?: unknown; last_event_id?: unknown; event_count?: unknown } | undefined;
  const taskIds = new Set(Array.isArray(packet.task_ids) ? packet.task_ids : []);
  const inScope = events
    .filter((e) => taskIds.has(e.task_id) && e.tenant_id === packet.tenant_id
      && e.workspace_id === packet.workspace_id && e.project_id === packet.project_id)
    .sort((a, b) => a.seq - b.seq);
  if (inScope.some((e, i) => i > 0 && e.seq === inScope[i - 1]!.seq)) return fail('duplicate_seq', 'two events share a seq');
  const first = inScope.findIndex((e) => e.event_id === range?.first_event_id);
  const last = inScope.findIndex((e) => e.event_id === range?.last_event_id);
  if (first < 0 || last < first) {
    // A task of the packet with no event in the timelines given: most likely its timeline was left out.
    const held = new Set(inScope.map((e) => e.task_id));
    const without = [...taskIds].filter((id) => !held.has(id));
    return fail('event_range_mismatch', inScope.length === 0
      ? 'the timeline holds no event of these tasks in this scope: the packet names events that are not there'
      : without.length > 0
        ? `the timelines given hold no event of task ${without.map(String).join(', ')}: give each task's timeline (--timeline FILE, per task)`
        : 'event_range does not name events of these tasks in order');
  }
  const covered = inScope.slice(first, last + 1);
  if (covered.length !== range?.event_count) {
    return fail('event_count_mismatch', `${covered.length} events lie in the range, the packet says ${String(range?.event_count)}`);
  }
  for (let i = 0; i < covered.length; i++) {
    const e = covered[i]!;
    if (eventHash(e) !== e.event_hash) {
      return fail('event_hash_mismatch', `event seq ${e.seq} does not hash to its event_hash`);
    }
    const before = covered[i - 1];
    if (before && before.seq + 1 === e.seq && e.prev_hash !== before.event_hash) {
      return fail('prev_hash_mismatch', `event seq ${e.seq} does not link to seq ${before.seq}`);
    }
  }
  const root = hashChainRoot(covered.map((e) => e.event_hash));
  return root === packet.hash_chain_root
    ? pass(`${covered.length} events recompute and their RFC 9162 root is hash_chain_root`)
    : fail('hash_chain_root_mismatch', `the events' root is ${root}`);
}

function checkReceipt(packet: Packet, input: PacketVerifyInput): CheckResult {
  const { integrity_class: cls, receipt_id: receiptId, packet_sha256: hash } = packet.integrity;
  // Neither receipt_id is hashed, so the packet must agree with itself before any receipt is asked
  // for: a stranger without the receipt still sees two ids that cannot both be its receipt.
  if (packet.receipt_id !== undefined && packet.receipt_id !== receiptId) {
    return fail('receipt_id_mismatch', 'receipt_id and integrity.receipt_id disagree');
  }
  // As with a signature: a receipt id the class does not call for is still checked when shown.
  if (cls !== 'signed_and_receipted' && receiptId === undefined) return skipped(`${cls} packets carry no receipt`);
  const receipt = input.receipt;
  if (receipt === undefined) return skipped(`the receipt ${String(receiptId)} was not given`);
  if (receipt === null) return fail('receipt_missing', `the receipt ${String(receiptId)} is not in this log`);
  if (receipt.receipt_id !== receiptId) {
    return fail('receipt_id_mismatch', 'the receipt, integrity.receipt_id and receipt_id disagree');
  }
  const event = receipt.event;
  if (typeof event !== 'object' || event === null || eventHash(event) !== event.event_hash) {
    return fail('receipt_event_hash_mismatch', 'the receipted event does not hash to its event_hash');
  }
  if (event.kind !== 'proof_packet.receipted' || event.event_id !== receiptId
    || event.payload?.packet_sha256 !== hash || receipt.packet_sha256 !== hash) {
    return fail('receipt_event_mismatch', 'the receipted event is not proof_packet.receipted of this packet_sha256');
  }
  return checkCheckpoint(receipt, input.log);
}

function checkCheckpoint(receipt: Receipt, log: PacketVerifyInput['log']): CheckResult {
  if (!log) return fail('log_key_missing', 'no transparency log key was given');
  let publicKey: KeyObject;
  try {
    publicKey = typeof log.publicKey === 'string' ? createPublicKey(log.publicKey) : log.publicKey;
  } catch {
    return fail('invalid_key', 'the log public key does not parse');
  }
  const name = log.name ?? log.origin ?? originOf(receipt.checkpoint);
  if (publicKey.asymmetricKeyType !== 'ed25519') return fail('invalid_key', 'the log key is not an ed25519 key');
  const opened = verifyNote(receipt.checkpoint, { name, publicKey });
  if (!opened.ok) return fail('checkpoint_invalid', `the checkpoint note does not verify: ${opened.detail}`);
  let checkpoint: Checkpoint;
  try {
    checkpoint = parseCheckpoint(opened.body);
  } catch {
    return fail('checkpoint_invalid', 'the checkpoint body is malformed');
  }
  if (log.origin !== undefined && checkpoint.origin !== log.origin) {
    return fail('checkpoint_invalid', `the checkpoint is from ${checkpoint.origin}, not ${log.origin}`);
  }
  if (receipt.log_index !== receipt.event.seq - 1) {
    return fail('inclusion_proof_invalid', 'log_index is not the receipted event seq - 1');
  }
  const proof: unknown = receipt.inclusion_proof;
  if (!Array.isArray(proof) || !proof.every((h): h is string => typeof h === 'string' && /^[0-9a-f]{64}$/.test(h))) {
    return fail('inclusion_proof_invalid', 'the inclusion proof is not a list of lower-case hex hashes');
  }
  const leaf = leafHash(hashBytes(receipt.event.event_hash));
  const ok = verifyInclusion(leaf, receipt.log_index, checkpoint.size, proof.map((h) => Buffer.from(h, 'hex')), checkpoint.rootHash);
  return ok
    ? pass(`the receipt event is leaf ${receipt.log_index} of the signed checkpoint of size ${checkpoint.size}`)
    : fail('inclusion_proof_invalid', 'the inclusion proof does not lead to the checkpoint root');
}

/** Without a configured name, the key name is the checkpoint's own origin line (as C2SP logs do). */
function originOf(note: string): string {
  return typeof note === 'string' ? note.slice(0, Math.max(0, note.indexOf('\n'))) : '';
}
