// Internal errors: every 5xx writes one structured JSON line to stderr (request id, method, route,
// path, error name, code, message, stack) and answers a body that says nothing internal, on a /v1
// route (problem+json) and on a forge route ({message, url}). Before, an AppError whose code is in
// no table answered 500 with nothing logged, and a forge route put its message in {message}.
import t, { type Test } from 'tap';
import { appDepsOf } from '../../src/deps.ts';
import { AppError, type ErrorCode } from '../../src/errors.ts';
import { createApp } from '../../src/server/create-app.ts';
import { assertSchema, HOST, rawEvent, SCOPE_A, testApp, TOKENS } from '../fixtures/test-app.ts';

const SECRET = 'internal detail: /var/lib/gov/index.sqlite row 7';

/** The default appDepsOf (stderr) with a newId that throws `thrown` once the app is built. */
async function failingApp(t: Test, thrown: () => unknown) {
  const { service } = await testApp(t, { forgeData: 'fixture' });
  let failing = false;
  const deps = appDepsOf({ ...service, newId: (prefix) => (failing ? (() => { throw thrown(); })() : service.newId(prefix)) }, { auth: { tokens: TOKENS }, port: () => 7337 });
  let n = 0;
  deps.newRequestId = () => `req_${++n}`;
  const app = createApp(deps);
  failing = true;
  /** Sends a request and returns the answer with what went to stderr meanwhile. */
  const send = async (path: string, init: { token: 'customer' | 'operator'; scope: boolean; body: unknown; idempotencyKey?: string }) => {
    const headers: Record<string, string> = { Host: HOST, Authorization: `Bearer ${TOKENS[init.token]}`, 'Content-Type': 'application/json' };
    if (init.scope) Object.assign(headers, { 'X-Tenant-Id': SCOPE_A.tenant_id, 'X-Workspace-Id': SCOPE_A.workspace_id, 'X-Project-Id': SCOPE_A.project_id });
    if (init.idempotencyKey) headers['Idempotency-Key'] = init.idempotencyKey;
    const written: string[] = [];
    const original = process.stderr.write;
    process.stderr.write = ((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    }) as typeof process.stderr.write;
    let res: Response;
    try {
      res = await app.request(`http://${HOST}${path}`, { method: 'POST', headers, body: JSON.stringify(init.body) });
    } finally {
      process.stderr.write = original;
    }
    return { status: res.status, requestId: res.headers.get('x-request-id'), contentType: res.headers.get('content-type'), json: await res.json(), stderr: written.join('') };
  };
  return { send };
}

const routes = [
  { name: '/v1 route', route: '/v1/events', path: '/v1/events', init: { token: 'customer', scope: true, body: rawEvent(SCOPE_A), idempotencyKey: 'k-1' } },
  { name: 'forge route', route: '/api/v1/admin/quota/rules', path: '/api/v1/admin/quota/rules', init: { token: 'operator', scope: false, body: { name: 'r-1', limit: 10, subjects: ['size:all'] } } },
] as const;

const failures = [
  { name: 'an AppError whose code is in no table', thrown: () => new AppError('made_up_code' as ErrorCode, SECRET), error: 'AppError', code: 'made_up_code' },
  { name: 'a TypeError', thrown: () => new TypeError(SECRET), error: 'TypeError', code: null },
] as const;

for (const r of routes) {
  for (const f of failures) {
    t.test(`${r.name}: ${f.name} is a generic 500 and one structured stderr line`, async (t) => {
      const { send } = await failingApp(t, f.thrown);
      const res = await send(r.path, r.init);
      t.equal(res.status, 500);
      const detail = `Something went wrong on the server. Try again; if it keeps failing, report request id ${res.requestId}.`;
      if (r.name === 'forge route') {
        assertSchema(t, 'quota/forge-error.json', res.json);
        t.strictSame(res.json, { message: detail, url: 'http://127.0.0.1:7337/api/swagger' });
      } else {
        assertSchema(t, 'api/problem.json', res.json);
        t.equal(res.contentType, 'application/problem+json');
        t.strictSame(res.json, { type: 'https://schemas.gov.local/problems/internal_error', title: 'Internal error', status: 500, detail, code: 'internal_error', request_id: res.requestId, errors: [] });
      }
      const lines = res.stderr.split('\n').filter(Boolean);
      t.equal(lines.length, 1, 'exactly one line');
      const record = JSON.parse(lines[0]!);
      t.match(record, { level: 'error', request_id: res.requestId, method: 'POST', route: r.route, path: r.path, status: 500, error: f.error, code: f.code, message: SECRET, stack: new RegExp(`^${f.error}: ${SECRET}\\n\\s+at `), cause: null });
      t.same(Object.keys(record), ['level', 'request_id', 'method', 'route', 'path', 'status', 'error', 'code', 'message', 'stack', 'cause']);
    });
  }
}

t.test('a 503 of the table keeps its advice for the caller and is logged too', async (t) => {
  const { send } = await failingApp(t, () => new AppError('store_unavailable', 'The event log could not be written or repaired; restart the preview.', { cause: new Error('EIO: i/o error, write') }));
  for (const r of routes) {
    const res = await send(r.path, r.init);
    t.equal(res.status, 503, r.name);
    t.equal(r.name === 'forge route' ? res.json.message : res.json.detail, 'The event log could not be written or repaired; restart the preview.', `${r.name}: the advice`);
    const lines = res.stderr.split('\n').filter(Boolean);
    t.equal(lines.length, 1, `${r.name}: one line`);
    t.match(JSON.parse(lines[0]!), { request_id: res.requestId, status: 503, code: 'store_unavailable', cause: 'Error: EIO: i/o error, write' });
  }
});

t.test('4xx answers write nothing to stderr', async (t) => {
  const { send } = await failingApp(t, () => new Error('not reached'));
  const res = await send('/v1/events', { token: 'customer', scope: true, body: { kind: 'nope' }, idempotencyKey: 'k' });
  t.equal(res.status, 422);
  t.equal(res.stderr, '');
});
