// GET /v1/governance/dashboard through the routes: every number equals a count the test makes from
// events.jsonl with its own small folds; expiry, overdue reviews and Art. 73 clocks move with the
// injected clock; another tenant's dashboard holds nothing of this one's; a rebuilt index answers
// the same; reading the dashboard appends nothing to the log.
import t, { type Test } from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { storeRebuildIndex } from '../../src/cli/commands/store.ts';
import type { CliIo } from '../../src/cli/io.ts';
import type { StoredEvent } from '../../src/domain/event.ts';
import { createApp } from '../../src/server/create-app.ts';
import { ROUTES } from '../../src/server/route-table.ts';
import { DASHBOARD_ROUTES } from '../../src/server/routes/dashboard.ts';
import { INCIDENT_ROUTES } from '../../src/server/routes/incidents.ts';
import { assertSchema, HOST, SCOPE_A, SCOPE_B, testApp, TOKENS, type Call } from '../fixtures/test-app.ts';
import { BEST_VENDOR_ANSWERS, evidenceRef } from '../fixtures/governance.ts';

const DAY = 86_400_000;
const START = Date.parse('2026-11-20T10:00:00.000Z');
const T1 = START + 60_000;
const owner = { type: 'user', id: 'olivia' };
const HIGH = { data_sensitivity: 3, decision_impact: 3, autonomy: 2, vendor_maturity: 2, prohibited_practice: 0 };
const LOW = { data_sensitivity: 0, decision_impact: 0, autonomy: 0, vendor_maturity: 4, prohibited_practice: 0 };
const BEST = BEST_VENDOR_ANSWERS;
const ref = evidenceRef;
const CADENCE: Record<string, number> = { minimal: 365, limited: 180, high: 90, prohibited: 30 };
const ART73: Record<string, number> = { death: 10, critical_infrastructure: 2, widespread_infringement: 2, health_harm: 15, fundamental_rights: 15, property_or_environment: 15 };

async function dashboardApp(t: Test, options: { dataDir?: string; at?: number } = {}) {
  let now = options.at ?? START;
  const base = await testApp(t, { clock: () => new Date(now), ...(options.dataDir ? { dataDir: options.dataDir } : {}) });
  const app = createApp(base.deps, [...ROUTES, ...INCIDENT_ROUTES.filter((r) => !ROUTES.some((s) => s.path === r.path && s.method === r.method)), ...DASHBOARD_ROUTES]);
  const call = async (path: string, c: Call = {}) => {
    const headers: Record<string, string> = { Host: HOST, Authorization: `Bearer ${TOKENS.customer}`, ...c.headers };
    const scope = c.scope === undefined ? SCOPE_A : c.scope;
    if (scope) Object.assign(headers, { 'X-Tenant-Id': scope.tenant_id, 'X-Workspace-Id': scope.workspace_id, 'X-Project-Id': scope.project_id });
    let body: string | undefined;
    if (c.body !== undefined) {
      body = JSON.stringify(c.body);
      headers['Content-Type'] ??= c.method === 'PATCH' ? 'application/merge-patch+json' : 'application/json';
    }
    const res = await app.request(`http://${HOST}${path}`, { method: c.method ?? (body === undefined ? 'GET' : 'POST'), headers, body });
    const text = await res.text();
    return { status: res.status, text, json: text ? JSON.parse(text) : null };
  };
  const events = (): StoredEvent[] => readFileSync(join(base.dataDir, 'events.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as StoredEvent);
  const dashboard = async (scope = SCOPE_A) => {
    const r = await call('/v1/governance/dashboard', { scope });
    t.equal(r.status, 200, r.text.slice(0, 300));
    assertSchema(t, 'api/dashboard.json', r.json);
    return r.json;
  };
  return { ...base, call, events, dashboard, setNow: (ms: number) => void (now = ms) };
}

type App = Awaited<ReturnType<typeof dashboardApp>>;

/** Populates the scope; the incidents come a minute after the evaluations (so they bring a review forward): the clock ends at T1. */
async function populate(t: Test, g: Pick<App, 'call' | 'setNow'>, scope = SCOPE_A) {
  const { call } = g;
  g.setNow(START);
  const ok = (r: { status: number; text: string }, what: string) => t.ok(r.status === 200 || r.status === 201, `${what}: ${r.status} ${r.status >= 300 ? r.text : ''}`);
  const asset = (id: string, extra: Record<string, unknown> = {}) => ({ asset_id: id, name: `Asset ${id}`, purpose: 'Answer billing questions', owner, deployment_context: 'web', models: [{ provider: 'acme', name: 'c-1' }], actor: owner, ...extra });
  ok(await call('/v1/vendors', { scope, body: { vendor_id: 'acme-ai', name: 'Acme AI', answers: BEST } }), 'vendor');
  ok(await call('/v1/governance/assets', { scope, body: asset('chat-1', { vendor_ids: ['acme-ai'] }) }), 'asset chat-1');
  ok(await call('/v1/governance/assets', { scope, body: asset('faq-2') }), 'asset faq-2');
  ok(await call('/v1/governance/assets', { scope, body: asset('new-3') }), 'asset new-3');
  ok(await call('/v1/risk/evaluations', { scope, body: { asset_id: 'chat-1', risk_inputs: HIGH, actor: owner } }), 'risk chat-1');
  ok(await call('/v1/risk/evaluations', { scope, body: { asset_id: 'faq-2', risk_inputs: LOW, actor: owner } }), 'risk faq-2');
  ok(await call('/v1/tasks', { scope, body: { task_id: 'audit', title: 'Attach the audit report', session_id: 'sess-1' } }), 'task');
  ok(await call('/v1/tasks/audit/checkpoints', { scope, body: { progress: 'Attached the audit report', evidence_refs: [ref('audit-report'), ref('dpia')] } }), 'checkpoint');
  ok(await call('/v1/regulatory/frameworks/nyc-ll144/requirements/nyc-ll144%3Abias-audit', { scope, method: 'PATCH', body: { actor: owner, status: 'met', owner, evidence_refs: ['audit-report'] } }), 'posture');
  g.setNow(T1);
  const incident = { class: 'incident', title: 'Wrong refunds promised', description: 'The bot promised refunds.', aware_at: '2026-11-18T09:30:00Z', actor: owner };
  ok(await call('/v1/incidents', { scope, body: { ...incident, severity: 'sev1', asset_ids: ['chat-1'], serious: { is_serious: true, basis: 'health_harm' } } }), 'incident sev1');
  ok(await call('/v1/incidents', { scope, body: { ...incident, severity: 'sev3' } }), 'incident sev3');
}

/** The dashboard's numbers, counted from the log by the test's own folds. */
function fromLog(all: StoredEvent[], scope: typeof SCOPE_A, nowMs: number) {
  const events = all.filter((e) => e.tenant_id === scope.tenant_id && e.workspace_id === scope.workspace_id && e.project_id === scope.project_id);
  const of = (kind: string) => events.filter((e) => e.kind === kind);
  const p = (e: StoredEvent) => e.payload as any;
  const assets = new Set(of('governance.asset.registered').map((e) => p(e).asset_id as string));
  const evaluations = new Map<string, { tier: string; at: string }>();
  for (const e of of('risk.evaluated')) evaluations.set(p(e).asset_id, { tier: p(e).result?.tier ?? p(e).tier, at: p(e).evaluated_at ?? e.recorded_at });
  const byTier: Record<string, number> = { unevaluated: assets.size - evaluations.size, minimal: 0, limited: 0, high: 0, prohibited: 0 };
  for (const { tier } of evaluations.values()) byTier[tier]! += 1;
  const decided = new Set(of('approval.decided').map((e) => p(e).approval_id));
  const open = of('approval.requested').filter((e) => !decided.has(p(e).approval_id));
  const pending = open.filter((e) => Date.parse(p(e).due_at) > nowMs).length;
  const overdue = open.length - pending;
  const incidents = of('incident.logged').map((e) => ({ ...p(e), at: e.recorded_at }));
  const reviews = { upcoming: 0, due: 0, overdue: 0 };
  for (const [assetId, ev] of evaluations) {
    let due = Date.parse(ev.at) + CADENCE[ev.tier]! * DAY;
    for (const i of incidents) {
      if ((i.severity === 'sev1' || i.severity === 'sev2') && (i.asset_ids ?? []).includes(assetId) && Date.parse(i.at) > Date.parse(ev.at)) due = Math.min(due, Date.parse(i.at) + 14 * DAY);
    }
    reviews[nowMs > due ? 'overdue' : nowMs >= due - 14 * DAY ? 'due' : 'upcoming'] += 1;
  }
  const bySeverity: Record<string, number> = { sev1: 0, sev2: 0, sev3: 0, sev4: 0 };
  for (const i of incidents) bySeverity[i.severity]! += 1;
  const clocks = { running: 0, overdue: 0, answered: 0 };
  for (const i of incidents.filter((x) => x.serious?.is_serious)) clocks[nowMs > Date.parse(i.aware_at) + ART73[i.serious.basis]! * DAY ? 'overdue' : 'running'] += 1;
  const vendors = new Map<string, string>();
  for (const e of of('vendor.assessed')) vendors.set(p(e).vendor_id, p(e).valid_until);
  const artifacts = new Set(events.flatMap((e) => (e.evidence_refs ?? []).map((r) => r.artifact_id)));
  const met = of('regulatory.posture.updated').filter((e) => JSON.stringify(e.payload).includes('"met"')).length;
  return {
    assets: { total: assets.size, by_tier: byTier },
    approvals: { pending, overdue },
    reviews: { open: evaluations.size, ...reviews },
    incidents: { total: incidents.length, open: incidents.length, open_by_severity: bySeverity, serious_open: incidents.filter((i) => i.serious?.is_serious).length, clocks },
    vendors: { assessed: vendors.size, expired: [...vendors.values()].filter((v) => Date.parse(v) <= nowMs).length },
    evidence: { artifacts: artifacts.size, customer_asserted: artifacts.size },
    met,
  };
}

function matchesLog(t: Test, d: any, expected: ReturnType<typeof fromLog>) {
  t.same(d.assets.total, expected.assets.total, 'assets: total');
  t.same(d.assets.by_tier, expected.assets.by_tier, 'assets: by tier');
  t.same([d.approvals.pending, d.approvals.overdue], [expected.approvals.pending, expected.approvals.overdue], 'approvals: pending, overdue');
  t.same([d.reviews.open, d.reviews.upcoming, d.reviews.due, d.reviews.overdue], [expected.reviews.open, expected.reviews.upcoming, expected.reviews.due, expected.reviews.overdue], 'reviews');
  t.same([d.incidents.total, d.incidents.open, d.incidents.serious_open], [expected.incidents.total, expected.incidents.open, expected.incidents.serious_open], 'incidents');
  t.same(d.incidents.open_by_severity, expected.incidents.open_by_severity, 'incidents by severity');
  t.same(d.incidents.clocks, expected.incidents.clocks, 'Art. 73 clocks');
  t.same([d.vendors.assessed, d.vendors.expired], [expected.vendors.assessed, expected.vendors.expired], 'vendors');
  t.same([d.evidence.artifacts, d.evidence.by_content_trust.customer_asserted, d.evidence.by_content_trust.trusted_internal], [expected.evidence.artifacts, expected.evidence.customer_asserted, 0], 'evidence by effective trust');
  t.same([d.evidence.untrusted, d.evidence.sanitized, d.evidence.trusted_internal],
    [d.evidence.by_content_trust.untrusted_external + d.evidence.by_content_trust.customer_asserted, d.evidence.by_content_trust.sanitized_projection, 0], "DOMAIN §8's three buckets");
  t.equal(d.posture.find((x: { profile_id: string }) => x.profile_id === 'nyc-ll144').met, expected.met, 'posture: met items');
}

t.test('the numbers equal counts made from the log; reading appends nothing', async (t) => {
  const g = await dashboardApp(t);
  await populate(t, g);
  const before = g.events();
  const d = await g.dashboard();
  t.equal(g.events().length, before.length, 'not access-logged: the log is unchanged');
  t.equal(d.as_of, new Date(T1).toISOString());
  t.equal(d.last_seq, before[before.length - 1]!.seq, 'last_seq: the index position read');
  t.same(d.scope, SCOPE_A);
  matchesLog(t, d, fromLog(before, SCOPE_A, T1));
  t.same([d.assets.by_tier.high, d.assets.by_tier.minimal, d.assets.by_tier.unevaluated, d.approvals.pending], [1, 1, 1, 1], 'the populated scope, by hand');
  t.equal(Object.values(d.approvals.pending_by_assignee_role as Record<string, number>).reduce((s, n) => s + n, 0), d.approvals.pending, 'pending by role adds up');
  t.equal(d.assets.by_status.pending_approval, 1);
  t.equal(d.reviews.due, 1, 'the sev1 incident brings chat-1\'s review forward');
  t.same(d.incidents.serious_open_incidents.map((i: { severity: string; clocks: { status: string }[] }) => [i.severity, i.clocks.map((c) => c.status)]), [['sev1', ['running']]]);
  const posture = (await g.call('/v1/regulatory/posture?profile_id=nyc-ll144')).json.summary;
  const mine = d.posture.find((x: { profile_id: string }) => x.profile_id === 'nyc-ll144');
  t.same([mine.met_pct, mine.verified_pct, mine.applicable], [posture.met_pct, posture.verified_pct, posture.applicable], 'posture: the regulatory service\'s summary');
  t.ok(d.non_claims.some((n: string) => /not describe the real-world state/.test(n)));
  t.ok(d.non_claims.some((n: string) => /self-assessment/.test(n)));
  t.ok(d.non_claims.some((n: string) => /asserted by the caller/.test(n)));
});

t.test('expiry, overdue reviews and Art. 73 clocks move with the clock', async (t) => {
  const g = await dashboardApp(t);
  await populate(t, g);
  for (const days of [3, 15, 80, 400]) {
    const at = T1 + days * DAY;
    g.setNow(at);
    const d = await g.dashboard();
    t.equal(d.as_of, new Date(at).toISOString());
    matchesLog(t, d, fromLog(g.events(), SCOPE_A, at));
  }
  g.setNow(T1 + 15 * DAY);
  const late = await g.dashboard();
  t.same([late.approvals.pending, late.approvals.overdue, late.approvals.by_status.expired], [0, 1, 1], 'the approval expired');
  t.same([late.assets.by_status.pending_approval, late.assets.by_status.evaluation_required], [0, 1], 'its asset needs a new evaluation');
  t.equal(late.incidents.clocks.overdue, 1, 'the 15-day clock from 2026-11-18 is overdue');
  t.equal(late.reviews.overdue, 1, 'the brought-forward review is overdue');
  g.setNow(T1 + 400 * DAY);
  t.equal((await g.dashboard()).vendors.expired, 1, 'the vendor assessment expired');
});

t.test('another tenant\'s dashboard shows none of this one\'s', async (t) => {
  const g = await dashboardApp(t);
  await populate(t, g);
  const b = await g.dashboard(SCOPE_B);
  t.same([b.assets.total, b.approvals.pending, b.reviews.open, b.incidents.total, b.vendors.assessed, b.evidence.artifacts], [0, 0, 0, 0, 0, 0]);
  t.same(b.posture.map((p: { met: number }) => p.met).filter((n: number) => n > 0), []);
  await g.call('/v1/governance/assets', { scope: SCOPE_B, body: { asset_id: 'b-only', name: 'B', purpose: 'Answer billing questions', owner, deployment_context: 'web', models: [{ provider: 'acme', name: 'c-1' }], actor: owner } });
  const a = await g.dashboard();
  matchesLog(t, a, fromLog(g.events(), SCOPE_A, T1));
  t.equal((await g.dashboard(SCOPE_B)).assets.total, 1);
});

t.test('a rebuilt index gives the same dashboard', async (t) => {
  const first = await dashboardApp(t);
  await populate(t, first);
  const before = await first.dashboard();
  await first.close();
  const io: CliIo = { stdout: () => {}, stderr: () => {}, env: {}, cwd: first.dataDir, isTty: false, onStopSignal: () => {} };
  t.equal((await storeRebuildIndex({ dataDir: first.dataDir }, io)).exitCode, 0);
  const again = await dashboardApp(t, { dataDir: first.dataDir, at: T1 });
  t.same(await again.dashboard(), before, 'identical after the rebuild');
});
