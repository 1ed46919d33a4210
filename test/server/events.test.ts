// POST /v1/events, OPTIONS /v1/events, /health, and the cross-cutting request rules (host, origin,
// auth, transport, content type, size, malformed JSON, scope) through app.request().
import t from 'tap';
import { expectNewEvents, expectNoEvents, expectResponse, spec } from '../fixtures/api-spec.ts';
import { assertSchema, rawEvent, SCOPE_A, testApp, TOKENS } from '../fixtures/test-app.ts';
import { VERSION } from '../../src/version.ts';

t.test('health is sanitized without a token and detailed with the operator token', async (t) => {
  const { call, deps } = await testApp(t);
  const open = await call('/health', { token: null, scope: null });
  t.equal(open.status, 200);
  assertSchema(t, 'api/health.json', open.json);
  t.equal(open.json.mode, 'preview');
  t.notOk('detail' in open.json, 'no detail without a token');
  t.ok(open.json.routes.some((r: any) => r.method === 'POST' && r.path === '/v1/events' && r.status === 'live'));
  t.match(open.headers.get('x-request-id'), /^req_/);

  const customer = await call('/health', { scope: null });
  t.notOk('detail' in customer.json, 'the customer token sees the sanitized view');

  const operator = await call('/health', { token: 'operator', scope: null });
  assertSchema(t, 'api/health.json', operator.json);
  t.same(Object.keys(operator.json.detail).sort(), ['data_dir', 'event_count', 'index_seq', 'index_state', 'last_seq', 'pid', 'uptime_s', 'version']);
  t.equal(operator.json.detail.data_dir, deps.store.dataDir, 'the data dir the preview serves');
  t.equal(operator.json.detail.version, VERSION, "the package's version");
  t.equal(operator.json.detail.index_state, 'current');
  for (const secret of [TOKENS.customer, TOKENS.operator, 'BEGIN', 'PRIVATE', 'run.json', 'keys/']) {
    t.notOk(operator.text.includes(secret), `never shows ${secret}`);
  }
});

t.test('authentication: missing or wrong token is 401 with WWW-Authenticate', async (t) => {
  const { call } = await testApp(t);
  for (const token of [null, 'not-the-token']) {
    const res = await call('/v1/search?q=x', { token });
    t.equal(res.status, 401);
    t.equal(res.headers.get('www-authenticate'), 'Bearer');
    t.equal(res.headers.get('content-type'), 'application/problem+json');
    assertSchema(t, 'api/problem.json', res.json);
    t.equal(res.json.code, 'unauthorized');
    t.equal(res.json.request_id, res.headers.get('x-request-id'));
  }
});

t.test('the scheme Bearer is case-insensitive; the token is not', async (t) => {
  const { call } = await testApp(t);
  for (const scheme of ['bearer', 'BEARER', 'BeArEr']) {
    const res = await call('/v1/search?q=x', { token: null, headers: { Authorization: `${scheme} ${TOKENS.customer}` } });
    t.equal(res.status, 200, `${scheme}: accepted (RFC 9110 §11.1)`);
  }
  // RFC 9110 §11.4: credentials = auth-scheme [ 1*SP token68 ], so more than one space is the same credential.
  for (const gap of ['  ', '   ']) {
    const res = await call('/v1/search?q=x', { token: null, headers: { Authorization: `Bearer${gap}${TOKENS.customer}` } });
    t.equal(res.status, 200, `${gap.length} spaces after the scheme: accepted`);
  }
  for (const bad of [`Bearer${TOKENS.customer}`, `Bearer\t${TOKENS.customer}`, `Bearer ${TOKENS.customer} extra`]) {
    t.equal((await call('/v1/search?q=x', { token: null, headers: { Authorization: bad } })).status, 401, JSON.stringify(bad.replace(TOKENS.customer, '<token>')));
  }
  const shouted = await call('/v1/search?q=x', { token: null, headers: { Authorization: `Bearer ${TOKENS.customer.toUpperCase()}` } });
  t.equal(shouted.status, 401, 'the token is compared exactly');
});

t.test('Host and Origin are checked before authentication', async (t) => {
  const { call } = await testApp(t);
  for (const host of ['evil.example:7337', '127.0.0.1:9999', '127.0.0.1', '10.0.0.1:7337']) {
    const res = await call('/health', { token: null, headers: { Host: host } });
    t.equal(res.status, 403, host);
    t.equal(res.json.code, 'host_not_allowed');
  }
  for (const host of ['localhost:7337', '[::1]:7337', '127.0.0.1:7337']) {
    t.equal((await call('/health', { token: null, headers: { Host: host } })).status, 200, host);
  }
  const origin = await call('/v1/search?q=x', { token: null, headers: { Origin: 'https://evil.example' } });
  t.equal(origin.status, 403);
  t.equal(origin.json.code, 'origin_not_allowed');
  t.equal((await call('/v1/search?q=x', { headers: { Origin: 'http://localhost:3000' } })).status, 200);
});

t.test('CORS preflight: 204, no body, loopback origin echoed, never a wildcard', async (t) => {
  const { call } = await testApp(t);
  const res = await call('/v1/events', { method: 'OPTIONS', token: null, scope: null, headers: { Origin: 'http://127.0.0.1:5173' } });
  t.equal(res.status, 204);
  t.equal(res.text, '');
  t.equal(res.headers.get('access-control-allow-origin'), 'http://127.0.0.1:5173');
  t.equal(res.headers.get('vary'), 'Origin');
  t.equal(res.headers.get('access-control-allow-methods'), 'POST');
  t.equal(res.headers.get('access-control-allow-headers'), 'Authorization, Content-Type, Idempotency-Key, If-Match, X-Tenant-Id, X-Workspace-Id, X-Project-Id');
  const none = await call('/v1/events', { method: 'OPTIONS', token: null, scope: null });
  t.equal(none.status, 204);
  t.equal(none.headers.get('access-control-allow-origin'), null);
  const foreign = await call('/v1/events', { method: 'OPTIONS', token: null, scope: null, headers: { Origin: 'http://evil.example' } });
  t.equal(foreign.status, 403);
});

t.test('a raw write is stored, returned as the envelope, and readable in order', async (t) => {
  const { call } = await testApp(t);
  const res = await call('/v1/events', { body: rawEvent(SCOPE_A, { event_id: 'evt-custom-1' }), idempotencyKey: 'k-1' });
  t.equal(res.status, 201);
  assertSchema(t, 'api/event-response.json', res.json);
  const e = res.json.event;
  t.equal(e.seq, 1);
  t.equal(e.event_id, 'evt-custom-1');
  t.equal(e.transport, 'customer');
  t.equal(e.idempotency_key, 'k-1');
  t.equal(e.prev_hash, `sha256:${'0'.repeat(64)}`);
  const second = await call('/v1/events', { body: rawEvent(SCOPE_A), idempotencyKey: 'k-2' });
  t.equal(second.json.event.seq, 2);
  t.equal(second.json.event.prev_hash, e.event_hash, 'hash chain links');
  t.match(second.json.event.event_id, /^evt_/);
  t.ok(second.json.event.recorded_at >= e.recorded_at);
});

/** The event as JSON bytes with `bytes` placed inside its payload's text. */
function withBytes(event: object, bytes: number[]): Buffer {
  const [before, after] = JSON.stringify({ ...event, payload: { text: 'caf@@' } }).split('@@') as [string, string];
  return Buffer.concat([Buffer.from(before), Buffer.from(bytes), Buffer.from(after)]);
}

t.test('request rules: every failure has its status and code, and writes nothing', async (t) => {
  const app = await testApp(t);
  const { call } = app;
  const ok = rawEvent(SCOPE_A);
  const cases: Array<[string, Parameters<typeof call>[1], number, string]> = [
    ['no content type', { body: JSON.stringify(ok), headers: { 'Content-Type': 'text/plain' }, idempotencyKey: 'a' }, 415, 'unsupported_media_type'],
    ['malformed JSON', { body: '{"kind": ', idempotencyKey: 'a' }, 400, 'malformed_json'],
    // Invalid UTF-8 inside a string (0xFF; a two-byte sequence cut short): never stored as U+FFFD.
    ['invalid UTF-8', { body: withBytes(ok, [0xff]), idempotencyKey: 'a' }, 400, 'malformed_json'],
    ['truncated UTF-8', { body: withBytes(ok, [0xc3]), idempotencyKey: 'a' }, 400, 'malformed_json'],
    ['too large', { body: { ...ok, payload: { blob: 'x'.repeat(1024 * 1024) } }, idempotencyKey: 'a' }, 413, 'payload_too_large'],
    ['no scope', { body: ok, scope: null, idempotencyKey: 'a' }, 400, 'scope_required'],
    ['invalid scope', { body: ok, scope: { ...SCOPE_A, tenant_id: '-bad' }, idempotencyKey: 'a' }, 400, 'invalid_scope'],
    ['reserved forge tenant', { body: { ...ok, tenant_id: 'forge' }, scope: { ...SCOPE_A, tenant_id: 'forge' }, idempotencyKey: 'a' }, 400, 'invalid_scope'],
    ['no idempotency key', { body: ok }, 400, 'idempotency_key_required'],
    ['operator transport', { body: ok, token: 'operator', idempotencyKey: 'a' }, 403, 'operator_transport_rejected'],
    ['scope mismatch', { body: { ...ok, tenant_id: 'tenant-b' }, idempotencyKey: 'a' }, 403, 'scope_mismatch'],
    ['unknown member', { body: { ...ok, colour: 'red' }, idempotencyKey: 'a' }, 422, 'validation_failed'],
    ['wrong type', { body: { ...ok, payload: 'text' }, idempotencyKey: 'a' }, 422, 'validation_failed'],
    ['reserved kind', { body: { ...ok, kind: 'task.closed', task_id: 'task-1' }, idempotencyKey: 'a' }, 422, 'reserved_event_kind'],
    ['reserved prefix', { body: { ...ok, kind: 'proof_packet.assembled' }, idempotencyKey: 'a' }, 422, 'reserved_event_kind'],
    ['unknown kind', { body: { ...ok, kind: 'made.up' }, idempotencyKey: 'a' }, 422, 'unknown_event_kind'],
    ['task not in scope', { body: { ...ok, task_id: 'task-404' }, idempotencyKey: 'a' }, 404, 'task_not_found'],
  ];
  for (const [name, c, status, code] of cases) {
    // Each answer is a problem body: the spec checks it against api/problem.json.
    await spec(t, app, name).when('/v1/events', c).then(expectResponse(status, { code }), expectNoEvents());
  }
  // A kind with a template answers its gate's validation body instead (test/server/template-gates.test.ts).
  const noRefs = await spec(t, app, 'evidence without refs').when('/v1/events', { body: { ...ok, kind: 'evidence.attached', payload: {} }, idempotencyKey: 'a' })
    .then(expectResponse(422, { template_id: 'evidence.attach.v1' }), expectNoEvents());
  t.same(noRefs.json.missing_fields, ['evidence_refs'], 'evidence without refs');
  const unknown = await spec(t, app, 'unknown member').when('/v1/events', { body: { ...ok, colour: 'red' }, idempotencyKey: 'b' }).then(expectResponse(422), expectNoEvents());
  t.same(unknown.json.errors, [{ pointer: '/colour', detail: 'unknown member "colour" is not allowed' }]);
});

t.test('idempotency: replay 200 with the same body, reuse with another body 422', async (t) => {
  const app = await testApp(t);
  const first = await spec(t, app, 'first').when('/v1/events', { body: rawEvent(SCOPE_A), idempotencyKey: 'same' })
    .then(expectResponse(201), expectNewEvents([{ kind: 'ext.acme.note', tenant_id: 'tenant-a', idempotency_key: 'same' }]));
  t.equal(first.headers.get('idempotent-replayed'), null);
  // Member order does not matter: bodies are compared in canonical form.
  const reordered = { payload: { text: 'a note about the deployment pipeline' }, project_id: 'proj-1', workspace_id: 'ws-1', tenant_id: 'tenant-a', kind: 'ext.acme.note' };
  const replay = await spec(t, app, 'replay').when('/v1/events', { body: reordered, idempotencyKey: 'same' }).then(expectResponse(200), expectNoEvents());
  t.equal(replay.headers.get('idempotent-replayed'), 'true');
  t.equal(replay.text, first.text, 'the original response again, byte for byte');
  await spec(t, app, 'reuse').when('/v1/events', { body: rawEvent(SCOPE_A, { payload: { text: 'other' } }), idempotencyKey: 'same' })
    .then(expectResponse(422, { code: 'idempotency_key_reused' }), expectNoEvents());
  // Keys are per tenant: tenant B may use the same key for its own event.
  await spec(t, app, 'another tenant').when('/v1/events', { body: rawEvent({ ...SCOPE_A, tenant_id: 'tenant-b' }), scope: { ...SCOPE_A, tenant_id: 'tenant-b' }, idempotencyKey: 'same' })
    .then(expectResponse(201), expectNewEvents([{ kind: 'ext.acme.note', tenant_id: 'tenant-b', idempotency_key: 'same' }]));
});

t.test('concurrent requests with one key produce exactly one event', async (t) => {
  const app = await testApp(t);
  const results = await spec(t, app, '25 requests at once').when(() => Promise.all(Array.from({ length: 25 }, () => app.call('/v1/events', { body: rawEvent(SCOPE_A), idempotencyKey: 'race' }))))
    .then(expectNewEvents([{ kind: 'ext.acme.note', idempotency_key: 'race' }]));
  const statuses = results.map((r) => r.status).sort();
  t.equal(statuses.filter((s) => s === 201).length, 1, 'one creation');
  t.equal(statuses.filter((s) => s === 200).length, 24, 'the rest replay it');
  t.equal(new Set(results.map((r) => r.json.event.event_id)).size, 1);
});

t.test('a duplicate event_id is a conflict', async (t) => {
  const { call } = await testApp(t);
  t.equal((await call('/v1/events', { body: rawEvent(SCOPE_A, { event_id: 'evt-dup' }), idempotencyKey: 'x1' })).status, 201);
  const dup = await call('/v1/events', { body: rawEvent(SCOPE_A, { event_id: 'evt-dup' }), idempotencyKey: 'x2' });
  t.equal(dup.status, 409);
  t.equal(dup.json.code, 'event_id_exists');
});

t.test('unknown routes are problem bodies', async (t) => {
  const { call } = await testApp(t);
  const res = await call('/nowhere', { token: null });
  t.equal(res.status, 404);
  t.equal(res.json.code, 'route_not_found');
  assertSchema(t, 'api/problem.json', res.json);
});
