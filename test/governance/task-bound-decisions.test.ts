// The walk-through's decisions bound to a task (an optional task_id on the registration, the
// evaluation, each approval decision and the review completion): each unit is written to the task,
// so the task's timeline holds the decisions and a Proof Packet over the task covers them — its
// event range and hash-chain root rest on their event hashes. A task of another scope is 404 (logged
// as denied), a closed one 409, and nothing of the decision is written.
import t, { type Test } from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StoredEvent } from '../../src/domain/event.ts';
import { hashChainRoot } from '../../src/domain/packet-hash.ts';
import { SCOPE_B, testApp } from '../fixtures/test-app.ts';

const owner = { type: 'user', id: 'olivia' };
const reviewer = { type: 'user', id: 'rita' };
const executive = { type: 'user', id: 'evan' };
const requester = { type: 'user', id: 'raj' };
const HIGH = { data_sensitivity: 3, decision_impact: 3, autonomy: 2, vendor_maturity: 2, prohibited_practice: 0 };

async function governed(t: Test) {
  const base = await testApp(t);
  const events = (): StoredEvent[] => readFileSync(join(base.dataDir, 'events.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as StoredEvent);
  const { call } = base;
  t.equal((await call('/v1/team/owner', { body: { actor: owner } })).status, 201);
  for (const [who, role] of [[reviewer, 'governance_reviewer'], [executive, 'accountable_executive']] as const) {
    const invite = (await call('/v1/team/invites', { body: { email: `${who.id}@example.com`, role, actor: owner } })).json;
    t.equal((await call(`/v1/team/invites/${invite.invite_id}/accept`, { body: { token: invite.token, actor: who } })).status, 201);
  }
  t.equal((await call('/v1/tasks', { body: { task_id: 'adopt-cv-screener', title: 'Adopt the CV screener for the HR pilot', session_id: 'sess-hr' } })).status, 201);
  return { ...base, events };
}

const asset = (over: Record<string, unknown> = {}) => ({
  asset_id: 'cv-screener', name: 'CV screener', purpose: 'Rank job applications for recruiters', owner, deployment_context: 'HR, internal', models: [{ provider: 'acme', name: 'rank-1' }], actor: requester, ...over,
});

t.test('decisions bound to a task are in its timeline, and a Proof Packet over the task covers them', async (t) => {
  const g = await governed(t);
  const task = 'adopt-cv-screener';
  const before = g.events().length;
  const registered = await g.call('/v1/governance/assets', { body: asset({ task_id: task }) });
  t.equal(registered.status, 201, registered.text);
  const evaluated = await g.call('/v1/risk/evaluations', { body: { asset_id: 'cv-screener', risk_inputs: HIGH, actor: requester, task_id: task } });
  t.equal(evaluated.status, 201, evaluated.text);
  const approvalId = evaluated.json.evaluation.approval_id as string;
  for (const [step, who] of [[1, reviewer], [2, executive]] as const) {
    const decided = await g.call(`/v1/approvals/${approvalId}/decision`, { body: { step, decision: 'approve', reason: `Step ${step} signed off`, actor: who, task_id: task } });
    t.equal(decided.status, 201, decided.text);
  }
  const reviewId = (await g.call('/v1/reviews?asset_id=cv-screener')).json.reviews[0].review_id as string;
  const reviewed = await g.call(`/v1/reviews/${reviewId}/complete`, { body: { outcome: 'no_change', notes: 'Checked the evidence', actor: reviewer, task_id: task } });
  t.equal(reviewed.status, 201, reviewed.text);
  t.equal((await g.call('/v1/governance/assets/cv-screener')).json.status, 'approved', 'the decisions decide as without a task');

  const written = g.events().slice(before);
  t.same(written.map((e) => [e.kind, e.task_id]), [
    ['governance.asset.registered', task], ['access.logged', task],
    ['risk.evaluated', task], ['approval.requested', task], ['access.logged', task],
    ['approval.decided', task], ['access.logged', task],
    ['approval.decided', task], ['access.logged', task],
    ['review.completed', task], ['access.logged', task],
  ], 'every event of every decision is written to the task');
  t.notOk(written.some((e) => 'task_id' in (e.payload as object)), 'the task is the envelope\'s, not the payload\'s');

  const timeline = await g.call(`/v1/tasks/${task}/timeline`);
  t.same((timeline.json.events as StoredEvent[]).map((e) => e.event_id).slice(1), written.map((e) => e.event_id), 'the task\'s timeline holds them, after its creation');
  const packet = await g.call('/v1/proof-packets', { body: { task_ids: [task] } });
  t.equal(packet.status, 201, packet.text);
  const covered = g.events().filter((e) => e.task_id === task && e.seq <= written.at(-1)!.seq);
  t.same(packet.json.event_range, { first_event_id: covered[0]!.event_id, last_event_id: written.at(-1)!.event_id, event_count: covered.length }, 'the packet\'s range ends at the review');
  t.equal(packet.json.hash_chain_root, hashChainRoot(covered.map((e) => e.event_hash)), 'its root rests on the decisions\' event hashes');
  const evaluation = written.find((e) => e.kind === 'risk.evaluated')!;
  t.equal(evaluated.json.event.event_id, evaluation.event_id, 'the evaluation the route answered is one the packet covers');
});

t.test('a decision bound to a task of another scope is 404 (logged), to a closed task 409; nothing of it is written', async (t) => {
  const g = await governed(t);
  t.equal((await g.call('/v1/governance/assets', { body: asset() })).status, 201);
  t.equal((await g.call('/v1/tasks', { scope: SCOPE_B, body: { task_id: 'elsewhere', title: 'A task of another tenant', session_id: 'sess-b' } })).status, 201);
  const cases: Array<[string, () => Promise<{ status: number; json: any }>]> = [
    ['registration', () => g.call('/v1/governance/assets', { body: asset({ name: 'CV screener v2', task_id: 'elsewhere' }) })],
    ['evaluation', () => g.call('/v1/risk/evaluations', { body: { asset_id: 'cv-screener', risk_inputs: HIGH, actor: requester, task_id: 'elsewhere' } })],
  ];
  for (const [label, send] of cases) {
    const before = g.events().length;
    const r = await send();
    t.same([r.status, r.json.code], [404, 'not_found_in_scope'], `${label}: another scope's task`);
    t.same(g.events().slice(before).map((e) => [e.kind, e.task_id ?? null, e.payload.outcome, (e.payload.resource as { type: string }).type]), [['access.logged', null, 'denied', 'task']], `${label}: only the denial, bound to no task`);
  }
  const evaluated = await g.call('/v1/risk/evaluations', { body: { asset_id: 'cv-screener', risk_inputs: HIGH, actor: requester } });
  const closeout = {
    outcome: 'completed', summary: 'The CV screener pilot was approved for HR.', verification: ['Both approval steps recorded'],
    evidence_refs: [{ artifact_id: 'pilot-plan', uri: 'https://ci.example.test/pilot-plan', evidence_type: 'document', sha256: 'a'.repeat(64), confidence: 'claimed', redaction: 'none', content_trust: 'trusted_internal', captured_at: '2026-11-01T09:00:00Z' }],
    context_lines: ['The HR pilot runs the CV screener for recruiters only'], future_agent_traps: ['The screener needs a new evaluation when its model changes'],
  };
  const closed = await g.call('/v1/tasks/adopt-cv-screener/closeout', { body: closeout });
  t.equal(closed.status, 201, closed.text);
  const before = g.events().length;
  const late = await g.call(`/v1/approvals/${evaluated.json.evaluation.approval_id}/decision`, { body: { step: 1, decision: 'approve', reason: 'Signed off', actor: reviewer, task_id: 'adopt-cv-screener' } });
  t.same([late.status, late.json.code], [409, 'task_closed'], 'a closed task takes no decision');
  t.same(g.events().slice(before).map((e) => [e.kind, e.task_id ?? null, e.payload.reason_code]), [['access.logged', null, 'task_closed']], 'only the denial');
  t.equal((await g.call(`/v1/approvals/${evaluated.json.evaluation.approval_id}`)).json.status, 'pending', 'the step is not decided');
});

t.test('a closeout racing decisions bound to its task: none is written to the task after its task.closed', async (t) => {
  const g = await governed(t);
  const ids = Array.from({ length: 30 }, (_, i) => `asset-${i}`);
  for (const id of ids) t.equal((await g.call('/v1/governance/assets', { body: asset({ asset_id: id }) })).status, 201);
  const closeout = {
    outcome: 'completed', summary: 'The screeners were evaluated for the HR pilot.', verification: ['Every evaluation recorded'],
    evidence_refs: [{ artifact_id: 'pilot-plan', uri: 'https://ci.example.test/pilot-plan', evidence_type: 'document', sha256: 'a'.repeat(64), confidence: 'claimed', redaction: 'none', content_trust: 'trusted_internal', captured_at: '2026-11-01T09:00:00Z' }],
    context_lines: ['The HR pilot runs the CV screener for recruiters only'], future_agent_traps: ['The screener needs a new evaluation when its model changes'],
  };
  const evaluate = (id: string) => g.call('/v1/risk/evaluations', { body: { asset_id: id, risk_inputs: HIGH, actor: requester, task_id: 'adopt-cv-screener' } });
  const answers = await Promise.all([...ids.slice(0, 15).map(evaluate), g.call('/v1/tasks/adopt-cv-screener/closeout', { body: closeout }), ...ids.slice(15).map(evaluate)]);
  t.equal(answers[15]!.status, 201, 'the closeout');
  const evaluations = answers.filter((_, i) => i !== 15);
  t.same(evaluations.filter((a) => a.status !== 201 && !(a.status === 409 && a.json.code === 'task_closed')).map((a) => a.text), [], 'each evaluation is 201 or 409 task_closed');
  const log = g.events();
  const closedAt = log.find((e) => e.kind === 'task.closed')!.seq;
  t.same(log.filter((e) => e.task_id === 'adopt-cv-screener' && e.seq > closedAt).map((e) => e.kind), [], 'nothing written to the task after its task.closed');
  const written = log.filter((e) => e.kind === 'risk.evaluated' && e.task_id === 'adopt-cv-screener').length;
  t.equal(written, evaluations.filter((a) => a.status === 201).length, 'every 201 is an evaluation in the task');
});

t.test('a decision written to a task still moves its aggregate: versions, If-Match and races as without a task', async (t) => {
  const g = await governed(t);
  const task = 'adopt-cv-screener';
  const first = await g.call('/v1/governance/assets', { body: asset({ task_id: task }) });
  t.equal(first.status, 201, first.text);
  const read = await g.call('/v1/governance/assets/cv-screener');
  t.equal(read.headers.get('etag'), `"${first.json.event.seq}"`, 'the asset\'s ETag is the bound registration\'s seq');
  t.equal(first.headers.get('etag'), read.headers.get('etag'), 'the answer\'s ETag is the one a read gives');
  const moved = await g.call('/v1/governance/assets', { body: asset({ name: 'CV screener v2', task_id: task }), headers: { 'If-Match': read.headers.get('etag')! } });
  t.equal(moved.status, 201, 'the current version passes');
  const stale = await g.call('/v1/governance/assets', { body: asset({ name: 'CV screener v3', task_id: task }), headers: { 'If-Match': read.headers.get('etag')! } });
  t.same([stale.status, stale.json.code], [412, 'precondition_failed'], 'a version a bound write moved on is stale');

  const reposts = await Promise.all(Array.from({ length: 12 }, (_, i) => g.call('/v1/governance/assets', { body: asset({ name: `CV screener r${i}`, task_id: task }) })));
  t.same(reposts.map((r) => r.status), Array<number>(12).fill(201));
  const revisions = g.events().filter((e) => e.kind === 'governance.asset.registered').map((e) => e.payload.revision as number);
  t.same(revisions, Array.from({ length: revisions.length }, (_, i) => i + 1), 'bound re-posts sent at once: each the next revision');

  const evaluated = await g.call('/v1/risk/evaluations', { body: { asset_id: 'cv-screener', risk_inputs: HIGH, actor: requester, task_id: task } });
  const approvalId = evaluated.json.evaluation.approval_id as string;
  const others = ['rosa', 'raul', 'remy'].map((id) => ({ type: 'user', id }));
  for (const who of others) {
    const invite = (await g.call('/v1/team/invites', { body: { email: `${who.id}@example.com`, role: 'governance_reviewer', actor: owner } })).json;
    t.equal((await g.call(`/v1/team/invites/${invite.invite_id}/accept`, { body: { token: invite.token, actor: who } })).status, 201);
  }
  const deciders = [reviewer, ...others];
  const decisions = await Promise.all(deciders.flatMap((who) => [0, 1].map((n) => g.call(`/v1/approvals/${approvalId}/decision`, { body: { step: 1, decision: n === 0 ? 'approve' : 'reject', reason: 'Decided at once', actor: who, task_id: task } }))));
  t.same(decisions.map((d) => d.status).sort(), [201, ...Array<number>(decisions.length - 1).fill(409)], 'one decision of step 1 wins, every other is 409');
  t.equal(g.events().filter((e) => e.kind === 'approval.decided').length, 1, 'one approval.decided in the log');
});
