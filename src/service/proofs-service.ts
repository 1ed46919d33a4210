// Claim boundary evaluation and Proof Packet assembly over event truth, with the confusion guard:
// a request naming a task or session outside the caller's scope is blocked, assembles nothing, and
// leaves an access.logged (outcome denied) in the caller's scope.
import { DEFAULT_STALE_AFTER_DAYS, decisionIdFor, evaluateClaimBoundary, type ClaimDecision } from '../domain/claim-boundary.ts';
import type { Json } from '../domain/canonical-json.ts';
import { formatDateTime, parseDateTime } from '../domain/date-time.ts';
import { derivedId } from '../domain/derived-id.ts';
import type { Scope, StoredEvent } from '../domain/event.ts';
import { assemblePacketBody, HOSTED_NON_CLAIMS, refuseEmptySnapshot, sealPacket } from '../domain/packet-assembly.ts';
import { hashChainRoot, packetSha256 } from '../domain/packet-hash.ts';
import { canMovePacket, PACKET_STATUS_MOVES, reissueBody, type IntegrityClass, type PacketBody, type PacketStatus, type ProofPacket, type SignatureAlg } from '../domain/proof-packet.ts';
import { signPacketHash } from '../domain/signing.ts';
import { AppError } from '../errors.ts';
import type { PendingEvent } from '../store/event-log.ts';
import type { Expectation } from '../store/expectations.ts';
import type { KeyRing } from '../store/keys.ts';
import type { ServiceDeps } from './deps.ts';
import { committedReplay } from './idempotency.ts';
import { retryOnConflict, writeConflict } from './optimistic.ts';
import { gateRouteBody, type Gated } from './templates-service.ts';
import { pendingEvent, type WriteContext } from './write-context.ts';
import { requestedAsOf, snapshotNow } from './as-of.ts';
import { accessEvent, deny } from './governance/refusals.ts';

export async function evaluateClaims(deps: ServiceDeps, ctx: WriteContext, body: unknown): Promise<{ replayed: boolean; decision: ClaimDecision }> {
  deps.registry.assert('api/claim-evaluate-request.json', body, 'claim evaluation request');
  const req = body;
  const requested = requestedAsOf(deps, req.as_of);
  await deps.store.settled();
  await guardScope(deps, ctx, { taskIds: req.task_ids, sessionIds: [], resource: 'claim_boundary' });
  const staleAfterDays = req.stale_after_days ?? DEFAULT_STALE_AFTER_DAYS;
  const result = committedReplay(deps, ctx) ?? await retryOnConflict(async () => {
    const asOfMs = requested ?? snapshotNow(deps);
    await deps.store.settledAsOf(asOfMs);
    const asOf = formatDateTime(asOfMs);
    const { events, expect } = snapshot(deps, ctx.scope, req.task_ids, asOfMs);
    // As for a packet: a decision of all-missing would read as an answer about tasks that did not exist yet.
    refuseEmptySnapshot(events);
    // Two spellings of one instant are one request: the id hashes the normal form.
    const request = req.as_of === undefined ? req : { ...req, as_of: asOf };
    const decisionId = decisionIdFor({ scope: { ...ctx.scope }, request, as_of: asOf, hash_chain_root: hashChainRoot(events.map((e) => e.event_hash)) });
    const decision = evaluateClaimBoundary({ claims: req.claims, events, asOf, staleAfterDays, decisionId, evaluatedAt: asOf });
    return deps.store.append([pending(deps, ctx, 'claim_boundary.evaluated', { request, as_of: asOf, stale_after_days: staleAfterDays, decision })], expect);
  });
  // The stored canonical form, so a replay answers the same bytes.
  const stored = JSON.parse(result.lines[0]!) as StoredEvent;
  return { replayed: result.replayed, decision: stored.payload.decision as unknown as ClaimDecision };
}

/**
 * The proof_packet.assemble.v1 gate first (the same function POST /v1/templates/validate runs: the
 * request schema, placeholder text in claims, text copied from the template), a failure being a
 * value; then assembly.
 */
export async function assemblePacket(deps: ServiceDeps, ctx: WriteContext, body: unknown): Promise<Gated<{ replayed: boolean; packet: ProofPacket }>> {
  const gate = gateRouteBody(deps, 'proof_packet.assemble.v1', 'api/proof-packet-request.json', body);
  if (!gate.ok) return { ok: false, validation: gate.validation };
  const req = gate.body;
  const requested = requestedAsOf(deps, req.as_of);
  await deps.store.settled();
  await guardScope(deps, ctx, { taskIds: req.task_ids, sessionIds: req.session_ids ?? [], resource: 'proof_packet' });
  let round = 0;
  const result = committedReplay(deps, ctx) ?? await retryOnConflict(async () => {
    const asOfMs = requested ?? snapshotNow(deps);
    // A round after a conflict reads everything acknowledged: the receipt an identical request
    // recorded meanwhile may lie beyond as_of, which is all settledAsOf waits for.
    if (round++ > 0) await deps.store.settled();
    await deps.store.settledAsOf(asOfMs);
    const { events, accessLog, expect } = snapshot(deps, ctx.scope, req.task_ids, asOfMs);
    const { body: packetBody, manifest } = assemblePacketBody({
      scope: ctx.scope, request: req, events, accessLog: accessLog(), asOf: formatDateTime(asOfMs),
      // The hosted service authenticates its callers: its packets say what they are (docs/hosting.md).
      ...(deps.deployment === 'hosted' ? { defaultNonClaims: HOSTED_NON_CLAIMS } : {}),
    });
    const statusGuard = guardReassembly(deps, ctx.scope, packetBody);
    const { packet, unit, expect: receiptGuard } = issuePacket(deps, ctx, packetBody, req.integrity_class ?? 'hash_bound', req.signature_alg ?? 'ed25519');
    unit.push(pending(deps, ctx, 'proof_packet.assembled', { packet, redaction_actions: manifest.actions }));
    unit.push(accessEvent(deps, ctx, ctx.principal, { action: 'exported', outcome: 'allowed', resource: { type: 'proof_packet', id: packet.packet_id }, task_ids: req.task_ids }));
    return deps.store.append(unit, [...expect, ...statusGuard, ...receiptGuard]);
  });
  const at = result.events.findIndex((e) => e.kind === 'proof_packet.assembled');
  const stored = JSON.parse(result.lines[at]!) as StoredEvent;
  return { ok: true, write: { replayed: result.replayed, packet: stored.payload.packet as unknown as ProofPacket } };
}

// Typed as plain strings until `npm run gen:types` knows these schemas (then the literals may go inline).
const STATUS_REQUEST_SCHEMA: string = 'api/packet-status-request.json';
const STATUS_EVENT_SCHEMA: string = 'events/proof-packet-status-changed.json';

/**
 * POST /v1/proof-packets/{packet_id}/status: moves the packet's latest issue along the status table
 * (domain/proof-packet.ts PACKET_STATUS_MOVES) and re-issues it at the new status, sealed as its
 * integrity class says (a new packet_sha256, signature and receipt; the same packet_id). One unit:
 * the receipt (when receipted), `proof_packet.status_changed`, the re-issue's
 * `proof_packet.assembled` (which the packets projection makes the packet's latest issue) and
 * `access.logged` (action `changed`). A packet_id the scope lacks is a 404 logged as denied.
 *
 * Concurrency without a packet stream: the status event's id derives from the packet id and the seq
 * of the issue the move was decided on, and the append expects that id unused. Two moves decided on
 * the same issue name the same id, so the second conflicts and is decided again on the new issue.
 */
export async function changePacketStatus(deps: ServiceDeps, ctx: WriteContext, packetId: string, body: unknown): Promise<{ replayed: boolean; packet: ProofPacket }> {
  deps.registry.assert(STATUS_REQUEST_SCHEMA, body, 'packet status request');
  const req = body as { status: PacketStatus; reason?: string };
  await deps.store.settled();
  const result = committedReplay(deps, ctx) ?? await retryOnConflict(async () => {
    await deps.store.settled();
    const current = await packetEventOrDeny(deps, ctx, packetId);
    const issued = current.payload.packet as unknown as ProofPacket;
    const from = issued.packet_status;
    if (!canMovePacket(from, req.status)) {
      const allowed = PACKET_STATUS_MOVES[from];
      throw new AppError('invalid_transition', `Proof packet ${packetId} is ${from} and cannot move to ${req.status}; packets move draft → final → exported, and any status but revoked → revoked. From ${from}: ${allowed.length > 0 ? allowed.join(', ') : 'nothing (revoked is final)'}.`);
    }
    const signature = issued.integrity.signature;
    const { packet, unit, expect: receiptGuard } = issuePacket(deps, ctx, reissueBody(issued, req.status), issued.integrity.integrity_class, signature?.alg ?? 'ed25519');
    const eventId = statusEventId(packetId, current.seq);
    const payload = {
      packet_id: packetId, from, to: req.status, ...(req.reason !== undefined ? { reason: req.reason } : {}),
      packet_sha256: packet.integrity.packet_sha256, previous_packet_sha256: issued.integrity.packet_sha256,
    };
    deps.registry.assert(STATUS_EVENT_SCHEMA, payload, 'proof_packet.status_changed payload');
    unit.push({ ...pending(deps, ctx, 'proof_packet.status_changed', payload), event_id: eventId });
    unit.push(pending(deps, ctx, 'proof_packet.assembled', { packet, redaction_actions: current.payload.redaction_actions! }));
    unit.push(accessEvent(deps, ctx, ctx.principal, { action: 'changed', outcome: 'allowed', resource: packetResource(packetId) }));
    const expect: Expectation[] = [{ type: 'event_id_unused', eventId, orElse: () => writeConflict(`Proof packet ${packetId}`) }, ...receiptGuard];
    return deps.store.append(unit, expect);
  });
  const at = result.events.findIndex((e) => e.kind === 'proof_packet.assembled');
  const stored = JSON.parse(result.lines[at]!) as StoredEvent;
  return { replayed: result.replayed, packet: stored.payload.packet as unknown as ProofPacket };
}

/**
 * The same request at the same past as_of names the same packet. Once that packet's status has
 * moved, assembling it again must not move it back (a revoked packet re-issued as a draft): a
 * request whose packet_status is not the latest issue's is 409 invalid_transition. The expectation
 * returned makes it exact: a status move decided on the issue read here names the event id
 * statusEventId(packet, issue seq), so it committing first sends this assembly round again.
 */
function guardReassembly(deps: ServiceDeps, scope: Scope, body: PacketBody): Expectation[] {
  const current = deps.queries.packetEvent(scope, body.packet_id);
  if (!current) return [];
  const issued = (current.payload.packet as unknown as ProofPacket).packet_status;
  if (issued !== body.packet_status) {
    throw new AppError('invalid_transition', `Proof packet ${body.packet_id} (this request at this as_of) is already issued and now ${issued}; assembling it again as ${body.packet_status} would move its status. Move it with POST /v1/proof-packets/${body.packet_id}/status, or assemble at another as_of.`);
  }
  const eventId = statusEventId(body.packet_id, current.seq);
  return [{ type: 'event_id_unused', eventId, orElse: () => writeConflict(`Proof packet ${body.packet_id}`) }];
}

/** The id of the status move decided on the issue at `issueSeq`: two moves decided on one issue collide. */
function statusEventId(packetId: string, issueSeq: number): string {
  return derivedId('evt', { packet_id: packetId, issue_seq: issueSeq });
}

/**
 * Seals a packet body as its integrity class says; for signed_and_receipted, the unit starts with
 * the proof_packet.receipted event the receipt id names, and the expectation that no identical
 * request receipted the body meanwhile. Every packet is checked against the packet schema before it
 * leaves or is stored (docs/contract.md §9).
 */
function issuePacket(deps: ServiceDeps, ctx: WriteContext, packetBody: PacketBody, integrityClass: IntegrityClass, alg: SignatureAlg): { packet: ProofPacket; unit: PendingEvent[]; expect: Expectation[] } {
  const unit: PendingEvent[] = [];
  const expect: Expectation[] = [];
  let receiptId: string | undefined;
  if (integrityClass === 'signed_and_receipted') {
    // The same request with the same as_of gives the same packet (docs/contract.md §9): a body the log has
    // receipted already keeps that receipt rather than being receipted again under a new id.
    const sha256 = packetSha256(packetBody);
    receiptId = deps.queries.receiptOf(ctx.scope, sha256);
    if (receiptId === undefined) {
      // The id derives from the body, so identical requests racing each other name one receipt: the
      // writer seals the first, and the others conflict and find it in their next round.
      receiptId = receiptIdFor(ctx.scope, sha256);
      unit.push({ ...pending(deps, ctx, 'proof_packet.receipted', { packet_sha256: sha256 }), event_id: receiptId });
      expect.push({ type: 'event_id_unused', eventId: receiptId, orElse: () => writeConflict(`The receipt of packet body ${sha256}`) });
    }
  }
  const packet = integrityClass === 'hash_bound'
    ? sealPacket(packetBody, { integrityClass })
    : sealPacket(packetBody, { integrityClass, ...signer(deps.keys, alg), ...(receiptId ? { receiptId } : {}) });
  deps.registry.assert('api/proof-packet.json', packet, 'assembled proof packet', 'packet_schema_violation');
  return { packet, unit, expect };
}

/** A packet as the access log names it. */
export function packetResource(packetId: string) {
  return { type: 'proof_packet', id: packetId };
}

/**
 * The latest issue of a packet in the caller's scope; a packet_id the scope lacks is a 404 that the
 * access log records as denied (docs/governance/exports.md), as every read or write of a packet does.
 */
export async function packetEventOrDeny(deps: ServiceDeps, ctx: WriteContext, packetId: string): Promise<StoredEvent> {
  return deps.queries.packetEvent(ctx.scope, packetId)
    ?? deny(deps, ctx, ctx.principal, packetResource(packetId), { code: 'not_found', message: `No proof packet ${packetId} in this tenant, workspace and project; assemble one with POST /v1/proof-packets.` });
}

/** A receipt's id: one per scope and packet body. */
function receiptIdFor(scope: Scope, packetSha256: string): string {
  return derivedId('rcpt', { scope: { tenant_id: scope.tenant_id, workspace_id: scope.workspace_id, project_id: scope.project_id }, packet_sha256: packetSha256 });
}

function signer(keys: KeyRing, alg: 'ed25519' | 'ecdsa-p256-sha256' | 'hmac-sha256') {
  const key = alg === 'ed25519' ? keys.ed25519 : alg === 'ecdsa-p256-sha256' ? keys.ecdsa : null;
  const secretOrKey = key ? key.privateKey : keys.hmac.secret;
  return { alg, keyId: key ? key.keyId : keys.hmac.keyId, sign: (message: Buffer) => signPacketHash(alg, message.toString('ascii'), secretOrKey) };
}

/**
 * The events of the listed tasks in scope recorded up to as_of, in seq order; the access log
 * entries in scope about those tasks up to as_of (read at the same seq, when asked: a claim
 * evaluation does not carry them, a packet does); and the expectation that
 * makes the snapshot exact: no event beyond what was read may be recorded at or before as_of, else
 * it is read again. The caller waits for `settledAsOf(as_of)` first, so only a clock that went
 * back can fail it. Times are compared as instants.
 */
function snapshot(deps: ServiceDeps, scope: Scope, taskIds: string[], asOfMs: number): { events: StoredEvent[]; accessLog: () => StoredEvent[]; expect: Expectation[] } {
  const readAt = deps.store.indexedSeq();
  const upToAsOf = (e: StoredEvent) => e.seq <= readAt && parseDateTime(e.recorded_at, 'recorded_at') <= asOfMs;
  const events = taskIds.flatMap((id) => deps.queries.taskEventsUpTo(scope, id, readAt)).filter(upToAsOf).sort((a, b) => a.seq - b.seq);
  // The entries that name any of the tasks, each once: read from the tasks' own rows of the access
  // log (task_access), not from every entry of the scope. Only a packet carries them.
  const accessLog = () => taskIds.flatMap((id) => deps.queries.taskAccessUpTo(scope, id, readAt)).filter(upToAsOf).sort((a, b) => a.seq - b.seq)
    .filter((e, i, sorted) => i === 0 || sorted[i - 1]!.seq !== e.seq);
  return { events, accessLog, expect: [{ type: 'snapshot_complete', seq: readAt, asOf: asOfMs, orElse: () => writeConflict('The event log') }] };
}

function pending(deps: ServiceDeps, ctx: WriteContext, kind: string, payload: { [key: string]: Json }): PendingEvent {
  return pendingEvent(ctx, deps.newId, { kind, payload });
}

/**
 * The cross-tenant and cross-workspace confusion guard (docs/contract.md §3). Existence elsewhere is
 * never revealed: the answer is the same 404 whether the task is in another scope or nowhere.
 */
async function guardScope(deps: ServiceDeps, ctx: WriteContext, ask: { taskIds: string[]; sessionIds: string[]; resource: string }): Promise<void> {
  const missing = [
    ...ask.taskIds.filter((id) => !deps.queries.task(ctx.scope, id)).map((id) => ({ type: 'task', id })),
    ...ask.sessionIds.filter((id) => !deps.queries.sessionExists(ctx.scope, id)).map((id) => ({ type: 'session', id })),
  ];
  if (missing.length === 0) return;
  const first = missing[0]!;
  await deps.store.append([accessEvent(deps, ctx, ctx.principal, {
    action: 'attempted', outcome: 'denied', reason_code: 'not_found_in_scope', resource: first, task_ids: ask.taskIds, session_ids: ask.sessionIds,
    reason: `The ${ask.resource.replace('_', ' ')} request named ${missing.map((m) => `${m.type} ${m.id}`).join(', ')}, not found in the caller's scope.`,
  })]);
  throw new AppError('not_found_in_scope', `No ${first.type} ${first.id} in this tenant, workspace and project; a packet or claim evaluation can only name tasks and sessions of the caller's own scope. Nothing was assembled; the attempt is in the access log.`);
}

