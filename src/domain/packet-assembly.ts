// Proof Packet v1 assembly (docs/contract.md §9): a pure, deterministic function from a validated
// request, a scope and an as_of snapshot of event truth to the packet body, and the sealing step
// that adds its integrity block. Same inputs, byte-identical output (an ECDSA signature aside).
import { AppError } from '../errors.ts';
import { canonicalSha256Uri } from './canonical-json.ts';
import { formatDateTime, parseDateTime } from './date-time.ts';
import type { Scope, StoredEvent } from './event.ts';
import { buildEvidencePool } from './evidence-pool.ts';
import { derivedId } from './derived-id.ts';
import { hashChainRoot, packetSha256 } from './packet-hash.ts';
import { INTEGRITY_NON_CLAIM, decisionIdFor, evidenceNonClaims, evaluateClaimBoundary, toClaimBoundary, type ClaimDecision } from './claim-boundary.ts';
import { REDACTION_POLICY_ID, redactEvidenceRefs, type RedactionAction } from './redaction.ts';
import {
  CANONICALIZATION, HASH_ONLY_KEY_ID, PACKET_SCHEMA_VERSION, type IntegrityClass, type PacketBody, type PacketIntegrity,
  type ProofPacket, type ProofPacketRequest, type RedactionManifest, type SignatureAlg,
} from './proof-packet.ts';

const SEARCH_NON_CLAIM = 'Search is discovery only and is not proof authority: this packet is hydrated from task event truth, not from search results.';

/** The three non-claims every packet of the preview carries (docs/contract.md §9); callers may add more. */
export const DEFAULT_NON_CLAIMS: readonly string[] = [
  INTEGRITY_NON_CLAIM,
  SEARCH_NON_CLAIM,
  'This packet comes from a local preview: it is not production authentication, not production signing and not database or tenant isolation.',
];

/**
 * The hosted service's three (docs/hosting.md): its callers were authenticated, so the third says
 * what it still is not.
 */
export const HOSTED_NON_CLAIMS: readonly string[] = [
  INTEGRITY_NON_CLAIM,
  SEARCH_NON_CLAIM,
  "This packet comes from a hosted gov service: its callers were authenticated by OIDC tokens, but it is signed with a software key kept in the service's database (not a hardware or managed signing service), and its tenants share one database, kept apart by scope, not by database.",
];

export type AssemblePacketInput = {
  scope: Scope;
  request: ProofPacketRequest;
  /** Every event of the listed tasks in this scope with recorded_at ≤ asOf, in seq order. */
  events: readonly StoredEvent[];
  /** The access.logged events in this scope about these tasks with recorded_at ≤ asOf, in seq order. */
  accessLog: readonly StoredEvent[];
  /** Any RFC 3339 date-time; the packet carries it in the normal form. */
  asOf: string;
  defaultNonClaims?: readonly string[];
};
export type AssembledPacket = {
  body: PacketBody;
  manifest: { manifest: RedactionManifest; actions: RedactionAction[] };
  /** The full claim decision (with per-claim results) whose five claim_boundary members the body carries. */
  decision: ClaimDecision;
};

export function assemblePacketBody(input: AssemblePacketInput): AssembledPacket {
  const { scope, request, events, accessLog } = input;
  const asOfMs = parseDateTime(input.asOf, 'as_of');
  const asOf = formatDateTime(asOfMs);
  checkSnapshot(scope, request.task_ids, events, accessLog, asOfMs);
  const sessionIds = sortedUnique([
    ...events.flatMap((e) => (e.session_id === undefined ? [] : [e.session_id])),
    ...(request.session_ids ?? []),
  ]);
  if (sessionIds.length === 0) {
    throw new AppError('session_ids_required', 'A Proof Packet names at least one session, and none of these tasks has a bound session: bind a session (session.bound) or pass session_ids in the request.');
  }
  const hashRoot = hashChainRoot(events.map((e) => e.event_hash));
  const accessLogIds = accessLog.map((e) => e.event_id);
  // The ids hash everything the content follows from: what the packet is about (scope, request
  // with defaults filled, as_of in the normal form) and the snapshot (its events' root, the access
  // log entries it lists, the last seq it rests on). A replayed request names the same packet; a
  // snapshot that differs in anything, even one access log entry, names another.
  const snapshotSeq = Math.max(events[events.length - 1]!.seq, accessLog[accessLog.length - 1]?.seq ?? 0);
  const idInputs = {
    scope: { ...scope }, request: normalizeRequest(request), as_of: asOf,
    hash_chain_root: hashRoot, access_log_ids: accessLogIds, snapshot_seq: snapshotSeq,
  };

  const pool = [...buildEvidencePool(events).values()].sort((a, b) => compare(a.artifact_id, b.artifact_id));
  const redaction = redactEvidenceRefs(pool);
  const manifest: RedactionManifest = {
    manifest_id: derivedId('rdm', idInputs),
    policy_id: REDACTION_POLICY_ID,
    manifest_sha256: canonicalSha256Uri(redaction.actions),
    applied_at: asOf,
    summary: redaction.summary,
  };
  const decision = evaluateClaimBoundary({
    claims: request.claims ?? [], events, asOf, decisionId: decisionIdFor(idInputs), evaluatedAt: asOf,
  });
  const body: PacketBody = {
    schema_version: PACKET_SCHEMA_VERSION,
    packet_id: derivedId('pkt', idInputs),
    tenant_id: scope.tenant_id,
    workspace_id: scope.workspace_id,
    project_id: scope.project_id,
    task_ids: [...request.task_ids],
    session_ids: sessionIds,
    event_range: { first_event_id: events[0]!.event_id, last_event_id: events[events.length - 1]!.event_id, event_count: events.length },
    hash_chain_root: hashRoot,
    evidence_refs: redaction.refs,
    claim_boundary: toClaimBoundary(decision),
    redaction_manifest: manifest,
    access_log_ids: accessLogIds,
    // A decision citing sanitized evidence adds "checked for form, not truth" (docs/governance/trust.md).
    non_claims: [...new Set([...(input.defaultNonClaims ?? DEFAULT_NON_CLAIMS), ...evidenceNonClaims(decision), ...(request.non_claims ?? [])])],
    assembled_at: asOf,
    packet_status: request.packet_status ?? 'draft',
  };
  return { body, manifest: { manifest, actions: redaction.actions }, decision };
}

export type SealOptions = {
  integrityClass: IntegrityClass;
  /** The signing key's id; hash_bound packets always name `hash-only`. */
  keyId?: string;
  /** Signs the ASCII bytes of packet_sha256 and returns base64url. */
  sign?: (message: Buffer) => string;
  alg?: SignatureAlg;
  /** The id of the proof_packet.receipted event; signed_and_receipted only. */
  receiptId?: string;
};

/** Adds the integrity block (and, when receipted, the top-level receipt_id) to an assembled body. */
export function sealPacket(body: PacketBody, options: SealOptions): ProofPacket {
  const packet_sha256 = packetSha256(body);
  const cls = options.integrityClass;
  const integrity: PacketIntegrity = {
    packet_sha256,
    manifest_sha256: body.redaction_manifest.manifest_sha256,
    canonicalization: CANONICALIZATION,
    key_id: HASH_ONLY_KEY_ID,
    integrity_class: cls,
  };
  if (cls !== 'hash_bound') {
    if (!options.sign || !options.keyId) {
      throw new AppError('signer_required', `A ${cls} packet needs a signing key; pass keyId and sign, or ask for hash_bound.`);
    }
    integrity.key_id = options.keyId;
    // The signature covers the ASCII packet_sha256 URI: small, and the same bytes every verifier hashes.
    integrity.signature = { alg: options.alg ?? 'ed25519', value: options.sign(Buffer.from(packet_sha256, 'ascii')) };
  }
  if (cls === 'signed_and_receipted') {
    if (!options.receiptId) {
      throw new AppError('receipt_id_required', 'A signed_and_receipted packet needs the id of its proof_packet.receipted event; append it first.');
    }
    integrity.receipt_id = options.receiptId;
  }
  const { assembled_at, packet_status, ...front } = body;
  return {
    ...front,
    ...(integrity.receipt_id ? { receipt_id: integrity.receipt_id } : {}),
    integrity,
    assembled_at,
    packet_status,
  };
}

/**
 * A snapshot of the listed tasks as of an instant before their first event holds nothing to
 * assemble or to judge claims against (docs/contract.md §9): 422 empty_snapshot, for packets and
 * claim evaluations alike.
 */
export function refuseEmptySnapshot(events: readonly StoredEvent[]): void {
  if (events.length === 0) {
    throw new AppError('empty_snapshot', 'None of the listed tasks has an event recorded at or before as_of; choose a later as_of.');
  }
}

/**
 * One pass over each list: in seq order, in this scope, not after as_of (instants, never strings);
 * the events are about the listed tasks, the access log holds access.logged events only.
 */
function checkSnapshot(scope: Scope, taskIds: readonly string[], events: readonly StoredEvent[], accessLog: readonly StoredEvent[], asOfMs: number): void {
  refuseEmptySnapshot(events);
  const tasks = new Set(taskIds);
  for (const [list, what] of [[events, 'Events'], [accessLog, 'Access log entries']] as const) {
    let lastSeq = 0;
    for (const e of list) {
      if (!(e.seq > lastSeq)) throw new AppError('events_out_of_order', `${what} must be in increasing seq order; seq ${e.seq} follows ${lastSeq}.`);
      lastSeq = e.seq;
      // A packet must never mix tenants or workspaces: the packet-confusion guard holds here as well.
      if (e.tenant_id !== scope.tenant_id || e.workspace_id !== scope.workspace_id || e.project_id !== scope.project_id) {
        throw new AppError('event_out_of_scope', `Event ${e.event_id} belongs to another scope.`);
      }
      if (list === events && (e.task_id === undefined || !tasks.has(e.task_id))) {
        throw new AppError('event_outside_tasks', `Event ${e.event_id} is not about the listed tasks.`);
      }
      if (list === accessLog && e.kind !== 'access.logged') {
        throw new AppError('event_not_access_log', `Event ${e.event_id} is a ${e.kind}, not an access.logged entry.`);
      }
      if (!(parseDateTime(e.recorded_at, 'recorded_at') <= asOfMs)) {
        throw new AppError('event_after_as_of', `Event ${e.event_id} was recorded after as_of; the snapshot holds events up to as_of only.`);
      }
    }
  }
}

/**
 * The request as the packet's ids derive from it: defaults filled, so equal requests hash equal;
 * as_of dropped (it enters the inputs on its own); packet_status dropped, as the id stays through
 * the packet's re-issues (GOVERNANCE K), so assembling an issued snapshot under another status is
 * the 409 of a status move, not a new packet; signature_alg kept only where it signs (hash_bound
 * packets carry no signature).
 */
function normalizeRequest(r: ProofPacketRequest): Record<string, unknown> {
  const { as_of: _asOf, packet_status: _status, signature_alg: _alg, ...rest } = r;
  const integrityClass = r.integrity_class ?? 'hash_bound';
  return {
    ...rest,
    integrity_class: integrityClass,
    ...(integrityClass === 'hash_bound' ? {} : { signature_alg: r.signature_alg ?? 'ed25519' }),
  };
}

function sortedUnique(values: string[]): string[] {
  return [...new Set(values)].sort(compare);
}

/** Code-unit order, independent of locale, so the output is the same on every machine. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
