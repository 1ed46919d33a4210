// The exports are written as they are read: the same bytes whatever the page size of the reads
// (and, for the kinds whose records are their events, the bytes of the whole document folded the
// old way from the log: every event read at once, sorted, canonicalised as one value); the
// route's body comes a chunk at a time, reading a page of the index only when a chunk needs it;
// and a client that goes away mid-export stops the reading.
import t from 'tap';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { canonicalJson } from '../../src/domain/canonical-json.ts';
import { transportPrincipal, type StoredEvent } from '../../src/domain/event.ts';
import { buildTrustPool } from '../../src/domain/evidence-pool.ts';
import { foldPosture } from '../../src/domain/governance/regulatory.ts';
import { eventActor } from '../../src/domain/governance/types.ts';
import { vendorView } from '../../src/domain/governance/vendors.ts';
import { exportStream } from '../../src/server/routes/exports.ts';
import { accessEntryOf } from '../../src/service/governance/access-log-service.ts';
import { EXPORT_KINDS, exportKind, type ExportPaging } from '../../src/service/governance/exports-service.ts';
import { accessEvent, readContext } from '../../src/service/governance/refusals.ts';
import type { ServiceDeps } from '../../src/service/deps.ts';
import { serveApp } from '../fixtures/served-app.ts';
import { rawEvent, SCOPE_A, SCOPE_B, testApp, TOKENS } from '../fixtures/test-app.ts';
import { BEST_VENDOR_ANSWERS, BIAS_AUDIT_BYTES, evidenceRef } from '../fixtures/governance.ts';

const owner = { type: 'user', id: 'olivia' };
const HIGH = { data_sensitivity: 3, decision_impact: 3, autonomy: 2, vendor_maturity: 2, prohibited_practice: 0 };
const asset = (id: string) => ({ asset_id: id, name: `Asset ${id}`, purpose: 'Answer billing questions', owner, deployment_context: 'web', models: [{ provider: 'acme', name: 'c-1' }], actor: owner });
const ctx = (scope = SCOPE_A) => readContext(scope, { transport: 'customer', principal: transportPrincipal('customer') });
const sha = (text: string) => `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`;

/** The whole text of an export, read through its chunks. */
const textOf = (out: { chunks: () => Iterable<string> }) => [...out.chunks()].join('');

/** Appends `n` access entries (viewed assets) to the scope, a thousand to a unit. */
async function accessEntries(deps: ServiceDeps, n: number, scope = SCOPE_A) {
  for (let done = 0; done < n; done += 1000) {
    const unit = Array.from({ length: Math.min(1000, n - done) }, (_, i) => accessEvent(deps, ctx(scope), ctx(scope).principal, { action: 'viewed', outcome: 'allowed', resource: { type: 'asset', id: `a-${done + i}` } }));
    await deps.store.append(unit);
  }
  await deps.store.settled();
}

/** The records of a kind the old way: every event of the scope read from the log, filtered, in seq order. */
function referenceRecords(events: StoredEvent[], kinds: string[], asOf: string, map: (e: StoredEvent) => unknown): unknown[] {
  return events
    .filter((e) => e.tenant_id === SCOPE_A.tenant_id && kinds.includes(e.kind) && Date.parse(e.recorded_at) <= Date.parse(asOf))
    .map(map);
}

t.test('the same bytes whatever the page size, and the old fold\'s bytes for the kinds read event by event', async (t) => {
  const { call, service, dataDir } = await testApp(t);
  const ok = (r: { status: number; text: string }, what: string) => t.ok(r.status === 200 || r.status === 201, `${what}: ${r.status} ${r.status >= 300 ? r.text : ''}`);
  for (const id of ['chat-1', 'chat-2', 'chat-3']) {
    ok(await call('/v1/governance/assets', { body: asset(id) }), `asset ${id}`);
    ok(await call('/v1/risk/evaluations', { body: { asset_id: id, risk_inputs: HIGH, actor: owner } }), `risk ${id}`);
  }
  ok(await call('/v1/risk/evaluations', { body: { asset_id: 'chat-2', risk_inputs: HIGH, actor: owner } }), 'risk again');
  ok(await call('/v1/events', { idempotencyKey: 'note-1', body: rawEvent(SCOPE_A) }), 'a note');
  await accessEntries(service, 25);
  await accessEntries(service, 3, SCOPE_B);
  const asOf = (await call('/v1/exports/access-log')).json.as_of as string;
  ok(await call('/v1/risk/evaluations', { body: { asset_id: 'chat-3', risk_inputs: HIGH, actor: owner } }), 'risk after as_of');

  for (const kind of EXPORT_KINDS) {
    for (const format of ['json', 'jsonl'] as const) {
      const route = await call(`/v1/exports/${kind}?as_of=${asOf}&format=${format}`);
      t.equal(route.status, 200, `${kind} ${format}`);
      for (const pageRows of [1, 2, 7]) {
        const out = await exportKind(service, ctx(), kind, { as_of: asOf, format }, { pageRows });
        t.equal(textOf(out), route.text, `${kind} ${format}: pages of ${pageRows} rows give the route's bytes`);
        if (out.format === 'json') t.equal(out.body, route.text, `${kind}: body is the same text`);
      }
    }
  }

  // The old way, for the kinds whose records are their events: the whole document at once.
  const events = readFileSync(join(dataDir, 'events.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as StoredEvent);
  const eventRecord = (e: StoredEvent) => ({ seq: e.seq, event_id: e.event_id, kind: e.kind, recorded_at: e.recorded_at, actor: eventActor(e), payload: e.payload });
  const reference = {
    'access-log': referenceRecords(events, ['access.logged'], asOf, accessEntryOf),
    risk: referenceRecords(events, ['risk.evaluated'], asOf, eventRecord),
    incidents: referenceRecords(events, ['incident.logged', 'incident.updated'], asOf, eventRecord),
  };
  t.ok(reference['access-log'].length > 25 && reference.risk.length === 4, 'the reference reads the entries and the evaluations before as_of');
  for (const [kind, records] of Object.entries(reference)) {
    const json = (await call(`/v1/exports/${kind}?as_of=${asOf}`)).json as { export_sha256: string; [key: string]: unknown };
    const { export_sha256: _, records: __, ...header } = json;
    const doc = JSON.parse(JSON.stringify({ ...header, records }));
    t.equal((await call(`/v1/exports/${kind}?as_of=${asOf}`)).text, canonicalJson({ ...doc, export_sha256: sha(canonicalJson(doc)) }), `${kind} json: the old fold's bytes`);
    const lines = records.map((r) => `${canonicalJson(JSON.parse(JSON.stringify(r)))}\n`).join('');
    const jsonl = (await call(`/v1/exports/${kind}?as_of=${asOf}&format=jsonl`)).text;
    t.equal(jsonl, `${canonicalJson({ ...header, record_count: records.length, export_sha256: sha(lines) })}\n${lines}`, `${kind} jsonl: the old fold's bytes`);
  }
});

const reviewer = { type: 'user', id: 'rhea' };
const RAW = BIAS_AUDIT_BYTES;
const ref = evidenceRef;
const BEST = BEST_VENDOR_ANSWERS;

t.test('posture, vendors and the evidence manifest fold as they are read: the same bytes at every page size, the list folds\' records', async (t) => {
  const { call, service, dataDir } = await testApp(t);
  const ok = (r: { status: number; text: string }, what: string) => t.ok(r.status === 200 || r.status === 201, `${what}: ${r.status} ${r.status >= 300 ? r.text : ''}`);
  // Vendors: two, one assessed again (its later assessment wins, both counted).
  ok(await call('/v1/vendors', { body: { vendor_id: 'acme-ai', name: 'Acme AI', answers: BEST } }), 'vendor acme');
  ok(await call('/v1/vendors', { body: { vendor_id: 'beta-ai', name: 'Beta AI', answers: BEST.slice(0, 8) } }), 'vendor beta');
  ok(await call('/v1/vendors', { body: { vendor_id: 'acme-ai', name: 'Acme AI Ltd', answers: BEST } }), 'vendor acme again');
  ok(await call('/v1/governance/assets', { body: { ...asset('chat-1'), vendor_ids: ['acme-ai'] } }), 'asset');
  ok(await call('/v1/team/owner', { body: { actor: owner } }), 'owner');
  const invite = await call('/v1/team/invites', { body: { email: 'rhea@example.com', role: 'governance_reviewer', actor: owner } });
  ok(invite, 'invite');
  ok(await call(`/v1/team/invites/${invite.json.invite_id}/accept`, { body: { token: invite.json.token, actor: reviewer } }), 'accept');
  // Evidence in three tasks: reviewed up, rejected, sanitized, cited twice, re-attached.
  for (const task of ['audit', 'ci', 'vendor']) ok(await call('/v1/tasks', { body: { task_id: task, title: `Evidence ${task}`, session_id: 'sess-1' } }), `task ${task}`);
  ok(await call('/v1/tasks/audit/checkpoints', { body: { progress: 'Attached the audit', evidence_refs: [ref('audit-report'), ref('dpia', { confidence: 'claimed' })] } }), 'audit refs');
  ok(await call('/v1/tasks/ci/checkpoints', { body: { progress: 'Attached the CI runs', evidence_refs: [ref('ci-77'), ref('audit-report')] } }), 'ci refs');
  const rawHex = createHash('sha256').update(RAW).digest('hex');
  ok(await call('/v1/tasks/vendor/checkpoints', { body: { progress: 'Attached the bias audit', evidence_refs: [ref('bias-audit', { sha256: rawHex, content_trust: 'untrusted_external' })] } }), 'vendor refs');
  ok(await call('/v1/evidence/audit-report/review', { body: { reason: 'Read it', actor: reviewer, decision: 'accept', content_trust: 'trusted_internal' } }), 'review accept');
  ok(await call('/v1/evidence/dpia/review', { body: { reason: 'Read it', actor: reviewer, decision: 'reject' } }), 'review reject');
  for (const time of ['first', 'again']) {
    ok(await call('/v1/evidence/sanitize', { body: { artifact_id: 'bias-audit', media_type: 'text/plain', content_base64: RAW.toString('base64') } }), `sanitize ${time}`);
  }
  ok(await call('/v1/tasks/audit/checkpoints', { body: { progress: 'Attached the CI run again', evidence_refs: [ref('ci-77', { captured_at: '2026-11-02T09:00:00Z' })] } }), 're-attach');
  // Posture: two items of one profile, one of them written twice, and an asset's item.
  const posture = (requirement: string, body: Record<string, unknown>) =>
    call(`/v1/regulatory/frameworks/nyc-ll144/requirements/${encodeURIComponent(requirement)}`, { method: 'PATCH', body: { actor: owner, ...body } });
  ok(await posture('nyc-ll144:bias-audit', { status: 'in_progress', owner, evidence_refs: ['audit-report'] }), 'posture 1');
  ok(await posture('nyc-ll144:audit-summary', { status: 'in_progress' }), 'posture 2');
  ok(await posture('nyc-ll144:bias-audit', { note: 'Auditor booked' }), 'posture 1 again');
  ok(await posture('nyc-ll144:audit-summary', { status: 'in_progress', asset_id: 'chat-1' }), 'posture of an asset');
  await accessEntries(service, 20);
  const asOf = (await call('/v1/exports/access-log')).json.as_of as string;
  ok(await call('/v1/vendors', { body: { vendor_id: 'gamma-ai', name: 'Gamma AI', answers: BEST } }), 'vendor after as_of');
  ok(await posture('nyc-ll144:bias-audit', { note: 'Written after as_of' }), 'posture after as_of');
  ok(await call('/v1/tasks/ci/checkpoints', { body: { progress: 'Late', evidence_refs: [ref('late-report')] } }), 'evidence after as_of');

  for (const kind of ['posture', 'vendors', 'evidence-manifest'] as const) {
    for (const format of ['json', 'jsonl'] as const) {
      const route = await call(`/v1/exports/${kind}?as_of=${asOf}&format=${format}`);
      t.equal(route.status, 200, `${kind} ${format}`);
      for (const pageRows of [1, 2, 7]) {
        t.equal(textOf(await exportKind(service, ctx(), kind, { as_of: asOf, format }, { pageRows })), route.text, `${kind} ${format}: pages of ${pageRows} rows give the route's bytes`);
      }
    }
  }

  // The list folds over every event read at once give the same records.
  const events = readFileSync(join(dataDir, 'events.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as StoredEvent)
    .filter((e) => e.tenant_id === SCOPE_A.tenant_id && Date.parse(e.recorded_at) <= Date.parse(asOf));
  const records = async (kind: string) => (await call(`/v1/exports/${kind}?as_of=${asOf}`)).json.records as Array<Record<string, unknown>>;
  const key = (i: { profile_id: string; asset_id: string | null; requirement_id: string }) => `${i.profile_id}\u0000${i.asset_id ?? ''}\u0000${i.requirement_id}`;
  const items = Object.values(foldPosture(events)?.items ?? {}).sort((a, b) => (key(a) < key(b) ? -1 : 1));
  t.same(await records('posture'), JSON.parse(JSON.stringify(items)), 'posture: foldPosture\'s items');
  t.equal(items.length, 3, 'three items, none written after as_of');
  const vendors = vendorView(events, new Date(asOf));
  t.same(await records('vendors'), JSON.parse(JSON.stringify(vendors)), 'vendors: foldVendors\'s vendors');
  t.same(vendors.map((v) => [v.vendor_id, v.assessments]), [['acme-ai', 2], ['beta-ai', 1]], 'the vendors of as_of, each assessment counted');
  // Every evidence event of the scope, a task's or the scope's own (evidence attached outside tasks).
  const pool = buildTrustPool(events);
  const manifest = await records('evidence-manifest');
  t.same(manifest.map((r) => [r.artifact_id, (r.trust as { content_trust: string }).content_trust, (r.trust as { basis: string }).basis, r.task_ids]),
    [...pool.keys()].sort().map((id) => [id, pool.get(id)!.ref.content_trust, pool.get(id)!.basis, [...new Set(events.filter((e) => e.evidence_refs?.some((r) => r.artifact_id === id)).flatMap((e) => (e.task_id === undefined ? [] : [e.task_id])))].sort()]),
    'evidence manifest: buildTrustPool\'s artifacts, trust and citing tasks');
  t.same(manifest.map((r) => r.artifact_id), ['audit-report', 'bias-audit', 'ci-77', 'dpia'], 'the artifacts of as_of');
  t.equal((manifest.find((r) => r.artifact_id === 'bias-audit')!.projections as unknown[]).length, 1, 'one projection for the same bytes sanitized twice');
});

t.test('the body is read a page at a time, as the chunks are pulled, and a cancel stops the reading', async (t) => {
  const { service } = await testApp(t);
  await accessEntries(service, 400);
  let pages = 0;
  const paging: ExportPaging = { pageRows: 10, onPage: () => pages++ };
  const out = await exportKind(service, ctx(), 'access-log', { format: 'jsonl' }, paging);
  if (out.format !== 'jsonl') throw new Error('a jsonl export');
  const hashed = pages;
  t.ok(hashed >= 40 && hashed <= 42, `the hash read every entry, 10 rows a page (${hashed} pages)`);

  const reader = exportStream(out, 2000).getReader();
  const first = await reader.read();
  t.ok(first.value !== undefined && first.value.length >= 2000 && first.value.length < 2000 + 1000, `a chunk of about 2,000 characters (${first.value?.length} bytes)`);
  t.ok(pages - hashed <= 2, `the first chunk read ${pages - hashed} page(s), not the export`);
  let chunks = 1;
  let text = new TextDecoder().decode(first.value);
  for (let i = 0; i < 5; i++) {
    const next = await reader.read();
    chunks++;
    text += new TextDecoder().decode(next.value);
  }
  const read = pages - hashed;
  const lines = text.split('\n').length - 2;
  t.ok(read <= Math.ceil(lines / 10) + 1, `six chunks (${lines} records) read ${read} pages: what they needed`);
  await reader.cancel();
  t.equal(pages - hashed, read, 'a cancel reads nothing more');
  t.ok(chunks < out.record_count, 'fewer chunks than records');

  // Read to the end, the stream holds the export's bytes, with a page count that grows with the entries.
  const asOf = (JSON.parse(out.header) as { as_of: string }).as_of;
  pages = 0;
  const whole = await exportKind(service, ctx(), 'access-log', { as_of: asOf, format: 'jsonl' }, paging);
  const streamed = await new Response(exportStream(whole, 2000)).text();
  t.equal(streamed, textOf(await exportKind(service, ctx(), 'access-log', { as_of: asOf, format: 'jsonl' })), 'the stream\'s text');
  t.ok(pages >= 2 * 40, `both passes read page by page (${pages} pages)`);
});

t.test('a client that goes away mid-export stops the reading', async (t) => {
  const served = await serveApp(t);
  await accessEntries(served.service, 30_000);
  // Counts the export's page reads on the index's connection (the route reads pages of 500 rows).
  let pages = 0;
  const db = served.service.store.index.db as Database.Database & { prepare: Database.Database['prepare'] };
  const prepare = db.prepare.bind(db);
  db.prepare = ((sql: string) => {
    if (sql.includes('AND kind = ? AND seq > ?')) pages++;
    return prepare(sql);
  }) as Database.Database['prepare'];
  t.teardown(() => {
    delete (db as { prepare?: unknown }).prepare;
  });

  const headers = { Authorization: `Bearer ${TOKENS.customer}`, 'X-Tenant-Id': SCOPE_A.tenant_id, 'X-Workspace-Id': SCOPE_A.workspace_id, 'X-Project-Id': SCOPE_A.project_id };
  const whole = await fetch(`${served.baseUrl}/v1/exports/access-log?format=jsonl`, { headers });
  t.equal(whole.status, 200);
  const lines = (await whole.text()).split('\n').filter(Boolean).length;
  t.ok(lines > 30_000, `the whole export: ${lines} lines`);
  const full = pages;
  t.ok(full >= 120, `read to the end, both passes read every page (${full})`);

  pages = 0;
  const abort = new AbortController();
  const res = await fetch(`${served.baseUrl}/v1/exports/access-log?format=jsonl`, { headers, signal: abort.signal });
  t.equal(res.status, 200);
  const reader = res.body!.getReader();
  await reader.read();
  abort.abort();
  await reader.cancel().catch(() => {});
  await new Promise((resolve) => setTimeout(resolve, 300));
  const after = pages;
  await new Promise((resolve) => setTimeout(resolve, 300));
  t.equal(pages, after, 'nothing more is read once the client is gone');
  t.ok(after < full, `the export stopped part way (${after} of ${full} pages)`);
  const again = await fetch(`${served.baseUrl}/v1/exports/access-log?format=jsonl`, { headers });
  t.equal(again.status, 200, 'the next export answers');
  await again.text();
});
