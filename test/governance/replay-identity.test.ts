// CONTRACT §Idempotency: a request sent again with its Idempotency-Key answers the original response
// again (200, Idempotent-Replayed: true), byte for byte, and writes nothing. Every governance write
// route, each sent twice right after the other on a clock that moves a second per read, so an
// answer that reads the clock or orders members by how the request sent them shows up here.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { testApp, type Call } from '../fixtures/test-app.ts';
import { BEST_VENDOR_ANSWERS, BIAS_AUDIT_BYTES, evidenceRef } from '../fixtures/governance.ts';
import { sha256Hex } from '../../src/domain/canonical-json.ts';

// Actors written type first: the log's canonical form puts id first, so an answer built from the
// request's objects and one built from the stored event would differ in their order.
const owner = { type: 'user', id: 'olivia' };
const reviewer = { type: 'user', id: 'rita' };
const executive = { type: 'user', id: 'evan' };
const requester = { type: 'user', id: 'raj' };

t.test('every governance write answers its replay with the same bytes and writes nothing', async (t) => {
  const { call, dataDir } = await testApp(t);
  const lines = () => readFileSync(join(dataDir, 'events.jsonl'), 'utf8').split('\n').filter(Boolean).length;
  let n = 0;
  /** Sends the request, then again with the same key: the first as `status`, the second its replay. */
  const twice = async (label: string, path: string, c: Call, status = 201, same: (first: string, again: string) => void = (a, b) => t.equal(b, a, `${label}: the same bytes`)) => {
    const key = `replay-${++n}`;
    const first = await call(path, { ...c, idempotencyKey: key });
    t.equal(first.status, status, `${label}: ${first.text.slice(0, 300)}`);
    const written = lines();
    const again = await call(path, { ...c, idempotencyKey: key });
    t.equal(again.status, 200, `${label}: the replay is 200`);
    t.equal(again.headers.get('idempotent-replayed'), 'true', `${label}: marked as a replay`);
    same(first.text, again.text);
    t.equal(again.headers.get('etag'), first.headers.get('etag'), `${label}: the same ETag`);
    t.equal(lines(), written, `${label}: the replay wrote nothing`);
    return first;
  };

  await twice('team owner', '/v1/team/owner', { body: { actor: owner, email: 'olivia@example.com' } });
  const invites: Record<string, { invite_id: string; token: string }> = {};
  for (const [who, role] of [[reviewer, 'governance_reviewer'], [executive, 'accountable_executive'], [{ type: 'user', id: 'ivy' }, 'auditor']] as const) {
    // The token is shown once (GOVERNANCE I): its replay answers everything else the same, token null.
    const r = await twice(`invite ${who.id}`, '/v1/team/invites', { body: { email: `${who.id}@example.com`, role, actor: owner } }, 201, (a, b) => {
      const first = JSON.parse(a);
      t.match(first.token, /^gti_/);
      t.equal(b, JSON.stringify({ ...first, token: null }), 'the invite replay: the same answer, token null');
    });
    invites[who.id] = r.json;
  }
  for (const who of [reviewer, executive]) {
    await twice(`accept ${who.id}`, `/v1/team/invites/${invites[who.id]!.invite_id}/accept`, { body: { token: invites[who.id]!.token, actor: who } });
  }
  await twice('revoke', `/v1/team/invites/${invites.ivy!.invite_id}/revoke`, { body: { actor: owner } });
  const teamTag = (await call('/v1/team')).headers.get('etag')!;
  await twice('roles', '/v1/team/members/rita', { method: 'PATCH', headers: { 'If-Match': teamTag }, body: { roles: ['governance_reviewer', 'auditor'], actor: owner } }, 200);

  const asset = { name: 'CV screener', purpose: 'Rank job applications for recruiters', owner, deployment_context: 'HR, internal', models: [{ provider: 'acme', name: 'rank-1' }], actor: requester };
  await twice('asset', '/v1/governance/assets', { body: { asset_id: 'cv-screener', ...asset } });
  const unnamed = await twice('asset without asset_id', '/v1/governance/assets', { body: { ...asset, name: 'Unnamed screener' } });
  t.match(unnamed.json.asset.asset_id, /^ast_/, 'the server named the asset');
  const evaluation = await twice('evaluation', '/v1/risk/evaluations', { body: { asset_id: 'cv-screener', risk_inputs: { data_sensitivity: 3, decision_impact: 3, autonomy: 2, vendor_maturity: 2, prohibited_practice: 0 }, actor: requester } });
  const approvalId = evaluation.json.evaluation.approval_id as string;
  await twice('decision', `/v1/approvals/${approvalId}/decision`, { body: { step: 1, decision: 'approve', reason: 'Bias testing evidence reviewed', actor: reviewer } });
  await twice('decision 2', `/v1/approvals/${approvalId}/decision`, { body: { step: 2, decision: 'approve', reason: 'Accountable sign-off', actor: executive } });
  const reviewId = (await call('/v1/reviews?asset_id=cv-screener')).json.reviews[0].review_id as string;
  await twice('review', `/v1/reviews/${reviewId}/complete`, { body: { outcome: 'no_change', notes: 'Checked the evidence', actor: reviewer } });

  await twice('vendor', '/v1/vendors', { body: { vendor_id: 'acme-ai', name: 'Acme AI', answers: BEST_VENDOR_ANSWERS, actor: owner } });
  const unnamedVendor = await twice('vendor without vendor_id', '/v1/vendors', { body: { name: 'Unnamed AI', answers: BEST_VENDOR_ANSWERS, actor: owner } });
  t.match(unnamedVendor.json.vendor.vendor_id, /^vnd_/, 'the server named the vendor');
  await twice('session', '/v1/sessions', { body: { session_id: 'sess-9', principal: { type: 'service_account', id: 'sa-ci' }, agent: 'intake-agent 0.4.1', transport: 'stdio' } });
  const incident = await twice('incident', '/v1/incidents', { body: { class: 'incident', title: 'CV ranking drops candidates with career gaps', description: 'Gaps over a year rank last.', aware_at: '2026-11-01T09:30:00Z', severity: 'sev3', asset_ids: ['cv-screener'], actor: owner } });
  const incidentId = incident.json.incident.incident_id as string;
  await twice('incident update', `/v1/incidents/${incidentId}`, { method: 'PATCH', headers: { 'Content-Type': 'application/merge-patch+json', 'If-Match': incident.headers.get('etag')! }, body: { status: 'investigating', actor: owner } }, 200);

  const sha = sha256Hex(BIAS_AUDIT_BYTES);
  await call('/v1/tasks', { body: { task_id: 'bias-test', title: 'Bias test of the CV screener', session_id: 'sess-9' } });
  const attached = await call('/v1/tasks/bias-test/checkpoints', { body: { progress: 'Ran the bias test suite', evidence_refs: [evidenceRef('bias-run-3', { sha256: sha, content_trust: 'untrusted_external', confidence: 'claimed' })] } });
  t.equal(attached.status, 201, attached.text);
  await twice('evidence review', '/v1/evidence/bias-run-3/review', { body: { decision: 'accept', content_trust: 'trusted_internal', reason: 'Read run 3 of the bias suite on CI', actor: reviewer } });
  await twice('sanitize', '/v1/evidence/sanitize', { body: { artifact_id: 'bias-run-3', media_type: 'text/plain', content_base64: BIAS_AUDIT_BYTES.toString('base64') } });
  const posture = (await call('/v1/regulatory/posture?profile_id=nyc-ll144')).json.items[0];
  await twice('posture', `/v1/regulatory/frameworks/nyc-ll144/requirements/${encodeURIComponent(posture.requirement_id)}`, {
    method: 'PATCH', body: { status: 'in_progress', owner, actor: owner },
  }, 200);
});

t.test('requests sent at once with one key: one write, and every replay the bytes of its answer', async (t) => {
  const { call, dataDir } = await testApp(t);
  const lines = () => readFileSync(join(dataDir, 'events.jsonl'), 'utf8').split('\n').filter(Boolean);
  const asset = { asset_id: 'cv-screener', name: 'CV screener', purpose: 'Rank job applications for recruiters', owner, deployment_context: 'HR, internal', models: [{ provider: 'acme', name: 'rank-1' }], actor: requester };
  for (const [label, path, body] of [
    ['team owner', '/v1/team/owner', { actor: owner }],
    ['asset without asset_id', '/v1/governance/assets', { ...asset, asset_id: undefined }],
    ['asset', '/v1/governance/assets', asset],
    ['evaluation', '/v1/risk/evaluations', { asset_id: 'cv-screener', risk_inputs: { data_sensitivity: 3, decision_impact: 3, autonomy: 2, vendor_maturity: 2, prohibited_practice: 0 }, actor: requester }],
    ['vendor without vendor_id', '/v1/vendors', { name: 'Unnamed AI', answers: BEST_VENDOR_ANSWERS, actor: owner }],
  ] as const) {
    const before = lines().length;
    const answers = await Promise.all(Array.from({ length: 20 }, () => call(path, { body, idempotencyKey: `at-once-${label}` })));
    const statuses = answers.map((a) => a.status).sort();
    t.same(statuses, [200, ...Array<number>(18).fill(200), 201].sort(), `${label}: one 201, 19 replays`);
    const first = answers.find((a) => a.status === 201)!;
    t.same(answers.filter((a) => a.text !== first.text).map((a) => a.text.slice(0, 200)), [], `${label}: every replay is the 201's bytes`);
    const kinds = lines().slice(before).map((l) => (JSON.parse(l) as { kind: string }).kind);
    t.equal(kinds.filter((k) => k !== 'access.logged').length, label === 'evaluation' ? 2 : 1, `${label}: one write (${kinds.join(', ')})`);
  }
});
