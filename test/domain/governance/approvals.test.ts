// Approvals (docs/governance/approvals.md §3): the request a tier asks for, the fold with
// supersession, status against the clock (expired after due_at), and every decision check: each
// refuses with its status and code, its legitimate path passes, and the order holds.
import t from 'tap';
import {
  APPROVAL_KINDS,
  applyApprovalEvent,
  approvalIdFor,
  approvalRequestFor,
  approvalStatus,
  approvalStepsFor,
  checkDecision,
  foldApproval,
  type Approval,
  type ApprovalDecidedPayload,
  type DecisionBody,
} from '../../../src/domain/governance/approvals.ts';
import { TEAM_KINDS, foldTeam, type Team, type TeamRole } from '../../../src/domain/governance/team.ts';
import type { Actor, StoredEvent } from '../../../src/domain/event.ts';
import { agent, day, eventMaker, evaluated, H1, H2, iso, user } from './fixtures.ts';

const requester = user('u_req');
const assetOwner = user('u_owner');
const rev1 = user('u_rev1');
const rev2 = user('u_rev2');
const exec = user('u_exec');

function teamWith(members: [Actor, TeamRole[]][]): Team {
  const ev = eventMaker();
  return foldTeam(members.map(([actor, roles], i) => ev(TEAM_KINDS.memberAdded, { member_id: actor.id, actor, roles, source: i === 0 ? 'owner_bootstrap' : 'invite' })))!;
}
const TEAM = teamWith([
  [user('u_root'), ['owner']],
  [requester, ['governance_reviewer', 'accountable_executive']],
  [assetOwner, ['governance_reviewer', 'accountable_executive']],
  [rev1, ['governance_reviewer']],
  [rev2, ['governance_reviewer', 'accountable_executive']],
  [exec, ['accountable_executive']],
]);

/** A high-tier approval requested on day 0 by `requester`, with the given decisions applied. */
function highApproval(decisions: [Actor, { step: number; decision: 'approve' | 'reject' | 'withdraw' }][] = [], tier: 'high' | 'limited' = 'high'): { approval: Approval; events: StoredEvent[] } {
  const ev = eventMaker();
  const evaluation = { evaluation_id: 'rev_1', asset_id: 'asset_cv', tier, input_sha256: H1, policy: { version: '1.0.0' } } as const;
  const request = approvalRequestFor(evaluation, { requested_by: requester, asset_owner: assetOwner }, day(0))!;
  const events = [ev('risk.evaluated', evaluated('asset_cv', 'rev_1', tier, { approval_id: request.approval_id })), ev(APPROVAL_KINDS.requested, request, { actor: requester })];
  let approval = foldApproval(events)!;
  for (const [actor, body] of decisions) {
    const result = checkDecision(approval, { ...body, reason: 'Looked at it.' } as DecisionBody, actor, TEAM, day(1));
    if (!result.ok) throw new Error(`${result.code}: ${result.message}`);
    const e = ev(APPROVAL_KINDS.decided, result.payload, { actor, at: iso(1) });
    events.push(e);
    approval = applyApprovalEvent(approval, e)!;
  }
  return { approval, events };
}

const approve = (step: number, extra: Partial<DecisionBody> = {}): DecisionBody => ({ step, decision: 'approve', reason: 'Inputs match the system.', ...extra });

t.test('steps by tier, the request payload, its derived id and due date', async (t) => {
  t.same(approvalStepsFor('minimal'), []);
  t.equal(approvalStepsFor('prohibited'), null);
  t.same(approvalStepsFor('limited'), [{ step: 1, role: 'governance_reviewer', min_approvers: 1 }]);
  t.same(
    approvalStepsFor('high')!.map((s) => s.role),
    ['governance_reviewer', 'accountable_executive'],
  );
  const base = { evaluation_id: 'rev_1', asset_id: 'asset_cv', input_sha256: H1, policy: { version: '1.0.0' } };
  const who = { requested_by: agent('intake'), asset_owner: assetOwner };
  t.equal(approvalRequestFor({ ...base, tier: 'minimal' }, who, day(0)), null, 'minimal needs none');
  t.equal(approvalRequestFor({ ...base, tier: 'prohibited' }, who, day(0)), null, 'prohibited has no path');
  t.same(approvalRequestFor({ ...base, tier: 'limited' }, who, day(3, 5)), {
    approval_id: approvalIdFor('rev_1'),
    subject: { type: 'risk_evaluation', asset_id: 'asset_cv', evaluation_id: 'rev_1', input_sha256: H1, policy_version: '1.0.0', tier: 'limited' },
    steps: [{ step: 1, role: 'governance_reviewer', min_approvers: 1 }],
    requested_by: agent('intake'),
    asset_owner: assetOwner,
    due_at: iso(17, 5),
  });
  t.equal(approvalIdFor('rev_1'), approvalIdFor('rev_1'), 'deterministic');
  t.match(approvalIdFor('rev_1'), /^apr_[0-9a-f]{32}$/);
  t.not(approvalIdFor('rev_1'), approvalIdFor('rev_2'));
});

t.test('the legitimate two-step path: reviewer, then executive → approved', async (t) => {
  const { approval: start } = highApproval();
  t.same(approvalStatus(start, day(1)), { status: 'pending', current_step: 1 });
  const first = checkDecision(start, approve(1, { expected_input_sha256: H1 }), rev1, TEAM, day(1));
  t.match(first, { ok: true, status: 'pending' });
  t.same((first as { payload: ApprovalDecidedPayload }).payload, {
    approval_id: start.approval_id,
    asset_id: 'asset_cv',
    step: 1,
    decision: 'approve',
    reason: 'Inputs match the system.',
    bound: { evaluation_id: 'rev_1', input_sha256: H1 },
  });
  const { approval: half } = highApproval([[rev1, { step: 1, decision: 'approve' }]]);
  t.same(approvalStatus(half, day(1)), { status: 'pending', current_step: 2 });
  t.match(checkDecision(half, approve(2), exec, TEAM, day(1)), { ok: true, status: 'approved', payload: { step: 2 } });
  const { approval: done, events } = highApproval([
    [rev1, { step: 1, decision: 'approve' }],
    [exec, { step: 2, decision: 'approve' }],
  ]);
  t.same(approvalStatus(done, day(30)), { status: 'approved' }, 'approved stays approved past due_at');
  t.same(
    done.decisions.map((d) => [d.step, d.actor.id, d.decided_at]),
    [
      [1, 'u_rev1', iso(1)],
      [2, 'u_exec', iso(1)],
    ],
  );
  t.same(foldApproval(events), done, 'a rebuild gives the same approval');
});

t.test('a reject at any step ends the request', async (t) => {
  const { approval } = highApproval();
  t.match(checkDecision(approval, { step: 1, decision: 'reject', reason: 'Vendor unknown.' }, rev1, TEAM, day(1)), { ok: true, status: 'rejected' });
  const { approval: rejected } = highApproval([
    [rev1, { step: 1, decision: 'approve' }],
    [exec, { step: 2, decision: 'reject' }],
  ]);
  t.same(approvalStatus(rejected, day(1)), { status: 'rejected' });
  t.match(checkDecision(rejected, approve(2), rev2, TEAM, day(1)), { ok: false, status: 409, code: 'approval_not_pending' });
});

t.test('withdraw: only the requester, at any step, even an agent', async (t) => {
  const { approval } = highApproval([[rev1, { step: 1, decision: 'approve' }]]);
  const body: DecisionBody = { step: 9, decision: 'withdraw', reason: 'Asset replaced.' };
  t.match(
    checkDecision(approval, body, requester, TEAM, day(2)),
    { ok: true, status: 'withdrawn', payload: { step: 2, decision: 'withdraw' } },
    'step is ignored: the current one is recorded',
  );
  t.match(checkDecision(approval, body, rev2, TEAM, day(2)), { ok: false, status: 403, code: 'not_requester', rule: 'APR-4' });
  const { approval: byAgent } = (() => {
    const ev = eventMaker();
    const request = approvalRequestFor(
      { evaluation_id: 'rev_1', asset_id: 'asset_cv', tier: 'limited', input_sha256: H1, policy: { version: '1.0.0' } },
      { requested_by: agent('intake'), asset_owner: assetOwner },
      day(0),
    )!;
    return { approval: foldApproval([ev(APPROVAL_KINDS.requested, request)])! };
  })();
  t.match(checkDecision(byAgent, body, agent('intake'), TEAM, day(1)), { ok: true, status: 'withdrawn' });
  const { approval: withdrawn } = highApproval([[requester, { step: 1, decision: 'withdraw' }]]);
  t.same(approvalStatus(withdrawn, day(1)), { status: 'withdrawn' });
});

t.test('each separation-of-duties rule refuses with its status and code', async (t) => {
  const { approval } = highApproval();
  const { approval: half } = highApproval([[rev2, { step: 1, decision: 'approve' }]]);
  const cases: [string, Approval, Actor, DecisionBody, number, string, string][] = [
    ['the requester decides', approval, requester, approve(1), 403, 'self_approval_forbidden', 'SOD-1'],
    ['an agent decides', approval, agent('u_rev1'), approve(1), 403, 'actor_type_not_allowed', 'SOD-2'],
    ['a service account decides', approval, { type: 'service_account', id: 'preview-customer' }, approve(1), 403, 'actor_type_not_allowed', 'SOD-2'],
    ['a user without the step role', approval, exec, approve(1), 403, 'role_required', 'SOD-3'],
    ['a user outside the team', approval, user('u_stranger'), approve(1), 403, 'role_required', 'SOD-3'],
    ['the step-1 approver takes step 2', half, rev2, approve(2), 409, 'one_person_one_step', 'SOD-4'],
    ['the asset owner takes the last step', half, assetOwner, approve(2), 403, 'owner_cannot_finalise', 'SOD-5'],
    ['the wrong step', approval, rev2, approve(2), 409, 'step_mismatch', 'APR-5'],
    ['a step the approval lacks', approval, rev2, approve(3), 409, 'step_mismatch', 'APR-5'],
  ];
  for (const [name, a, actor, body, status, code, rule] of cases) {
    const result = checkDecision(a, body, actor, TEAM, day(1));
    t.match(result, { ok: false, status, code, rule }, name);
    t.ok(!result.ok && result.message.length > 20, `${name}: the message says what to do`);
  }
  // The legitimate neighbours of each refusal pass.
  t.match(checkDecision(approval, approve(1), assetOwner, TEAM, day(1)), { ok: true }, 'SOD-5 spares the owner a step that is not the last');
  t.match(checkDecision(half, approve(2), exec, TEAM, day(1)), { ok: true }, 'a different person takes step 2');
  t.match(
    checkDecision(half, { step: 2, decision: 'reject', reason: 'No.' }, assetOwner, TEAM, day(1)),
    { ok: false, code: 'owner_cannot_finalise' },
    'SOD-5 holds for a reject too',
  );
  const { approval: limited } = highApproval([], 'limited');
  t.match(checkDecision(limited, approve(1), assetOwner, TEAM, day(1)), { ok: false, code: 'owner_cannot_finalise' }, 'a one-step approval: the owner takes no step');
  // The asset re-registered to a new owner after the request: both owners are refused the last step.
  t.match(checkDecision(half, approve(2), exec, TEAM, day(1), exec), { ok: false, status: 403, code: 'owner_cannot_finalise', rule: 'SOD-5' }, "SOD-5 holds for the asset's owner now");
  t.match(checkDecision(half, approve(2), assetOwner, TEAM, day(1), exec), { ok: false, code: 'owner_cannot_finalise' }, 'and for the owner the request recorded');
  t.match(checkDecision(approval, approve(1), exec, TEAM, day(1), rev1), { ok: false, code: 'role_required' }, 'an owner now is no decider by that alone');
  t.match(checkDecision(half, approve(2), rev2, TEAM, day(1), exec), { ok: false, code: 'one_person_one_step' }, 'SOD-4 still before SOD-5');
  t.match(checkDecision(half, approve(2), exec, TEAM, day(1), assetOwner), { ok: true }, 'an owner unchanged spares everyone else');
});

t.test('the checks run in order: the first refusal wins', async (t) => {
  const { approval, events } = highApproval([[rev2, { step: 1, decision: 'approve' }]]);
  const ev = eventMaker();
  for (const e of events) ev(e.kind, e.payload);
  const superseded = applyApprovalEvent(approval, ev('risk.evaluated', evaluated('asset_cv', 'rev_2', 'high')))!;
  t.equal(superseded.superseded_by, 'rev_2');
  t.same(approvalStatus(superseded, day(1)), { status: 'superseded' });
  t.match(checkDecision(superseded, approve(2), exec, TEAM, day(1)), { code: 'approval_superseded', status: 409, rule: 'APR-1' });
  t.match(checkDecision(superseded, approve(2), exec, TEAM, day(20)), { code: 'approval_superseded' }, 'superseded before not pending (expired too)');
  const { approval: decided } = highApproval([[rev1, { step: 1, decision: 'reject' }]]);
  const decidedThenSuperseded = applyApprovalEvent(decided, ev('risk.evaluated', evaluated('asset_cv', 'rev_3', 'high')))!;
  t.same(approvalStatus(decidedThenSuperseded, day(1)), { status: 'rejected' }, 'a decided request keeps its outcome');
  t.match(checkDecision(decidedThenSuperseded, approve(1), rev2, TEAM, day(1)), { code: 'approval_superseded' }, 'superseded before not pending (decided)');
  t.match(checkDecision(approval, approve(2, { expected_input_sha256: H2 }), exec, TEAM, day(20)), { code: 'approval_not_pending' }, 'not pending before subject changed');
  t.match(
    checkDecision(approval, approve(2, { expected_input_sha256: H2 }), requester, TEAM, day(1)),
    { code: 'approval_subject_changed', status: 409, rule: 'APR-3' },
    'subject changed before SOD-1',
  );
  t.match(
    checkDecision(approval, { step: 2, decision: 'withdraw', reason: 'x', expected_input_sha256: H2 }, requester, TEAM, day(1)),
    { code: 'approval_subject_changed' },
    'subject changed before withdraw',
  );
  t.match(checkDecision(approval, approve(1), requester, TEAM, day(1)), { code: 'self_approval_forbidden' }, 'SOD-1 before step (and SOD-3)');
  t.match(checkDecision(approval, approve(1), agent('u_rev2'), TEAM, day(1)), { code: 'actor_type_not_allowed' }, 'SOD-2 before SOD-3 and SOD-4');
  t.match(checkDecision(approval, approve(1), rev1, TEAM, day(1)), { code: 'step_mismatch' }, "rev1 holds step 1's role but step 1 is done");
  t.match(checkDecision(approval, approve(2), rev1, TEAM, day(1)), { code: 'role_required' }, 'SOD-3 before the step check');
  t.match(checkDecision(approval, approve(1), rev2, TEAM, day(1)), { code: 'one_person_one_step' }, 'SOD-4 before the step check (the same step twice)');
  const ownerDecided = highApproval([[assetOwner, { step: 1, decision: 'approve' }]]).approval;
  t.match(checkDecision(ownerDecided, approve(2), assetOwner, TEAM, day(1)), { code: 'one_person_one_step' }, 'SOD-4 before SOD-5');
  t.match(checkDecision(approval, approve(1), assetOwner, TEAM, day(1)), { code: 'step_mismatch' }, 'SOD-5 (not the last step here) then the step check');
});

t.test('expiry: pending until due_at, expired after it, computed from now', async (t) => {
  const { approval } = highApproval();
  t.equal(approval.due_at, iso(14));
  t.same(approvalStatus(approval, day(14)), { status: 'pending', current_step: 1 }, 'at due_at it is still pending');
  t.same(approvalStatus(approval, new Date(day(14).getTime() + 1)), { status: 'expired' });
  t.match(checkDecision(approval, approve(1), rev1, TEAM, day(15)), { ok: false, status: 409, code: 'approval_not_pending', rule: 'APR-2' });
  t.match(checkDecision(approval, approve(1), rev1, TEAM, day(14)), { ok: true });
});

t.test('the fold ignores what is not its own and keeps the first request', async (t) => {
  const { approval, events } = highApproval();
  const ev = eventMaker();
  for (const e of events) ev(e.kind, e.payload);
  t.equal(applyApprovalEvent(undefined, ev(APPROVAL_KINDS.decided, { approval_id: 'x' })), undefined, 'a decision before any request');
  t.same(applyApprovalEvent(approval, ev(APPROVAL_KINDS.requested, { ...events[1]!.payload, due_at: iso(99) })), approval, 'a second request changes nothing');
  t.same(applyApprovalEvent(approval, ev(APPROVAL_KINDS.decided, { approval_id: 'apr_other', step: 1, decision: 'reject' })), approval, "another approval's decision");
  t.same(applyApprovalEvent(approval, ev('risk.evaluated', evaluated('asset_other', 'rev_9', 'high'))), approval, "another asset's evaluation");
  t.same(applyApprovalEvent(approval, ev('risk.evaluated', evaluated('asset_cv', 'rev_1', 'high'))), approval, 'its own evaluation');
  t.same(applyApprovalEvent(approval, ev('task.created', {})), approval);
});

t.test('two approvers on one step (min_approvers 2): different people, then the next step', async (t) => {
  const ev = eventMaker();
  const request = approvalRequestFor(
    { evaluation_id: 'rev_1', asset_id: 'asset_cv', tier: 'limited', input_sha256: H1, policy: { version: '1.0.0' } },
    { requested_by: requester, asset_owner: assetOwner, steps: [{ step: 1, role: 'governance_reviewer', min_approvers: 2 }] },
    day(0),
  )!;
  let approval = foldApproval([ev(APPROVAL_KINDS.requested, request)])!;
  const first = checkDecision(approval, approve(1), rev1, TEAM, day(1));
  t.match(first, { ok: true, status: 'pending' });
  approval = applyApprovalEvent(approval, ev(APPROVAL_KINDS.decided, first.ok && first.payload, { actor: rev1 }))!;
  t.same(approvalStatus(approval, day(1)), { status: 'pending', current_step: 1 });
  t.match(checkDecision(approval, approve(1), rev1, TEAM, day(1)), { ok: false, code: 'one_person_one_step' });
  t.match(checkDecision(approval, approve(1), rev2, TEAM, day(1)), { ok: true, status: 'approved' });
});
