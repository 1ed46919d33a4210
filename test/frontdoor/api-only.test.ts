// access_policy=api_only_no_local_fallback, tested: with the API down every tool answers an error
// naming the URL and how to start the preview; the front door reads run.json and nothing else of
// the data dir and creates nothing there. That no front door or client module can reach the store,
// the services, fs or the composition root is a layer rule (.dependency-cruiser.cjs).
import t, { type Test } from 'tap';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { resolveConnection } from '../../src/frontdoor/connection-config.ts';
import { connectMcp as connect, deadBaseUrl, TOOL_NAMES } from '../fixtures/mcp-harness.ts';
import { tempDir } from '../fixtures/test-app.ts';
import { closeout } from '../fixtures/bodies.ts';


t.test('API down: every tool answers an error naming the URL and how to start the preview', async (t) => {
  const baseUrl = await deadBaseUrl();
  const { call } = await connect(t, { baseUrl });
  const args: Record<string, Record<string, unknown>> = {
    task_create: { title: 'x', session_id: 's-1' },
    task_checkpoint: { task_id: 'task-1', progress: 'x' },
    task_closeout: { task_id: 'task-1', ...closeout },
    search_tasks: { q: 'x' },
    task_timeline: { task_id: 'task-1' },
    'service.risk.evaluate': { asset_id: 'asset-7', risk_inputs: { data_sensitivity: 1, decision_impact: 1, autonomy: 1, vendor_maturity: 1, prohibited_practice: 0 } },
  };
  for (const tool of TOOL_NAMES) {
    const res = await call(tool, args[tool] ?? {});
    t.equal(res.isError, true, tool);
    t.match(res.structured, { status: null, body: null, error: { code: 'api_unreachable' }, base_url: baseUrl, access_policy: 'api_only_no_local_fallback' }, tool);
    t.ok(res.text.includes(`not reachable at ${baseUrl}`), `${tool}: names the URL`);
    t.match(res.text, /gov preview start/, `${tool}: says how to start it`);
    t.match(res.text, /no local fallback/);
  }
});

t.test('the front door reads run.json and nothing else of the data dir, and creates nothing there', async (t) => {
  const dataDir = tempDir(t);
  const deadUrl = await deadBaseUrl();
  writeFileSync(join(dataDir, 'run.json'), JSON.stringify({ base_url: deadUrl, pid: 1, started_at: '2026-11-01T10:00:00Z', data_dir: dataDir, tokens: { customer: 'c-token-0123456789', operator: 'o-token-0123456789' } }));
  const reads: string[] = [];
  const readFile = (path: string) => {
    reads.push(path);
    return readFileSync(path, 'utf8');
  };
  const conn = resolveConnection({ dataDir }, { GOV_DATA_DIR: dataDir }, readFile);
  t.same(reads, [join(dataDir, 'run.json')], 'only run.json was read');
  t.same(conn, { baseUrl: deadUrl, token: 'c-token-0123456789', source: { baseUrl: join(dataDir, 'run.json'), token: join(dataDir, 'run.json') } }, 'the customer token, never the operator one');
  const { call } = await connect(t, { baseUrl: conn.baseUrl, token: conn.token });
  for (const tool of ['service_health', 'search_tasks', 'task_timeline']) {
    const res = await call(tool, tool === 'search_tasks' ? { q: 'x' } : tool === 'task_timeline' ? { task_id: 'task-1' } : {});
    t.equal(res.structured.error.code, 'api_unreachable', `${tool}: an error, not a local answer`);
  }
  t.same(readdirSync(dataDir), ['run.json'], 'no store, index, lock or log was created');
  t.same(reads.length, 1, 'no further reads while serving');

  const absent = join(dataDir, 'does-not-exist');
  const flagged = resolveConnection({ dataDir: absent, baseUrl: deadUrl }, { GOV_TOKEN: 'env-token-0123' }, readFile);
  t.same(flagged.source, { baseUrl: '--base-url', token: 'GOV_TOKEN' });
  t.equal(reads.length, 1, 'with flags and env the data dir is not touched at all');
});

/** An HTTP server on 127.0.0.1:0 answering every request with `answer`; it records what it got. */
async function httpServer(t: Test, answer: (req: IncomingMessage, res: ServerResponse) => void) {
  const seen: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      answer(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  }));
  return { seen, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

t.test('a redirect is an error result: nothing is sent where its Location points', async (t) => {
  const elsewhere = await httpServer(t, (_req, res) => res.writeHead(201, { 'Content-Type': 'application/json' }).end('{"task":{},"event":{}}'));
  // 307 and 308 keep the method and the body; localhost is another origin than 127.0.0.1.
  const other = elsewhere.url.replace('127.0.0.1', 'localhost');
  for (const status of [301, 302, 303, 307, 308]) {
    const api = await httpServer(t, (req, res) => res.writeHead(status, { Location: other + req.url }).end());
    const { call } = await connect(t, { baseUrl: api.url });
    const res = await call('task_create', { title: 'Sent to the API only', session_id: 'sess-1' });
    t.equal(res.isError, true, `${status}: an error result`);
    t.same([res.structured.status, res.structured.error.code], [status, `http_${status}`]);
    t.match(res.text, new RegExp(`answered ${status}, a redirect to ${other}/v1/tasks; gov mcp calls only the API`));
    t.match(res.text, /Point --base-url/);
    t.equal(api.seen.length, 1, `${status}: the API got the call`);
    const read = await call('task_timeline', { task_id: 'task-1' });
    t.same([read.isError, read.structured.status], [true, status], `${status}: a read too`);
  }
  t.same(elsewhere.seen, [], 'the body and the scope headers never left for the Location');
});

t.test('an API that never answers: an error result in time, and a cancelled call stops waiting', async (t) => {
  const closed: string[] = [];
  const hung = await httpServer(t, (req) => req.socket.once('close', () => closed.push(req.url!)));
  const { call } = await connect(t, { baseUrl: hung.url, timeoutMs: 300 });
  const started = Date.now();
  const write = await call('task_create', { title: 'Into the void', session_id: 'sess-1' });
  t.ok(Date.now() - started < 5_000, 'answered after the timeout, not never');
  t.same([write.isError, write.structured.status, write.structured.error.code, write.structured.base_url], [true, null, 'api_unreachable', hung.url]);
  t.match(write.text, new RegExp(`did not answer within 0.3 s. The write may still have been applied: read task_timeline`));
  t.match(write.text, /no local fallback/);
  const read = await call('task_timeline', { task_id: 'task-1' });
  t.match(read.text, /did not answer within 0.3 s. Try again/);
  await waitFor(() => closed.length >= 2);
  t.same(closed.sort(), ['/v1/tasks', '/v1/tasks/task-1/timeline'], 'both requests were given up');

  // The client cancels its tools/call: the front door drops the request instead of holding it.
  const patient = await connect(t, { baseUrl: hung.url, timeoutMs: 60_000 });
  const abort = new AbortController();
  const pending = patient.mcp.callTool({ name: 'search_tasks', arguments: { q: 'waiting' } }, undefined, { signal: abort.signal });
  await waitFor(() => hung.seen.length >= 3);
  abort.abort();
  await t.rejects(pending, 'the client gave up');
  await waitFor(() => closed.length >= 3);
  t.match(closed, ['/v1/tasks', '/v1/tasks/task-1/timeline', /^\/v1\/search\?q=waiting/], 'the cancelled call closed its request');
});

async function waitFor(done: () => boolean, ms = 5_000): Promise<void> {
  const until = Date.now() + ms;
  while (!done() && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 10));
}

t.test('a 2xx that is no JSON object is an error result, not a success', async (t) => {
  const answers: Array<[string, string]> = [['text/html', '<html>Sign in to the proxy</html>'], ['application/json', '{"task":'], ['application/json', '[]'], ['application/json', '']];
  for (const [type, text] of answers) {
    const api = await httpServer(t, (_req, res) => res.writeHead(200, { 'Content-Type': type }).end(text));
    const { call } = await connect(t, { baseUrl: api.url });
    const write = await call('task_create', { title: 'Answered by a stranger', session_id: 'sess-1' });
    t.same([write.isError, write.structured.status, write.structured.error.code], [true, 200, 'http_200'], `${JSON.stringify(text)}: an error`);
    t.match(write.text, /answered 200 with a body that is not a JSON object[^]*read task_timeline before calling task_create again[^]*Check that --base-url/);
    const read = await call('service_health');
    t.equal(read.isError, true, `${JSON.stringify(text)}: a read too`);
    t.notMatch(read.text, /read task_timeline/, 'a read wrote nothing');
  }
});
