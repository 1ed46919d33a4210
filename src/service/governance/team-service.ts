// The tenant's team (docs/governance/approvals.md §5): the first owner, invites (the token is shown
// once; events keep its sha256 and a per-tenant salted hash of the email), accepting and revoking
// them, and role changes. Only owners and admins manage; nobody grants above their own roles. The
// team projection is what separation of duties reads.
import { randomBytes } from 'node:crypto';
import type { Actor } from '../../domain/event.ts';
import { teamStream } from '../../domain/streams.ts';
import {
  checkInvite, checkInviteAcceptance, checkInviteRevoke, checkOwnerBootstrap, checkRoleChange, inviteStatus, TEAM_KINDS, tenantEmailKey,
  type InviteAcceptBody, type InviteBody, type OwnerBootstrapBody, type RoleChangeBody, type Team,
  type TeamInviteCreatedPayload, type TeamInviteRevokedPayload, type TeamMemberAddedPayload, type TeamMemberRolesChangedPayload,
} from '../../domain/governance/team.ts';
import type { Checked } from '../../domain/governance/types.ts';
import type { ServiceDeps } from '../deps.ts';
import { actingAs, pendingEvent, type WriteContext } from '../write-context.ts';
import { binding, checkIfMatch, decideAndAppend, decidingTeam, streamRead, type Decision, type StreamRead } from './decide.ts';
import { accessEvent, deny, type AccessAction, type Resource } from './refusals.ts';

type Json = Parameters<typeof pendingEvent>[2]['payload'][string];

function teamRead(deps: ServiceDeps, ctx: WriteContext): { team: Team | undefined; read: StreamRead } {
  // The version before the state (see StreamRead in decide.ts).
  const read = streamRead(deps, teamStream(ctx.scope.tenant_id), 'The team');
  return { team: decidingTeam(deps, ctx), read };
}

/** The team as GET /v1/team answers it: members and invites (never token hashes), ETag its version. */
export function teamView(deps: ServiceDeps, tenantId: string): { view: Record<string, unknown>; version: number } {
  // One version, read before the team (an ETag older than the body can only make an If-Match fail).
  const version = deps.gov.streamVersion(teamStream(tenantId));
  const team = deps.gov.team(tenantId);
  const now = deps.clock();
  // The shapes of docs/governance/approvals.md §5.4: members {actor_ref, roles, status, joined_at},
  // open invites {invite_id, role, expires_at}, each with what else the team knows of them. No
  // email_hint: the log holds only the address's salted hash (§5.3 there), and a hint would put
  // part of the address in it.
  const members = Object.values(team?.members ?? {}).sort((a, b) => a.member_id.localeCompare(b.member_id))
    .map((m) => ({
      member_id: m.member_id, actor_ref: m.actor, roles: m.roles, status: m.roles.length > 0 ? 'active' : 'no_roles', source: m.source, joined_at: m.joined_at,
      ...(m.email_sha256 === undefined ? {} : { email_sha256: m.email_sha256 }),
    }));
  const invites = Object.values(team?.invites ?? {}).filter((invite) => inviteStatus(invite, now) === 'open').sort((a, b) => a.invite_id.localeCompare(b.invite_id))
    .map((invite) => ({ invite_id: invite.invite_id, role: invite.role, expires_at: invite.expires_at, email_sha256: invite.email_sha256, invited_by: invite.invited_by, created_at: invite.created_at }));
  return {
    view: { tenant_id: tenantId, bootstrapped_at: team?.bootstrapped_at ?? null, members, invites, version, non_claims: deps.identities === 'verified' ? [] : ['Identities are asserted by the caller in the preview: the team records who was named, not who acted.'] },
    version,
  };
}

/** Append the rule's event with its access entry, or log and answer its refusal. */
async function teamWrite<P extends object>(
  deps: ServiceDeps, ctx: WriteContext, actor: Actor, kind: string, resource: (payload: P) => Resource, action: AccessAction,
  check: (team: Team | undefined) => Checked<{ payload: P }>, options: { deniedResource: Resource },
) {
  const result = await decideAndAppend(deps, ctx, async (): Promise<Decision> => {
    const { team, read } = teamRead(deps, ctx);
    // Every team write takes If-Match with the team's version (GET /v1/team's ETag): 412 before any rule.
    checkIfMatch(ctx, read);
    const checked = check(team);
    if (!checked.ok) return deny(deps, ctx, actor, options.deniedResource, checked);
    const payload = checked.payload as unknown as { [key: string]: Json };
    return {
      events: [
        pendingEvent(ctx, deps.newId, { kind, actor, payload }),
        accessEvent(deps, ctx, actor, { action, outcome: 'allowed', resource: resource(checked.payload) }),
      ],
      read: [read],
      ifMatch: read,
    };
  });
  return { result, payload: result.events[0]!.payload as unknown as P, event: binding(result), replayed: result.replayed };
}

export async function bootstrapOwner(deps: ServiceDeps, ctx: WriteContext, body: OwnerBootstrapBody) {
  const key = tenantEmailKey(deps.keys.hmac.secret, ctx.scope.tenant_id);
  const { payload, event, replayed } = await teamWrite<TeamMemberAddedPayload>(deps, ctx, actingAs(ctx, body.actor), TEAM_KINDS.memberAdded, (p) => ({ type: 'team_member', id: p.member_id }), 'created',
    (team) => checkOwnerBootstrap(team, body, key), { deniedResource: { type: 'team', id: ctx.scope.tenant_id } });
  return { member: payload, event, replayed };
}

export async function createInvite(deps: ServiceDeps, ctx: WriteContext, body: InviteBody & { actor?: Actor }) {
  const actor = actingAs(ctx, body.actor);
  const key = tenantEmailKey(deps.keys.hmac.secret, ctx.scope.tenant_id);
  // The token exists only in this answer: the event keeps its sha256.
  const token = `gti_${randomBytes(24).toString('base64url')}`;
  const inviteId = deps.newId('inv');
  const { result, payload, event } = await teamWrite<TeamInviteCreatedPayload>(deps, ctx, actor, TEAM_KINDS.inviteCreated, (p) => ({ type: 'team_invite', id: p.invite_id }), 'invited',
    (team) => checkInvite(team, actor, body, { invite_id: inviteId, token, tenant_key: key }, deps.clock()), { deniedResource: { type: 'team', id: ctx.scope.tenant_id } });
  // A replay answers the invite without its token: it was shown once.
  return { invite_id: payload.invite_id, role: payload.role, expires_at: payload.expires_at, token: result.replayed ? null : token, event };
}

export async function revokeInvite(deps: ServiceDeps, ctx: WriteContext, inviteId: string, body: { actor?: Actor }) {
  const actor = actingAs(ctx, body.actor);
  const { payload, event, replayed } = await teamWrite<TeamInviteRevokedPayload>(deps, ctx, actor, TEAM_KINDS.inviteRevoked, (p) => ({ type: 'team_invite', id: p.invite_id }), 'revoked',
    (team) => checkInviteRevoke(team, actor, inviteId, deps.clock()), { deniedResource: { type: 'team_invite', id: inviteId } });
  return { invite_id: payload.invite_id, status: 'revoked', event, replayed };
}

export async function acceptInvite(deps: ServiceDeps, ctx: WriteContext, inviteId: string, body: InviteAcceptBody) {
  const { payload, event, replayed } = await teamWrite<TeamMemberAddedPayload>(deps, ctx, actingAs(ctx, body.actor), TEAM_KINDS.memberAdded, (p) => ({ type: 'team_member', id: p.member_id }), 'created',
    (team) => checkInviteAcceptance(team, inviteId, body, deps.clock()), { deniedResource: { type: 'team_invite', id: inviteId } });
  return { member: payload, event, replayed };
}

export async function changeRoles(deps: ServiceDeps, ctx: WriteContext, memberId: string, body: RoleChangeBody & { actor?: Actor }) {
  const actor = actingAs(ctx, body.actor);
  const { payload, event, replayed } = await teamWrite<TeamMemberRolesChangedPayload>(deps, ctx, actor, TEAM_KINDS.rolesChanged, (p) => ({ type: 'team_member', id: p.member_id }), 'changed',
    (team) => checkRoleChange(team, actor, memberId, body), { deniedResource: { type: 'team_member', id: memberId } });
  return { member_id: payload.member_id, roles: payload.roles, previous_roles: payload.previous_roles, event, replayed };
}
