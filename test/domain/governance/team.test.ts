// The team (docs/governance/approvals.md §5): bootstrap once, only owner/admin administer, nobody
// grants above their rank, invites hashed, used once and expiring after seven days, one owner kept.
import t from 'tap';
import {
  applyTeamEvent,
  checkInvite,
  checkInviteAcceptance,
  checkInviteRevoke,
  checkOwnerBootstrap,
  checkRoleChange,
  emailSha256,
  foldTeam,
  inviteStatus,
  inviteTokenMatches,
  inviteTokenSha256,
  rankOf,
  ROLE_RANK,
  rolesOf,
  sortRoles,
  TEAM_KINDS,
  TEAM_ROLES,
  tenantEmailKey,
  type Team,
  type TeamRole,
} from '../../../src/domain/governance/team.ts';
import type { Actor, StoredEvent } from '../../../src/domain/event.ts';
import { agent, day, eventMaker, iso, user } from './fixtures.ts';

const KEY = tenantEmailKey('preview-secret', 'ten-a');
const TOKEN = 'gti_0123456789abcdef0123456789abcdef';
const owner = user('u_owner');
const admin = user('u_admin');
const reviewer = user('u_rev');

/** Owner bootstrapped, an admin and a reviewer joined by invite, one open invite (inv_open, contributor). */
function baseTeam(): { team: Team; events: StoredEvent[] } {
  const ev = eventMaker();
  const events: StoredEvent[] = [];
  const push = (e: StoredEvent) => (events.push(e), e);
  let team: Team | undefined;
  const apply = (e: StoredEvent) => (team = applyTeamEvent(team, push(e)));
  const boot = checkOwnerBootstrap(team, { actor: owner, email: 'Owner@Example.org' }, KEY);
  if (!boot.ok) throw new Error(boot.message);
  apply(ev(TEAM_KINDS.memberAdded, boot.payload, { actor: owner }));
  for (const [id, role, who] of [
    ['inv_admin', 'admin', admin],
    ['inv_rev', 'governance_reviewer', reviewer],
  ] as const) {
    const invited = checkInvite(team, owner, { email: `${who.id}@example.org`, role }, { invite_id: id, token: `${TOKEN}-${id}`, tenant_key: KEY }, day(0));
    if (!invited.ok) throw new Error(invited.message);
    apply(ev(TEAM_KINDS.inviteCreated, invited.payload, { actor: owner }));
    const accepted = checkInviteAcceptance(team, id, { token: `${TOKEN}-${id}`, actor: who }, day(1));
    if (!accepted.ok) throw new Error(accepted.message);
    apply(ev(TEAM_KINDS.memberAdded, accepted.payload, { actor: who, at: iso(1) }));
  }
  const open = checkInvite(team, admin, { email: 'new@example.org', role: 'contributor' }, { invite_id: 'inv_open', token: TOKEN, tenant_key: KEY }, day(2));
  if (!open.ok) throw new Error(open.message);
  apply(ev(TEAM_KINDS.inviteCreated, open.payload, { actor: admin, at: iso(2) }));
  return { team: team!, events };
}

t.test('roles and their ranks: owner above admin above the five working roles', async (t) => {
  t.same([...TEAM_ROLES], ['owner', 'admin', 'governance_reviewer', 'accountable_executive', 'contributor', 'auditor', 'agent']);
  t.ok(ROLE_RANK.owner > ROLE_RANK.admin);
  for (const role of TEAM_ROLES.slice(2)) t.ok(ROLE_RANK.admin > ROLE_RANK[role], `admin ranks above ${role}`);
  t.equal(rankOf([]), 0);
  t.equal(rankOf(['auditor', 'admin']), ROLE_RANK.admin);
  t.same(sortRoles(['agent', 'owner', 'agent', 'contributor']), ['owner', 'contributor', 'agent']);
});

t.test('the fold: members, invites and their states; rebuilding gives the same team', async (t) => {
  const { team, events } = baseTeam();
  t.same(rolesOf(team, owner), ['owner']);
  t.same(rolesOf(team, admin), ['admin']);
  t.same(rolesOf(team, reviewer), ['governance_reviewer']);
  t.same(rolesOf(team, agent('u_admin')), [], 'the same id as another actor type holds nothing');
  t.same(rolesOf(undefined, owner), []);
  t.equal(team.bootstrapped_at, events[0]!.recorded_at);
  t.match(team.members.u_admin, { source: 'invite', joined_at: iso(1), email_sha256: emailSha256('u_admin@example.org', KEY) });
  t.match(team.invites.inv_admin, { state: 'accepted', accepted_by: 'u_admin', closed_at: iso(1) });
  t.match(team.invites.inv_open, { state: 'open', role: 'contributor', expires_at: iso(9), invited_by: admin });
  t.equal(team.last_seq, events.length);
  t.same(foldTeam(events), team);
  t.same(applyTeamEvent(team, { ...events[0]!, kind: 'task.created' }), team, 'other kinds pass through');
});

t.test('hashes: no token or address in any event; the email key is per tenant', async (t) => {
  const { events } = baseTeam();
  const text = JSON.stringify(events);
  t.notMatch(text, TOKEN, 'no token');
  t.notMatch(text.toLowerCase(), '@example.org', 'no address');
  t.equal(emailSha256(' Owner@Example.org ', KEY), emailSha256('owner@example.org', KEY), 'trimmed and lower-cased');
  t.not(emailSha256('owner@example.org', tenantEmailKey('preview-secret', 'ten-b')), emailSha256('owner@example.org', KEY), 'another tenant, another hash');
  t.not(emailSha256('owner@example.org', tenantEmailKey('other-secret', 'ten-a')), emailSha256('owner@example.org', KEY), 'another secret, another hash');
  t.match(inviteTokenSha256(TOKEN), /^sha256:[0-9a-f]{64}$/);
  t.ok(inviteTokenMatches(TOKEN, inviteTokenSha256(TOKEN)));
  t.notOk(inviteTokenMatches(`${TOKEN}x`, inviteTokenSha256(TOKEN)));
  t.notOk(inviteTokenMatches(TOKEN, 'sha256:short'), 'a stored hash of another length');
});

t.test('TEAM-1: the owner door opens once; members are users', async (t) => {
  const first = checkOwnerBootstrap(undefined, { actor: owner }, KEY);
  t.match(first, { ok: true, payload: { member_id: 'u_owner', actor: owner, roles: ['owner'], source: 'owner_bootstrap' } });
  t.notOk('email_sha256' in (first.ok ? first.payload : {}), 'no address given, no hash');
  const { team } = baseTeam();
  t.match(checkOwnerBootstrap(team, { actor: user('u_else') }, KEY), { ok: false, status: 409, code: 'owner_exists', rule: 'TEAM-1' });
  t.match(checkOwnerBootstrap(undefined, { actor: agent('bot') }, KEY), { ok: false, status: 403, code: 'actor_type_not_allowed' });
});

t.test('invites: TEAM-2 only owner or admin, TEAM-3 never above the inviter', async (t) => {
  const { team } = baseTeam();
  const issue = { invite_id: 'inv_x', token: TOKEN, tenant_key: KEY };
  const cases: [Actor, TeamRole, string | null][] = [
    [owner, 'owner', null],
    [owner, 'admin', null],
    [admin, 'admin', null],
    [admin, 'accountable_executive', null],
    [admin, 'owner', 'role_escalation_forbidden'],
    [reviewer, 'contributor', 'role_required'],
    [user('u_stranger'), 'auditor', 'role_required'],
    [agent('u_owner'), 'contributor', 'role_required'],
  ];
  for (const [who, role, code] of cases) {
    const result = checkInvite(team, who, { email: 'x@example.org', role }, issue, day(3));
    if (code === null) t.match(result, { ok: true, payload: { invite_id: 'inv_x', role, invited_by: who, expires_at: iso(10) } }, `${who.id} invites ${role}`);
    else t.match(result, { ok: false, status: 403, code }, `${who.id} may not invite ${role}`);
  }
});

t.test('accepting: token before state, then open, then a user; roles add up', async (t) => {
  const { team } = baseTeam();
  t.match(checkInviteAcceptance(team, 'inv_open', { token: TOKEN, actor: user('u_new') }, day(8)), {
    ok: true,
    payload: { member_id: 'u_new', roles: ['contributor'], source: 'invite', invite_id: 'inv_open' },
  });
  t.match(
    checkInviteAcceptance(team, 'inv_open', { token: TOKEN, actor: reviewer }, day(8)),
    { ok: true, payload: { roles: ['governance_reviewer', 'contributor'] } },
    'a member gains the role',
  );
  t.match(checkInviteAcceptance(team, 'inv_nope', { token: TOKEN, actor: user('u_new') }, day(3)), { ok: false, status: 404, code: 'not_found_in_scope' });
  t.match(checkInviteAcceptance(team, 'inv_open', { token: `${TOKEN}x`, actor: user('u_new') }, day(3)), { ok: false, status: 401, code: 'invite_token_invalid', rule: 'TEAM-4' });
  t.match(
    checkInviteAcceptance(team, 'inv_admin', { token: TOKEN, actor: user('u_new') }, day(3)),
    { ok: false, code: 'invite_token_invalid' },
    'a used invite with a wrong token: the token answers first',
  );
  t.match(
    checkInviteAcceptance(team, 'inv_admin', { token: `${TOKEN}-inv_admin`, actor: user('u_new') }, day(3)),
    { ok: false, status: 409, code: 'invite_not_open' },
    'used once',
  );
  t.match(checkInviteAcceptance(team, 'inv_open', { token: TOKEN, actor: agent('bot') }, day(3)), { ok: false, status: 403, code: 'actor_type_not_allowed' });
});

t.test('expiry is read against the clock: open until expires_at, expired from it', async (t) => {
  const { team } = baseTeam();
  const invite = team.invites.inv_open!;
  t.equal(invite.expires_at, iso(9), 'created on day 2, seven days to live');
  t.equal(inviteStatus(invite, day(8, 23)), 'open');
  t.equal(inviteStatus(invite, day(9)), 'expired');
  t.match(checkInviteAcceptance(team, 'inv_open', { token: TOKEN, actor: user('u_new') }, day(9)), { ok: false, status: 409, code: 'invite_not_open', rule: 'TEAM-5' });
  t.match(checkInviteRevoke(team, admin, 'inv_open', day(9)), { ok: false, code: 'invite_not_open' });
  t.equal(inviteStatus(team.invites.inv_admin!, day(100)), 'accepted', 'a closed invite keeps its state');
});

t.test('revoking: owner or admin, not an invite ranked above them, only while open', async (t) => {
  const { team, events } = baseTeam();
  t.match(checkInviteRevoke(team, admin, 'inv_open', day(3)), { ok: true, payload: { invite_id: 'inv_open', revoked_by: admin } });
  t.match(checkInviteRevoke(team, reviewer, 'inv_open', day(3)), { ok: false, status: 403, code: 'role_required', rule: 'TEAM-2' });
  t.match(checkInviteRevoke(team, admin, 'inv_zzz', day(3)), { ok: false, status: 404, code: 'not_found_in_scope' });
  const ev = eventMaker();
  for (const e of events) ev(e.kind, e.payload);
  const ownerInvite = checkInvite(team, owner, { email: 'o2@example.org', role: 'owner' }, { invite_id: 'inv_owner', token: TOKEN, tenant_key: KEY }, day(3));
  const withOwnerInvite = applyTeamEvent(team, ev(TEAM_KINDS.inviteCreated, ownerInvite.ok && ownerInvite.payload, { actor: owner }))!;
  t.match(checkInviteRevoke(withOwnerInvite, admin, 'inv_owner', day(3)), { ok: false, status: 403, code: 'role_escalation_forbidden', rule: 'TEAM-3' });
  t.match(checkInviteRevoke(withOwnerInvite, owner, 'inv_owner', day(3)), { ok: true });
  const revoked = applyTeamEvent(team, ev(TEAM_KINDS.inviteRevoked, { invite_id: 'inv_open', revoked_by: admin }, { actor: admin, at: iso(3) }))!;
  t.match(revoked.invites.inv_open, { state: 'revoked', closed_at: iso(3) });
  t.equal(inviteStatus(revoked.invites.inv_open!, day(3)), 'revoked');
  t.match(checkInviteRevoke(revoked, admin, 'inv_open', day(3)), { ok: false, status: 409, code: 'invite_not_open' });
  t.match(checkInviteAcceptance(revoked, 'inv_open', { token: TOKEN, actor: user('u_new') }, day(3)), { ok: false, code: 'invite_not_open' });
});

t.test('role changes: TEAM-2, TEAM-3 over held and new roles, TEAM-6 keeps one owner', async (t) => {
  const { team, events } = baseTeam();
  const ok = checkRoleChange(team, admin, 'u_rev', { roles: ['accountable_executive', 'governance_reviewer'] });
  t.match(ok, { ok: true, payload: { member_id: 'u_rev', roles: ['governance_reviewer', 'accountable_executive'], previous_roles: ['governance_reviewer'], changed_by: admin } });
  t.match(checkRoleChange(team, reviewer, 'u_rev', { roles: ['admin'] }), { ok: false, status: 403, code: 'role_required' }, 'a reviewer cannot raise itself');
  t.match(checkRoleChange(team, admin, 'u_rev', { roles: ['owner'] }), { ok: false, status: 403, code: 'role_escalation_forbidden' }, 'an admin grants no owner');
  t.match(checkRoleChange(team, admin, 'u_owner', { roles: ['contributor'] }), { ok: false, status: 403, code: 'role_escalation_forbidden' }, 'an admin removes no owner');
  t.match(checkRoleChange(team, admin, 'u_admin', { roles: ['admin', 'governance_reviewer'] }), { ok: true }, "within one's own rank");
  t.match(checkRoleChange(team, owner, 'u_owner', { roles: ['admin'] }), { ok: false, status: 409, code: 'last_owner_required', rule: 'TEAM-6' });
  t.match(checkRoleChange(team, owner, 'u_nobody', { roles: [] }), { ok: false, status: 404, code: 'not_found_in_scope' });
  t.match(checkRoleChange(team, admin, 'u_rev', { roles: ['governance_reviewer', 'governance_reviewer'] }), { ok: false, status: 422, code: 'validation_failed', rule: 'TEAM-8' }, 'the roles held: nothing to write');
  // With a second owner, the first may step down.
  const ev = eventMaker();
  for (const e of events) ev(e.kind, e.payload);
  const promoted = checkRoleChange(team, owner, 'u_admin', { roles: ['owner'] });
  t.ok(promoted.ok);
  const two = applyTeamEvent(team, ev(TEAM_KINDS.rolesChanged, promoted.ok && promoted.payload, { actor: owner }))!;
  t.same(rolesOf(two, admin), ['owner']);
  t.match(checkRoleChange(two, owner, 'u_owner', { roles: ['auditor'] }), { ok: true });
});
