// Below the app, over a real socket: a missing or odd Host reaches the loopback guard (403
// host_not_allowed), and what Node's parser or the adapter refuses gets a problem body with a
// request id and an access line — never a bare 400/431. Nothing is written in any case.
import t, { type Test } from 'tap';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { connect, createServer as createNetServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { expectNoEvents, spec } from '../fixtures/api-spec.ts';
import { withQuota } from '../../src/config.ts';
import { startPreview } from '../../src/deps.ts';
import { createNodeServer } from '../../src/server/node-server.ts';
import { serveApp } from '../fixtures/served-app.ts';
import { testSchemas } from '../fixtures/templates.ts';
import { assertSchema, counterIds, fixedClock, rawEvent, SCOPE_A, tempDir, TOKENS } from '../fixtures/test-app.ts';

type RawAnswer = { statusLine: string; status: number; headers: Record<string, string>; body: string };

/** Sends the bytes as they are and reads the answer until the server closes the connection. */
function rawRequest(port: number, bytes: Buffer): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const end = text.indexOf('\r\n\r\n');
      const [statusLine = '', ...lines] = text.slice(0, end).split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      resolve({ statusLine, status: Number(statusLine.split(' ')[1]), headers, body: text.slice(end + 4) });
    });
    socket.write(bytes);
  });
}

const body = JSON.stringify(rawEvent(SCOPE_A));
/** A raw event write that the app would accept (201) with a good Host. */
function eventWrite(head: string, hostLine: string | null, extra = ''): Buffer {
  return Buffer.from(
    `${head}\r\n${hostLine === null ? '' : `${hostLine}\r\n`}Authorization: Bearer ${TOKENS.customer}\r\n` +
      `X-Tenant-Id: ${SCOPE_A.tenant_id}\r\nX-Workspace-Id: ${SCOPE_A.workspace_id}\r\nX-Project-Id: ${SCOPE_A.project_id}\r\n` +
      `Idempotency-Key: k-raw\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}Connection: close\r\n\r\n${body}`,
    'latin1',
  );
}

function assertProblem(t: Test, res: RawAnswer, status: number, code: string): void {
  t.equal(res.status, status, `${res.statusLine} is ${status}`);
  t.equal(res.headers['content-type'], 'application/problem+json', 'a problem body');
  const problem = JSON.parse(res.body);
  assertSchema(t, 'api/problem.json', problem);
  t.equal(problem.code, code);
  t.equal(problem.status, status);
  t.match(problem.request_id, /^req_/);
  t.equal(res.headers['x-request-id'], problem.request_id, 'X-Request-Id is the body\'s request id');
}

t.test('a missing or odd Host reaches the loopback guard: 403 host_not_allowed, nothing written', async (t) => {
  const served = await serveApp(t);
  const { port, accessLines } = served;
  const good = await rawRequest(port, eventWrite('POST /v1/events HTTP/1.1', `Host: 127.0.0.1:${port}`));
  t.equal(good.status, 201, 'the same write with a good Host is accepted (the cases below differ only in Host)');
  const cases: [string, Buffer][] = [
    ['an empty Host', eventWrite('POST /v1/events HTTP/1.1', 'Host:')],
    ['a Host with userinfo', eventWrite('POST /v1/events HTTP/1.1', `Host: evil@127.0.0.1:${port}`)],
    ['no Host over HTTP/1.1', eventWrite('POST /v1/events HTTP/1.1', null)],
    ['no Host over HTTP/1.0', eventWrite('POST /v1/events HTTP/1.0', null)],
    ['a foreign Host', eventWrite('POST /v1/events HTTP/1.1', `Host: evil.example:${port}`)],
    ['a Host that is no authority at all', eventWrite('POST /v1/events HTTP/1.1', 'Host: a b/c')],
    ['a second Host after a good one', eventWrite('POST /v1/events HTTP/1.1', `Host: 127.0.0.1:${port}`, 'Host: evil.example\r\n')],
  ];
  for (const [name, bytes] of cases) {
    const lines = accessLines.length;
    const res = await spec(t, served, name).when(() => rawRequest(port, bytes)).then(expectNoEvents());
    t.test(name, async (t) => {
      assertProblem(t, res, 403, 'host_not_allowed');
      t.match(accessLines.slice(lines), [/^POST \/v1\/events 403 [\d.]+ms$/], 'the app\'s access line');
    });
  }
  const upper = await rawRequest(port, Buffer.from(`GET /health HTTP/1.1\r\nHost: LOCALHOST:${port}\r\nConnection: close\r\n\r\n`));
  t.equal(upper.status, 200, 'a loopback Host in capitals still builds the URL and passes');
});

t.test('two Idempotency-Key header lines are one request with two keys: 400, nothing written', async (t) => {
  const served = await serveApp(t);
  const { port } = served;
  const host = `Host: 127.0.0.1:${port}`;
  // Node joins the two lines as "k-raw, k-other", which would otherwise be taken as one key.
  const res = await spec(t, served, 'two keys').when(() => rawRequest(port, eventWrite('POST /v1/events HTTP/1.1', host, 'Idempotency-Key: k-other\r\n'))).then(expectNoEvents());
  assertProblem(t, res, 400, 'invalid_idempotency_key');
  const problem = JSON.parse(res.body);
  t.match(problem.detail, /^Send one Idempotency-Key header: this request has 2,/);
  t.same(problem.errors, [{ pointer: '/headers/Idempotency-Key', detail: '2 header lines' }]);
  // One line whose key holds ", " is that key, as sent.
  const one = await rawRequest(port, Buffer.from(eventWrite('POST /v1/events HTTP/1.1', host).toString('latin1').replace('Idempotency-Key: k-raw', 'Idempotency-Key: k-raw, k-other'), 'latin1'));
  t.equal(one.status, 201, one.body);
  t.equal(JSON.parse(one.body).event.idempotency_key, 'k-raw, k-other');
});

t.test('what the parser or the adapter refuses gets a problem body, a request id and an access line', async (t) => {
  const served = await serveApp(t);
  const { port, accessLines } = served;
  const host = `Host: 127.0.0.1:${port}`;
  const cases: [string, Buffer, number, string][] = [
    ['a raw non-ASCII byte in the path', Buffer.concat([Buffer.from('POST /v1/ev'), Buffer.from([0xff]), eventWrite('ents HTTP/1.1', host)]), 400, 'bad_request'],
    ['headers over 16 KiB', eventWrite('POST /v1/events HTTP/1.1', host, `X-Padding: ${'a'.repeat(17 * 1024)}\r\n`), 431, 'request_header_fields_too_large'],
    ['a malformed request line', Buffer.from('NOT A REQUEST LINE\r\n\r\n'), 400, 'bad_request'],
    ['a second Content-Length that is no number', eventWrite('POST /v1/events HTTP/1.1', host, 'Content-Length: 12x\r\n'), 400, 'bad_request'],
    ['a backslash in the path (refused by the adapter)', eventWrite('POST /v1/ev\\ents HTTP/1.1', host), 400, 'bad_request'],
    ['an asterisk request target (refused by the adapter)', eventWrite('POST * HTTP/1.1', host), 400, 'bad_request'],
  ];
  for (const [name, bytes, status, code] of cases) {
    const lines = accessLines.length;
    const res = await spec(t, served, name).when(() => rawRequest(port, bytes)).then(expectNoEvents());
    t.test(name, async (t) => {
      assertProblem(t, res, status, code);
      const problem = JSON.parse(res.body);
      t.same(accessLines.slice(lines), [`- - ${status} - ${code} ${problem.request_id}`], 'one access line naming the code and the request id');
    });
  }
});

t.test('an app that throws before answering gets a generic 500 problem, not a bare one', async (t) => {
  const { port, accessLines } = await serveApp(t, () => () => {
    throw new Error('secret internal detail');
  });
  const res = await rawRequest(port, Buffer.from(`GET /health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`));
  assertProblem(t, res, 500, 'internal_error');
  t.notMatch(res.body, /secret/, 'nothing internal in the answer');
  t.match(accessLines, [/^- - 500 - internal_error req_/]);
});

t.test('a body refused as too large closes the connection: the answer never promises a keep-alive it cannot keep', async (t) => {
  const served = await serveApp(t);
  const { port } = served;
  const head = (framing: string) => `POST /v1/events HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${TOKENS.customer}\r\n` +
    `X-Tenant-Id: ${SCOPE_A.tenant_id}\r\nX-Workspace-Id: ${SCOPE_A.workspace_id}\r\nX-Project-Id: ${SCOPE_A.project_id}\r\n` +
    `Idempotency-Key: k-big\r\nContent-Type: application/json\r\n${framing}\r\n\r\n`;
  const chunk = Buffer.alloc(64 * 1024, 'x');
  const chunked = Buffer.concat([
    Buffer.from(head('Transfer-Encoding: chunked')),
    // 1.3 MiB in 64 KiB chunks, then a second request on the same connection.
    ...Array.from({ length: 21 }, () => Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')])),
    Buffer.from(`0\r\n\r\nGET /health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`),
  ]);
  const declared = Buffer.from(head(`Content-Length: ${2 * 1024 * 1024}`));
  for (const [name, bytes] of [['a chunked body over 1 MiB', chunked], ['a declared Content-Length over 1 MiB', declared]] as const) {
    const res = await spec(t, served, name).when(() => rawRequest(port, bytes)).then(expectNoEvents());
    t.test(name, async (t) => {
      assertProblem(t, res, 413, 'payload_too_large');
      t.equal(res.headers.connection, 'close', 'Connection: close, and the server closed the socket after the answer');
      t.notMatch(res.body, /HTTP\/1\.1/, 'nothing after the 413 on that connection');
    });
  }
});

/** A keep-alive connection that answers one request at a time (each answer has a Content-Length). */
function keepAliveConnection(port: number) {
  const socket = connect(port, '127.0.0.1');
  let buffered = Buffer.alloc(0);
  let wanted: ((answer: RawAnswer) => void) | null = null;
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  const tryAnswer = () => {
    const text = buffered.toString('latin1');
    const end = text.indexOf('\r\n\r\n');
    if (wanted === null || end < 0) return;
    const [statusLine = '', ...lines] = text.slice(0, end).split('\r\n');
    const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
    const length = Number(headers['content-length'] ?? 0);
    if (buffered.length < end + 4 + length) return;
    const body = buffered.subarray(end + 4, end + 4 + length).toString('utf8');
    buffered = buffered.subarray(end + 4 + length);
    const resolve = wanted;
    wanted = null;
    resolve({ statusLine, status: Number(statusLine.split(' ')[1]), headers, body });
  };
  socket.on('data', (d) => {
    buffered = Buffer.concat([buffered, d]);
    tryAnswer();
  });
  return {
    ask(head: string): Promise<RawAnswer> {
      return new Promise((resolve) => {
        wanted = resolve;
        socket.write(`${head}\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
      });
    },
    closed,
  };
}

t.test('once a stop begins, the next answer on a busy keep-alive connection closes it', async (t) => {
  // A request the wrapper holds until released: the connection is busy when the stop begins, so
  // the server's close leaves it open (only idle connections close at once).
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  let arrived = () => {};
  const holding = new Promise<void>((resolve) => (arrived = resolve));
  const preview = await startPreview({ ...withQuota(), dataDir: tempDir(t), host: '127.0.0.1', port: 0, forgeData: 'none' }, {
    tokens: TOKENS, clock: fixedClock(), newId: counterIds(), warn: () => {}, logError: () => {}, access: () => {}, registry: testSchemas(),
    wrapFetch: (fetch) => async (req) => {
      if (req.headers.get('x-test-hold') !== null) {
        arrived();
        await held;
      }
      return fetch(req);
    },
  });
  t.teardown(() => preview.dropConnections());
  const connection = keepAliveConnection(preview.port);
  const before = await connection.ask('GET /health HTTP/1.1');
  t.equal(before.status, 200);
  t.not(before.headers.connection, 'close', 'before the stop the connection is kept alive');
  const first = connection.ask('GET /health HTTP/1.1\r\nX-Test-Hold: 1');
  await holding;
  const stopped = preview.stop();
  release();
  t.equal((await first).status, 200, 'the request in flight when the stop began is answered');
  const next = await connection.ask('GET /health HTTP/1.1');
  t.equal(next.status, 200, 'a request that arrives on it after the stop began is still answered');
  t.equal(next.headers.connection, 'close', 'with Connection: close');
  await connection.closed;
  t.pass('and the server closed the connection after that answer');
  await stopped;
});

t.test('a start that cannot listen takes away the data dir it made, and only that', async (t) => {
  const blocker = createNetServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => blocker.close(() => resolve())));
  const port = (blocker.address() as AddressInfo).port;
  const start = (dataDir: string) => startPreview({ ...withQuota(), dataDir, host: '127.0.0.1', port, forgeData: 'none' }, { tokens: TOKENS, clock: fixedClock(), warn: () => {}, registry: testSchemas() });
  const root = tempDir(t);
  for (const [what, dataDir, before] of [['a new data dir', join(root, 'new'), null], ['an empty one', join(root, 'empty'), []]] as const) {
    if (before !== null) mkdirSync(dataDir);
    await t.rejects(start(dataDir), { message: /Cannot listen on 127\.0\.0\.1:\d+ .*EADDRINUSE/ }, `${what}: the port is in use`);
    t.same(existsSync(dataDir) ? readdirSync(dataDir) : null, before, `${what}: as it was before`);
  }
  const used = join(root, 'used');
  const first = await startPreview({ ...withQuota(), dataDir: used, host: '127.0.0.1', port: 0, forgeData: 'none' }, { tokens: TOKENS, clock: fixedClock(), warn: () => {}, registry: testSchemas() });
  await first.stop();
  const files = readdirSync(used).sort();
  await t.rejects(start(used), { message: /EADDRINUSE/ });
  t.same(readdirSync(used).sort(), files, 'a data dir in use before keeps every file');
});

t.test('a request that trickles in past its time is refused and its socket closed', async (t) => {
  const accessLines: string[] = [];
  // The handler reads the whole body, as every route that takes one does.
  const server = createNodeServer(async (req) => new Response(await req.text()), { newRequestId: () => 'req_slow', access: (l) => accessLines.push(l), logError: () => {}, timeouts: { headersMs: 400, requestMs: 800 } });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const port = (server.address() as AddressInfo).port;
  /** Sends `head`, then `drip` every 50 ms until the server closes the socket; what it answered. */
  const trickle = (head: string, drip: string) => new Promise<string>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (d) => (text += d.toString('utf8')));
    socket.on('error', () => {});
    const timer = setInterval(() => socket.writable && socket.write(drip), 50);
    socket.on('close', () => {
      clearInterval(timer);
      resolve(text);
    });
    socket.write(head);
  });
  const headers = await trickle(`GET /health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`, 'X-Slow: 1\r\n');
  t.match(headers, /^HTTP\/1\.1 408 /, 'headers a line at a time: 408');
  t.match(headers, /"code":"request_timeout"/, 'with a problem body');
  t.equal(accessLines.filter((l) => l.includes('408')).length, 1, 'and an access line');
  // Once the handler has the request, the timeout can only close the connection (its answer is pending).
  const body = await trickle(`POST /echo HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n`, '{');
  t.notMatch(body, /HTTP\/1\.1 200/, 'a body a byte at a time: never answered as whole, the socket closed');
});
