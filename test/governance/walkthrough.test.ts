// The README's walk-through through the routes: register an asset → evaluate (limited/high) →
// approval requested → a reviewer approves step 1 → an executive approves step 2 → the asset is
// approved and its review falls due by the tier's cadence. Every decision is an event.
import t from 'tap';
import { testApp } from '../fixtures/test-app.ts';

const owner = { type: 'user', id: 'olivia' };
const reviewer = { type: 'user', id: 'rita' };
const executive = { type: 'user', id: 'evan' };
const requester = { type: 'user', id: 'raj' };

t.test('register → evaluate → two approvals → approved → review due in 90 days', async (t) => {
  const { call } = await testApp(t);
  const show = (label: string, r: { status: number; json: unknown }) => t.comment(`${label} ${r.status} ${JSON.stringify(r.json).slice(0, 1500)}`);
  let r = await call('/v1/team/owner', { body: { actor: owner, email: 'olivia@example.com' } });
  show('owner', r);
  t.equal(r.status, 201);
  for (const [who, role] of [[reviewer, 'governance_reviewer'], [executive, 'accountable_executive']] as const) {
    r = await call('/v1/team/invites', { body: { email: `${who.id}@example.com`, role, actor: owner } });
    show('invite', r);
    t.equal(r.status, 201);
    const invite = r.json;
    r = await call(`/v1/team/invites/${invite.invite_id}/accept`, { body: { token: invite.token, actor: who } });
    show('accept', r);
    t.equal(r.status, 201);
  }
  show('team', await call('/v1/team'));
  r = await call('/v1/governance/assets', { body: { asset_id: 'cv-screener', name: 'CV screener', purpose: 'Rank job applications for recruiters', owner, deployment_context: 'HR, internal', models: [{ provider: 'acme', name: 'rank-1' }], actor: requester } });
  show('asset', r);
  t.equal(r.status, 201);
  r = await call('/v1/risk/evaluations', { body: { asset_id: 'cv-screener', risk_inputs: { data_sensitivity: 3, decision_impact: 3, autonomy: 2, vendor_maturity: 2, prohibited_practice: 0 }, actor: requester } });
  show('eval', r);
  t.equal(r.status, 201);
  t.equal(r.json.evaluation.tier, 'high');
  const approvalId = r.json.evaluation.approval_id;
  show('approval', await call(`/v1/approvals/${approvalId}`));
  r = await call(`/v1/approvals/${approvalId}/decision`, { body: { step: 1, decision: 'approve', reason: 'Bias testing evidence reviewed', actor: reviewer } });
  show('step1', r);
  t.equal(r.status, 201);
  r = await call(`/v1/approvals/${approvalId}/decision`, { body: { step: 2, decision: 'approve', reason: 'Accountable sign-off', actor: executive } });
  show('step2', r);
  t.equal(r.status, 201);
  r = await call('/v1/governance/assets/cv-screener');
  show('asset after', r);
  t.equal(r.json.status, 'approved');
  t.equal(r.json.in_use_allowed, true);
  r = await call('/v1/reviews?asset_id=cv-screener');
  show('reviews', r);
  show('list', await call('/v1/governance/assets?tier=high'));
  show('risk', await call('/v1/governance/assets/cv-screener/risk'));
  show('approvals', await call('/v1/approvals?status=approved'));
  show('bad inputs', await call('/v1/risk/evaluations', { body: { asset_id: 'cv-screener', risk_inputs: { data_sensitivity: 5, decision_impact: '3', autonomy: 2, vendor_maturity: 2 } } }));
  show('self', await call(`/v1/approvals/${approvalId}/decision`, { body: { step: 1, decision: 'approve', reason: 'x', actor: requester } }));
});
