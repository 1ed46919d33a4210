// The team of a tenant (docs/governance/approvals.md §5): its roles and their ranks, the fold over
// the team.* events, and the checks of the team doors (owner bootstrap, invites, role changes).
// Tokens and e-mail addresses never enter an event: only their hashes do.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { sha256Hex } from '../canonical-json.ts';
import type { Actor, StoredEvent } from '../event.ts';
import { addDays, instant, refuse, sameActor, showActor, type Checked, type Refusal } from './types.ts';

/** Every role, highest rank first. */
export const TEAM_ROLES = ['owner', 'admin', 'governance_reviewer', 'accountable_executive', 'contributor', 'auditor', 'agent'] as const;
export type TeamRole = (typeof TEAM_ROLES)[number];

/**
 * Ranks for "nobody grants above their own roles" (§5.1). Only owner and admin administer the
 * team, so the five working roles share one rank: ordering them would change no decision, and
 * none of them implies another (an owner decides an approval step only while holding its role).
 */
export const ROLE_RANK: Readonly<Record<TeamRole, number>> = {
  owner: 3,
  admin: 2,
  governance_reviewer: 1,
  accountable_executive: 1,
  contributor: 1,
  auditor: 1,
  agent: 1,
};
const ADMINISTERING: readonly TeamRole[] = ['owner', 'admin'];

export const INVITE_TTL_DAYS = 7;

export const TEAM_KINDS = {
  memberAdded: 'team.member.added',
  inviteCreated: 'team.invite.created',
  inviteRevoked: 'team.invite.revoked',
  rolesChanged: 'team.member.roles_changed',
} as const;

export type TeamMemberAddedPayload = {
  member_id: string;
  actor: Actor;
  /** The member's roles after the event (an accepted invite adds its role to any held before). */
  roles: TeamRole[];
  source: 'owner_bootstrap' | 'invite';
  invite_id?: string;
  email_sha256?: string;
};
export type TeamInviteCreatedPayload = {
  invite_id: string;
  role: TeamRole;
  email_sha256: string;
  token_sha256: string;
  expires_at: string;
  invited_by: Actor;
};
export type TeamInviteRevokedPayload = { invite_id: string; revoked_by: Actor };
export type TeamMemberRolesChangedPayload = { member_id: string; roles: TeamRole[]; previous_roles: TeamRole[]; changed_by: Actor };

export type TeamMember = {
  member_id: string;
  actor: Actor;
  roles: TeamRole[];
  source: 'owner_bootstrap' | 'invite';
  joined_at: string;
  email_sha256?: string;
};
export type TeamInvite = TeamInviteCreatedPayload & {
  created_at: string;
  /** What the log recorded; expiry is read against the clock (inviteStatus). */
  state: 'open' | 'accepted' | 'revoked';
  closed_at?: string;
  accepted_by?: string;
};
export type Team = {
  /** Set by the first owner; never unset, so the bootstrap door opens once per tenant. */
  bootstrapped_at: string | null;
  members: Readonly<Record<string, TeamMember>>;
  invites: Readonly<Record<string, TeamInvite>>;
  last_seq: number;
};
export type InviteStatus = 'open' | 'accepted' | 'revoked' | 'expired';

/** Members are users (both doors take a user), so a member's id is the user's id. */
export function memberIdOf(actor: Actor): string {
  return actor.id;
}

/**
 * The team as the hosted service decides with it: the caller's roles are the ones its verified token
 * carries (the identity provider's RBAC), in place of whatever the log recorded for it. Every other
 * member stays as recorded.
 */
export function withVerifiedCaller(team: Team | undefined, actor: Actor, roles: readonly TeamRole[], at: string): Team {
  const base: Team = team ?? { bootstrapped_at: null, members: {}, invites: {}, last_seq: 0 };
  const id = memberIdOf(actor);
  const recorded = base.members[id];
  const member: TeamMember = { ...(recorded ?? { source: 'invite', joined_at: at }), member_id: id, actor, roles: sortRoles(roles) };
  return { ...base, members: { ...base.members, [id]: member } };
}

export function rolesOf(team: Team | undefined, actor: Actor): TeamRole[] {
  const member = team?.members[memberIdOf(actor)];
  return member !== undefined && sameActor(member.actor, actor) ? [...member.roles] : [];
}

export function rankOf(roles: readonly TeamRole[]): number {
  return roles.reduce((max, role) => Math.max(max, ROLE_RANK[role]), 0);
}

/**
 * Whether a caller holding these roles may write: an auditor reads and exports and writes nothing
 * (docs/governance/approvals.md §5.1), so roles that are auditor alone may not. No roles at all is
 * the caller's team not saying (the preview, a token without the roles claim): not refused here.
 */
export function rolesMayWrite(roles: readonly TeamRole[]): boolean {
  return roles.length === 0 || roles.some((role) => role !== 'auditor');
}

/** The normal order of a role list: rank order, no repeats. */
export function sortRoles(roles: Iterable<TeamRole>): TeamRole[] {
  const set = new Set(roles);
  return TEAM_ROLES.filter((role) => set.has(role));
}

export function applyTeamEvent(team: Team | undefined, event: StoredEvent): Team | undefined {
  if (!event.kind.startsWith('team.')) return team;
  const base: Team = team ?? { bootstrapped_at: null, members: {}, invites: {}, last_seq: 0 };
  const at = event.recorded_at;
  switch (event.kind) {
    case TEAM_KINDS.memberAdded: {
      const p = event.payload as unknown as TeamMemberAddedPayload;
      const before = base.members[p.member_id];
      const member: TeamMember = {
        member_id: p.member_id,
        actor: p.actor,
        roles: sortRoles(p.roles),
        source: before?.source ?? p.source,
        joined_at: before?.joined_at ?? at,
        ...((p.email_sha256 ?? before?.email_sha256) !== undefined ? { email_sha256: p.email_sha256 ?? before?.email_sha256 } : {}),
      };
      const invites = { ...base.invites };
      const invite = p.invite_id === undefined ? undefined : invites[p.invite_id];
      if (invite) invites[invite.invite_id] = { ...invite, state: 'accepted', closed_at: at, accepted_by: p.member_id };
      return {
        bootstrapped_at: base.bootstrapped_at ?? (p.source === 'owner_bootstrap' ? at : null),
        members: { ...base.members, [p.member_id]: member },
        invites,
        last_seq: event.seq,
      };
    }
    case TEAM_KINDS.inviteCreated: {
      const p = event.payload as unknown as TeamInviteCreatedPayload;
      if (base.invites[p.invite_id]) return { ...base, last_seq: event.seq };
      return { ...base, invites: { ...base.invites, [p.invite_id]: { ...p, created_at: at, state: 'open' } }, last_seq: event.seq };
    }
    case TEAM_KINDS.inviteRevoked: {
      const p = event.payload as unknown as TeamInviteRevokedPayload;
      const invite = base.invites[p.invite_id];
      if (!invite || invite.state !== 'open') return { ...base, last_seq: event.seq };
      return { ...base, invites: { ...base.invites, [p.invite_id]: { ...invite, state: 'revoked', closed_at: at } }, last_seq: event.seq };
    }
    case TEAM_KINDS.rolesChanged: {
      const p = event.payload as unknown as TeamMemberRolesChangedPayload;
      const member = base.members[p.member_id];
      if (!member) return { ...base, last_seq: event.seq };
      return { ...base, members: { ...base.members, [p.member_id]: { ...member, roles: sortRoles(p.roles) } }, last_seq: event.seq };
    }
    default:
      return { ...base, last_seq: event.seq };
  }
}

export function foldTeam(events: readonly StoredEvent[]): Team | undefined {
  return events.reduce<Team | undefined>(applyTeamEvent, undefined);
}

/** An invite expires at its expires_at: from that instant on it can no longer be accepted. */
export function inviteStatus(invite: TeamInvite, now: Date): InviteStatus {
  if (invite.state !== 'open') return invite.state;
  return now.getTime() >= instant(invite.expires_at) ? 'expired' : 'open';
}

/**
 * The tenant's key for e-mail hashes: HMAC-SHA256(secret, "gov.team.email\n" + tenant_id). Derived,
 * not stored: a salt written in the log next to the hashes would let anyone who reads the log test
 * guessed addresses, and an append-only log cannot forget an address once it is there. The secret
 * is the caller's (the preview's signing secret); without it the hashes cannot be recomputed.
 */
export function tenantEmailKey(secret: string | Uint8Array, tenantId: string): Buffer {
  return createHmac('sha256', secret).update(`gov.team.email\n${tenantId}`).digest();
}

/** `sha256:` + hex HMAC-SHA256 of the trimmed, lower-cased address under the tenant's key. */
export function emailSha256(email: string, tenantKey: Uint8Array): string {
  return `sha256:${createHmac('sha256', tenantKey).update(email.trim().toLowerCase()).digest('hex')}`;
}

/** `sha256:` + hex SHA-256 of the token: the token itself is shown once and never stored. */
export function inviteTokenSha256(token: string): string {
  return `sha256:${sha256Hex(token)}`;
}

/** Whether `token` hashes to `tokenSha256`, compared in constant time. */
export function inviteTokenMatches(token: string, tokenSha256: string): boolean {
  const given = Buffer.from(inviteTokenSha256(token));
  const stored = Buffer.from(tokenSha256);
  return given.length === stored.length && timingSafeEqual(given, stored);
}

export type OwnerBootstrapBody = { actor: Actor; email?: string };
export type InviteBody = { email: string; role: TeamRole };
export type InviteAcceptBody = { token: string; actor: Actor };
export type RoleChangeBody = { roles: TeamRole[] };

/** TEAM-1: `POST /v1/team/owner` makes the tenant's first owner, once. */
export function checkOwnerBootstrap(team: Team | undefined, body: OwnerBootstrapBody, tenantKey: Uint8Array): Checked<{ payload: TeamMemberAddedPayload }> {
  if (team?.bootstrapped_at != null) {
    return refuse(409, 'owner_exists', 'TEAM-1', 'This tenant already has its first owner; ask an owner or admin for an invite (POST /v1/team/invites).');
  }
  if (body.actor.type !== 'user') {
    return refuse(403, 'actor_type_not_allowed', 'TEAM-7', `Team members are users; send actor {"type": "user", "id": …} instead of ${showActor(body.actor)}.`);
  }
  const payload: TeamMemberAddedPayload = { member_id: memberIdOf(body.actor), actor: body.actor, roles: ['owner'], source: 'owner_bootstrap' };
  if (body.email !== undefined) payload.email_sha256 = emailSha256(body.email, tenantKey);
  return { ok: true, payload };
}

/** TEAM-2: only owner and admin administer the team. */
function administrator(team: Team | undefined, actor: Actor, what: string): Refusal | TeamRole[] {
  const roles = rolesOf(team, actor);
  if (!roles.some((role) => ADMINISTERING.includes(role))) {
    return refuse(
      403,
      'role_required',
      'TEAM-2',
      `Only an owner or admin may ${what}; ${showActor(actor)} holds ${roles.length ? roles.join(', ') : 'no role'} in this tenant. Ask an owner or admin.`,
    );
  }
  return roles;
}

/** TEAM-3: nobody grants, revokes or touches roles ranked above their own. */
function escalation(granter: TeamRole[], roles: readonly TeamRole[], what: string): Refusal | undefined {
  const above = roles.filter((role) => ROLE_RANK[role] > rankOf(granter));
  if (above.length === 0) return undefined;
  return refuse(403, 'role_escalation_forbidden', 'TEAM-3', `${what} involves ${above.join(', ')}, ranked above your own roles (${granter.join(', ')}); ask an owner.`);
}

/** `POST /v1/team/invites`: TEAM-2, TEAM-3; the invite expires after seven days. */
export function checkInvite(
  team: Team | undefined,
  actor: Actor,
  body: InviteBody,
  issue: { invite_id: string; token: string; tenant_key: Uint8Array },
  now: Date,
): Checked<{ payload: TeamInviteCreatedPayload }> {
  const roles = administrator(team, actor, 'invite');
  if (!Array.isArray(roles)) return roles;
  const escalated = escalation(roles, [body.role], 'The invite');
  if (escalated) return escalated;
  return {
    ok: true,
    payload: {
      invite_id: issue.invite_id,
      role: body.role,
      email_sha256: emailSha256(body.email, issue.tenant_key),
      token_sha256: inviteTokenSha256(issue.token),
      expires_at: addDays(now, INVITE_TTL_DAYS),
      invited_by: actor,
    },
  };
}

function notFound(what: string, id: string): Refusal {
  return refuse(404, 'not_found_in_scope', 'SCOPE', `No ${what} ${id} in this tenant; GET /v1/team lists members and open invites.`);
}

/** TEAM-5: only an open invite can be revoked or accepted. */
function notOpen(invite: TeamInvite, now: Date): Refusal | undefined {
  const status = inviteStatus(invite, now);
  if (status === 'open') return undefined;
  return refuse(409, 'invite_not_open', 'TEAM-5', `Invite ${invite.invite_id} is ${status}; ask an owner or admin for a new invite.`);
}

/** `POST /v1/team/invites/{invite_id}/revoke`: TEAM-2, TEAM-3 (the invite's role), TEAM-5. */
export function checkInviteRevoke(team: Team | undefined, actor: Actor, inviteId: string, now: Date): Checked<{ payload: TeamInviteRevokedPayload }> {
  const invite = team?.invites[inviteId];
  if (!invite) return notFound('invite', inviteId);
  const roles = administrator(team, actor, 'revoke an invite');
  if (!Array.isArray(roles)) return roles;
  const refused = escalation(roles, [invite.role], 'Revoking this invite') ?? notOpen(invite, now);
  if (refused) return refused;
  return { ok: true, payload: { invite_id: inviteId, revoked_by: actor } };
}

/**
 * `POST /v1/team/invites/{invite_id}/accept`. The token is checked before the invite's state, so a
 * caller without it learns nothing about the invite; then TEAM-5 and TEAM-7. A member who accepts
 * keeps the roles held before and gains the invite's.
 */
export function checkInviteAcceptance(team: Team | undefined, inviteId: string, body: InviteAcceptBody, now: Date): Checked<{ payload: TeamMemberAddedPayload }> {
  const invite = team?.invites[inviteId];
  if (!invite) return notFound('invite', inviteId);
  if (!inviteTokenMatches(body.token, invite.token_sha256)) {
    return refuse(
      401,
      'invite_token_invalid',
      'TEAM-4',
      `The token does not open invite ${inviteId}; use the token returned when the invite was created, or ask for a new invite.`,
    );
  }
  const closed = notOpen(invite, now);
  if (closed) return closed;
  if (body.actor.type !== 'user') {
    return refuse(403, 'actor_type_not_allowed', 'TEAM-7', `Team members are users; accept as actor {"type": "user", "id": …}, not ${showActor(body.actor)}.`);
  }
  return {
    ok: true,
    payload: {
      member_id: memberIdOf(body.actor),
      actor: body.actor,
      roles: sortRoles([...rolesOf(team, body.actor), invite.role]),
      source: 'invite',
      invite_id: inviteId,
      email_sha256: invite.email_sha256,
    },
  };
}

/**
 * `PATCH /v1/team/members/{member_id}` `{roles}` (the whole new set): TEAM-2; TEAM-3 over the roles
 * the member holds and will hold (an admin neither grants nor removes owner); TEAM-6 keeps one owner.
 */
export function checkRoleChange(team: Team | undefined, actor: Actor, memberId: string, body: RoleChangeBody): Checked<{ payload: TeamMemberRolesChangedPayload }> {
  const member = team?.members[memberId];
  if (!team || !member) return notFound('member', memberId);
  const roles = administrator(team, actor, 'change roles');
  if (!Array.isArray(roles)) return roles;
  const next = sortRoles(body.roles);
  const escalated = escalation(roles, [...member.roles, ...next], 'This change');
  if (escalated) return escalated;
  const owners = Object.values(team.members).filter((m) => m.roles.includes('owner'));
  if (member.roles.includes('owner') && !next.includes('owner') && owners.length === 1) {
    return refuse(409, 'last_owner_required', 'TEAM-6', `${memberId} is the tenant's only owner; make another member owner first.`);
  }
  if (next.length === member.roles.length && next.every((role, i) => role === member.roles[i])) {
    return refuse(422, 'validation_failed', 'TEAM-8', `${memberId} already holds exactly ${next.length === 0 ? 'no roles' : next.join(', ')}: the change writes nothing. Send the whole new set of roles.`);
  }
  return { ok: true, payload: { member_id: memberId, roles: next, previous_roles: [...member.roles], changed_by: actor } };
}
