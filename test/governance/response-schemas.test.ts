// Every answer of the governance routes against the response schema its route declares: the
// walk-through's flow (team, registry, risk, approvals, reviews) plus the answers it skips (a
// replayed invite, a revoke, a role change, a withdrawal, a superseded request, a retired asset).
import t from 'tap';
import { assertSchema, testApp } from '../fixtures/test-app.ts';

const owner = { type: 'user', id: 'olivia' };
const reviewer = { type: 'user', id: 'rita' };
const executive = { type: 'user', id: 'evan' };
const requester = { type: 'user', id: 'raj' };

const HIGH = { data_sensitivity: 3, decision_impact: 3, autonomy: 2, vendor_maturity: 2, prohibited_practice: 0 };
const LIMITED = { data_sensitivity: 1, decision_impact: 1, autonomy: 1, vendor_maturity: 1, prohibited_practice: 0 };
const MINIMAL = { data_sensitivity: 0, decision_impact: 0, autonomy: 0, vendor_maturity: 0, prohibited_practice: 0 };

const asset = (id: string, name: string) => ({ asset_id: id, name, purpose: `${name} for the team`, owner, deployment_context: 'internal', models: [{ provider: 'acme', name: 'm-1' }], actor: requester });

t.test('every governance answer matches its declared schema', async (t) => {
  const { call } = await testApp(t);
  type Answer = Awaited<ReturnType<typeof call>>;
  const check = (r: Answer, status: number, schema: string, label: string) => {
    t.equal(r.status, status, `${label}: ${status}`);
    assertSchema(t, schema, r.json, `${label} matches ${schema}`);
    return r.json;
  };

  // ---- the team ----
  check(await call('/v1/team'), 200, 'api/team.json', 'GET /v1/team before any member');
  check(await call('/v1/team/owner', { body: { actor: owner, email: 'olivia@example.com' } }), 201, 'api/team-member-response.json', 'owner');
  check(await call('/v1/team/owner', { body: { actor: { type: 'user', id: 'otto' } } }), 409, 'api/problem.json', 'second owner');

  const inviteBody = { email: 'rita@example.com', role: 'governance_reviewer', actor: owner };
  const invite = check(await call('/v1/team/invites', { body: inviteBody, idempotencyKey: 'invite-rita' }), 201, 'api/team-invite-response.json', 'invite');
  t.type(invite.token, 'string');
  const replay = await call('/v1/team/invites', { body: inviteBody, idempotencyKey: 'invite-rita' });
  check(replay, 200, 'api/team-invite-response.json', 'replayed invite');
  t.equal(replay.headers.get('idempotent-replayed'), 'true');
  t.equal(replay.json.token, null, 'a replay does not show the token again');
  t.same({ ...replay.json, token: invite.token }, invite, 'the replay answers the same invite and event');
  check(await call(`/v1/team/invites/${invite.invite_id}/accept`, { body: { token: invite.token, actor: reviewer } }), 201, 'api/team-member-response.json', 'accept');

  const exec = check(await call('/v1/team/invites', { body: { email: 'evan@example.com', role: 'accountable_executive', actor: owner } }), 201, 'api/team-invite-response.json', 'invite 2');
  check(await call(`/v1/team/invites/${exec.invite_id}/accept`, { body: { token: exec.token, actor: executive } }), 201, 'api/team-member-response.json', 'accept 2');

  const revoked = check(await call('/v1/team/invites', { body: { email: 'x@example.com', role: 'auditor', actor: owner } }), 201, 'api/team-invite-response.json', 'invite 3');
  check(await call(`/v1/team/invites/${revoked.invite_id}/revoke`, { body: { actor: owner } }), 201, 'api/team-invite-revoke-response.json', 'revoke');
  const leftOpen = check(await call('/v1/team/invites', { body: { email: 'open@example.com', role: 'contributor', actor: owner } }), 201, 'api/team-invite-response.json', 'invite 4 (left open)');

  let r = await call('/v1/team');
  const team = check(r, 200, 'api/team.json', 'GET /v1/team');
  t.same(team.invites.map((i: { invite_id: string; role: string }) => [i.invite_id, i.role]), [[leftOpen.invite_id, 'contributor']], 'the open invites only (DOMAIN §8)');
  t.same(team.members.map((m: { actor_ref: unknown; status: string }) => [m.actor_ref, m.status]), [[executive, 'active'], [owner, 'active'], [reviewer, 'active']], 'members as actor_ref, with their status');
  const roles = await call('/v1/team/members/rita', { method: 'PATCH', body: { roles: ['governance_reviewer', 'auditor'], actor: owner }, headers: { 'If-Match': r.headers.get('etag')! } });
  check(roles, 200, 'api/team-roles-response.json', 'role change');
  t.same(roles.json.previous_roles, ['governance_reviewer']);

  // ---- the registry and risk ----
  check(await call('/v1/governance/assets', { body: asset('cv-screener', 'CV screener') }), 201, 'api/asset-write-response.json', 'register');
  check(await call('/v1/governance/assets/cv-screener'), 200, 'api/asset.json', 'asset, never evaluated');
  const noRisk = check(await call('/v1/governance/assets/cv-screener/risk'), 200, 'api/asset-risk.json', 'risk before any evaluation');
  t.equal(noRisk.latest, null);
  const registered = check(
    await call('/v1/governance/assets', { body: { ...asset('cv-screener', 'CV screener'), vendor_ids: ['acme'], people_affected: ['job applicants'], regulatory_hints: ['eu-ai-act:annex-iii-4a'] } }),
    201, 'api/asset-write-response.json', 'revision 2');
  t.equal(registered.asset.revision, 2);

  const evaluated = check(await call('/v1/risk/evaluations', { body: { asset_id: 'cv-screener', risk_inputs: HIGH, actor: requester } }), 201, 'api/risk-evaluation-response.json', 'evaluate (high)');
  t.equal(evaluated.evaluation.tier, 'high');
  const approvalId = evaluated.evaluation.approval_id;
  check(await call('/v1/governance/assets/cv-screener'), 200, 'api/asset.json', 'asset pending approval');
  check(await call(`/v1/approvals/${approvalId}`), 200, 'api/approval.json', 'approval pending');
  check(await call('/v1/approvals?status=pending&assignee_role=governance_reviewer'), 200, 'api/approval-list.json', 'pending approvals');
  check(await call(`/v1/approvals/${approvalId}/decision`, { body: { step: 1, decision: 'approve', reason: 'Bias testing evidence reviewed', actor: reviewer } }), 201, 'api/approval-decision-response.json', 'step 1');
  const step2 = check(await call(`/v1/approvals/${approvalId}/decision`, { body: { step: 2, decision: 'approve', reason: 'Accountable sign-off', actor: executive } }), 201, 'api/approval-decision-response.json', 'step 2');
  t.equal(step2.approval.status, 'approved');
  check(await call(`/v1/approvals/${approvalId}/decision`, { body: { step: 1, decision: 'approve', reason: 'again', actor: requester } }), 409, 'api/problem.json', 'decided approval');
  const approved = check(await call('/v1/governance/assets/cv-screener'), 200, 'api/asset.json', 'asset approved');
  t.equal(approved.in_use_allowed, true);
  check(await call('/v1/governance/assets?tier=high'), 200, 'api/asset-list.json', 'asset list');
  const risk = check(await call('/v1/governance/assets/cv-screener/risk'), 200, 'api/asset-risk.json', 'risk');
  t.same(risk.latest, risk.history[0]);
  check(await call('/v1/approvals?status=approved'), 200, 'api/approval-list.json', 'approved approvals');

  // ---- reviews ----
  const reviews = check(await call('/v1/reviews?asset_id=cv-screener'), 200, 'api/review-list.json', 'reviews');
  const reviewId = reviews.reviews[0].review_id;
  const completed = check(await call(`/v1/reviews/${reviewId}/complete`, { body: { outcome: 'no_change', notes: 'Checked against the impact assessment', actor: reviewer } }), 201, 'api/review-complete-response.json', 'review completed');
  t.not(completed.next_review, null);
  check(await call('/v1/governance/assets/cv-screener'), 200, 'api/asset.json', 'asset with a completed review');

  // A changed revision brings the review forward (a trigger), and a new evaluation supersedes nothing decided.
  check(await call('/v1/governance/assets', { body: { ...asset('cv-screener', 'CV screener'), deployment_context: 'HR, all regions' } }), 201, 'api/asset-write-response.json', 'changed revision');
  check(await call('/v1/governance/assets/cv-screener'), 200, 'api/asset.json', 'asset needing evaluation');
  const triggered = check(await call('/v1/reviews?asset_id=cv-screener'), 200, 'api/review-list.json', 'review with a trigger');
  t.not(triggered.reviews[0]?.trigger ?? null, null, 'the changed revision is the trigger');
  const again = check(await call('/v1/risk/evaluations', { body: { asset_id: 'cv-screener', risk_inputs: HIGH, actor: requester } }), 201, 'api/risk-evaluation-response.json', 're-evaluate');
  t.equal(again.evaluation.supersedes, evaluated.evaluation.evaluation_id);
  const old = check(await call(`/v1/approvals/${approvalId}`), 200, 'api/approval.json', 'decided approval with a newer evaluation');
  t.equal(old.superseded_by, again.evaluation.evaluation_id);
  check(await call('/v1/governance/assets/cv-screener/risk'), 200, 'api/asset-risk.json', 'risk with history');

  // A limited asset whose request is withdrawn, then superseded requests and a retired minimal asset.
  check(await call('/v1/governance/assets', { body: asset('notes-bot', 'Notes bot') }), 201, 'api/asset-write-response.json', 'register 2');
  const limited = check(await call('/v1/risk/evaluations', { body: { asset_id: 'notes-bot', risk_inputs: LIMITED, actor: requester } }), 201, 'api/risk-evaluation-response.json', 'evaluate 2');
  t.equal(limited.evaluation.tier, 'limited');
  const withdrawn = check(await call(`/v1/approvals/${limited.evaluation.approval_id}/decision`, { body: { step: 1, decision: 'withdraw', reason: 'Scope changed', actor: requester } }), 201, 'api/approval-decision-response.json', 'withdraw');
  t.equal(withdrawn.approval.status, 'withdrawn');
  const pending = await call('/v1/risk/evaluations', { body: { asset_id: 'notes-bot', risk_inputs: HIGH, actor: requester } });
  check(pending, 201, 'api/risk-evaluation-response.json', 'evaluate 2 again (high)');
  check(await call('/v1/risk/evaluations', { body: { asset_id: 'notes-bot', risk_inputs: MINIMAL, actor: requester } }), 201, 'api/risk-evaluation-response.json', 'evaluate 2 a third time (minimal)');
  check(await call(`/v1/approvals/${pending.json.evaluation.approval_id}`), 200, 'api/approval.json', 'superseded approval');
  check(await call('/v1/approvals'), 200, 'api/approval-list.json', 'all approvals');
  check(await call('/v1/approvals?limit=1'), 200, 'api/approval-list.json', 'a page of approvals');
  const open = check(await call('/v1/reviews?asset_id=notes-bot'), 200, 'api/review-list.json', 'reviews 2');
  const retired = check(await call(`/v1/reviews/${open.reviews[0].review_id}/complete`, { body: { outcome: 'retire', notes: 'No longer used', actor: reviewer } }), 201, 'api/review-complete-response.json', 'retire');
  t.equal(retired.next_review, null);
  t.equal(retired.review.next_due_at, null);
  check(await call('/v1/governance/assets/notes-bot'), 200, 'api/asset.json', 'retired asset');
  check(await call('/v1/governance/assets?limit=1'), 200, 'api/asset-list.json', 'a page of assets');
  check(await call('/v1/governance/assets'), 200, 'api/asset-list.json', 'all assets');
  check(await call('/v1/reviews'), 200, 'api/review-list.json', 'all reviews');
  check(await call('/v1/team'), 200, 'api/team.json', 'GET /v1/team at the end');
});
