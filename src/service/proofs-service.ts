// Claim boundary evaluation and Proof Packet assembly over event truth, with the confusion guard:
// a request naming a task or session outside the caller's scope is blocked, assembles nothing, and
// leaves an access.logged (outcome denied) in the caller's scope.
import { DEFAULT_STALE_AFTER_DAYS, decisionIdFor, evaluateClaimBoundary, type ClaimDecision } from '../domain/claim-boundary.ts';
import type { Json } from '../domain/canonical-json.ts';
import { formatDateTime, parseDateTime } from '../domain/date-time.ts';
import type { Scope, StoredEvent } from '../domain/event.ts';
import { assemblePacketBody, sealPacket } from '../domain/packet-assembly.ts';
import { hashChainRoot, packetSha256 } from '../domain/packet-hash.ts';
import type { ProofPacket } from '../domain/proof-packet.ts';
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

export async function evaluateClaims(deps: ServiceDeps, ctx: WriteContext, body: unknown): Promise<{ replayed: boolean; decision: ClaimDecision }> {
  deps.registry.assert('api/claim-evaluate-request.json', body, 'claim evaluation request');
  const req = body;
  const requested = requestedAsOf(deps, req.as_of);
  await deps.store.settled();
  await guardScope(deps, ctx, { taskIds: req.task_ids, sessionIds: [], resource: 'claim_boundary' });
  const staleAfterDays = req.stale_after_days ?? DEFAULT_STALE_AFTER_DAYS;
  const result = committedReplay(deps, ctx) ?? await retryOnConflict(async () => {
    await deps.store.settled();
    const asOfMs = requested ?? deps.clock().getTime();
    const asOf = formatDateTime(asOfMs);
    const { events, expect } = snapshot(deps, ctx.scope, req.task_ids, asOfMs);
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
  const result = committedReplay(deps, ctx) ?? await retryOnConflict(async () => {
    await deps.store.settled();
    const asOfMs = requested ?? deps.clock().getTime();
    const { events, accessLog, expect } = snapshot(deps, ctx.scope, req.task_ids, asOfMs);
    const { body: packetBody, manifest } = assemblePacketBody({ scope: ctx.scope, request: req, events, accessLog, asOf: formatDateTime(asOfMs) });
    const integrityClass = req.integrity_class ?? 'hash_bound';
    const unit: PendingEvent[] = [];
    let receiptId: string | undefined;
    if (integrityClass === 'signed_and_receipted') {
      receiptId = deps.newId('rcpt');
      unit.push({ ...pending(deps, ctx, 'proof_packet.receipted', { packet_sha256: packetSha256(packetBody) }), event_id: receiptId });
    }
    const packet = integrityClass === 'hash_bound'
      ? sealPacket(packetBody, { integrityClass })
      : sealPacket(packetBody, { integrityClass, ...signer(deps.keys, req.signature_alg ?? 'ed25519'), ...(receiptId ? { receiptId } : {}) });
    // Every packet is checked against the packet schema before it leaves or is stored (docs/contract.md §9).
    deps.registry.assert('api/proof-packet.json', packet, 'assembled proof packet', 'packet_schema_violation');
    unit.push(pending(deps, ctx, 'proof_packet.assembled', { packet, redaction_actions: manifest.actions }));
    unit.push(pending(deps, ctx, 'access.logged', { action: 'exported', outcome: 'allowed', resource: { type: 'proof_packet', id: packet.packet_id }, task_ids: req.task_ids }));
    return deps.store.append(unit, expect);
  });
  const at = result.events.findIndex((e) => e.kind === 'proof_packet.assembled');
  const stored = JSON.parse(result.lines[at]!) as StoredEvent;
  return { ok: true, write: { replayed: result.replayed, packet: stored.payload.packet as unknown as ProofPacket } };
}

export function findPacketEvent(deps: ServiceDeps, scope: Scope, packetId: string): StoredEvent {
  const event = deps.queries.packetEvent(scope, packetId);
  if (!event) throw new AppError('not_found', `No proof packet ${packetId} in this tenant, workspace and project; assemble one with POST /v1/proof-packets.`);
  return event;
}

function signer(keys: KeyRing, alg: 'ed25519' | 'ecdsa-p256-sha256' | 'hmac-sha256') {
  const key = alg === 'ed25519' ? keys.ed25519 : alg === 'ecdsa-p256-sha256' ? keys.ecdsa : null;
  const secretOrKey = key ? key.privateKey : keys.hmac.secret;
  return { alg, keyId: key ? key.keyId : keys.hmac.keyId, sign: (message: Buffer) => signPacketHash(alg, message.toString('ascii'), secretOrKey) };
}

/**
 * The as_of a request names, as an instant. Not later than the server's clock: events could still
 * be recorded at or before a future as_of, so its snapshot (and a packet's bytes) could change.
 */
function requestedAsOf(deps: ServiceDeps, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const asOfMs = parseDateTime(text, 'as_of');
  const now = deps.clock().getTime();
  if (asOfMs > now) {
    throw new AppError('as_of_in_future', `The as_of ${formatDateTime(asOfMs)} is later than the server's clock (${formatDateTime(now)}); a snapshot holds only what has been recorded: send an as_of at or before now, or leave it out for now.`);
  }
  return asOfMs;
}

/**
 * The events of the listed tasks in scope recorded up to as_of, in seq order; the access log
 * entries in scope about those tasks up to as_of (read at the same seq); and the expectation that
 * makes the snapshot exact: no event beyond what was read may be recorded at or before as_of (one
 * sealed in the same millisecond but not yet durable would be), else it is read again. Times are
 * compared as instants.
 */
function snapshot(deps: ServiceDeps, scope: Scope, taskIds: string[], asOfMs: number): { events: StoredEvent[]; accessLog: StoredEvent[]; expect: Expectation[] } {
  const readAt = deps.store.indexedSeq();
  const all = taskIds.flatMap((id) => deps.queries.taskEventsUpTo(scope, id, readAt));
  const upToAsOf = (e: StoredEvent) => e.seq <= readAt && parseDateTime(e.recorded_at, 'recorded_at') <= asOfMs;
  const events = all.filter(upToAsOf).sort((a, b) => a.seq - b.seq);
  const accessLog = deps.queries.eventsOfKind(scope, 'access.logged')
    .filter((e) => upToAsOf(e) && ((e.payload.task_ids as string[] | undefined) ?? []).some((id) => taskIds.includes(id)))
    .sort((a, b) => a.seq - b.seq);
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
  await deps.store.append([{
    ...pending(deps, { ...ctx, idempotencyKey: null }, 'access.logged', {
      action: 'attempted', outcome: 'denied', code: 'not_found_in_scope', resource: first,
      task_ids: ask.taskIds, ...(ask.sessionIds.length > 0 ? { session_ids: ask.sessionIds } : {}),
      reason: `The ${ask.resource.replace('_', ' ')} request named ${missing.map((m) => `${m.type} ${m.id}`).join(', ')}, not found in the caller's scope.`,
    }),
  }]);
  throw new AppError('not_found_in_scope', `No ${first.type} ${first.id} in this tenant, workspace and project; a packet or claim evaluation can only name tasks and sessions of the caller's own scope. Nothing was assembled; the attempt is in the access log.`);
}

