// The dashboard reads only what the index keeps (incident columns, posture items, the scope's
// evidence pool), and answers exactly what it answered when it folded events on every read: a
// varied scope (incidents in every status, serious ones with running, overdue and answered clocks,
// sev1/sev2 ones bringing reviews forward, a severity raised by a patch; posture items met,
// in progress and not applicable, on the scope and on an asset; evidence asserted, reviewed,
// rejected, sanitized and re-attached) is compared with the old computation (dashboard-oracle.ts)
// at several instants, also after a rebuild of the index; and a log written past the service
// (raising events in tasks that do not cite the artifact) still gives the same answer; an index made
// before migration 8 is rebuilt from the log, not left with empty tables.
import t, { type Test } from 'tap';
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { storeRebuildIndex } from '../../src/cli/commands/store.ts';
import type { CliIo } from '../../src/cli/io.ts';
import { transportPrincipal } from '../../src/domain/event.ts';
import { readDashboard } from '../../src/service/governance/dashboard-service.ts';
import { readContext } from '../../src/service/governance/refusals.ts';
import { pendingEvent } from '../../src/service/write-context.ts';
import { indexPathOf } from '../../src/store/store.ts';
import { SCOPE_A, SCOPE_B, testApp, type Call } from '../fixtures/test-app.ts';
import { readDashboardByFolding } from './dashboard-oracle.ts';
import { BEST_VENDOR_ANSWERS, BIAS_AUDIT_BYTES, evidenceRef } from '../fixtures/governance.ts';

const DAY = 86_400_000;
const START = Date.parse('2026-11-20T10:00:00.000Z');
const owner = { type: 'user', id: 'olivia' };
const reviewer = { type: 'user', id: 'rhea' };
const officer = { type: 'user', id: 'otto' };
const HIGH = { data_sensitivity: 3, decision_impact: 3, autonomy: 2, vendor_maturity: 2, prohibited_practice: 0 };
const LOW = { data_sensitivity: 0, decision_impact: 0, autonomy: 0, vendor_maturity: 4, prohibited_practice: 0 };
const RAW = BIAS_AUDIT_BYTES;
const RAW_HEX = createHash('sha256').update(RAW).digest('hex');
const ref = evidenceRef;
const BEST = BEST_VENDOR_ANSWERS;

async function scopeApp(t: Test, dataDir?: string) {
  let now = START;
  const base = await testApp(t, { clock: () => new Date(now), ...(dataDir ? { dataDir } : {}) });
  const ctx = (scope = SCOPE_A) => readContext(scope, { transport: 'customer', principal: transportPrincipal('customer') });
  /** Both computations at the clock's now, after the index caught up. */
  const both = async (scope = SCOPE_A) => {
    await base.deps.store.settled();
    return { projected: await readDashboard(base.deps, ctx(scope)), folded: await readDashboardByFolding(base.deps, ctx(scope)) };
  };
  return { ...base, both, ctx, setNow: (ms: number) => void (now = ms) };
}

type App = Awaited<ReturnType<typeof scopeApp>>;

async function populate(t: Test, g: App) {
  const ok = async (what: string, path: string, c: Call) => {
    const r = await g.call(path, c);
    t.ok(r.status === 200 || r.status === 201, `${what}: ${r.status} ${r.status >= 300 ? r.text : ''}`);
    return r.json;
  };
  const asset = (id: string, extra: Record<string, unknown> = {}) => ({
    asset_id: id, name: `Asset ${id}`, purpose: 'Answer billing questions', owner, deployment_context: 'web', models: [{ provider: 'acme', name: 'c-1' }], actor: owner, ...extra,
  });
  g.setNow(START);
  await ok('owner', '/v1/team/owner', { body: { actor: owner } });
  for (const [who, role] of [[reviewer, 'governance_reviewer'], [officer, 'accountable_executive']] as const) {
    const invite = await ok('invite', '/v1/team/invites', { body: { email: `${who.id}@example.com`, role, actor: owner } });
    await ok('accept', `/v1/team/invites/${invite.invite_id}/accept`, { body: { token: invite.token, actor: who } });
  }
  await ok('vendor', '/v1/vendors', { body: { vendor_id: 'acme-ai', name: 'Acme AI', answers: BEST } });
  for (const id of ['chat-1', 'faq-2', 'rank-3', 'new-4']) await ok(`asset ${id}`, '/v1/governance/assets', { body: asset(id, id === 'chat-1' ? { vendor_ids: ['acme-ai'] } : {}) });
  for (const [id, inputs] of [['chat-1', HIGH], ['faq-2', LOW], ['rank-3', HIGH]] as const) await ok(`risk ${id}`, '/v1/risk/evaluations', { body: { asset_id: id, risk_inputs: inputs, actor: owner } });

  // Evidence in three tasks: verified and trusted as asserted (capped), reviewed up, rejected, sanitized, re-attached.
  for (const task of ['audit', 'ci', 'vendor']) await ok(`task ${task}`, '/v1/tasks', { body: { task_id: task, title: `Evidence ${task}`, session_id: 'sess-1' } });
  await ok('audit refs', '/v1/tasks/audit/checkpoints', { body: { progress: 'Attached the audit', evidence_refs: [ref('audit-report'), ref('dpia', { confidence: 'claimed' })] } });
  await ok('ci refs', '/v1/tasks/ci/checkpoints', { body: { progress: 'Attached the CI runs', evidence_refs: [ref('ci-77'), ref('ci-78', { sha256: undefined, etag: 'W/"1"' }), ref('audit-report')] } });
  await ok('vendor refs', '/v1/tasks/vendor/checkpoints', { body: { progress: 'Attached the bias audit', evidence_refs: [ref('bias-audit', { sha256: RAW_HEX, content_trust: 'untrusted_external' }), ref('notes', { content_trust: 'customer_asserted' })] } });
  const review = (id: string, body: Record<string, unknown>) => ok(`review ${id}`, `/v1/evidence/${id}/review`, { body: { reason: 'Read it', actor: reviewer, ...body } });
  await review('audit-report', { decision: 'accept', content_trust: 'trusted_internal' });
  await review('ci-77', { decision: 'accept', content_trust: 'trusted_internal' });
  await review('ci-78', { decision: 'accept', content_trust: 'untrusted_external' });
  await review('dpia', { decision: 'reject' });
  await ok('sanitize', '/v1/evidence/sanitize', { body: { artifact_id: 'bias-audit', media_type: 'text/plain', content_base64: RAW.toString('base64') } });
  // ci-77 attached again in another task: new asserted evidence, capped again.
  await ok('re-attach', '/v1/tasks/audit/checkpoints', { body: { progress: 'Attached the CI run again', evidence_refs: [ref('ci-77', { captured_at: '2026-11-02T09:00:00Z' })] } });

  const posture = (profile: string, requirement: string, body: Record<string, unknown>) =>
    ok(`posture ${requirement}`, `/v1/regulatory/frameworks/${profile}/requirements/${encodeURIComponent(requirement)}`, { method: 'PATCH', body: { actor: owner, ...body } });
  await posture('nyc-ll144', 'nyc-ll144:bias-audit', { status: 'met', owner, evidence_refs: ['bias-audit'] });
  await posture('nyc-ll144', 'nyc-ll144:audit-summary', { status: 'met', evidence_refs: ['audit-report', 'ci-78'] });
  await posture('nyc-ll144', 'nyc-ll144:candidate-notice', { status: 'in_progress', evidence_refs: ['notes'] });
  await posture('nyc-ll144', 'nyc-ll144:qualifications-notice', { status: 'not_applicable', justification: 'We publish no job qualifications through this tool at all.' });
  await posture('iso-42001', 'iso-42001:A.2.2', { status: 'met', evidence_refs: ['audit-report'] });
  await posture('iso-42001', 'iso-42001:A.2.3', { status: 'met', evidence_refs: ['dpia'] });
  await posture('iso-42001', 'iso-42001:A.2.3', { status: 'in_progress' });
  await posture('iso-42001', 'iso-42001:A.2.4', { status: 'met', evidence_refs: ['ci-77'] });
  await posture('eu-ai-act', 'eu-ai-act:art-4', { status: 'met', evidence_refs: ['notes'], asset_id: 'chat-1' });

  // Incidents a day later: every status, serious ones with each kind of clock, sev1/sev2 on assets.
  g.setNow(START + DAY);
  const log = async (body: Record<string, unknown>) =>
    (await ok('incident', '/v1/incidents', { body: { class: 'incident', title: 'Wrong refunds promised', description: 'The bot promised refunds.', aware_at: '2026-11-18T09:30:00Z', severity: 'sev3', actor: owner, ...body } })).incident.incident_id as string;
  const patch = (id: string, body: Record<string, unknown>) =>
    ok(`patch ${id}`, `/v1/incidents/${id}`, { method: 'PATCH', headers: { 'Content-Type': 'application/merge-patch+json' }, body: { actor: owner, ...body } });
  const mitigations = 'Refunds paused and the answers corrected by hand.';
  const resolution = { root_cause: 'A prompt template promised refunds.', corrective_actions: 'The template was rewritten and tested.', lessons: 'Review templates before each release.' };
  await log({ severity: 'sev1', asset_ids: ['chat-1'], serious: { is_serious: true, basis: 'health_harm' } });
  await log({ severity: 'sev2', asset_ids: ['rank-3'], serious: { is_serious: true, basis: 'critical_infrastructure' }, aware_at: '2026-11-01T08:00:00Z' });
  const answered = await log({ severity: 'sev1', asset_ids: ['faq-2'], serious: { is_serious: true, basis: 'death' }, aware_at: '2026-11-19T08:00:00Z' });
  await patch(answered, { status: 'investigating', regulatory_report: { status: 'submitted', reference: 'MSA-2026-17', decided_by: owner } });
  const closedSerious = await log({ severity: 'sev2', asset_ids: ['chat-1'], serious: { is_serious: true, basis: 'fundamental_rights' } });
  await patch(closedSerious, { status: 'closed', close_reason: 'not_an_incident', note: 'A test account; nobody was harmed.', actor: officer, regulatory_report: { status: 'not_required', decided_by: officer } });
  const raised = await log({ severity: 'sev3', asset_ids: ['faq-2'] });
  await patch(raised, { severity: 'sev2' });
  const mitigated = await log({ severity: 'sev4', class: 'hazard' });
  await patch(mitigated, { status: 'investigating' });
  await patch(mitigated, { status: 'mitigated', immediate_mitigations: mitigations });
  const resolved = await log({ severity: 'sev3' });
  await patch(resolved, { status: 'investigating' });
  await patch(resolved, { status: 'mitigated', immediate_mitigations: mitigations });
  await patch(resolved, { status: 'closed', close_reason: 'resolved', resolution });
  const reopened = await log({ severity: 'sev2', asset_ids: ['new-4'] });
  await patch(reopened, { status: 'closed', close_reason: 'duplicate', note: 'Duplicate of the first one.' });
  await patch(reopened, { status: 'investigating', reason: 'Not a duplicate after all.' });
  await log({ severity: 'sev3', serious: { is_serious: true, basis: 'property_or_environment' } });
}

/** Both computations agree at each instant (days after the incidents), and the scope is as varied as meant. */
async function agreeOverTime(t: Test, g: App, days: readonly number[]) {
  for (const d of days) {
    g.setNow(START + DAY + d * DAY);
    const { projected, folded } = await g.both();
    t.same(projected, folded, `day ${d}: the projected dashboard is the folded one`);
    t.strictSame(JSON.stringify(projected), JSON.stringify(folded), `day ${d}: byte for byte`);
  }
}

t.test('a varied scope: the projected dashboard equals the folded one at every instant, and after a rebuild', async (t) => {
  const g = await scopeApp(t);
  await populate(t, g);
  g.setNow(START + DAY);
  const { projected: d } = await g.both();
  // The scope covers what it is meant to, so the comparison below compares something.
  t.same(d.incidents.by_status, { open: 4, investigating: 2, mitigated: 1, closed: 2 }, 'incidents in every status');
  t.same(d.incidents.clocks, { running: 2, overdue: 1, answered: 1 }, 'running, overdue and answered clocks');
  t.ok(d.reviews.due + d.reviews.overdue > 0, 'sev1/sev2 incidents bring reviews forward');
  t.same(d.evidence.by_basis, { asserted: 2, sanitized: 1, reviewed: 2, review_rejected: 1 }, 'evidence asserted, sanitized, reviewed and rejected');
  const nyc = d.posture.find((p) => p.profile_id === 'nyc-ll144')!;
  t.same([nyc.met, nyc.met_by_confidence, nyc.counts.not_applicable, nyc.counts.in_progress], [2, { verified: 1, claimed: 1, none: 0 }, 1, 1], 'posture met (verified and claimed), in progress, not applicable');
  await agreeOverTime(t, g, [0, 1, 3, 10, 20, 95, 400]);
  const other = await g.both(SCOPE_B);
  t.same(other.projected, other.folded, 'another tenant: both empty alike');

  g.setNow(START + DAY);
  const before = (await g.both()).projected;
  await g.close();
  const io: CliIo = { stdout: () => {}, stderr: () => {}, env: {}, cwd: g.dataDir, isTty: false, onStopSignal: () => {} };
  t.equal((await storeRebuildIndex({ dataDir: g.dataDir }, io)).exitCode, 0);
  const again = await scopeApp(t, g.dataDir);
  again.setNow(START + DAY);
  const after = await again.both();
  t.same(after.projected, before, 'a rebuilt index answers the same');
  t.same(after.projected, after.folded);
});

t.test('raising events written past the service (in tasks that do not cite the artifact) give the same answer', async (t) => {
  const g = await scopeApp(t);
  await populate(t, g);
  g.setNow(START + DAY);
  const ctx = g.ctx();
  const append = async (fields: Parameters<typeof pendingEvent>[2]) => {
    await g.deps.store.append([pendingEvent(ctx, g.deps.newId, fields)]);
    await g.deps.store.settled();
  };
  const actor = { type: 'user', id: reviewer.id } as const;
  // A review of ci-78 in a task that cites other evidence, and one of audit-report in a task that cites nothing yet.
  await append({ kind: 'evidence.reviewed', task_id: 'vendor', actor, payload: { artifact_id: 'ci-78', decision: 'accept', content_trust: 'trusted_internal', reason: 'x', reviewed_seq: 1 } });
  await g.call('/v1/tasks', { body: { task_id: 'late', title: 'Cites evidence later', session_id: 'sess-1' } });
  await append({ kind: 'evidence.reviewed', task_id: 'late', actor, payload: { artifact_id: 'ci-77', decision: 'accept', content_trust: 'trusted_internal', reason: 'x', reviewed_seq: 1 } });
  await agreeOverTime(t, g, [0, 30]);
  // The task cites evidence now: its earlier review joins the pool's past.
  const r = await g.call('/v1/tasks/late/checkpoints', { body: { progress: 'Attached notes', evidence_refs: [ref('late-notes')] } });
  t.equal(r.status, 201, r.text);
  await agreeOverTime(t, g, [0, 30]);
  t.equal((await g.both()).projected.evidence.by_basis.reviewed, 3, 'the late task\'s review of ci-77 raised it');
});

t.test('an index made before migration 8 is rebuilt from the log, so its dashboard is whole', async (t) => {
  const g = await scopeApp(t);
  await populate(t, g);
  g.setNow(START + DAY);
  const before = (await g.both()).projected;
  await g.close();
  // What version 7 left: no posture, evidence or counting objects, no incident columns.
  const db = new Database(indexPathOf(g.dataDir));
  db.exec(`
    DROP TABLE gov_posture; DROP TABLE gov_evidence; DROP TABLE gov_evidence_foreign;
    DROP INDEX gov_assets_counted; DROP INDEX gov_approvals_counted; DROP INDEX gov_incidents_counted;
    ALTER TABLE gov_incidents DROP COLUMN status; ALTER TABLE gov_incidents DROP COLUMN severity; ALTER TABLE gov_incidents DROP COLUMN serious;
  `);
  db.pragma('user_version = 7');
  db.close();
  const again = await scopeApp(t, g.dataDir);
  again.setNow(START + DAY);
  const after = await again.both();
  t.same(after.projected, before, 'the same dashboard as before');
  t.same(after.projected, after.folded);
});
