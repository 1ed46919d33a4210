// The typed HTTP client with a recording fetch: what each method sends (path, query, headers,
// body), what it answers ({status, headers, body}, never a throw on an HTTP error status), and the
// one failure it raises (api_unreachable) when no answer arrives. The @ts-expect-error lines are
// the typing itself: inputs the OpenAPI document does not allow do not compile.
import t from 'tap';
import { createClient, type GovClient } from '../../src/client/client.ts';
import { parseTokenFile } from '../../src/client/credentials.ts';
import { AppError } from '../../src/errors.ts';

type Sent = { method: string; url: string; headers: Record<string, string>; body: string | undefined };

function recording(answer: () => Response = () => Response.json({ ok: true })) {
  const sent: Sent[] = [];
  const fetchFn: typeof fetch = async (input, init) => {
    sent.push({ method: init!.method!, url: String(input), headers: init!.headers as Record<string, string>, body: init!.body as string | undefined });
    return answer();
  };
  return { sent, fetchFn };
}

const scope = { tenant_id: 'tenant-a', workspace_id: 'ws-1', project_id: 'proj-1' };
const scoped = { 'X-Tenant-Id': 'tenant-a', 'X-Workspace-Id': 'ws-1', 'X-Project-Id': 'proj-1' };
const accept = { Accept: 'application/json, application/problem+json' };

t.test('each method sends its route, query, headers and body', async (t) => {
  const { sent, fetchFn } = recording();
  const c = createClient({ baseUrl: 'http://127.0.0.1:7337/', token: 'tok', fetch: fetchFn, scope });
  const body = { title: 'x', session_id: 'sess-1' };
  const checkpoint = { progress: 'Wrote the parser.' };
  const closeout = { outcome: 'deferred' as const, summary: 'Parked.', context_lines: ['c'], future_agent_traps: ['t'] };
  const cases: [string, (c: GovClient) => Promise<unknown>, string, string, unknown][] = [
    ['health', (c) => c.health(), 'GET', '/health', undefined],
    ['listTemplates', (c) => c.listTemplates(), 'GET', '/v1/templates', undefined],
    ['getTemplate', (c) => c.getTemplate('task_closeout.v1'), 'GET', '/v1/templates/task_closeout.v1', undefined],
    ['validateTemplate', (c) => c.validateTemplate({ template_id: 'closeout', payload: {} }), 'POST', '/v1/templates/validate', { template_id: 'closeout', payload: {} }],
    ['createTask', (c) => c.createTask(body), 'POST', '/v1/tasks', body],
    ['writeCheckpoint', (c) => c.writeCheckpoint('task 1/x', checkpoint), 'POST', '/v1/tasks/task%201%2Fx/checkpoints', checkpoint],
    ['closeTask', (c) => c.closeTask('task-1', closeout), 'POST', '/v1/tasks/task-1/closeout', closeout],
    ['getTask', (c) => c.getTask('task-1'), 'GET', '/v1/tasks/task-1', undefined],
    ['timeline', (c) => c.timeline('task-1', { after_seq: 4, limit: 2 }), 'GET', '/v1/tasks/task-1/timeline?after_seq=4&limit=2', undefined],
    ['search', (c) => c.search({ q: 'a b&c', kind: undefined, limit: 3 }), 'GET', '/v1/search?q=a+b%26c&limit=3', undefined],
    ['call', (c) => c.call('GET /v1/tasks/{task_id}/timeline', { params: { task_id: 'a/b' }, query: { limit: 5 } }), 'GET', '/v1/tasks/a%2Fb/timeline?limit=5', undefined],
    ['forward', (c) => c.forward('POST /v1/tasks', { body: { title: 1 } }), 'POST', '/v1/tasks', { title: 1 }],
    ['request', (c) => c.request('PATCH', '/v1/x', { body, query: { n: 1, skip: null } }), 'PATCH', '/v1/x?n=1', body],
  ];
  for (const [name, run, method, path, sentBody] of cases) {
    await run(c);
    const last = sent[sent.length - 1]!;
    t.equal(last.method, method, name);
    t.equal(last.url, `http://127.0.0.1:7337${path}`, `${name} url`);
    t.same(last.body === undefined ? undefined : JSON.parse(last.body), sentBody, `${name} body`);
    t.same(last.headers, { ...accept, Authorization: 'Bearer tok', ...scoped, ...(sentBody === undefined ? {} : { 'Content-Type': 'application/json' }) }, `${name} headers`);
  }
  await c.postEvent({ kind: 'ext.acme.note', ...scope, payload: {} }, { idempotencyKey: 'k-1' });
  t.equal(sent[sent.length - 1]!.headers['Idempotency-Key'], 'k-1');
});

t.test('per-call scope, token, headers and raw bodies', async (t) => {
  const { sent, fetchFn } = recording();
  const c = createClient({ baseUrl: 'http://h:1', token: 'tok', fetch: fetchFn, scope: { tenant_id: 'tenant-a' } });
  await c.getTask('task-1', { scope: { workspace_id: 'ws-2' } });
  t.same(sent[0]!.headers, { ...accept, Authorization: 'Bearer tok', 'X-Tenant-Id': 'tenant-a', 'X-Workspace-Id': 'ws-2' }, 'merged over the client scope; missing members are not sent');
  await c.getTask('task-1', { scope: null, token: null });
  t.same(sent[1]!.headers, accept, 'null scope and null token send neither');
  await c.forward('POST /v1/tasks', { body: {}, token: 'operator', headers: { 'Content-Type': 'text/plain' } });
  t.match(sent[2]!.headers, { Authorization: 'Bearer operator', 'Content-Type': 'text/plain' }, 'explicit headers win');
  await c.request('POST', '/v1/tasks', { rawBody: '{"broken"' });
  t.equal(sent[3]!.body, '{"broken"');
});

t.test('answers: JSON, text or empty bodies; error statuses are values', async (t) => {
  const bodies: [Response, unknown][] = [
    [Response.json({ code: 'task_exists' }, { status: 409 }), { code: 'task_exists' }],
    [new Response('upstream broke', { status: 502 }), 'upstream broke'],
    [new Response(null, { status: 204, headers: { 'X-Request-Id': 'req_1' } }), null],
  ];
  for (const [response, expected] of bodies) {
    const c = createClient({ baseUrl: 'http://h:1', fetch: recording(() => response).fetchFn });
    const res = await c.health();
    t.equal(res.status, response.status);
    t.same(res.body, expected);
  }
  const c = createClient({ baseUrl: 'http://h:1', fetch: recording(() => new Response(null, { status: 204, headers: { 'X-Request-Id': 'req_9' } })).fetchFn });
  t.equal((await c.health()).headers.get('x-request-id'), 'req_9', 'headers are the fetch Headers');
});

t.test('call: the operation typed by the OpenAPI document, in and out', async (t) => {
  const answer = { task_id: 'task-1', title: 'x', status: 'open', session_ids: [], created_at: '2025-01-01T00:00:00Z', last_seq: 1 };
  const c = createClient({ baseUrl: 'http://h:1', fetch: recording(() => Response.json(answer)).fetchFn });
  const res = await c.call('GET /v1/tasks/{task_id}', { params: { task_id: 'task-1' } });
  // A declared status narrows the body to its schema's type; any other status leaves it unread.
  if (res.status === 200) t.equal(res.body.status, 'open');
  else t.fail(`status ${res.status}`);
  t.type(res.body, 'object');
  await t.rejects(c.forward('GET /v1/tasks/{task_id}', {}), /needs the path parameter task_id/);

  const typeChecks = async () => {
    // @ts-expect-error the path parameter is required
    await c.call('GET /v1/tasks/{task_id}');
    // @ts-expect-error the body must be a TaskCreateRequest
    await c.call('POST /v1/tasks', { body: { title: 'x' } });
    // @ts-expect-error an operation the document does not list
    await c.call('GET /v1/nothing');
    // @ts-expect-error limit is a number
    await c.search({ limit: 'many' });
    const any = await c.health();
    // @ts-expect-error an undeclared status has no typed body
    if (any.status === 500) any.body.status;
  };
  t.ok(typeChecks, 'the type checks above are compiled, never run');
});

t.test('no answer at all: AppError api_unreachable naming the URL and how to start the preview', async (t) => {
  const refused: typeof fetch = async () => {
    throw new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) });
  };
  const c = createClient({ baseUrl: 'http://127.0.0.1:9/', token: 't', fetch: refused });
  const err = await c.search({ q: 'x' }).then(() => null, (e: unknown) => e);
  t.ok(err instanceof AppError);
  t.equal((err as AppError).code, 'api_unreachable');
  t.same((err as AppError).extra, { base_url: 'http://127.0.0.1:9' });
  t.match((err as AppError).message, /not reachable at http:\/\/127\.0\.0\.1:9 \(ECONNREFUSED\)/);
  t.match((err as AppError).message, /gov preview start/);
  t.equal(c.baseUrl, 'http://127.0.0.1:9');
});

t.test('token files: a bare token or a run.json (its customer token)', async (t) => {
  t.same(parseTokenFile('abc-123\n', 'f'), { token: 'abc-123', baseUrl: null });
  t.same(parseTokenFile(JSON.stringify({ base_url: 'http://127.0.0.1:5', tokens: { customer: 'c-1', operator: 'o-1' } }), 'f'), { token: 'c-1', baseUrl: 'http://127.0.0.1:5' });
  for (const bad of ['', 'two tokens', '{"tokens":{}}', '{"tokens"', '{"tokens":{"operator":"o"}}']) {
    t.throws(() => parseTokenFile(bad, 'f'), { code: 'bad_input_file' }, JSON.stringify(bad));
  }
});
