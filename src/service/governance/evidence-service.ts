// Earned trust (docs/governance/trust.md): a governance reviewer accepts or rejects an artifact's
// evidence with `POST /v1/evidence/{artifact_id}/review`. The decision is an `evidence.reviewed`
// event in every task of the scope that cites the artifact, so each timeline (and each packet
// built from it) carries the decision that raised, or kept capped, the trust of its evidence.
import type { Actor } from '../../domain/event.ts';
import { EVIDENCE_REVIEWED_KIND } from '../../domain/evidence-pool.ts';
import { rolesOf } from '../../domain/governance/team.ts';
import { refuse, showActor, type Refusal } from '../../domain/governance/types.ts';
import { teamStream } from '../../domain/streams.ts';
import type { ServiceDeps } from '../deps.ts';
import { pendingEvent, type WriteContext } from '../write-context.ts';
import { decideAndAppend } from './decide.ts';
import { accessEvent, deny, notInScope } from './refusals.ts';

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
  const actor = body.actor ?? ctx.principal;
  const result = await decideAndAppend(deps, ctx, async () => {
    const holders = deps.gov.artifactHolders(ctx.scope, artifactId);
    if (holders.length === 0) return notInScope(deps, ctx, actor, { type: 'evidence', id: artifactId }, 'evidence artifact');
    const refused = checkReviewer(actor, rolesOf(deps.gov.team(ctx.scope.tenant_id), actor));
    if (refused) return deny(deps, ctx, actor, { type: 'evidence', id: artifactId }, refused, body.decision === 'accept' ? 'approved' : 'rejected');
    const payload = {
      artifact_id: artifactId,
      decision: body.decision,
      ...(body.decision === 'accept' ? { content_trust: body.content_trust! } : {}),
      reason: body.reason,
    };
    const stream = teamStream(ctx.scope.tenant_id);
    return {
      events: [
        ...holders.map((h) => pendingEvent(ctx, deps.newId, { kind: EVIDENCE_REVIEWED_KIND, task_id: h.task_id, actor, payload: { ...payload, reviewed_seq: h.seq } })),
        accessEvent(deps, ctx, actor, { action: body.decision === 'accept' ? 'approved' : 'rejected', outcome: 'allowed', resource: { type: 'evidence', id: artifactId } }),
      ],
      // The reviewer's role is read from the team: a role change racing the review decides it again.
      read: [{ stream, version: deps.gov.streamVersion(stream), what: 'The team' }],
    };
  });
  const reviews = result.events.filter((e) => e.kind === EVIDENCE_REVIEWED_KIND);
  return {
    artifact_id: artifactId,
    decision: body.decision,
    content_trust: body.decision === 'accept' ? body.content_trust! : null,
    task_ids: reviews.map((e) => e.task_id!),
    events: reviews.map((e) => ({ event_id: e.event_id, seq: e.seq, event_hash: e.event_hash })),
    replayed: result.replayed,
  };
}
