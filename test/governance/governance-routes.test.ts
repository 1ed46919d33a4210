// Governance I through the routes: the golden risk vectors, every separation-of-duties rule (the
// refusal with its status and code, its access.logged denied entry, and the legitimate path), a
// decision racing another, expiry and review cadence on an injected clock, supersession,
// cross-scope 404s, the team's rules, and identical answers after the index is rebuilt.
import t, { type Test } from 'tap';
import { createHash } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { payloadSchemaOf, type StoredEvent } from '../../src/domain/event.ts';
import { testSchemas } from '../fixtures/templates.ts';
import { approvalStream, assetStream, teamStream } from '../../src/domain/streams.ts';
import { evidenceRef } from '../fixtures/governance.ts';
import { straddle, versionsOf } from '../fixtures/straddle.ts';
import { SCOPE_A, SCOPE_B, tempDir, testApp } from '../fixtures/test-app.ts';

const owner = { type: 'user', id: 'olivia' };
const reviewer = { type: 'user', id: 'rita' };
const reviewer2 = { type: 'user', id: 'ravi' };
const executive = { type: 'user', id: 'evan' };
const both = { type: 'user', id: 'bo' };
const requester = { type: 'user', id: 'raj' };
const HIGH = { data_sensitivity: 3, decision_impact: 3, autonomy: 2, vendor_maturity: 2, prohibited_practice: 0 };
const DAY = 86_400_000;

/** A clock that moves a second per read from 2026-11-01, and jumps when told. */
function movableClock() {
  let now = Date.parse('2026-11-01T10:00:00.000Z');
  return { clock: () => new Date((now += 1000)), jump: (ms: number) => void (now += ms) };
}

async function governed(t: Test, options: { dataDir?: string } = {}) {
  const time = movableClock();
  const app = await testApp(t, { clock: time.clock, ...(options.dataDir ? { dataDir: options.dataDir } : {}) });
  const { call } = app;
  const events = (): StoredEvent[] => readFileSync(join(app.dataDir, 'events.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as StoredEvent);
  const join_ = async (who: typeof owner, role: string) => {
    const invite = (await call('/v1/team/invites', { body: { email: `${who.id}@example.com`, role, actor: owner } })).json;
    const r = await call(`/v1/team/invites/${invite.invite_id}/accept`, { body: { token: invite.token, actor: who } });
    if (r.status !== 201) throw new Error(`accept: ${r.text}`);
  };
  const setUp = async () => {
    await call('/v1/team/owner', { body: { actor: owner } });
    await join_(reviewer, 'governance_reviewer');
    await join_(reviewer2, 'governance_reviewer');
    await join_(executive, 'accountable_executive');
    await join_(both, 'governance_reviewer');
    const team = await call('/v1/team');
    const r = await call('/v1/team/members/bo', { method: 'PATCH', body: { roles: ['governance_reviewer', 'accountable_executive'], actor: owner }, headers: { 'If-Match': team.headers.get('etag')! } });
    if (r.status !== 200) throw new Error(`roles: ${r.text}`);
  };
  const register = (assetId: string, by = owner) =>
    call('/v1/governance/assets', { body: { asset_id: assetId, name: `Asset ${assetId}`, purpose: 'Rank job applications', owner: by, deployment_context: 'HR', models: [{ provider: 'acme', name: 'm1' }], actor: requester } });
  const evaluate = async (assetId: string, inputs = HIGH) => (await call('/v1/risk/evaluations', { body: { asset_id: assetId, risk_inputs: inputs, actor: requester } })).json.evaluation;
  const decide = (approvalId: string, step: number, actor: unknown, decision = 'approve') =>
    call(`/v1/approvals/${approvalId}/decision`, { body: { step, decision, reason: 'Reviewed the evidence', actor } });
  return { ...app, time, events, setUp, register, evaluate, decide };
}

t.test('the golden vectors of the risk policy through POST /v1/risk/evaluations', async (t) => {
  const g = await governed(t);
  await g.setUp();
  const vectors: [string, number[], number, string, string[]][] = [
    ['code-assistant', [1, 0, 1, 3, 0], 8, 'minimal', []],
    ['doc-summarizer', [1, 1, 1, 0, 0], 18, 'limited', []],
    ['support-bot', [2, 2, 2, 3, 0], 22, 'limited', []],
    ['cv-screening', [3, 3, 2, 2, 0], 31, 'high', []],
    ['benefit-triage', [0, 4, 1, 4, 0], 19, 'high', ['R2']],
    ['ticket-router', [0, 3, 3, 4, 0], 21, 'high', ['R3']],
    ['credit-auto', [3, 4, 4, 3, 0], 39, 'high', ['R2', 'R3']],
    ['emotion-hr', [4, 3, 2, 2, 3], 34, 'prohibited', ['R1']],
  ];
  for (const [assetId, [ds, di, au, vm, pp], points, tier, fired] of vectors) {
    await g.register(assetId);
    const risk_inputs = { data_sensitivity: ds!, decision_impact: di!, autonomy: au!, vendor_maturity: vm!, prohibited_practice: pp! };
    const first = await g.call('/v1/risk/evaluations', { body: { asset_id: assetId, risk_inputs } });
    t.equal(first.status, 201, assetId);
    const e = first.json.evaluation;
    // RFC 8785 of {asset_id, risk_inputs}: members sorted, no spaces (written out by hand here).
    const canonical = `{"asset_id":"${assetId}","risk_inputs":{"autonomy":${au},"data_sensitivity":${ds},"decision_impact":${di},"prohibited_practice":${pp},"vendor_maturity":${vm}}}`;
    t.same({ points: e.points, score: e.score, tier: e.tier, fired: e.fired_rules.filter((r: string) => r !== 'R3' || fired.includes('R3')) }, { points, score: Math.floor((points * 100 + 24) / 48), tier, fired }, assetId);
    t.equal(e.input_sha256, `sha256:${createHash('sha256').update(canonical).digest('hex')}`, `${assetId} input_sha256`);
    t.equal(e.approval_id === null, tier === 'minimal' || tier === 'prohibited', `${assetId}: an approval exactly when the tier needs one`);
    const again = (await g.call('/v1/risk/evaluations', { body: { asset_id: assetId, risk_inputs } })).json.evaluation;
    t.same([again.points, again.tier, again.input_sha256, again.determinism_key], [e.points, e.tier, e.input_sha256, e.determinism_key], `${assetId}: same inputs, same result and hash`);
  }
  t.equal((await g.call('/v1/governance/assets/emotion-hr')).json.status, 'blocked', 'prohibited → blocked');
  t.equal((await g.call('/v1/governance/assets/code-assistant')).json.status, 'approved', 'minimal needs no approval');
});

t.test('risk inputs out of range, of the wrong type, missing or extra: 422 quoting the anchors, nothing written', async (t) => {
  const g = await governed(t);
  await g.register('a1');
  const before = g.events().length;
  for (const risk_inputs of [{ ...HIGH, autonomy: 5 }, { ...HIGH, autonomy: '2' }, { ...HIGH, autonomy: 1.5 }, { data_sensitivity: 1 }, { ...HIGH, mood: 2 }]) {
    const r = await g.call('/v1/risk/evaluations', { body: { asset_id: 'a1', risk_inputs } });
    t.equal(r.status, 422, JSON.stringify(risk_inputs));
    t.equal(r.json.code, 'validation_failed');
    t.ok(r.json.errors.length > 0 && r.json.errors.every((e: { pointer: string }) => e.pointer.startsWith('/risk_inputs')), 'pointers into risk_inputs');
  }
  t.match((await g.call('/v1/risk/evaluations', { body: { asset_id: 'a1', risk_inputs: { ...HIGH, autonomy: 5 } } })).json.detail, '"suggests only', 'the prompt quotes the anchor sentences');
  t.equal((await g.call('/v1/risk/evaluations', { body: { asset_id: 'a1', risk_inputs: HIGH, colour: 1 } })).status, 422, 'an extra member of the body');
  // A string body is sent as it is: '"a1"' is the JSON text of a string.
  for (const body of [null, [], [{ asset_id: 'a1', risk_inputs: HIGH }], 5, '"a1"', true]) {
    const r = await g.call('/v1/risk/evaluations', { body });
    t.same([r.status, r.json.code, r.json.errors], [422, 'validation_failed', [{ pointer: '', detail: 'must be object' }]], `a body of ${JSON.stringify(body)}`);
  }
  t.equal(g.events().length, before, 'nothing written');
  const missing = await g.call('/v1/risk/evaluations', { body: { asset_id: 'nope', risk_inputs: HIGH } });
  t.same([missing.status, missing.json.code], [404, 'not_found_in_scope']);
});

t.test('every separation-of-duties rule refuses, access-logged as denied; the legitimate path passes', async (t) => {
  const g = await governed(t);
  await g.setUp();
  const refusals: [string, () => Promise<{ status: number; json: any }>, number, string][] = [];
  await g.register('hr-1');
  const a1 = (await g.evaluate('hr-1')).approval_id as string;
  refusals.push(['SOD-1 the requester', () => g.decide(a1, 1, requester), 403, 'self_approval_forbidden']);
  refusals.push(['SOD-2 an agent', () => g.decide(a1, 1, { type: 'agent', id: 'bot-7' }), 403, 'actor_type_not_allowed']);
  refusals.push(['SOD-3 without the step role', () => g.decide(a1, 1, executive), 403, 'role_required']);
  refusals.push(['wrong step', () => g.decide(a1, 2, executive), 409, 'step_mismatch']);
  for (const [name, send, status, code] of refusals) {
    const before = g.events().length;
    const r = await send();
    t.same([r.status, r.json.code], [status, code], name);
    const written = g.events().slice(before);
    t.same(written.map((e) => [e.kind, e.payload]), [['access.logged', {
      action: 'attempted', outcome: 'denied', reason_code: code, resource: { type: 'approval', id: a1 }, reason: written[0]!.payload.reason,
      // In-process requests have no peer address (the e2e tests see loopback).
      route: { method: 'POST', path_template: '/v1/approvals/{approval_id}/decision' }, status, ip_class: 'unknown',
    }]], `${name}: one access.logged entry (attempted, denied, its reason_code), no decision`);
  }
  // SOD-4: one person, one step: bo holds both roles, decides step 1, may not decide step 2.
  t.equal((await g.decide(a1, 1, both)).status, 201, 'step 1 by bo');
  const sod4 = await g.decide(a1, 2, both);
  t.same([sod4.status, sod4.json.code], [409, 'one_person_one_step'], 'SOD-4');
  // SOD-5: the asset owner cannot take the last step, even holding its role.
  await g.call('/v1/team/members/olivia', { method: 'PATCH', body: { roles: ['owner', 'accountable_executive'], actor: owner } });
  const sod5 = await g.decide(a1, 2, owner);
  t.same([sod5.status, sod5.json.code], [403, 'owner_cannot_finalise'], 'SOD-5');
  const ok = await g.decide(a1, 2, executive);
  t.equal(ok.status, 201, 'the executive takes step 2');
  t.equal(ok.json.approval.status, 'approved');
  const decided = g.events().filter((e) => e.kind === 'approval.decided');
  t.same(decided.map((e) => [e.payload.step, e.actor?.id]), [[1, 'bo'], [2, 'evan']], 'the two decisions are events naming who decided');
  const asset = await g.call('/v1/governance/assets/hr-1');
  t.same([asset.json.status, asset.json.in_use_allowed], ['approved', true]);
  const denied = g.events().filter((e) => e.kind === 'access.logged' && e.payload.outcome === 'denied').map((e) => e.payload.reason_code);
  t.same(denied, ['self_approval_forbidden', 'actor_type_not_allowed', 'role_required', 'step_mismatch', 'one_person_one_step', 'owner_cannot_finalise']);
  const listed = await g.call('/v1/access-log?action=attempted&outcome=denied&resource_type=approval');
  t.same(listed.json.entries.map((e: { reason_code: string; status: number }) => [e.reason_code, e.status]),
    [['self_approval_forbidden', 403], ['actor_type_not_allowed', 403], ['role_required', 403], ['step_mismatch', 409], ['one_person_one_step', 409], ['owner_cannot_finalise', 403]], 'GET /v1/access-log?action=attempted&outcome=denied lists every refusal');
  // Every event the governance routes wrote fits its kind's payload schema.
  const registry = testSchemas();
  for (const e of g.events()) t.same(registry.validate(payloadSchemaOf(e.kind)!, e.payload), [], `${e.kind} #${e.seq} fits its payload schema`);
  // A reject ends the request.
  await g.register('hr-2');
  const a2 = (await g.evaluate('hr-2')).approval_id as string;
  t.equal((await g.decide(a2, 1, reviewer, 'reject')).json.approval.status, 'rejected');
  t.same((await g.decide(a2, 1, reviewer2)).json.code, 'approval_not_pending');
  t.equal((await g.call('/v1/governance/assets/hr-2')).json.status, 'rejected');
  // Only the requester withdraws.
  await g.register('hr-3');
  const a3 = (await g.evaluate('hr-3')).approval_id as string;
  t.same((await g.decide(a3, 1, reviewer, 'withdraw')).json.code, 'not_requester');
  t.equal((await g.decide(a3, 1, requester, 'withdraw')).json.approval.status, 'withdrawn');
});

t.test('SOD-5 holds for an owner a re-registration named after the request, and for the one it recorded', async (t) => {
  const g = await governed(t);
  await g.setUp();
  await g.register('hr-own');
  const a = (await g.evaluate('hr-own')).approval_id as string;
  t.equal((await g.decide(a, 1, reviewer)).status, 201, 'step 1 by the reviewer');
  // A new owner is no material change: the request stays open, bound to the same evaluation.
  t.equal((await g.register('hr-own', executive)).status, 201);
  const asset = await g.call('/v1/governance/assets/hr-own');
  t.same([asset.json.owner, asset.json.status], [executive, 'pending_approval']);
  const before = g.events().length;
  const refused = await g.decide(a, 2, executive);
  t.same([refused.status, refused.json.code], [403, 'owner_cannot_finalise'], "the asset's owner now cannot take the last step");
  t.same(g.events().slice(before).map((e) => [e.kind, e.payload.reason_code]), [['access.logged', 'owner_cannot_finalise']], 'the refusal is logged, nothing decided');
  await g.call('/v1/team/members/olivia', { method: 'PATCH', body: { roles: ['owner', 'accountable_executive'], actor: owner } });
  t.same((await g.decide(a, 2, owner)).json.code, 'owner_cannot_finalise', 'nor can the owner the request recorded');
  const ok = await g.decide(a, 2, both);
  t.same([ok.status, ok.json.approval.status], [201, 'approved'], 'someone who owns neither way takes it');
});

t.test('two decisions racing on the same step: one wins, the other answers 409', async (t) => {
  const g = await governed(t);
  await g.setUp();
  await g.register('race');
  const id = (await g.evaluate('race')).approval_id as string;
  const answers = await Promise.all([g.decide(id, 1, reviewer), g.decide(id, 1, reviewer2)]);
  t.same(answers.map((a) => a.status).sort(), [201, 409]);
  t.equal(answers.find((a) => a.status === 409)!.json.code, 'step_mismatch', 'the loser is told the step moved on');
  t.equal(g.events().filter((e) => e.kind === 'approval.decided').length, 1, 'one decision recorded');
});

t.test('If-Match on approval decisions and review completions (stale → 412, nothing written; current → 201 with the new ETag); REV-4', async (t) => {
  const g = await governed(t);
  await g.setUp();
  await g.register('im');
  const id = (await g.evaluate('im')).approval_id as string;
  const read = await g.call(`/v1/approvals/${id}`);
  const etag = read.headers.get('etag')!;
  const decideIf = (step: number, actor: unknown, ifMatch: string) =>
    g.call(`/v1/approvals/${id}/decision`, { body: { step, decision: 'approve', reason: 'Reviewed the evidence', actor }, headers: { 'If-Match': ifMatch } });
  const first = await decideIf(1, reviewer, etag);
  t.equal(first.status, 201, 'the version read decides step 1');
  const allowed = g.events().filter((e) => e.kind === 'access.logged').at(-1)!;
  t.same(allowed.payload, {
    action: 'approved', outcome: 'allowed', resource: { type: 'approval', id },
    route: { method: 'POST', path_template: '/v1/approvals/{approval_id}/decision' }, status: 201, ip_class: 'unknown',
  }, 'the allowed entry names its route and the 201 answered');
  const moved = first.headers.get('etag')!;
  t.equal(moved, (await g.call(`/v1/approvals/${id}`)).headers.get('etag'), 'the answer carries the approval\'s new ETag');
  let before = g.events().length;
  const stale = await decideIf(2, executive, etag);
  t.same([stale.status, stale.json.code], [412, 'precondition_failed'], 'the version before step 1 is stale');
  t.same(g.events().slice(before), [], 'nothing written for a stale If-Match');
  t.equal((await decideIf(2, executive, moved)).status, 201, 'the current version decides step 2');
  // A review is a cycle of its asset's stream: If-Match takes the asset's ETag.
  const reviewId = (await g.call('/v1/reviews?asset_id=im')).json.reviews[0].review_id as string;
  const assetTag = (await g.call('/v1/governance/assets/im')).headers.get('etag')!;
  const complete = (ifMatch: string) => g.call(`/v1/reviews/${reviewId}/complete`, { body: { outcome: 'no_change', notes: 'Checked the evidence', actor: reviewer }, headers: { 'If-Match': ifMatch } });
  before = g.events().length;
  const staleReview = await complete('"1"');
  t.same([staleReview.status, staleReview.json.code], [412, 'precondition_failed'], 'a stale asset version');
  t.same(g.events().slice(before), [], 'nothing written for a stale If-Match');
  // REV-4: what a review cites is evidence of the scope's pool.
  before = g.events().length;
  const unpooled = await g.call(`/v1/reviews/${reviewId}/complete`, { body: { outcome: 'no_change', notes: 'Checked the evidence', evidence_refs: ['no-such-artifact'], actor: reviewer } });
  t.same([unpooled.status, unpooled.json.code], [422, 'evidence_required'], 'REV-4: an artifact no task of the scope attached');
  t.same(g.events().slice(before).map((e) => [e.kind, e.payload.action, e.payload.outcome, e.payload.reason_code]), [['access.logged', 'attempted', 'denied', 'evidence_required']], 'REV-4: logged as denied, nothing else');
  await g.call('/v1/tasks', { body: { task_id: 't-r', title: 'Bias testing', session_id: 'sess-1' } });
  await g.call('/v1/tasks/t-r/checkpoints', { body: { progress: 'Ran the bias tests', evidence_refs: [evidenceRef('bias-run')] } });
  const done = await g.call(`/v1/reviews/${reviewId}/complete`, { body: { outcome: 'no_change', notes: 'Checked the evidence', evidence_refs: ['bias-run'], actor: reviewer }, headers: { 'If-Match': assetTag } });
  t.equal(done.status, 201, 'the current asset version completes the review, citing pooled evidence');
  t.same(done.json.review.evidence_refs, ['bias-run']);
  t.equal(done.headers.get('etag'), (await g.call('/v1/governance/assets/im')).headers.get('etag'), 'the answer carries the asset\'s new ETag');
});

t.test('a decision whose reads straddle an index commit cannot decide a step twice', async (t) => {
  // The approval is read as it was before the first decision was indexed (test/fixtures/straddle.ts).
  const g = await governed(t);
  await g.setUp();
  await g.register('straddle');
  const id = (await g.evaluate('straddle')).approval_id as string;
  await g.service.store.settled();
  const gov = g.service.gov;
  const stale = gov.approval(SCOPE_A, id)!;
  const before = versionsOf(gov, [approvalStream(SCOPE_A, id), assetStream(SCOPE_A, 'straddle')]);
  t.equal((await g.decide(id, 1, reviewer)).status, 201, 'the first decision of step 1');
  const landed = straddle(t, gov, 'approval', (_scope, approvalId) => approvalId === id, stale, before);
  const second = await g.decide(id, 1, reviewer2);
  t.ok(landed(), 'the commit landed during the second decision');
  t.same([second.status, second.json.code], [409, 'step_mismatch'], 'decided on the approval as indexed with the first decision');
  t.equal(g.events().filter((e) => e.kind === 'approval.decided').length, 1, 'one decision of step 1 in the log');
});

t.test('an approval decision whose reads straddle an index commit is decided on the roles after it', async (t) => {
  // The team is read as it was before the reviewer's demotion was indexed (test/fixtures/straddle.ts).
  const g = await governed(t);
  await g.setUp();
  await g.register('roles');
  const id = (await g.evaluate('roles')).approval_id as string;
  await g.service.store.settled();
  const gov = g.service.gov;
  const stale = gov.team(SCOPE_A.tenant_id)!;
  const before = versionsOf(gov, [teamStream(SCOPE_A.tenant_id), approvalStream(SCOPE_A, id), assetStream(SCOPE_A, 'roles')]);
  const etag = (await g.call('/v1/team')).headers.get('etag')!;
  const demoted = await g.call('/v1/team/members/rita', { method: 'PATCH', body: { roles: ['auditor'], actor: owner }, headers: { 'If-Match': etag } });
  t.equal(demoted.status, 200, 'rita is no longer a governance_reviewer');
  const landed = straddle(t, gov, 'team', () => true, stale, before);
  const decision = await g.decide(id, 1, reviewer);
  t.ok(landed(), 'the commit landed during the decision');
  t.same([decision.status, decision.json.code], [403, 'role_required'], 'SOD-3 on the roles with the demotion');
  t.notOk(g.events().some((e) => e.kind === 'approval.decided'), 'no decision recorded');
});

t.test('a team decision whose reads straddle an index commit: an invite revoked meanwhile cannot be accepted', async (t) => {
  const g = await governed(t);
  await g.setUp();
  const invite = (await g.call('/v1/team/invites', { body: { email: 'zoe@example.com', role: 'auditor', actor: owner } })).json;
  await g.service.store.settled();
  const gov = g.service.gov;
  const stale = gov.team(SCOPE_A.tenant_id)!;
  const before = versionsOf(gov, [teamStream(SCOPE_A.tenant_id)]);
  t.equal((await g.call(`/v1/team/invites/${invite.invite_id}/revoke`, { body: { actor: owner } })).status, 201, 'revoked');
  const landed = straddle(t, gov, 'team', () => true, stale, before);
  const accept = await g.call(`/v1/team/invites/${invite.invite_id}/accept`, { body: { token: invite.token, actor: { type: 'user', id: 'zoe' } } });
  t.ok(landed(), 'the commit landed during the acceptance');
  t.same([accept.status, accept.json.code], [409, 'invite_not_open'], 'decided on the team with the invite revoked');
  t.notOk(g.events().some((e) => e.kind === 'team.member.added' && e.payload.member_id === 'zoe'), 'nobody joined on the revoked invite');
});

t.test('an evidence review whose reads straddle an index commit is decided on the reviewer\'s roles after it', async (t) => {
  const g = await governed(t);
  await g.setUp();
  await g.call('/v1/tasks', { body: { task_id: 't-s', title: 'Task of the straddled review', session_id: 'sess-1' } });
  await g.call('/v1/tasks/t-s/checkpoints', { body: { progress: 'Ran the suite', evidence_refs: [evidenceRef('ci-s')] } });
  await g.service.store.settled();
  const gov = g.service.gov;
  const stale = gov.team(SCOPE_A.tenant_id)!;
  const before = versionsOf(gov, [teamStream(SCOPE_A.tenant_id)]);
  const etag = (await g.call('/v1/team')).headers.get('etag')!;
  const demoted = await g.call('/v1/team/members/rita', { method: 'PATCH', body: { roles: ['auditor'], actor: owner }, headers: { 'If-Match': etag } });
  t.equal(demoted.status, 200, 'rita is no longer a governance_reviewer');
  const landed = straddle(t, gov, 'team', () => true, stale, before);
  const review = await g.call('/v1/evidence/ci-s/review', { body: { decision: 'accept', content_trust: 'trusted_internal', reason: 'Read the CI run', actor: reviewer } });
  t.ok(landed(), 'the commit landed during the review');
  t.same([review.status, review.json.code], [403, 'role_required'], 'decided on the roles with the demotion');
  t.notOk(g.events().some((e) => e.kind === 'evidence.reviewed'), 'no review recorded');
});

t.test('a review completion whose reads straddle an index commit cannot complete a cycle twice', async (t) => {
  const g = await governed(t);
  await g.setUp();
  await g.register('rv');
  const { approval_id: id } = await g.evaluate('rv', { data_sensitivity: 1, decision_impact: 1, autonomy: 1, vendor_maturity: 0, prohibited_practice: 0 });
  t.equal((await g.decide(id, 1, reviewer)).json.approval.status, 'approved');
  const reviewId = (await g.call('/v1/reviews?asset_id=rv')).json.reviews[0].review_id as string;
  await g.service.store.settled();
  const gov = g.service.gov;
  const stale = gov.asset(SCOPE_A, 'rv')!;
  const before = versionsOf(gov, [assetStream(SCOPE_A, 'rv')]);
  const complete = (notes: string) => g.call(`/v1/reviews/${reviewId}/complete`, { body: { outcome: 'no_change', notes, actor: reviewer } });
  t.equal((await complete('Checked the evidence')).status, 201, 'cycle 1 completed');
  const landed = straddle(t, gov, 'asset', (_scope, assetId) => assetId === 'rv', stale, before);
  const again = await complete('Checked it again');
  t.ok(landed(), 'the commit landed during the second completion');
  t.same([again.status, again.json.code], [409, 'review_cycle_stale'], 'decided on the asset with cycle 1 completed');
  t.equal(g.events().filter((e) => e.kind === 'review.completed').length, 1, 'one completion of cycle 1 in the log');
});

t.test('an evaluation binds to the registration event it describes; the risk history says what superseded each', async (t) => {
  const g = await governed(t);
  await g.register('bind');
  const registrations = () => g.events().filter((e) => e.kind === 'governance.asset.registered' && e.payload.asset_id === 'bind');
  const first = await g.evaluate('bind');
  t.equal(first.asset_event_id, registrations()[0]!.event_id, 'bound to revision 1\'s event');
  await g.register('bind'); // revision 2
  const second = await g.evaluate('bind');
  t.same([second.asset_revision, second.asset_event_id], [2, registrations()[1]!.event_id], 'bound to revision 2\'s event');
  const third = await g.evaluate('bind');
  const risk = (await g.call('/v1/governance/assets/bind/risk')).json;
  t.same(risk.history.map((r: { evaluation_id: string; superseded_by: string | null }) => [r.evaluation_id, r.superseded_by]),
    [[third.evaluation_id, null], [second.evaluation_id, third.evaluation_id], [first.evaluation_id, second.evaluation_id]], 'newest first, each marked with what superseded it');
  t.same(risk.latest, risk.history[0]);
  // An index folded before revisions kept their event id: the binding is read from the log by seq.
  await g.service.store.settled();
  const db = g.service.store.index.db;
  const row = db.prepare<[], { scope: string; state: string }>("SELECT scope, state FROM gov_assets WHERE asset_id = 'bind'").get()!;
  const state = JSON.parse(row.state) as { revisions: Record<string, unknown>[] };
  for (const r of state.revisions) delete r.event_id;
  db.prepare("UPDATE gov_assets SET state = ? WHERE scope = ? AND asset_id = 'bind'").run(JSON.stringify(state), row.scope);
  t.equal((await g.evaluate('bind')).asset_event_id, registrations()[1]!.event_id, 'the same binding from a state without it');
});

t.test('expiry, supersession and the review cadence run on the injected clock', async (t) => {
  const g = await governed(t);
  await g.setUp();
  await g.register('exp');
  const first = await g.evaluate('exp');
  await g.register('sup');
  const old = (await g.evaluate('sup')).approval_id as string;
  const newer = await g.evaluate('sup', { ...HIGH, autonomy: 3 });
  const superseded = await g.decide(old, 1, reviewer);
  t.same([superseded.status, superseded.json.code], [409, 'approval_superseded'], 'a replaced request is superseded');
  t.equal((await g.call(`/v1/approvals/${old}`)).json.status, 'superseded');
  t.equal((await g.call(`/v1/approvals/${newer.approval_id}`)).json.status, 'pending');
  t.equal((await g.call('/v1/approvals?status=pending&assignee_role=governance_reviewer')).json.approvals.length, 2, 'two pending for reviewers');
  g.time.jump(15 * DAY);
  const expired = await g.call(`/v1/approvals/${first.approval_id}`);
  t.equal(expired.json.status, 'expired', 'past due_at (14 days) the request is expired');
  t.equal((await g.call('/v1/governance/assets/exp')).json.status, 'evaluation_required');
  t.same((await g.call('/v1/governance/assets?status=evaluation_required')).json.assets.map((a: { asset_id: string }) => a.asset_id), ['exp', 'sup']);
  t.same((await g.decide(first.approval_id, 1, reviewer)).json.code, 'approval_not_pending');
  // A limited asset: one step, then a review due 180 days after its evaluation.
  await g.register('lim');
  const lim = await g.evaluate('lim', { data_sensitivity: 1, decision_impact: 1, autonomy: 1, vendor_maturity: 0, prohibited_practice: 0 });
  t.equal((await g.decide(lim.approval_id, 1, reviewer)).json.approval.status, 'approved');
  const reviews = (await g.call('/v1/reviews?asset_id=lim')).json.reviews;
  t.equal(reviews.length, 1);
  t.equal(Date.parse(reviews[0].due_at) - Date.parse(lim.evaluated_at), 180 * DAY, 'due 180 days after the evaluation');
  t.equal(reviews[0].status, 'upcoming');
  g.time.jump(170 * DAY);
  t.equal((await g.call('/v1/reviews?status=due')).json.reviews.filter((r: { asset_id: string }) => r.asset_id === 'lim').length, 1, 'due within 14 days of the date');
  const stale = await g.call(`/v1/reviews/${reviews[0].review_id.replace(/_1$/, '_2')}/complete`, { body: { outcome: 'no_change', notes: 'Checked', actor: reviewer } });
  t.same([stale.status, stale.json.code], [409, 'review_cycle_stale'], 'another cycle is stale');
  const done = await g.call(`/v1/reviews/${reviews[0].review_id}/complete`, { body: { outcome: 'no_change', notes: 'Checked the evidence', actor: reviewer } });
  t.equal(done.status, 201);
  t.equal(done.json.next_review.cycle, 2, 'the next cycle opens');
  t.same((await g.call(`/v1/reviews/${reviews[0].review_id}/complete`, { body: { outcome: 'no_change', notes: 'Again', actor: reviewer } })).json.code, 'review_cycle_stale', 'a completed cycle is stale');
});

t.test('cross-scope: every governance read and write answers 404 from another tenant, logged as denied', async (t) => {
  const g = await governed(t);
  await g.setUp();
  await g.register('mine');
  const { approval_id: id } = await g.evaluate('mine');
  const other = { scope: SCOPE_B };
  const probes: [string, Parameters<typeof g.call>[1]][] = [
    ['/v1/governance/assets/mine', other],
    ['/v1/governance/assets/mine/risk', other],
    [`/v1/approvals/${id}`, other],
    [`/v1/approvals/${id}/decision`, { ...other, body: { step: 1, decision: 'approve', reason: 'x', actor: reviewer } }],
    ['/v1/risk/evaluations', { ...other, body: { asset_id: 'mine', risk_inputs: HIGH } }],
  ];
  for (const [path, c] of probes) {
    const before = g.events().length;
    const r = await g.call(path, c);
    t.same([r.status, r.json.code], [404, 'not_found_in_scope'], path);
    const logged = g.events().slice(before);
    t.same(logged.map((e) => [e.kind, e.tenant_id, e.payload.outcome]), [['access.logged', SCOPE_B.tenant_id, 'denied']], `${path}: the denial is logged in the caller's scope`);
  }
  t.same((await g.call('/v1/governance/assets', other)).json.assets, [], 'lists are scoped');
  t.same((await g.call('/v1/approvals', other)).json.approvals, []);
  t.same((await g.call('/v1/team', other)).json.members, [], 'another tenant has its own team');
});

t.test('the team: bootstrap once, only owners and admins manage, no escalation, the token once', async (t) => {
  const g = await governed(t);
  await g.setUp();
  const again = await g.call('/v1/team/owner', { body: { actor: reviewer } });
  t.same([again.status, again.json.code], [409, 'owner_exists']);
  const agentOwner = await g.call('/v1/team/owner', { scope: SCOPE_B, body: { actor: { type: 'agent', id: 'bot-7' } } });
  t.same([agentOwner.status, agentOwner.json.code], [403, 'actor_type_not_allowed'], 'TEAM-7: the first owner is a user');
  const byReviewer = await g.call('/v1/team/invites', { body: { email: 'x@example.com', role: 'auditor', actor: reviewer } });
  t.same([byReviewer.status, byReviewer.json.code], [403, 'role_required']);
  await g.call('/v1/team/members/rita', { method: 'PATCH', body: { roles: ['admin'], actor: owner } });
  const escalate = await g.call('/v1/team/invites', { body: { email: 'y@example.com', role: 'owner', actor: reviewer } });
  t.same([escalate.status, escalate.json.code], [403, 'role_escalation_forbidden'], 'an admin cannot invite an owner');
  const invite = (await g.call('/v1/team/invites', { body: { email: 'z@example.com', role: 'auditor', actor: owner } })).json;
  const created = g.events().find((e) => e.kind === 'team.invite.created' && e.payload.invite_id === invite.invite_id)!;
  t.equal(created.payload.token_sha256, `sha256:${createHash('sha256').update(invite.token).digest('hex')}`, 'the event keeps the token\'s sha256');
  t.notMatch(JSON.stringify(created), invite.token, 'never the token');
  t.notMatch(JSON.stringify(created), 'z@example.com', 'never the email');
  const wrong = await g.call(`/v1/team/invites/${invite.invite_id}/accept`, { body: { token: `gti_${'A'.repeat(32)}`, actor: { type: 'user', id: 'zed' } } });
  t.same([wrong.status, wrong.json.code], [401, 'invite_token_invalid']);
  const agentAccept = await g.call(`/v1/team/invites/${invite.invite_id}/accept`, { body: { token: invite.token, actor: { type: 'agent', id: 'bot-7' } } });
  t.same([agentAccept.status, agentAccept.json.code], [403, 'actor_type_not_allowed'], 'TEAM-7: an agent does not join the team');
  const short = await g.call(`/v1/team/invites/${invite.invite_id}/accept`, { body: { token: 'gti_wrong', actor: { type: 'user', id: 'zed' } } });
  t.same([short.status, short.json.code], [401, 'invite_token_invalid'], 'a short token is a wrong token, not a malformed body (GOVERNANCE K)');
  t.equal((await g.call(`/v1/team/invites/${invite.invite_id}/revoke`, { body: { actor: owner } })).status, 201);
  const late = await g.call(`/v1/team/invites/${invite.invite_id}/accept`, { body: { token: invite.token, actor: { type: 'user', id: 'zed' } } });
  t.same([late.status, late.json.code], [409, 'invite_not_open']);
  const stale = await g.call('/v1/team/members/ravi', { method: 'PATCH', body: { roles: ['auditor'], actor: owner }, headers: { 'If-Match': '"1"' } });
  t.same([stale.status, stale.json.code], [412, 'precondition_failed'], 'If-Match on role changes');
});

t.test('rebuilding the index gives identical answers for every governance projection', async (t) => {
  const dataDir = tempDir(t);
  const reads = ['/v1/team', '/v1/governance/assets', '/v1/governance/assets/hr-1', '/v1/governance/assets/hr-1/risk', '/v1/approvals', '/v1/reviews'];
  const answers = async (g: Awaited<ReturnType<typeof governed>>) => {
    const out: unknown[] = [];
    for (const path of reads) {
      const r = await g.call(path);
      // as_of is the clock's now, which differs between two runs by design.
      out.push([r.status, r.headers.get('etag'), JSON.parse(r.text.replace(/"as_of":"[^"]+"/g, '"as_of":null'))]);
    }
    return out;
  };
  const before: unknown[] = [];
  const g1 = await governed(t, { dataDir });
  await g1.setUp();
  await g1.register('hr-1');
  const { approval_id: id } = await g1.evaluate('hr-1');
  await g1.decide(id, 1, reviewer);
  await g1.register('hr-2');
  await g1.evaluate('hr-2', { ...HIGH, prohibited_practice: 1 });
  before.push(...(await answers(g1)));
  await g1.close();
  for (const suffix of ['', '-wal', '-shm']) rmSync(join(dataDir, `index.sqlite${suffix}`), { force: true });
  const g2 = await governed(t, { dataDir });
  t.same(await answers(g2), before, 'the rebuilt index answers the same');
});

t.test('evidence review: only a governance_reviewer user vouches; the decision lands in every task citing it', async (t) => {
  const g = await governed(t);
  await g.setUp();
  const evidence = { artifact_id: 'ci-77', uri: 'https://ci.example.test/77', evidence_type: 'log', sha256: 'd'.repeat(64), confidence: 'verified', redaction: 'none', content_trust: 'trusted_internal', captured_at: '2026-11-01T09:00:00Z' };
  for (const task of ['t-1', 't-2']) {
    await g.call('/v1/tasks', { body: { task_id: task, title: `Task ${task} of the audit`, session_id: 'sess-1' } });
    await g.call(`/v1/tasks/${task}/checkpoints`, { body: { progress: 'Ran the suite', evidence_refs: [evidence] } });
  }
  const claim = { task_ids: ['t-1'], claims: [{ claim: 'The suite passed.', evidence: ['ci-77'] }] };
  t.equal((await g.call('/v1/claim-boundaries/evaluate', { body: claim })).json.results[0].confidence, 'claimed', 'asserted: claimed');
  const review = (actor: unknown, body: Record<string, unknown> = {}) => g.call('/v1/evidence/ci-77/review', { body: { decision: 'accept', content_trust: 'trusted_internal', reason: 'Read the CI run', actor, ...body } });
  for (const [name, send, status, code] of [
    ['an agent', () => review({ type: 'agent', id: 'bot-1' }), 403, 'actor_type_not_allowed'],
    ['a user without the role', () => review(executive), 403, 'role_required'],
    ['an artifact no task cites', () => g.call('/v1/evidence/nope-1/review', { body: { decision: 'reject', reason: 'x', actor: reviewer } }), 404, 'not_found_in_scope'],
  ] as const) {
    const before = g.events().length;
    const r = await send();
    t.same([r.status, r.json.code], [status, code], name);
    t.same(g.events().slice(before).map((e) => [e.kind, e.payload.outcome]), [['access.logged', 'denied']], `${name}: logged as denied, nothing else`);
  }
  t.equal((await review(reviewer, { content_trust: undefined })).status, 422, 'accept needs the trust it grants');
  const before = g.events().length;
  const ok = await review(reviewer);
  t.equal(ok.status, 201);
  t.same(ok.json.task_ids, ['t-1', 't-2']);
  t.same(g.events().slice(before).map((e) => [e.kind, e.task_id ?? null]), [['evidence.reviewed', 't-1'], ['evidence.reviewed', 't-2'], ['access.logged', null]], 'one review event per citing task, then the access entry');
  t.equal((await g.call('/v1/claim-boundaries/evaluate', { body: claim })).json.results[0].confidence, 'verified', 'reviewed: verified');
  await g.call('/v1/evidence/ci-77/review', { body: { decision: 'reject', reason: 'The run was on a fork', actor: reviewer2 } });
  t.equal((await g.call('/v1/claim-boundaries/evaluate', { body: claim })).json.results[0].confidence, 'claimed', 'a later rejection caps it again');
  t.same((await g.call('/v1/evidence/ci-77/review', { scope: SCOPE_B, body: { decision: 'reject', reason: 'x', actor: reviewer } })).json.code, 'not_found_in_scope', 'another tenant cannot review it');
});

t.test('If-Match: * on a registration: 412 for an asset not yet registered, a revision once it is', async (t) => {
  const g = await governed(t);
  const body = (id: string) => ({ asset_id: id, name: `Asset ${id}`, purpose: 'Rank job applications', owner, deployment_context: 'HR', models: [{ provider: 'acme', name: 'm1' }], actor: requester });
  const before = g.events().length;
  const fresh = await g.call('/v1/governance/assets', { body: body('star-1'), headers: { 'If-Match': '*' } });
  t.same([fresh.status, fresh.json.code], [412, 'precondition_failed'], 'no current version to match (RFC 9110 §13.1.1)');
  t.match(fresh.json.detail, /star-1 does not exist yet, and If-Match: \* asks for any current version of it; leave If-Match out to create it/);
  t.equal(g.events().length, before, 'nothing written');
  t.equal((await g.register('star-1')).status, 201);
  const revised = await g.call('/v1/governance/assets', { body: { ...body('star-1'), purpose: 'Rank job applications for interviews' }, headers: { 'If-Match': '*' } });
  t.same([revised.status, revised.json.asset.revision], [201, 2], 'any current version: the next revision');
});

t.test('an approval is requested when its evaluation is decided: due_at is exactly 14 days after requested_at', async (t) => {
  // The test clock moves a second per read, so the events are recorded seconds after the decision.
  const g = await governed(t);
  await g.setUp();
  await g.register('due-1');
  const evaluation = await g.evaluate('due-1');
  const approval = (await g.call(`/v1/approvals/${evaluation.approval_id}`)).json;
  const requested = g.events().find((e) => e.kind === 'approval.requested')!;
  t.ok(requested.recorded_at > evaluation.evaluated_at, 'the event is recorded after the decision');
  t.equal(approval.requested_at, evaluation.evaluated_at, 'requested when the evaluation was decided');
  t.equal(Date.parse(approval.due_at) - Date.parse(approval.requested_at), 14 * DAY, 'due fourteen days after the request');
  const listed = (await g.call('/v1/approvals?asset_id=due-1')).json.approvals[0];
  t.equal(listed.requested_at, approval.requested_at, 'the list says the same');
});

t.test('If-Match on an evaluation: the asset\'s ETag; stale → 412 and nothing written, current → 201; before the retired refusal', async (t) => {
  const g = await governed(t);
  await g.register('im-1');
  const tag = (await g.call('/v1/governance/assets/im-1')).headers.get('etag')!;
  const evaluate = (ifMatch: string, assetId = 'im-1') => g.call('/v1/risk/evaluations', { body: { asset_id: assetId, risk_inputs: HIGH, actor: requester }, headers: { 'If-Match': ifMatch } });
  const first = await evaluate(tag);
  t.equal(first.status, 201, 'the current version');
  t.equal(first.headers.get('etag'), `"${first.json.event.seq}"`, 'the answer names the asset\'s new version');
  t.equal((await g.call('/v1/governance/assets/im-1')).headers.get('etag'), first.headers.get('etag'), 'as a read of the asset does');
  const before = g.events().length;
  const stale = await evaluate(tag);
  t.same([stale.status, stale.json.code], [412, 'precondition_failed'], 'the asset moved on with the first evaluation');
  t.match(stale.json.detail, /Asset im-1/);
  t.equal(g.events().length, before, 'nothing written');
  const now = first.headers.get('etag')!;
  t.not(now, tag);
  t.equal((await evaluate(now)).status, 201, 'the version the first evaluation answered');
  t.equal((await evaluate('*')).status, 201, 'any current version');
  t.same([(await evaluate('*', 'no-such-asset')).status], [404], 'an unknown asset is not found first');
  // A minimal asset has its review at once; retired by it, it is refused as retired, but a stale
  // If-Match hears that it is stale first.
  await g.setUp();
  await g.register('im-2');
  await g.evaluate('im-2', { data_sensitivity: 0, decision_impact: 0, autonomy: 0, vendor_maturity: 0, prohibited_practice: 0 });
  const beforeRetiring = (await g.call('/v1/governance/assets/im-2')).headers.get('etag')!;
  const review = (await g.call('/v1/reviews?asset_id=im-2')).json.reviews[0].review_id as string;
  t.equal((await g.call(`/v1/reviews/${review}/complete`, { body: { outcome: 'retire', notes: 'No longer used', actor: reviewer } })).status, 201);
  const retiredTag = (await g.call('/v1/governance/assets/im-2')).headers.get('etag')!;
  const stale2 = await evaluate(beforeRetiring, 'im-2');
  t.same([stale2.status, stale2.json.code], [412, 'precondition_failed'], 'a stale view hears 412 before any rule');
  const retired = await evaluate(retiredTag, 'im-2');
  t.same([retired.status, retired.json.code], [409, 'asset_retired'], 'the current view hears the rule');
});

t.test('a withdraw\'s step is ignored (DOMAIN §5.2): it may be left out or name any step; approve and reject need theirs', async (t) => {
  const g = await governed(t);
  await g.setUp();
  const decide = (approvalId: string, body: Record<string, unknown>) => g.call(`/v1/approvals/${approvalId}/decision`, { body: { reason: 'The asset is being replaced', ...body } });
  await g.register('wd-1');
  const first = (await g.evaluate('wd-1')).approval_id as string;
  const noStep = await decide(first, { decision: 'approve', actor: reviewer });
  t.same([noStep.status, noStep.json.code, noStep.json.errors.map((e: { pointer: string }) => e.pointer)], [422, 'validation_failed', ['/step']], 'approve names its step');
  t.same((await decide(first, { decision: 'reject', step: 6, actor: reviewer })).json.errors.map((e: { pointer: string }) => e.pointer), ['/step'], 'a step of 1 to 5');
  const left = await decide(first, { decision: 'withdraw', actor: requester });
  t.same([left.status, left.json.approval.status], [201, 'withdrawn'], 'a withdraw without a step');
  const recorded = g.events().filter((e) => e.kind === 'approval.decided').at(-1)!;
  t.equal(recorded.payload.step, 1, 'the current step is recorded');
  await g.register('wd-2');
  const second = (await g.evaluate('wd-2')).approval_id as string;
  const far = await decide(second, { decision: 'withdraw', step: 9, actor: requester });
  t.same([far.status, far.json.approval.status], [201, 'withdrawn'], 'a withdraw naming a step the request does not have');
  const validated = await g.call('/v1/templates/validate', { scope: null, body: { template_id: 'approval.decide.v1', payload: { decision: 'withdraw', reason: 'The asset is being replaced', actor: requester } } });
  t.same([validated.json.ok, validated.json.missing_fields], [true, []], 'the template agrees');
});

t.test('re-posts of one asset sent at once: each answers the revision it registered and its own version', async (t) => {
  const g = await governed(t);
  t.equal((await g.register('race-1')).status, 201);
  const body = (n: number) => ({ asset_id: 'race-1', name: 'Asset race-1', purpose: `Rank job applications, take ${n}`, owner, deployment_context: 'HR', models: [{ provider: 'acme', name: 'm1' }], actor: requester });
  const answers = await Promise.all([1, 2, 3, 4, 5, 6].map((n) => g.call('/v1/governance/assets', { body: body(n) })));
  t.same(answers.map((a) => a.status), [201, 201, 201, 201, 201, 201]);
  const registered = new Map(g.events().filter((e) => e.kind === 'governance.asset.registered').map((e) => [e.event_id, e]));
  for (const a of answers) {
    const event = registered.get(a.json.event.event_id)!;
    t.equal(a.json.asset.revision, event.payload.revision, `the answer's revision is its own event's (${event.payload.revision})`);
    t.equal(a.json.asset.purpose, event.payload.purpose, 'and so is the text');
    t.equal(a.headers.get('etag'), `"${event.seq}"`, 'the version its registration left');
  }
  t.same(answers.map((a) => a.json.asset.revision).sort(), [2, 3, 4, 5, 6, 7], 'six revisions, one each');
  const now = await g.call('/v1/governance/assets/race-1');
  t.equal(now.json.revision, 7);
  t.equal(now.headers.get('etag'), answers.find((a) => a.json.asset.revision === 7)!.headers.get('etag'), 'the last one\'s version is the current one');
});

t.test('a decision answers the approval as it left it, though the next step was decided before its answer', async (t) => {
  const g = await governed(t);
  await g.setUp();
  await g.register('next-1');
  const approvalId = (await g.evaluate('next-1')).approval_id as string;
  // Step 2 is decided the moment step 1's decision is written, before step 1 is answered.
  const append = g.service.store.append;
  let second: Awaited<ReturnType<typeof g.decide>> | undefined;
  g.service.store.append = async (unit, expect, options) => {
    const written = await append(unit, expect, options);
    if (second === undefined && unit[0]!.kind === 'approval.decided' && unit[0]!.payload.step === 1) second = await g.decide(approvalId, 2, executive);
    return written;
  };
  const first = await g.decide(approvalId, 1, reviewer);
  g.service.store.append = append;
  t.equal(second?.status, 201, 'step 2 was decided first');
  t.same([first.status, first.json.approval.status, first.json.approval.current_step, first.json.approval.decisions.length], [201, 'pending', 2, 1], 'step 1 answers the approval waiting for step 2');
  t.equal(first.headers.get('etag'), `"${first.json.event.seq}"`, 'and the version it left');
  t.same([second!.json.approval.status, second!.json.approval.decisions.length], ['approved', 2]);
});

t.test('every team write takes If-Match with the team\'s version; a write that takes none refuses the header', async (t) => {
  const g = await governed(t);
  const before = g.events().length;
  const early = await g.call('/v1/team/owner', { body: { actor: owner }, headers: { 'If-Match': '*' } });
  t.same([early.status, early.json.code], [412, 'precondition_failed'], 'no team yet: nothing to match');
  t.equal(g.events().length, before, 'nothing written');
  const boot = await g.call('/v1/team/owner', { body: { actor: owner } });
  t.equal(boot.status, 201);
  const tag = (await g.call('/v1/team')).headers.get('etag')!;
  t.equal(boot.headers.get('etag'), tag, 'the bootstrap answers the team\'s version');
  const invite = (ifMatch: string) => g.call('/v1/team/invites', { body: { email: 'rita@example.com', role: 'governance_reviewer', actor: owner }, headers: { 'If-Match': ifMatch } });
  const first = await invite(tag);
  t.equal(first.status, 201, 'the current version');
  const stale = await invite(tag);
  t.same([stale.status, stale.json.code], [412, 'precondition_failed'], 'the team moved on with the first invite');
  const revoke = await g.call(`/v1/team/invites/${first.json.invite_id}/revoke`, { body: { actor: owner }, headers: { 'If-Match': tag } });
  t.same([revoke.status, revoke.json.code], [412, 'precondition_failed'], 'a revoke too');
  const accept = await g.call(`/v1/team/invites/${first.json.invite_id}/accept`, { body: { token: first.json.token, actor: reviewer }, headers: { 'If-Match': first.headers.get('etag')! } });
  t.equal(accept.status, 201, 'an accept at the version the invite left');
  // A write with no version to compare refuses the header rather than ignore it.
  const count = g.events().length;
  const incident = await g.call('/v1/incidents', { body: { class: 'incident', title: 'Ranking drops candidates', description: 'Gaps over a year rank last.', aware_at: '2026-11-01T09:30:00Z', severity: 'sev3', actor: owner }, headers: { 'If-Match': '"3"' } });
  t.same([incident.status, incident.json.code], [400, 'invalid_if_match'], 'POST /v1/incidents takes no If-Match');
  t.match(incident.json.detail, /POST \/v1\/incidents takes no If-Match/);
  t.equal(g.events().length, count, 'nothing written');
});
