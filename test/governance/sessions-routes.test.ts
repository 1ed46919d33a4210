// Sessions through the routes (docs/governance/sessions.md): POST /v1/sessions stores the host only
// as its per-tenant hash and an IP only as its class (a raw IP elsewhere → 422, logged as denied);
// the provenance read marks each field observed | token | asserted, counts actors and kinds, names
// the OpenTelemetry GenAI attributes, is access-logged, answers 404 across scopes (logged as
// denied) and the same after an index rebuild; and, as a property, never shows a raw IP or host
// whatever an adapter or a caller sent. The app is built with SESSION_ROUTES added to the route
// table, as route-table.ts will hold them.
import t, { type Test } from 'tap';
import fc from 'fast-check';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { StoredEvent } from '../../src/domain/event.ts';
import { classifyIp, hostSha256, PROVENANCE_NON_CLAIMS, redactIps, tenantHostKey } from '../../src/domain/governance/provenance.ts';
import { assertSchema, SCOPE_A, SCOPE_B, tempDir, testApp } from '../fixtures/test-app.ts';

async function sessions(t: Test, options: { dataDir?: string; idPrefix?: string } = {}) {
  let k = 0;
  const base = await testApp(t, { ...(options.dataDir ? { dataDir: options.dataDir } : {}), ...(options.idPrefix ? { newId: (prefix: string) => `${prefix}_${options.idPrefix}_${++k}` } : {}) });
  const { app, call } = base;
  const events = (): StoredEvent[] => readFileSync(join(base.dataDir, 'events.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as StoredEvent);
  const key = tenantHostKey(base.deps.keys.hmac.secret, SCOPE_A.tenant_id);
  let n = 0;
  const rawBind = (sessionId: string, payload: Record<string, unknown>, extra: Record<string, unknown> = {}, scope = SCOPE_A) =>
    call('/v1/events', { scope, idempotencyKey: `raw-${++n}`, body: { kind: 'session.bound', ...scope, session_id: sessionId, payload, ...extra } });
  const provenance = (sessionId: string, scope = SCOPE_A) => call(`/v1/sessions/${sessionId}/provenance`, { scope });
  return { ...base, app, call, events, key, rawBind, provenance };
}

const BIND = {
  session_id: 'sess-1', principal: { type: 'service_account', id: 'sa-ci' }, agent: 'intake-agent 0.4.1', agent_id: 'agent-intake', provider_name: 'anthropic',
  client_app: 'gov-mcp 0.1.0', host: 'Build-Box-7.corp.example', ip: '10.1.2.3', transport: 'stdio', source_harness: 'claude-code',
};

t.test('POST /v1/sessions binds a session: host hashed, IP classified and dropped, with its access-log entry', async (t) => {
  const g = await sessions(t);
  const before = g.events().length;
  const r = await g.call('/v1/sessions', { body: BIND });
  t.equal(r.status, 201, r.text);
  assertSchema(t, 'api/session-write-response.json', r.json);
  const { host: _h, ip: _i, ...rest } = BIND;
  t.same(r.json.session, { ...rest, host_sha256: hostSha256(BIND.host, g.key), ip_class: 'private' });
  t.notMatch(r.text, /Build-Box|10\.1\.2\.3/, 'neither the host nor the IP is answered');
  const written = g.events().slice(before);
  t.same(written.map((e) => [e.kind, e.session_id ?? null, e.payload.action ?? null, e.payload.outcome ?? null]), [['session.bound', 'sess-1', null, null], ['access.logged', null, 'created', 'allowed']]);
  t.same(written[1]!.payload.resource, { type: 'session', id: 'sess-1' });
  t.notMatch(readFileSync(join(g.dataDir, 'events.jsonl'), 'utf8'), /Build-Box|build-box|10\.1\.2\.3/, 'the log holds neither');
  t.equal(hostSha256(' build-box-7.CORP.example ', g.key), r.json.session.host_sha256, 'the hash ignores case and surrounding space');
  t.not(hostSha256(BIND.host, tenantHostKey(g.deps.keys.hmac.secret, SCOPE_B.tenant_id)), r.json.session.host_sha256, 'salted per tenant');

  const replay = await g.call('/v1/sessions', { body: BIND, idempotencyKey: 'bind-1' });
  const again = await g.call('/v1/sessions', { body: BIND, idempotencyKey: 'bind-1' });
  t.equal(replay.status, 201);
  t.equal(again.status, 200);
  t.equal(again.headers.get('idempotent-replayed'), 'true');
  t.same(again.json, replay.json, 'a replay answers the same');
});

t.test('POST /v1/sessions refuses a raw IP outside ip, logs the refusal, stores nothing else', async (t) => {
  const g = await sessions(t);
  for (const [member, value, pointer] of [['agent', 'agent on 192.168.0.4', '/agent'], ['client_app', 'app@fe80::1', '/client_app'], ['source_harness', '2001:db8::7', '/source_harness']] as const) {
    const before = g.events().length;
    const body = { session_id: 'sess-x', principal: { type: 'user', id: 'u1' }, [member]: value };
    const r = await g.call('/v1/sessions', { body });
    t.equal(r.status, 422, member);
    t.same([r.json.ok, r.json.template_id, r.json.blockers.map((b: { code: string; pointer: string }) => [b.code, b.pointer])], [false, 'session.bind.v1', [['schema_violation', pointer]]], 'the gate\'s validation body');
    t.match(r.json.repair_prompt, /holds an IP address/);
    const validated = await g.call('/v1/templates/validate', { scope: null, body: { template_id: 'session.bind.v1', payload: body } });
    t.same(r.json, validated.json, 'what POST /v1/templates/validate answers');
    const written = g.events().slice(before);
    t.same(written.map((e) => [e.kind, e.payload.action, e.payload.outcome, e.payload.resource]), [['access.logged', 'attempted', 'denied', { type: 'session', id: 'sess-x' }]]);
    t.notOk(JSON.stringify(written).includes(value), 'the refused value is not logged');
  }
  const before = g.events().length;
  const hidden = await g.call('/v1/sessions', { body: { session_id: '10.1.2.3', principal: { type: 'user', id: 'u1' } } });
  t.equal(hidden.status, 422, 'an address as the session id');
  t.same(g.events().slice(before).map((e) => e.payload.resource), [{ type: 'session', id: 'refused-session-id' }], 'logged without it');
  const bad = await g.call('/v1/sessions', { body: { session_id: 'sess-x', principal: { type: 'user', id: 'u1' }, ip_class: '10.0.0.1' } });
  t.equal(bad.status, 422, 'ip_class is a class, not an address');
});

t.test('POST /v1/sessions passes the session.bind.v1 gate: starter text and missing members are refused, nothing written', async (t) => {
  const g = await sessions(t);
  const before = g.events().length;
  const starter = await g.call('/v1/sessions', { body: { session_id: 'sess-y', principal: { type: 'user', id: 'u1' }, agent: '<agent name and version>' } });
  t.equal(starter.status, 422);
  t.same(starter.json.blockers.map((b: { code: string; pointer: string }) => [b.code, b.pointer]), [['placeholder_text', '/agent']], 'starter text is not a value');
  const missing = await g.call('/v1/sessions', { body: { session_id: 'sess-y' } });
  t.equal(missing.status, 422);
  t.same(missing.json.missing_fields, ['principal.type', 'principal.id', 'principal'], 'the template\'s required fields, and the schema\'s');
  t.equal(g.events().length, before, 'neither is written nor logged');
  const template = (await g.call('/v1/templates/session.bind.v1', { scope: null })).json;
  t.same([template.route, template.request_schema, template.status], [{ method: 'POST', path: '/v1/sessions' }, 'api/session-bind-request.json', 'preview'], 'the template describes the route (GOVERNANCE J)');
});

t.test('GET /v1/sessions/{session_id}/provenance: markers, actors, kinds, OpenTelemetry names, access log', async (t) => {
  const g = await sessions(t);
  t.equal((await g.call('/v1/sessions', { body: BIND })).status, 201);
  t.equal((await g.call('/v1/tasks', { body: { task_id: 'task-1', title: 'Rank the intake queue', session_id: 'sess-1', actor: { type: 'agent', id: 'agent-intake' } } })).status, 201);
  t.equal((await g.call('/v1/tasks/task-1/checkpoints', { body: { progress: 'Ranked the first ten', session_id: 'sess-1', actor: { type: 'agent', id: 'agent-intake' } } })).status, 201);
  const before = g.events().length;
  const r = await g.provenance('sess-1');
  t.equal(r.status, 200, r.text);
  assertSchema(t, 'api/session-provenance.json', r.json);
  const v = r.json;
  t.same(v.principal, { type: 'service_account', id: 'sa-ci', source: 'asserted' });
  t.same(v.token_principal, { type: 'service_account', id: 'preview-customer', source: 'token' });
  t.same(v.non_claims, PROVENANCE_NON_CLAIMS.asserted, "the preview's non-claims: its tokens name a transport, not a person");
  t.same(v.agent, { name: 'intake-agent 0.4.1', id: 'agent-intake', provider_name: 'anthropic', source: 'asserted' });
  t.same(v.client_app, { name: 'gov-mcp 0.1.0', source: 'asserted' });
  t.same(v.host, { name_sha256: hostSha256(BIND.host, g.key), source: 'asserted' });
  t.same(v.ip_class, { value: 'private', source: 'asserted' });
  t.same(v.transport, { classes: ['customer'], source: 'observed' });
  t.same(v.declared_transport, { value: 'stdio', source: 'asserted' });
  t.same(v.source_harness, { name: 'claude-code', source: 'asserted' });
  t.same(v.kinds, { 'session.bound': 1, 'task.checkpoint.written': 1, 'task.created': 1 });
  t.same(v.actors_seen, [{ type: 'agent', id: 'agent-intake', events: 2 }, { type: 'service_account', id: 'preview-customer', events: 1 }]);
  t.same(v.otel, { 'gen_ai.conversation.id': 'sess-1', 'gen_ai.agent.name': 'intake-agent 0.4.1', 'gen_ai.agent.id': 'agent-intake', 'gen_ai.provider.name': 'anthropic' });
  t.equal(v.window.event_count, 3);
  t.equal(v.bound.bindings, 1);
  const logged = g.events().slice(before);
  t.same(logged.map((e) => [e.kind, e.payload.action, e.payload.outcome, e.payload.resource]), [['access.logged', 'viewed', 'allowed', { type: 'session', id: 'sess-1' }]]);
});

t.test('a raw adapter session.bound is still accepted; its read shows the host hashed and no IP', async (t) => {
  const g = await sessions(t);
  const w = await g.rawBind('sess-raw', { principal: { type: 'user', id: '10.9.8.7' }, agent: 'bot via 8.8.8.8', host: 'laptop.local', ip_class: 'loopback', client_app: 'x [::1] y' }, { actor: { type: 'agent', id: '172.16.0.9' } });
  t.equal(w.status, 201, w.text);
  t.match(readFileSync(join(g.dataDir, 'events.jsonl'), 'utf8'), /laptop\.local/, 'the raw door stores the host as sent');
  const r = await g.provenance('sess-raw');
  t.equal(r.status, 200, r.text);
  assertSchema(t, 'api/session-provenance.json', r.json);
  t.same(r.json.host, { name_sha256: hostSha256('laptop.local', g.key), source: 'asserted' }, 'hashed on read, as the derived door would store it');
  t.same(r.json.principal, { type: 'user', id: '[ip:private]', source: 'asserted' });
  t.same(r.json.agent.name, 'bot via [ip:public]');
  t.same(r.json.client_app.name, 'x [[ip:loopback]] y');
  t.same(r.json.actors_seen, [{ type: 'agent', id: '[ip:private]', events: 1 }]);
  t.notMatch(r.text, /laptop|10\.9\.8\.7|8\.8\.8\.8|::1|172\.16/);
});

t.test('an unknown session or one of another scope → 404 not_found_in_scope, logged as denied', async (t) => {
  const g = await sessions(t);
  t.equal((await g.call('/v1/sessions', { body: BIND })).status, 201);
  for (const [name, id, scope] of [['another scope', 'sess-1', SCOPE_B], ['unknown', 'sess-none', SCOPE_A]] as const) {
    const before = g.events().length;
    const r = await g.provenance(id, scope);
    t.equal(r.status, 404, name);
    t.equal(r.json.code, 'not_found_in_scope');
    t.same(g.events().slice(before).map((e) => [e.kind, e.tenant_id, e.payload.outcome, e.payload.reason_code, e.payload.resource]), [['access.logged', scope.tenant_id, 'denied', 'not_found_in_scope', { type: 'session', id }]]);
  }
});

t.test('rebuilding the index gives identical provenance answers', async (t) => {
  const dataDir = tempDir(t);
  const g1 = await sessions(t, { dataDir });
  t.equal((await g1.call('/v1/sessions', { body: BIND })).status, 201);
  t.equal((await g1.rawBind('sess-2', { principal: { type: 'user', id: 'u2' }, host: 'h2.example' })).status, 201);
  t.equal((await g1.call('/v1/tasks', { body: { task_id: 'task-1', title: 'A task of the session', session_id: 'sess-1' } })).status, 201);
  const answers = async (g: typeof g1) => {
    const out: unknown[] = [];
    for (const id of ['sess-1', 'sess-2', 'sess-none']) {
      const r = await g.provenance(id);
      out.push([r.status, r.status === 200 ? r.json : r.json.code]); // a refusal's request_id differs
    }
    return out;
  };
  const before = await answers(g1);
  await g1.close();
  for (const suffix of ['', '-wal', '-shm']) rmSync(join(dataDir, `index.sqlite${suffix}`), { force: true });
  const g2 = await sessions(t, { dataDir, idPrefix: 'rebuilt' }); // the test's id counter starts again; new access-log entries need new ids
  t.same(await answers(g2), before, 'the rebuilt index answers the same');
});

t.test('ip classes and redaction', async (t) => {
  const cases: Array<[string, string]> = [
    ['127.0.0.1', 'loopback'], ['::1', 'loopback'], ['10.2.3.4', 'private'], ['172.31.0.1', 'private'], ['192.168.1.1', 'private'], ['fd12::1', 'private'],
    ['169.254.1.1', 'link_local'], ['fe80::1%eth0', 'link_local'], ['100.64.0.1', 'cgnat'], ['8.8.8.8', 'public'], ['2001:db8::1', 'public'], ['::ffff:10.0.0.1', 'private'], ['not-an-ip', 'unknown'],
  ];
  for (const [ip, cls] of cases) t.equal(classifyIp(ip), cls, ip);
  t.equal(redactIps('from 1.2.3.4 and fe80::1 ok'), 'from [ip:public] and [ip:link_local] ok');
  t.equal(redactIps('version 1.2 of cafe'), 'version 1.2 of cafe', 'no address, nothing marked');
});

// Every string of a view, deeply.
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => [k, ...strings(v)]);
  return [];
}

t.test('property: provenance never shows a raw IP or a raw host, whatever the input', async (t) => {
  const g = await sessions(t);
  const ID = /^[A-Za-z0-9][A-Za-z0-9_.:-]{1,127}$/;
  type Gen = { v: string; ips: string[] };
  const ip = fc.oneof(fc.ipV4(), fc.ipV6());
  const plain = (s: string): Gen => ({ v: s, ips: [] });
  const anIp = ip.map((x): Gen => ({ v: x, ips: [x] }));
  const text = fc.oneof(anIp, fc.string({ minLength: 1, maxLength: 40 }).map(plain),
    fc.tuple(fc.string({ maxLength: 10 }), ip, fc.string({ maxLength: 10 })).map(([a, b, c]): Gen => ({ v: `${a}${b}${c}`, ips: [b] })));
  const id = fc.oneof(anIp.filter((g) => ID.test(g.v)), fc.stringMatching(/^[a-z][a-z0-9-]{2,20}$/).map(plain));
  const host = fc.oneof(fc.domain().map(plain), anIp, fc.string({ minLength: 1, maxLength: 40 }).map(plain));
  const input = fc.record({ principal: id, actor: id, agent: text, client_app: text, transport: text, source_harness: text, host, ip: anIp });
  let n = 0;
  let read = 0;
  await fc.assert(fc.asyncProperty(input, fc.boolean(), async (g0, derived) => {
    const sessionId = `sess-p${++n}`;
    const i = Object.fromEntries(Object.entries(g0).map(([k, v]) => [k, v.v])) as Record<keyof typeof g0, string>;
    const ips = Object.values(g0).flatMap((v) => v.ips);
    const written = derived
      ? await g.call('/v1/sessions', { body: { session_id: sessionId, principal: { type: 'user', id: i.principal }, actor: { type: 'agent', id: i.actor }, agent: i.agent, client_app: i.client_app, transport: i.transport, source_harness: i.source_harness, host: i.host, ip: i.ip } })
      : await g.rawBind(sessionId, { principal: { type: 'user', id: i.principal }, agent: i.agent, client_app: i.client_app, transport: i.transport, source_harness: i.source_harness, host: i.host, ip_class: 'public' }, { actor: { type: 'agent', id: i.actor } });
    if (written.status !== 201) return; // refused (a raw IP at the derived door, a placeholder at the raw gate): nothing to read
    const r = await g.provenance(sessionId);
    if (r.status !== 200) throw new Error(r.text);
    read++;
    const shown = strings(r.json);
    for (const raw of ips) if (shown.some((s) => s.includes(raw))) throw new Error(`raw IP ${raw} shown: ${r.text}`);
    if (!/^sha256:[0-9a-f]{64}$/.test(r.json.host?.name_sha256 ?? '')) throw new Error(`host not hashed: ${r.text}`);
    const others = [i.principal, i.actor, i.agent, i.client_app, i.transport, i.source_harness, sessionId, ...strings(r.json.non_claims), ...strings(r.json.kinds), 'preview-customer'];
    if (i.host.length >= 8 && !others.some((s) => s.includes(i.host)) && shown.some((s) => s.includes(i.host))) throw new Error(`raw host ${i.host} shown: ${r.text}`);
  }), { numRuns: 60 });
  t.ok(read > 10, `${read} provenance reads checked`);
});

t.test('a provenance read of an id that holds an IP address is logged without it', async (t) => {
  const g = await sessions(t);
  const before = g.events().length;
  const r = await g.call('/v1/sessions/1.2.3.4/provenance');
  t.same([r.status, r.json.code], [404, 'not_found_in_scope']);
  const written = g.events().slice(before);
  t.same(written.map((e) => [e.kind, e.payload.outcome, e.payload.resource]), [['access.logged', 'denied', { type: 'session', id: 'refused-session-id' }]]);
  t.notOk(JSON.stringify(written).includes('1.2.3.4'), 'the address is not in the log');
});
