// Earned trust (docs/governance/trust.md): a governance reviewer accepts or rejects an artifact's
// evidence with `POST /v1/evidence/{artifact_id}/review`, and gov.sanitizer turns its raw bytes into
// a projection with `POST /v1/evidence/sanitize`. The decision is an `evidence.reviewed`
// event in every task of the scope that cites the artifact, so each timeline (and each packet
// built from it) carries the decision that raised, or kept capped, the trust of its evidence.
import type { Actor } from '../../domain/event.ts';
import { buildTrustPool, EVIDENCE_REVIEWED_KIND, EVIDENCE_SANITIZED_KIND, SCOPE_HOLDER, sha256Hex } from '../../domain/evidence-pool.ts';
import { redactEvidenceRefs } from '../../domain/redaction.ts';
import { evidenceSanitizedPayload, sanitize } from '../../domain/governance/sanitizer.ts';
import { AppError } from '../../errors.ts';
import { rolesOf } from '../../domain/governance/team.ts';
import { refuse, showActor, type Refusal } from '../../domain/governance/types.ts';
import { teamStream } from '../../domain/streams.ts';
import type { ServiceDeps } from '../deps.ts';
import { actingAs, pendingEvent, type WriteContext } from '../write-context.ts';
import { decideAndAppend, decidingTeam, streamRead } from './decide.ts';
import { accessEvent, deny, notInScope } from './refusals.ts';

type Json = Parameters<typeof pendingEvent>[2]['payload'][string];

/**
 * The task a raising event for one holder names: the holding task's, or none for evidence the scope
 * holds itself (attached outside any task), whose events name no task either.
 */
function taskOf(holder: { task_id: string }): { task_id?: string } {
  return holder.task_id === SCOPE_HOLDER ? {} : { task_id: holder.task_id };
}

/** The tasks that raising events were written to (the scope's own holding names none). */
function taskIdsOf(events: ReadonlyArray<{ task_id?: string }>): string[] {
  return events.flatMap((e) => (e.task_id === undefined ? [] : [e.task_id]));
}

export type EvidenceReviewBody = { decision: 'accept' | 'reject'; content_trust?: 'trusted_internal' | 'untrusted_external'; reason: string; actor?: Actor };

/** REV-E1 only users decide; REV-E2 they hold governance_reviewer (the team's roles). */
function checkReviewer(actor: Actor, roles: readonly string[]): Refusal | null {
  if (actor.type !== 'user') return refuse(403, 'actor_type_not_allowed', 'EVD-1', `Only users review evidence; ${showActor(actor)} may attach it but not vouch for it.`);
  if (!roles.includes('governance_reviewer')) {
    return refuse(403, 'role_required', 'EVD-2', `Reviewing evidence needs the governance_reviewer role, which ${showActor(actor)} does not hold; ask an owner or admin to grant it.`);
  }
  return null;
}

export async function reviewEvidence(deps: ServiceDeps, ctx: WriteContext, artifactId: string, body: EvidenceReviewBody) {
  const actor = actingAs(ctx, body.actor);
  const result = await decideAndAppend(deps, ctx, async () => {
    const holders = deps.gov.artifactHolders(ctx.scope, artifactId);
    if (holders.length === 0) return notInScope(deps, ctx, actor, { type: 'evidence', id: artifactId }, 'evidence artifact');
    // The reviewer's role is read from the team: a role change racing the review decides it again
    // (the version read before the team: see StreamRead in decide.ts).
    const teamRead = streamRead(deps, teamStream(ctx.scope.tenant_id), 'The team');
    const refused = checkReviewer(actor, rolesOf(decidingTeam(deps, ctx), actor));
    if (refused) return deny(deps, ctx, actor, { type: 'evidence', id: artifactId }, refused);
    const payload = {
      artifact_id: artifactId,
      decision: body.decision,
      ...(body.decision === 'accept' ? { content_trust: body.content_trust! } : {}),
      reason: body.reason,
    };
    return {
      events: [
        ...holders.map((h) => pendingEvent(ctx, deps.newId, { kind: EVIDENCE_REVIEWED_KIND, ...taskOf(h), actor, payload: { ...payload, reviewed_seq: h.seq } })),
        accessEvent(deps, ctx, actor, { action: body.decision === 'accept' ? 'approved' : 'rejected', outcome: 'allowed', resource: { type: 'evidence', id: artifactId } }),
      ],
      read: [teamRead],
    };
  });
  const reviews = result.events.filter((e) => e.kind === EVIDENCE_REVIEWED_KIND);
  return {
    artifact_id: artifactId,
    decision: body.decision,
    content_trust: body.decision === 'accept' ? body.content_trust! : null,
    task_ids: taskIdsOf(reviews),
    events: reviews.map((e) => ({ event_id: e.event_id, seq: e.seq, event_hash: e.event_hash })),
    replayed: result.replayed,
  };
}

export type SanitizeBody = { artifact_id: string; media_type: string; content_base64: string; actor?: Actor };

/** Strict base64 (RFC 4648 §4, padded): anything else is refused rather than decoded leniently. */
function decodeBase64(text: string): Uint8Array {
  if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) {
    throw new AppError('validation_failed', 'content_base64 is not padded base64 (RFC 4648 §4); send the raw evidence bytes encoded that way.', { details: [{ pointer: '/content_base64', detail: 'not base64' }] });
  }
  return Buffer.from(text, 'base64');
}

/**
 * `POST /v1/evidence/sanitize`: the raw bytes of an attached artifact, which must be the bytes its
 * ref is bound to (sha256). The raw bytes go to the quarantine (never indexed, exported or placed
 * in a packet), gov.sanitizer makes the projection (stored beside them), and an `evidence.sanitized`
 * event in every task whose ref is bound to those bytes raises its trust to sanitized_projection.
 */
export async function sanitizeEvidence(deps: ServiceDeps, ctx: WriteContext, body: SanitizeBody) {
  const actor = actingAs(ctx, body.actor);
  const bytes = decodeBase64(body.content_base64);
  const result = sanitize(bytes, { media_type: body.media_type, artifact_id: body.artifact_id });
  const appended = await decideAndAppend(deps, ctx, async () => {
    const holders = deps.gov.artifactHolders(ctx.scope, body.artifact_id);
    if (holders.length === 0) return notInScope(deps, ctx, actor, { type: 'evidence', id: body.artifact_id }, 'evidence artifact');
    const bound = holders.filter((h) => h.sha256 !== null && sha256Hex(h.sha256) === result.raw_sha256);
    if (bound.length === 0) {
      const refs = holders.map((h) => `${h.task_id === SCOPE_HOLDER ? 'attached outside any task' : h.task_id}: ${h.sha256 === null ? 'no sha256' : sha256Hex(h.sha256)}`).join('; ');
      return deny(deps, ctx, actor, { type: 'evidence', id: body.artifact_id }, {
        code: 'evidence_hash_mismatch',
        message: `The bytes sent hash to ${result.raw_sha256}, which no reference of ${body.artifact_id} is bound to (${refs}); send the exact bytes the evidence ref's sha256 names.`,
      });
    }
    await deps.quarantine.putRaw(bytes);
    await deps.quarantine.putProjection(result.text);
    const payload = evidenceSanitizedPayload(body.artifact_id, result) as unknown as { [key: string]: Json };
    return {
      events: [
        ...bound.map((h) => pendingEvent(ctx, deps.newId, { kind: EVIDENCE_SANITIZED_KIND, ...taskOf(h), actor, payload })),
        accessEvent(deps, ctx, actor, { action: 'created', outcome: 'allowed', resource: { type: 'evidence', id: body.artifact_id } }),
      ],
      read: [],
    };
  });
  const sanitized = appended.events.filter((e) => e.kind === EVIDENCE_SANITIZED_KIND);
  return {
    sanitized: evidenceSanitizedPayload(body.artifact_id, result),
    projection: result.text,
    task_ids: taskIdsOf(sanitized),
    events: sanitized.map((e) => ({ event_id: e.event_id, seq: e.seq, event_hash: e.event_hash })),
    replayed: appended.replayed,
  };
}

/**
 * `GET /v1/governance/assets/{asset_id}/evidence`: the evidence of an asset — what was attached
 * naming it (an `evidence.attached` payload's asset_id), what its completed reviews cite and what
 * its regulatory posture items cite now (docs/governance/trust.md) — each
 * with its effective trust and why, the tasks citing it, and its sanitized projections with their
 * hashes. Never raw bytes. Reading it is access-logged (`viewed`).
 */
export async function assetEvidence(deps: ServiceDeps, ctx: WriteContext, assetId: string) {
  const { scope } = ctx;
  if (!deps.gov.asset(scope, assetId)) return notInScope(deps, ctx, ctx.principal, { type: 'asset', id: assetId }, 'asset');
  const attached = deps.queries.assetEventsOfKind(scope, assetId, 'evidence.attached').flatMap((e) => (e.evidence_refs ?? []).map((r) => r.artifact_id));
  const reviewed = deps.queries.assetEventsOfKind(scope, assetId, 'review.completed').flatMap((e) => (e.payload.evidence_refs as string[] | undefined) ?? []);
  const cited = [...deps.regulatoryProfiles.keys()].flatMap((profileId) => deps.gov.postureItems(scope, profileId, assetId)).flatMap((item) => item.evidence_refs);
  const ids = [...new Set([...attached, ...reviewed, ...cited])].sort();
  const readAt = deps.store.indexedSeq();
  const evidence = await Promise.all(ids.map(async (artifactId) => {
    const holders = deps.gov.artifactHolders(scope, artifactId);
    const events = holders.flatMap((h) => deps.queries.holderEventsUpTo(scope, h.task_id, readAt)).sort((a, b) => a.seq - b.seq)
      .filter((e, i, all) => i === 0 || all[i - 1]!.seq !== e.seq);
    const entry = buildTrustPool(events).get(artifactId);
    const projections = (await Promise.all(events.filter((e) => e.kind === EVIDENCE_SANITIZED_KIND && e.payload.artifact_id === artifactId)
      .map(async (e) => {
        const { artifact_id: _a, ...record } = e.payload as Record<string, unknown> & { projection_sha256: string };
        return { ...record, event_id: e.event_id, text: (await deps.quarantine.projection(record.projection_sha256)) ?? null };
      })))
      .filter((p, i, all) => all.findIndex((q) => q.projection_sha256 === p.projection_sha256) === i);
    return {
      artifact_id: artifactId,
      ref: entry ? redactEvidenceRefs([entry.ref]).refs[0]! : null,
      trust: entry ? { content_trust: entry.ref.content_trust, confidence: entry.ref.confidence, basis: entry.basis, basis_event_id: entry.basis_event_id ?? null, asserted: entry.asserted } : null,
      task_ids: holders.map((h) => h.task_id).filter((id) => id !== SCOPE_HOLDER),
      projections,
    };
  }));
  await deps.store.append([accessEvent(deps, ctx, ctx.principal, { action: 'viewed', outcome: 'allowed', resource: { type: 'asset_evidence', id: assetId } })]);
  return { asset_id: assetId, evidence, non_claims: ['Sanitised evidence is checked for form, not truth; raw evidence bytes are held in quarantine and never served.'] };
}
