// GET /v1/exports/{kind} through the routes: every kind answers, json and jsonl; export_sha256
// recomputes (RFC 8785 document without it; jsonl: the record lines byte for byte); the same as_of
// gives the same bytes after later writes and after an index rebuild; an as_of later than the
// clock is 422 as_of_in_future; an unknown kind is 404 (a denied export, logged once); each export
// is access-logged as exported; records come only from events recorded at or before as_of.
import t from 'tap';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { storeRebuildIndex } from '../../src/cli/commands/store.ts';
import type { CliIo } from '../../src/cli/io.ts';
import { canonicalJson } from '../../src/domain/canonical-json.ts';
import { transportPrincipal, type StoredEvent } from '../../src/domain/event.ts';
import { EXPORT_KINDS, exportKind } from '../../src/service/governance/exports-service.ts';
import { readContext } from '../../src/service/governance/refusals.ts';
import { assertSchema, fixedClock, rawEvent, SCOPE_A, SCOPE_B, testApp } from '../fixtures/test-app.ts';
import { BEST_VENDOR_ANSWERS, evidenceRef } from '../fixtures/governance.ts';

const owner = { type: 'user', id: 'olivia' };
const HIGH = { data_sensitivity: 3, decision_impact: 3, autonomy: 2, vendor_maturity: 2, prohibited_practice: 0 };
const asset = (id: string) => ({ asset_id: id, name: `Asset ${id}`, purpose: 'Answer billing questions', owner, deployment_context: 'web', models: [{ provider: 'acme', name: 'c-1' }], actor: owner });
const ref = evidenceRef;
const BEST = BEST_VENDOR_ANSWERS;

type App = Awaited<ReturnType<typeof testApp>>;

/** A scope with something of every kind (incidents only when their routes are served). */
async function populate(t: Parameters<typeof testApp>[0], call: App['call']) {
  const ok = (r: { status: number; text: string }, what: string) => t.ok(r.status === 200 || r.status === 201, `${what}: ${r.status} ${r.status >= 300 ? r.text : ''}`);
  ok(await call('/v1/vendors', { body: { vendor_id: 'acme-ai', name: 'Acme AI', answers: BEST } }), 'vendor');
  ok(await call('/v1/governance/assets', { body: { ...asset('chat-1'), vendor_ids: ['acme-ai'] } }), 'asset');
  ok(await call('/v1/risk/evaluations', { body: { asset_id: 'chat-1', risk_inputs: HIGH, actor: owner } }), 'risk');
  ok(await call('/v1/tasks', { body: { task_id: 'audit', title: 'Attach the audit report', session_id: 'sess-1' } }), 'task');
  ok(await call('/v1/tasks/audit/checkpoints', { body: { progress: 'Attached the audit report', evidence_refs: [ref('audit-report')] } }), 'checkpoint');
  ok(await call('/v1/events', { idempotencyKey: 'att-1', body: rawEvent(SCOPE_A, { kind: 'evidence.attached', task_id: 'audit', payload: { note: 'second report', asset_id: 'chat-1' }, evidence_refs: [ref('vendor-report')] }) }), 'attached');
  ok(await call('/v1/regulatory/frameworks/nyc-ll144/requirements/nyc-ll144%3Abias-audit', { method: 'PATCH', body: { actor: owner, status: 'in_progress', owner, evidence_refs: ['audit-report'] } }), 'posture');
}

async function exporting(t: Parameters<typeof testApp>[0], options: Parameters<typeof testApp>[1] = {}) {
  const g = await testApp(t, options);
  const events = (): StoredEvent[] => readFileSync(join(g.dataDir, 'events.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as StoredEvent);
  return { ...g, events };
}

const sha = (text: string) => `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`;

t.test('every kind answers, json and jsonl, and its export_sha256 recomputes', async (t) => {
  const { call, events } = await exporting(t);
  await populate(t, call);
  for (const kind of EXPORT_KINDS) {
    const r = await call(`/v1/exports/${kind}`);
    t.equal(r.status, 200, `${kind}: ${r.text.slice(0, 300)}`);
    t.match(r.headers.get('content-type'), /^application\/json/);
    assertSchema(t, 'api/export.json', r.json, `${kind} matches api/export.json`);
    t.equal(r.text, canonicalJson(r.json), `${kind}: the body is the canonical form`);
    const { export_sha256: claimed, ...doc } = r.json;
    t.equal(claimed, sha(canonicalJson(doc)), `${kind}: export_sha256 recomputes`);
    t.same([r.json.kind, r.json.scope], [kind, SCOPE_A]);

    const l = await call(`/v1/exports/${kind}?format=jsonl&as_of=${r.json.as_of}`);
    t.equal(l.status, 200);
    t.match(l.headers.get('content-type'), /^application\/x-ndjson/);
    const cut = l.text.indexOf('\n');
    const header = JSON.parse(l.text.slice(0, cut));
    const rest = l.text.slice(cut + 1);
    t.same(Object.keys(header).sort(), ['as_of', 'export_sha256', 'kind', 'last_seq', 'non_claims', 'record_count', 'scope']);
    t.equal(header.export_sha256, sha(rest), `${kind}: the jsonl hash covers the record lines byte for byte`);
    t.equal(header.record_count, r.json.records.length);
    t.same([header.as_of, header.last_seq], [r.json.as_of, r.json.last_seq]);
    t.equal(rest, r.json.records.map((x: unknown) => `${canonicalJson(x)}\n`).join(''), `${kind}: one canonical line per record, the json export's records`);
  }
  const byKind = async (kind: string) => (await call(`/v1/exports/${kind}`)).json.records;
  t.same((await byKind('assets')).map((a: { asset_id: string; tier: string }) => [a.asset_id, a.tier]), [['chat-1', 'high']]);
  t.equal((await byKind('risk')).length, 1);
  t.same((await byKind('approvals')).map((a: { status: string }) => a.status), ['pending']);
  t.same((await byKind('vendors')).map((v: { vendor_id: string }) => v.vendor_id), ['acme-ai']);
  t.same((await byKind('reviews')).map((r: { asset_id: string }) => r.asset_id), ['chat-1']);
  t.same((await byKind('posture')).map((p: { requirement_id: string; status: string }) => [p.requirement_id, p.status]), [['nyc-ll144:bias-audit', 'in_progress']]);
  const manifest = await byKind('evidence-manifest');
  t.same(manifest.map((m: { artifact_id: string; sha256: string; task_ids: string[] }) => [m.artifact_id, m.sha256, m.task_ids]), [['audit-report', 'e'.repeat(64), ['audit']], ['vendor-report', 'e'.repeat(64), ['audit']]]);
  t.same(manifest.map((m: { trust: { content_trust: string } }) => m.trust.content_trust), ['customer_asserted', 'customer_asserted'], 'effective trust, not the asserted one');
  t.ok((await byKind('access-log')).length > 0);
  t.ok(events().length > 0);
});

t.test('the same as_of gives the same bytes after later writes; records stop at as_of', async (t) => {
  const { call } = await exporting(t);
  await populate(t, call);
  const first: Record<string, { json: string; jsonl: string }> = {};
  const asOf = (await call('/v1/exports/assets')).json.as_of;
  for (const kind of EXPORT_KINDS) {
    first[kind] = { json: (await call(`/v1/exports/${kind}?as_of=${asOf}`)).text, jsonl: (await call(`/v1/exports/${kind}?as_of=${asOf}&format=jsonl`)).text };
  }
  // Later writes of every kind, and another spelling of the same instant.
  await call('/v1/governance/assets', { body: asset('chat-2') });
  await call('/v1/risk/evaluations', { body: { asset_id: 'chat-2', risk_inputs: HIGH, actor: owner } });
  await call('/v1/vendors', { body: { vendor_id: 'beta-ai', name: 'Beta AI', answers: BEST } });
  await call('/v1/tasks/audit/checkpoints', { body: { progress: 'Another report', evidence_refs: [ref('late-report')] } });
  await call('/v1/regulatory/frameworks/nyc-ll144/requirements/nyc-ll144%3Aaudit-summary', { method: 'PATCH', body: { actor: owner, status: 'in_progress' } });
  const spelled = encodeURIComponent(new Date(Date.parse(asOf)).toISOString().replace('Z', '+00:00'));
  for (const kind of EXPORT_KINDS) {
    t.equal((await call(`/v1/exports/${kind}?as_of=${asOf}`)).text, first[kind]!.json, `${kind} json: byte-identical`);
    t.equal((await call(`/v1/exports/${kind}?as_of=${spelled}`)).text, first[kind]!.json, `${kind} json: the same instant spelled otherwise`);
    t.equal((await call(`/v1/exports/${kind}?as_of=${asOf}&format=jsonl`)).text, first[kind]!.jsonl, `${kind} jsonl: byte-identical`);
  }
  const now = (await call('/v1/exports/assets')).json;
  t.same(now.records.map((a: { asset_id: string }) => a.asset_id), ['chat-1', 'chat-2'], 'now: the later asset too');
  t.ok(now.last_seq > JSON.parse(first.assets!.json).last_seq);
});

t.test('refusals: as_of in the future 422, a bad as_of or format 400, an unknown kind 404 logged as denied', async (t) => {
  const { call, events } = await exporting(t);
  const future = await call('/v1/exports/assets?as_of=2099-01-01T00:00:00Z');
  t.same([future.status, future.json.code], [422, 'as_of_in_future']);
  t.match(future.json.detail, /later than the server's clock/);
  for (const q of ['as_of=yesterday', 'format=csv']) {
    const r = await call(`/v1/exports/assets?${q}`);
    t.same([r.status, r.json.code], [400, 'invalid_query'], q);
  }
  const before = events().length;
  const unknown = await call('/v1/exports/secrets');
  t.same([unknown.status, unknown.json.code], [404, 'not_found']);
  t.same(events().slice(before).map((e) => [e.kind, e.payload.action, e.payload.outcome, e.payload.resource, e.payload.reason_code]), [['access.logged', 'attempted', 'denied', { type: 'export', id: 'secrets' }, 'not_found']], 'one denied entry');
});

t.test('each export is access-logged as exported, once, in its own scope', async (t) => {
  const { call, events } = await exporting(t);
  for (const kind of EXPORT_KINDS) {
    const before = events().length;
    t.equal((await call(`/v1/exports/${kind}?format=${kind === 'risk' ? 'jsonl' : 'json'}`)).status, 200);
    t.same(events().slice(before).map((e) => [e.kind, e.tenant_id, e.payload.action, e.payload.outcome, e.payload.resource, e.unit]), [['access.logged', 'tenant-a', 'exported', 'allowed', { type: 'export', id: kind }, undefined]], kind);
  }
  const b = (await call('/v1/exports/access-log', { scope: SCOPE_B })).json;
  t.same(b.records, [], 'another tenant exports nothing of this one');
});

t.test('a rebuilt index gives the same exports', async (t) => {
  const first = await exporting(t);
  await populate(t, first.call);
  const asOf = (await first.call('/v1/exports/assets')).json.as_of;
  const before: Record<string, string> = {};
  for (const kind of EXPORT_KINDS) before[kind] = (await first.call(`/v1/exports/${kind}?as_of=${asOf}`)).text;
  await first.close();
  const io: CliIo = { stdout: () => {}, stderr: () => {}, env: {}, cwd: first.dataDir, isTty: false, onStopSignal: () => {} };
  t.equal((await storeRebuildIndex({ dataDir: first.dataDir }, io)).exitCode, 0);
  const again = await exporting(t, { dataDir: first.dataDir, clock: fixedClock(Date.parse('2026-12-01T00:00:00.000Z')) });
  // The reopened app's counter ids would repeat the log's: its export entries take ids of their own.
  let n = 0;
  const deps = { ...again.service, newId: (prefix: string) => `${prefix}_rebuilt_${++n}` };
  const ctx = readContext(SCOPE_A, { transport: 'customer', principal: transportPrincipal('customer') });
  for (const kind of EXPORT_KINDS) {
    const out = await exportKind(deps, ctx, kind, { as_of: asOf });
    t.equal(out.format === 'json' ? out.body : '', before[kind], `${kind}: identical after the rebuild`);
  }
});

t.test('the reviews export takes the incidents that bring a review forward, as the review list does', async (t) => {
  const { call } = await exporting(t);
  await populate(t, call);
  const before = (await call('/v1/exports/reviews')).json;
  t.match(before.records, [{ asset_id: 'chat-1', status: 'upcoming', trigger: null }], 'no incident yet: the cadence (90 days for a high tier)');
  const logged = await call('/v1/incidents', { body: { class: 'incident', title: 'Wrong refunds promised', description: 'The bot promised refunds.', aware_at: '2026-11-01T09:00:00Z', severity: 'sev2', asset_ids: ['chat-1'], actor: owner } });
  t.equal(logged.status, 201, logged.text);
  const live = (await call('/v1/reviews?asset_id=chat-1')).json.reviews;
  t.match(live, [{ asset_id: 'chat-1', status: 'due', trigger: { kind: 'incident', ref: logged.json.incident.incident_id } }], 'the review list: due, brought forward by the incident');
  const exported = (await call('/v1/exports/reviews')).json;
  const { trigger, ...rest } = exported.records[0];
  const { trigger: liveTrigger, ...liveRest } = live[0];
  t.same(rest, liveRest, 'the export has the review the list shows');
  t.same(trigger, liveTrigger, 'with the same trigger');
  t.same((await call(`/v1/exports/reviews?as_of=${before.as_of}`)).text, canonicalJson(before), 'an as_of before the incident still gives the cadence');
});
