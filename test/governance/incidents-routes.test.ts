// Incidents through the routes (docs/governance/incidents.md): logging with the scope's assets and
// evidence; the list's filters and paging; ETag and If-Match (412); the merge-patch content type;
// the lifecycle (409 invalid_transition logged as denied, a reopen with its reason); the serious
// closing rule; the Art. 73 clocks on the injected clock; cross-scope 404s logged as denied; the
// review triggers; the same answers after the index is rebuilt. The app is built with
// INCIDENT_ROUTES added to the route table, as route-table.ts will hold them.
import t, { type Test } from 'tap';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { payloadSchemaOf, type StoredEvent } from '../../src/domain/event.ts';
import { incidentStream } from '../../src/domain/streams.ts';
import { incidentTriggers } from '../../src/service/governance/incidents-service.ts';
import { assertSchema, SCOPE_A, SCOPE_B, tempDir, testApp, type Call } from '../fixtures/test-app.ts';
import { testSchemas } from '../fixtures/templates.ts';
import { straddle, versionsOf } from '../fixtures/straddle.ts';

const reporter = { type: 'user', id: 'rhea' };
const officer = { type: 'user', id: 'otto' };
const START = Date.parse('2026-11-20T10:00:00.000Z');
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const schemas = testSchemas();

/** A clock the test sets; it stands still between settings, so two runs read the same instants. */
function settableClock() {
  let now = START;
  return { clock: () => new Date(now), set: (ms: number) => void (now = ms) };
}

async function incidents(t: Test, options: { dataDir?: string } = {}) {
  const time = settableClock();
  const base = await testApp(t, { clock: time.clock, ...(options.dataDir ? { dataDir: options.dataDir } : {}) });
  const { app, call } = base;
  const events = (): StoredEvent[] => readFileSync(join(base.dataDir, 'events.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as StoredEvent);
  const register = async (assetId: string, scope = SCOPE_A) => {
    const r = await call('/v1/governance/assets', { scope, body: { asset_id: assetId, name: `Asset ${assetId}`, purpose: 'Rank job applications', owner: reporter, deployment_context: 'HR', models: [{ provider: 'acme', name: 'm1' }] } });
    if (r.status !== 201) throw new Error(`register: ${r.text}`);
  };
  const attach = async (taskId: string, artifactId: string, scope = SCOPE_A) => {
    await call('/v1/tasks', { scope, body: { task_id: taskId, title: `Evidence task ${taskId}`, session_id: 'sess-1' } });
    const evidence = { artifact_id: artifactId, uri: `https://ci.example.test/${artifactId}`, evidence_type: 'document', sha256: 'e'.repeat(64), confidence: 'verified', redaction: 'none', content_trust: 'untrusted_external', captured_at: '2026-11-01T09:00:00Z' };
    const r = await call(`/v1/tasks/${taskId}/checkpoints`, { scope, body: { progress: 'Attached the news report', evidence_refs: [evidence] } });
    if (r.status !== 201) throw new Error(`checkpoint: ${r.text}`);
  };
  const log = (body: Record<string, unknown> = {}, c: Call = {}) =>
    call('/v1/incidents', { ...c, body: { class: 'incident', title: 'CV ranking drops candidates with career gaps', description: 'Gaps over a year rank last.', aware_at: '2026-11-18T09:30:00Z', severity: 'sev3', actor: reporter, ...body } });
  const patch = (id: string, body: Record<string, unknown>, c: Call = {}) =>
    call(`/v1/incidents/${id}`, { ...c, method: 'PATCH', headers: { 'Content-Type': 'application/merge-patch+json', ...c.headers }, body: { actor: reporter, ...body } });
  return { ...base, app, call, time, events, register, attach, log, patch };
}

const denied = (e: StoredEvent) => [e.kind, e.payload.action, e.payload.outcome, e.payload.reason_code];

t.test('POST /v1/incidents: 201 incident.logged with its access entry in one unit; refs checked; replay answers the same', async (t) => {
  const g = await incidents(t);
  await g.register('cv-1');
  await g.attach('t-1', 'news-1');
  const r = await g.log({ asset_ids: ['cv-1'], evidence_refs: ['news-1'], severity: 'sev2', tags: [{ framework: 'owasp-llm-top10', version: '2025', id: 'LLM09' }] }, { idempotencyKey: 'inc-key-1' });
  t.equal(r.status, 201);
  assertSchema(t, 'api/incident-write-response.json', r.json);
  const inc = r.json.incident;
  t.match(inc, { status: 'open', severity: 'sev2', reported_by: reporter, aware_at: '2026-11-18T09:30:00.000Z', serious: { is_serious: false, basis: null }, causal_link: 'unknown', clocks: [], description_trust: 'customer_asserted', incident_version: 1 });
  t.equal(r.headers.get('etag'), `"${inc.version}"`, 'ETag: its version');
  const written = g.events().slice(-2);
  t.same(written.map((e) => [e.kind, e.payload.action ?? null, e.payload.outcome ?? null]), [['incident.logged', null, null], ['access.logged', 'created', 'allowed']]);
  t.same(written.map((e) => e.unit), [{ index: 0, size: 2 }, { index: 1, size: 2 }], 'one unit');
  for (const e of written) t.same(schemas.validate(payloadSchemaOf(e.kind)!, e.payload), [], `${e.kind} matches its payload schema`);
  const again = await g.log({ asset_ids: ['cv-1'], evidence_refs: ['news-1'], severity: 'sev2', tags: [{ framework: 'owasp-llm-top10', version: '2025', id: 'LLM09' }] }, { idempotencyKey: 'inc-key-1' });
  t.same([again.status, again.headers.get('idempotent-replayed'), again.json.incident.incident_id], [200, 'true', inc.incident_id], 'a replay');

  await g.register('cv-b', SCOPE_B);
  await g.attach('t-b', 'news-b', SCOPE_B);
  for (const [name, body, status, code] of [
    ['an asset of another scope', { asset_ids: ['cv-b'] }, 404, 'not_found_in_scope'],
    ['an asset nowhere', { asset_ids: ['cv-1', 'nope-1'] }, 404, 'not_found_in_scope'],
    ['evidence of another scope', { evidence_refs: ['news-b'] }, 422, 'evidence_required'],
    ['serious without a basis', { serious: { is_serious: true } }, 422, 'validation_failed'],
  ] as const) {
    const before = g.events().length;
    const refused = await g.log(body);
    t.same([refused.status, refused.json.code], [status, code], name);
    t.same(g.events().slice(before).map(denied), [['access.logged', 'attempted', 'denied', code]], `${name}: logged as denied, nothing else`);
    // A missing asset is the resource refused; otherwise the entry names no incident (none was logged).
    const resource = status === 404 ? { type: 'asset', id: body.asset_ids!.at(-1) } : { type: 'incident', id: 'new' };
    t.same(g.events().at(-1)!.payload.resource, resource, `${name}: the entry names ${resource.type} ${resource.id}`);
  }
  const bad = await g.log({ severity: 'sev5' });
  t.same([bad.status, bad.json.code], [422, 'validation_failed'], 'the schema refuses an unknown severity');
});

t.test('GET /v1/incidents: newest first, filtered by status, severity and asset, cursor paging', async (t) => {
  const g = await incidents(t);
  await g.register('cv-1');
  await g.register('cv-2');
  const ids: string[] = [];
  for (const [severity, assets] of [['sev1', ['cv-1']], ['sev3', ['cv-2']], ['sev3', ['cv-1', 'cv-2']]] as const) {
    g.time.set(START + ids.length * HOUR);
    ids.push((await g.log({ severity, asset_ids: assets })).json.incident.incident_id);
  }
  t.equal((await g.patch(ids[1]!, { status: 'investigating' })).status, 200);
  const list = async (query: string) => {
    const r = await g.call(`/v1/incidents${query}`);
    if (r.status === 200) assertSchema(t, 'api/incident-list.json', r.json, `${query} matches its schema`);
    return r;
  };
  const idsOf = async (query: string) => (await list(query)).json.incidents.map((i: { incident_id: string }) => i.incident_id);
  t.same(await idsOf(''), [ids[2], ids[1], ids[0]], 'newest first');
  t.same(await idsOf('?severity=sev3'), [ids[2], ids[1]]);
  t.same(await idsOf('?status=investigating'), [ids[1]]);
  t.same(await idsOf('?status=open&asset_id=cv-1'), [ids[2], ids[0]]);
  t.same(await idsOf('?severity=sev3&asset_id=cv-1'), [ids[2]]);
  const first = (await list('?limit=2')).json;
  t.same([first.incidents.length, first.next_cursor], [2, ids[1]]);
  const second = (await list(`?limit=2&cursor=${first.next_cursor}`)).json;
  t.same([second.incidents.map((i: { incident_id: string }) => i.incident_id), second.next_cursor], [[ids[0]], null]);
  t.match(first.non_claims[0], /planning, not legal advice/);
  for (const [query, code] of [['?severity=sev9', 'invalid_query'], ['?status=done', 'invalid_query'], ['?cursor=inc_unknown', 'invalid_query'], ['?limit=0', 'invalid_query']] as const) {
    const r = await list(query);
    t.same([r.status, r.json.code], [400, code], query);
  }
  await g.register('cv-b', SCOPE_B);
  const before = g.events().length;
  const other = await list('?asset_id=cv-b');
  t.same([other.status, other.json.code], [404, 'not_found_in_scope'], 'an asset of another scope');
  t.same(g.events().slice(before).map(denied), [['access.logged', 'attempted', 'denied', 'not_found_in_scope']], 'logged as denied');
});

t.test('GET and PATCH another scope\'s incident: 404, logged as denied in the caller\'s scope', async (t) => {
  const g = await incidents(t);
  const id = (await g.log()).json.incident.incident_id;
  const one = await g.call(`/v1/incidents/${id}`);
  t.equal(one.status, 200);
  assertSchema(t, 'api/incident.json', one.json);
  t.equal(one.headers.get('etag'), `"${one.json.version}"`);
  for (const [name, send] of [
    ['GET', () => g.call(`/v1/incidents/${id}`, { scope: SCOPE_B })],
    ['PATCH', () => g.patch(id, { severity: 'sev1' }, { scope: SCOPE_B })],
    ['GET of no incident', () => g.call('/v1/incidents/inc_nowhere')],
  ] as const) {
    const before = g.events().length;
    const r = await send();
    t.same([r.status, r.json.code], [404, 'not_found_in_scope'], name);
    const entries = g.events().slice(before);
    t.same(entries.map(denied), [['access.logged', 'attempted', 'denied', 'not_found_in_scope']], `${name}: logged as denied`);
    t.equal(entries[0]!.tenant_id, name === 'GET of no incident' ? SCOPE_A.tenant_id : SCOPE_B.tenant_id, `${name}: in the caller's scope`);
  }
  t.equal((await g.call(`/v1/incidents/${id}`)).json.severity, 'sev3', 'unchanged');
});

t.test('PATCH: merge-patch or JSON, If-Match its version (412 when stale, nothing written), ETag the new version', async (t) => {
  const g = await incidents(t);
  const created = (await g.log({ model_version: 'ranker 2026.10' })).json.incident;
  const id = created.incident_id;
  const etag = `"${created.version}"`;
  const stale = async (ifMatch: string) => {
    const before = g.events().length;
    const r = await g.patch(id, { severity: 'sev2' }, { headers: { 'If-Match': ifMatch } });
    t.same([r.status, r.json.code], [412, 'precondition_failed'], `If-Match ${ifMatch} is stale`);
    t.equal(g.events().length, before, 'nothing written');
  };
  await stale('"0"');
  const r = await g.patch(id, { severity: 'sev2', model_version: null, status: 'investigating' }, { headers: { 'If-Match': etag } });
  t.equal(r.status, 200, 'merge-patch with the current version');
  assertSchema(t, 'api/incident-write-response.json', r.json);
  t.match(r.json.incident, { severity: 'sev2', model_version: null, status: 'investigating', incident_version: 2, updated_by: reporter });
  t.equal(r.headers.get('etag'), `"${r.json.incident.version}"`);
  t.not(r.json.incident.version, created.version);
  await stale(etag);
  const e = g.events().at(-2)!;
  t.same([e.kind, e.payload.from_status, e.payload.to_status, e.payload.patch, e.payload.reason], ['incident.updated', 'open', 'investigating', { severity: 'sev2', model_version: null, status: 'investigating' }, null], 'the patch recorded');
  t.same(schemas.validate('events/incident-updated.json', e.payload), [], 'matches its payload schema');
  const asJson = await g.patch(id, { note: 'Sent as application/json' }, { headers: { 'Content-Type': 'application/json' } });
  t.equal(asJson.status, 200, 'application/json too');
  const asText = await g.call(`/v1/incidents/${id}`, { method: 'PATCH', headers: { 'Content-Type': 'text/plain' }, body: JSON.stringify({ note: 'text' }) });
  t.same([asText.status, asText.json.code], [415, 'unsupported_media_type']);
  const unknown = await g.patch(id, { aware_at: '2026-11-19T00:00:00Z' });
  t.same([unknown.status, unknown.json.code], [422, 'validation_failed'], 'aware_at is fixed at logging');
});

t.test('the lifecycle through the route: 409 invalid_transition logged as denied; regression and reopen with a reason', async (t) => {
  const g = await incidents(t);
  const id = (await g.log()).json.incident.incident_id;
  const refused = async (name: string, body: Record<string, unknown>, status: number, code: string) => {
    const before = g.events().length;
    const r = await g.patch(id, body);
    t.same([r.status, r.json.code], [status, code], name);
    t.same(g.events().slice(before).map(denied), [['access.logged', 'attempted', 'denied', code]], `${name}: logged as denied, nothing else`);
  };
  await refused('open → mitigated', { status: 'mitigated', immediate_mitigations: 'Rolled back the ranking model.' }, 409, 'invalid_transition');
  await refused('open → closed as resolved', { status: 'closed', close_reason: 'resolved', note: 'Fixed.' }, 409, 'invalid_transition');
  t.equal((await g.patch(id, { status: 'investigating' })).status, 200);
  await refused('mitigate without mitigations', { status: 'mitigated' }, 422, 'transition_incomplete');
  t.equal((await g.patch(id, { status: 'mitigated', immediate_mitigations: 'Rolled back the ranking model.' })).status, 200);
  await refused('regress without a reason', { status: 'investigating' }, 422, 'transition_incomplete');
  const regressed = await g.patch(id, { status: 'investigating', reason: 'The bias came back after the retrain.' });
  t.same([regressed.status, g.events().at(-2)!.payload.reason], [200, 'The bias came back after the retrain.'], 'the reason on the event');
  t.equal((await g.patch(id, { status: 'closed', close_reason: 'duplicate', note: 'Duplicate of an older incident.' })).status, 200);
  await refused('closed → mitigated', { status: 'mitigated' }, 409, 'invalid_transition');
  const reopened = await g.patch(id, { status: 'investigating', reason: 'Not a duplicate after all.' });
  t.match(reopened.json.incident, { status: 'investigating', close_reason: null, incident_version: 6 }, 'reopened');
});

t.test('an update whose reads straddle an index commit is decided on the incident as it is after it', async (t) => {
  // The incident is read as it was before the first update was indexed (test/fixtures/straddle.ts).
  const g = await incidents(t);
  const id = (await g.log()).json.incident.incident_id;
  await g.service.store.settled();
  const gov = g.service.gov;
  const stale = gov.incident(SCOPE_A, id)!;
  const before = versionsOf(gov, [incidentStream(SCOPE_A, id)]);
  t.equal((await g.patch(id, { status: 'closed', close_reason: 'duplicate', note: 'Duplicate of an older incident.' })).status, 200, 'open → closed as a duplicate');
  const landed = straddle(t, gov, 'incident', (_scope, incidentId) => incidentId === id, stale, before);
  const second = await g.patch(id, { status: 'investigating' });
  t.ok(landed(), 'the commit landed during the second update');
  // Decided on the closed incident: a reopen needs a reason. On the stale one it was open → investigating.
  t.same([second.status, second.json.code], [422, 'transition_incomplete'], 'a reopen without its reason, not an open incident taken up');
  t.equal(g.events().filter((e) => e.kind === 'incident.updated').length, 1, 'only the close in the log');
});

t.test('closing a serious incident needs a regulatory_report decision; not_required by a user other than the reporter', async (t) => {
  const g = await incidents(t);
  const id = (await g.log({ severity: 'sev1', serious: { is_serious: true, basis: 'health_harm' } })).json.incident.incident_id;
  const close = { status: 'closed', close_reason: 'not_an_incident', note: 'A test account; nobody was harmed.' };
  for (const [name, body, status, code] of [
    ['no decision', close, 422, 'regulatory_report_required'],
    ['the reporter waives it', { ...close, regulatory_report: { status: 'not_required', decided_by: reporter } }, 403, 'reporter_cannot_waive_report'],
    ['decided_by someone else', { ...close, regulatory_report: { status: 'not_required', decided_by: officer } }, 403, 'report_decider_mismatch'],
    ['an agent waives it', { ...close, actor: { type: 'agent', id: 'bot-1' }, regulatory_report: { status: 'not_required', decided_by: { type: 'agent', id: 'bot-1' } } }, 403, 'actor_type_not_allowed'],
  ] as const) {
    const before = g.events().length;
    const r = await g.patch(id, body);
    t.same([r.status, r.json.code], [status, code], name);
    t.same(g.events().slice(before).map(denied), [['access.logged', 'attempted', 'denied', code]], `${name}: logged as denied`);
  }
  const ok = await g.patch(id, { ...close, actor: officer, regulatory_report: { status: 'not_required', decided_by: officer } });
  t.equal(ok.status, 200, 'another user decides it is not required, and it closes');
  t.match(ok.json.incident, { status: 'closed', regulatory_report: { status: 'not_required', decided_by: officer, reference: null }, clocks: [{ status: 'answered', answered_in_time: true }] });
});

t.test('Art. 73 clocks on the injected clock: due_at from aware_at in UTC, remaining then overdue', async (t) => {
  const g = await incidents(t);
  const aware = '2026-11-20T08:00:00Z';
  const id = (await g.log({ severity: 'sev1', aware_at: aware, serious: { is_serious: true, basis: 'critical_infrastructure' } })).json.incident.incident_id;
  const clockAt = async (ms: number) => {
    g.time.set(ms);
    return (await g.call(`/v1/incidents/${id}`)).json.clocks;
  };
  t.same(await clockAt(START), [{ regime: 'eu-ai-act:art-73', basis: 'critical_infrastructure', days: 2, from: '2026-11-20T08:00:00.000Z', due_at: '2026-11-22T08:00:00.000Z', status: 'running', remaining_seconds: 46 * 3600, answered_in_time: null }]);
  t.match(await clockAt(Date.parse('2026-11-22T09:00:00Z')), [{ status: 'overdue', remaining_seconds: -3600 }], 'an hour late');
  t.equal((await g.patch(id, { serious: { basis: 'death' } })).status, 200, 'the basis corrected');
  t.match(await clockAt(Date.parse('2026-11-22T09:00:00Z')), [{ basis: 'death', days: 10, due_at: '2026-11-30T08:00:00.000Z', status: 'running' }]);
  const r = await g.call(`/v1/incidents/${id}`);
  t.match(r.json.non_claims, [/planning, not legal advice/]);
  t.same((await g.call(`/v1/incidents/${(await g.log()).json.incident.incident_id}`)).json.clocks, [], 'not serious: no clock');
});

t.test('incidentTriggers: a sev1/sev2 incident on an asset brings its review forward; sev3 does not', async (t) => {
  const g = await incidents(t);
  await g.register('cv-1');
  await g.register('cv-2');
  g.time.set(START + DAY);
  await g.log({ severity: 'sev3', asset_ids: ['cv-1', 'cv-2'] });
  const id = (await g.log({ severity: 'sev2', asset_ids: ['cv-1'] })).json.incident.incident_id;
  const asset = (assetId: string) => g.deps.gov.asset(SCOPE_A, assetId)!;
  t.same(incidentTriggers(g.deps, SCOPE_A, asset('cv-1'), g.deps.clock()), [{ kind: 'incident', at: new Date(START + DAY).toISOString(), ref: id }]);
  t.same(incidentTriggers(g.deps, SCOPE_A, asset('cv-2'), g.deps.clock()), [], 'sev3 is no trigger');
  t.same(incidentTriggers(g.deps, SCOPE_A, asset('cv-1'), new Date(START)), [], 'not yet happened at an earlier now');
});

t.test('rebuilding the index gives identical answers for the incident routes', async (t) => {
  const dataDir = tempDir(t);
  const answers = async (g: Awaited<ReturnType<typeof incidents>>, ids: string[]) => {
    const out: unknown[] = [];
    for (const path of ['/v1/incidents', '/v1/incidents?status=closed', '/v1/incidents?asset_id=cv-1', ...ids.map((id) => `/v1/incidents/${id}`)]) {
      const r = await g.call(path);
      out.push([r.status, r.headers.get('etag'), r.json]);
    }
    return out;
  };
  const g1 = await incidents(t, { dataDir });
  await g1.register('cv-1');
  const a = (await g1.log({ severity: 'sev1', asset_ids: ['cv-1'], serious: { is_serious: true, basis: 'death' } })).json.incident.incident_id;
  const b = (await g1.log()).json.incident.incident_id;
  await g1.patch(b, { status: 'closed', close_reason: 'duplicate', note: `Duplicate of ${a}.` });
  await g1.patch(a, { status: 'investigating', tags: [{ framework: 'mitre-atlas', version: '4.7.0', id: 'AML.T0051.001' }] });
  const before = await answers(g1, [a, b]);
  await g1.close();
  for (const suffix of ['', '-wal', '-shm']) rmSync(join(dataDir, `index.sqlite${suffix}`), { force: true });
  const g2 = await incidents(t, { dataDir });
  t.same(await answers(g2, [a, b]), before, 'the rebuilt index answers the same');
});

t.test('a stale If-Match is 412 before the rules; a patch that changes nothing writes nothing; only another user makes a serious incident not serious', async (t) => {
  const g = await incidents(t);
  const created = (await g.log({ severity: 'sev1', serious: { is_serious: true, basis: 'health_harm' } })).json.incident;
  const id = created.incident_id;
  const moved = await g.patch(id, { status: 'investigating' });
  t.equal(moved.status, 200);
  const nothingWritten = async (name: string, body: Record<string, unknown>, headers: Record<string, string>, status: number, code: string) => {
    const before = g.events().length;
    const r = await g.patch(id, body, { headers });
    t.same([r.status, r.json.code], [status, code], name);
    return g.events().slice(before);
  };
  // Each of these bodies a rule would refuse; the client's view is stale, so it hears that first.
  for (const body of [{ status: 'open' }, { status: 'mitigated' }, { severity: 'sev1' }]) {
    t.same(await nothingWritten(`stale If-Match with ${JSON.stringify(body)}`, body, { 'If-Match': `"${created.version}"` }, 412, 'precondition_failed'), [], 'nothing written');
  }
  const same = await nothingWritten('members sent with the values they hold', { status: 'investigating', severity: 'sev1' }, { 'If-Match': `"${moved.json.incident.version}"` }, 422, 'validation_failed');
  t.same(same.map(denied), [['access.logged', 'attempted', 'denied', 'validation_failed']], 'no incident.updated, the refusal logged');
  const declassify = { status: 'closed', close_reason: 'not_an_incident', note: 'Closing it.', serious: { is_serious: false, basis: null } };
  const byReporter = await nothingWritten('the reporter clears the flag and closes', declassify, {}, 403, 'reporter_cannot_waive_report');
  t.same(byReporter.map(denied), [['access.logged', 'attempted', 'denied', 'reporter_cannot_waive_report']], 'logged as denied');
  t.equal((await g.call(`/v1/incidents/${id}`)).json.serious.is_serious, true, 'still serious');
  const byOfficer = await g.patch(id, { ...declassify, actor: officer });
  t.same([byOfficer.status, byOfficer.json.incident.status, byOfficer.json.incident.serious], [200, 'closed', { is_serious: false, basis: null }], 'another user decides it and closes it');
});

t.test('an aware_at that leaves no room for the Art. 73 clock is refused before anything is written', async (t) => {
  const g = await incidents(t);
  const before = g.events().length;
  for (const serious of [{ is_serious: true, basis: 'death' }, { is_serious: false, basis: null }]) {
    const r = await g.log({ aware_at: '9999-12-25T00:00:00Z', serious });
    t.same([r.status, r.json.code], [422, 'validation_failed'], `serious: ${serious.is_serious}`);
    t.match(r.json.detail, /aware_at 9999-12-25T00:00:00.000Z leaves no room for the Art\. 73 clock, which may run 15 days from it/);
  }
  t.same(g.events().slice(before).map(denied), [['access.logged', 'attempted', 'denied', 'validation_failed'], ['access.logged', 'attempted', 'denied', 'validation_failed']], 'only the refusals are logged: no incident');
  t.equal((await g.call('/v1/incidents')).status, 200, 'the scope\'s incidents still read');
  t.equal((await g.call('/v1/governance/dashboard')).status, 200, 'and its dashboard');
  const latest = await g.log({ aware_at: '9999-12-16T23:59:59.999Z', serious: { is_serious: true, basis: 'property_or_environment' } });
  t.equal(latest.status, 201, 'the latest aware_at whose longest clock still has a date');
  t.equal(latest.json.incident.clocks[0].due_at, '9999-12-31T23:59:59.999Z');
});
