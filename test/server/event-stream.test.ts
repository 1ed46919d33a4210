// GET /v1/events/stream over a real socket: the scope's backlog after after_seq (or Last-Event-ID)
// in seq order, page after page, then live events as real POSTs write them, only the scope's,
// each framed `id`/`event`/`data` with the stored line; the checks of every /v1 read before it;
// the stream's end when the client goes away and when the server stops (promptly, also for a
// spawned `gov preview` on SIGTERM); and the client helper's resume with Last-Event-ID and its
// retry waits.
import t, { type Test } from 'tap';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { streamEvents, type StreamedEvent } from '../../src/client/event-stream.ts';
import { withQuota } from '../../src/config.ts';
import { startPreview, type PreviewHandle } from '../../src/deps.ts';
import { spawnPreview } from '../fixtures/spawn-preview.ts';
import { testSchemas } from '../fixtures/templates.ts';
import { counterIds, fixedClock, rawEvent, SCOPE_A, SCOPE_B, tempDir, testApp, TOKENS, type Scope } from '../fixtures/test-app.ts';
import { STREAM_PAGE, STREAM_PAGE_CHARS } from '../../src/server/routes/event-stream.ts';

type Frame = { id: string; event: string; data: string } | { comment: string };

async function start(t: Test): Promise<PreviewHandle> {
  const preview = await startPreview({ ...withQuota(), dataDir: tempDir(t), host: '127.0.0.1', port: 0, forgeData: 'none' }, {
    tokens: TOKENS, clock: fixedClock(), newId: counterIds(), warn: () => {}, logError: () => {}, registry: testSchemas(),
  });
  t.teardown(() => {
    preview.dropConnections();
    return preview.stop();
  });
  return preview;
}

const scopeHeaders = (scope: Scope) => ({ 'X-Tenant-Id': scope.tenant_id, 'X-Workspace-Id': scope.workspace_id, 'X-Project-Id': scope.project_id });
const auth = (token = TOKENS.customer) => ({ Authorization: `Bearer ${token}` });

let keys = 0;
/** A raw event written through the API (201), in the scope. */
async function note(p: PreviewHandle, scope: Scope, text: string): Promise<number> {
  const init = {
    method: 'POST',
    headers: { ...auth(), ...scopeHeaders(scope), 'Content-Type': 'application/json', 'Idempotency-Key': `k-${++keys}` },
    body: JSON.stringify(rawEvent(scope, { payload: { text } })),
  };
  // Once more on a pooled connection that dropConnections() closed under it (the key makes it safe).
  const res = await fetch(`${p.baseUrl}/v1/events`, init).catch(() => fetch(`${p.baseUrl}/v1/events`, init));
  if (res.status !== 201) throw new Error(`POST /v1/events answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { event: { seq: number } }).event.seq;
}

/** The log's stored line of each seq (what `data:` must carry, byte for byte). */
function storedLines(p: PreviewHandle): Map<number, string> {
  const lines = readFileSync(join(p.dataDir, 'events.jsonl'), 'utf8').split('\n').filter(Boolean);
  return new Map(lines.map((line) => [(JSON.parse(line) as { seq: number }).seq, line]));
}

/** An open stream read frame by frame; `raw` is every byte received so far. */
async function open(p: PreviewHandle, query: string, headers: Record<string, string> = {}, scope: Scope = SCOPE_A) {
  const abort = new AbortController();
  const res = await fetch(`${p.baseUrl}/v1/events/stream${query}`, { headers: { ...auth(), ...scopeHeaders(scope), ...headers }, signal: abort.signal });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let chunks = 0;
  const stream = {
    res,
    raw: '',
    abort: () => abort.abort(),
    get chunks() {
      return chunks;
    },
    /** The next frame, or null once the server ended the stream. */
    async next(): Promise<Frame | null> {
      for (;;) {
        const end = buffer.indexOf('\n\n');
        if (end >= 0) {
          const text = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (text.startsWith(':')) return { comment: text.slice(1).trim() };
          const fields = Object.fromEntries(text.split('\n').map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)]));
          return { id: fields.id ?? '', event: fields.event ?? '', data: fields.data ?? '' };
        }
        const { done, value } = await reader.read();
        if (done) return null;
        chunks++;
        const text = decoder.decode(value, { stream: true });
        stream.raw += text;
        buffer += text;
      }
    },
    async take(n: number): Promise<Frame[]> {
      const out: Frame[] = [];
      while (out.length < n) {
        const frame = await stream.next();
        if (frame === null) break;
        out.push(frame);
      }
      return out;
    },
  };
  return stream;
}

t.test('the backlog after after_seq, then live events, only the scope\'s, framed with the stored line', async (t) => {
  const p = await start(t);
  const a1 = await note(p, SCOPE_A, 'first note of A');
  await note(p, SCOPE_B, 'a note of B');
  const a2 = await note(p, SCOPE_A, 'second note of A');
  const a3 = await note(p, SCOPE_A, 'third note of A');
  t.same([a1, a2, a3], [1, 3, 4]);

  const stream = await open(p, `?after_seq=${a1}`);
  t.equal(stream.res.status, 200);
  t.equal(stream.res.headers.get('content-type'), 'text/event-stream');
  t.equal(stream.res.headers.get('cache-control'), 'no-cache');
  const lines = storedLines(p);
  t.same(await stream.take(2), [
    { id: '3', event: 'ext.acme.note', data: lines.get(3) },
    { id: '4', event: 'ext.acme.note', data: lines.get(4) },
  ], 'the backlog after seq 1, without B\'s event');
  t.equal(stream.raw, `id: 3\nevent: ext.acme.note\ndata: ${lines.get(3)}\n\nid: 4\nevent: ext.acme.note\ndata: ${lines.get(4)}\n\n`, 'the exact bytes');

  // Live: B's event is not sent; A's next one is, as soon as it is indexed.
  await note(p, SCOPE_B, 'another note of B');
  const a4 = await note(p, SCOPE_A, 'a live note of A');
  const live = await stream.next();
  t.same(live, { id: String(a4), event: 'ext.acme.note', data: storedLines(p).get(a4) }, 'the live event, after connecting');
  t.equal(a4, 6);
  // A governed task write arrives the same way, under its own kind.
  const created = await fetch(`${p.baseUrl}/v1/tasks`, {
    method: 'POST', headers: { ...auth(), ...scopeHeaders(SCOPE_A), 'Content-Type': 'application/json' },
    body: JSON.stringify({ task_id: 'task-1', title: 'Follow the stream', session_id: 'sess-1' }),
  });
  t.equal(created.status, 201);
  t.match(await stream.next(), { id: '7', event: 'task.created' });
  t.match(JSON.parse(storedLines(p).get(7)!), { kind: 'task.created', task_id: 'task-1', tenant_id: SCOPE_A.tenant_id });
  stream.abort();

  const b = await open(p, '', {}, SCOPE_B);
  t.same((await b.take(2)).map((f) => 'id' in f && f.id), ['2', '5'], 'scope B from the start: only its own');
  b.abort();
});

t.test('Last-Event-ID wins over after_seq; after_seq past the end waits for new events', async (t) => {
  const p = await start(t);
  for (const n of [1, 2, 3]) await note(p, SCOPE_A, `note ${n}`);
  const resumed = await open(p, '?after_seq=0', { 'Last-Event-ID': '2' });
  t.match(await resumed.next(), { id: '3' }, 'resumes after the Last-Event-ID');
  resumed.abort();
  const empty = await open(p, '?after_seq=1', { 'Last-Event-ID': '' });
  t.match(await empty.next(), { id: '2' }, 'an empty Last-Event-ID is none (after_seq counts)');
  empty.abort();
  const blank = await open(p, '?after_seq=');
  t.equal(blank.res.status, 400, 'an empty after_seq is not a number');
  blank.abort();
  const ahead = await open(p, '?after_seq=100');
  t.equal(ahead.res.status, 200);
  const pending = ahead.next();
  for (let n = 4; n <= 101; n++) await note(p, SCOPE_A, `note ${n}`);
  t.match(await pending, { id: '101' }, 'the first event after seq 100');
  ahead.abort();
});

t.test('a long backlog is read page by page, in order, none missing', async (t) => {
  const p = await start(t);
  const total = 1203;
  for (let i = 0; i < total; i += 100) {
    await Promise.all(Array.from({ length: Math.min(100, total - i) }, (_, j) => note(p, SCOPE_A, `bulk ${i + j}`)));
  }
  const stream = await open(p, '');
  const frames = await stream.take(total);
  t.same(frames.map((f) => ('id' in f ? Number(f.id) : 0)), Array.from({ length: total }, (_, i) => i + 1), 'every seq, in order');
  t.ok(stream.chunks >= 3, `written in pages (${stream.chunks} chunks)`);
  stream.abort();
});

t.test('the checks of every /v1 read come first: 401, 400', async (t) => {
  const p = await start(t);
  const problem = async (headers: Record<string, string>, query = '') => {
    const res = await fetch(`${p.baseUrl}/v1/events/stream${query}`, { headers });
    return [res.status, res.headers.get('content-type'), ((await res.json()) as { code: string }).code];
  };
  t.same(await problem(scopeHeaders(SCOPE_A)), [401, 'application/problem+json', 'unauthorized'], 'no token');
  t.same(await problem({ ...auth('not-a-token'), ...scopeHeaders(SCOPE_A) }), [401, 'application/problem+json', 'unauthorized'], 'a token never issued');
  t.same(await problem(auth()), [400, 'application/problem+json', 'scope_required'], 'no scope headers');
  t.same(await problem({ ...auth(), ...scopeHeaders(SCOPE_A) }, '?after_seq=-1'), [400, 'application/problem+json', 'invalid_query']);
  t.same(await problem({ ...auth(), ...scopeHeaders(SCOPE_A) }, '?after_seq=ten'), [400, 'application/problem+json', 'invalid_query']);
  t.same(await problem({ ...auth(), ...scopeHeaders(SCOPE_A), 'Last-Event-ID': 'evt_1' }), [400, 'application/problem+json', 'bad_request'], 'a Last-Event-ID that is no seq');
  const operator = await open(p, '', auth(TOKENS.operator));
  t.equal(operator.res.status, 200, 'a read: the operator token may follow too');
  operator.abort();
});

t.test('a client that goes away ends its stream; the server stops promptly with streams open', async (t) => {
  const p = await start(t);
  await note(p, SCOPE_A, 'before');
  // Count the store subscriptions the streams hold.
  const store = p.deps.store;
  const subscribe = store.onIndexed.bind(store);
  let open_ = 0;
  store.onIndexed = (listener) => {
    open_++;
    const unsubscribe = subscribe(listener);
    return () => {
      open_--;
      return unsubscribe();
    };
  };
  // A client that closes its connection mid-stream, as a browser closing the tab does.
  await new Promise<void>((resolve, reject) => {
    const req = request(`${p.baseUrl}/v1/events/stream`, { headers: { ...auth(), ...scopeHeaders(SCOPE_A) } }, (res) => {
      res.once('data', () => {
        t.equal(open_, 1, 'the open stream listens to the index');
        req.destroy();
        resolve();
      });
    });
    req.on('error', reject);
    req.end();
  });
  for (let i = 0; i < 50 && open_ > 0; i++) await new Promise((r) => setTimeout(r, 20));
  t.equal(open_, 0, 'the stream of a client that went away stops listening');

  const waiting = await open(p, '');
  t.match(await waiting.next(), { id: '1' });
  const live = waiting.next();
  const started = Date.now();
  await p.stop();
  t.ok(Date.now() - started < 2000, `stop() took ${Date.now() - started} ms with a stream open`);
  t.equal(await live, null, 'the stream ended cleanly (no error) when the server stopped');
  t.equal(open_, 0);
});

t.test('gov preview stops on SIGTERM with a stream open', async (t) => {
  const p = await spawnPreview(tempDir(t));
  t.teardown(() => p.child.kill('SIGKILL'));
  const res = await fetch(`${p.baseUrl}/v1/events/stream`, { headers: { Authorization: `Bearer ${p.tokens.customer}`, ...scopeHeaders(SCOPE_A) } });
  t.equal(res.status, 200);
  const reader = res.body!.getReader();
  const ended = (async () => {
    for (;;) if ((await reader.read()).done) return true;
  })();
  const started = Date.now();
  const exited = new Promise<number | null>((resolve) => p.child.once('exit', (code) => resolve(code)));
  p.child.kill('SIGTERM');
  t.equal(await exited, 0, 'exits 0');
  t.ok(Date.now() - started < 5000, `exited ${Date.now() - started} ms after SIGTERM`);
  t.equal(await ended, true, 'the stream ended');
});

t.test('streamEvents: the backlog, live events, a resume with Last-Event-ID after a dropped connection, refusals', async (t) => {
  const p = await start(t);
  await note(p, SCOPE_A, 'one');
  await note(p, SCOPE_B, 'of B');
  await note(p, SCOPE_A, 'two');
  const got: StreamedEvent[] = [];
  const errors: unknown[] = [];
  let arrived: (() => void) | null = null;
  const until = (n: number) => new Promise<void>((resolve) => {
    arrived = () => {
      if (got.length >= n) resolve();
    };
    arrived();
  });
  const sent: string[] = [];
  const abort = new AbortController();
  const done = streamEvents({
    baseUrl: `${p.baseUrl}/`, token: TOKENS.customer, scope: SCOPE_A, afterSeq: 0, signal: abort.signal, retryMs: 20,
    fetch: (input, init) => {
      sent.push(`${input} ${new Headers(init?.headers).get('last-event-id') ?? '-'}`);
      return fetch(input, init);
    },
    onEvent: (event) => {
      got.push(event);
      arrived?.();
    },
    onError: (error) => errors.push(error),
  });
  await until(2);
  t.same(got.map((e) => [e.seq, e.kind, e.event.payload]), [[1, 'ext.acme.note', { text: 'one' }], [3, 'ext.acme.note', { text: 'two' }]]);
  t.same(got[0]!.event, JSON.parse(storedLines(p).get(1)!), 'the stored event, parsed');
  await note(p, SCOPE_A, 'three');
  await until(3);
  // The connection drops; events written meanwhile arrive after the reconnect, none twice.
  p.dropConnections();
  await note(p, SCOPE_A, 'four');
  await until(4);
  t.same(got.map((e) => e.seq), [1, 3, 4, 5]);
  t.ok(errors.length >= 1, 'the drop was reported');
  t.equal(sent[0], `${p.baseUrl}/v1/events/stream?after_seq=0 -`);
  t.ok(sent.length >= 2 && sent.slice(1).every((s) => s === `${p.baseUrl}/v1/events/stream?after_seq=4 4`), `reconnected with Last-Event-ID: ${sent.slice(1).join(', ')}`);
  abort.abort();
  t.same(await done, { reason: 'aborted', lastSeq: 5 });

  const refused = await streamEvents({ baseUrl: p.baseUrl, token: 'not-a-token', scope: SCOPE_A, afterSeq: 0, signal: new AbortController().signal, onEvent: () => t.fail('no event') });
  t.match(refused, { reason: 'refused', status: 401, body: { code: 'unauthorized' }, lastSeq: 0 }, 'a refusal retrying cannot change ends it');
});

t.test('streamEvents: a server that does not answer is tried again, each wait doubled up to maxRetryMs', async (t) => {
  const waits: number[] = [];
  const abort = new AbortController();
  const end = await streamEvents({
    baseUrl: 'http://127.0.0.1:1', scope: SCOPE_A, afterSeq: 0, signal: abort.signal, retryMs: 1, maxRetryMs: 4,
    fetch: () => Promise.reject(new TypeError('fetch failed')),
    onEvent: () => t.fail('no event'),
    onError: (error, retry) => {
      t.type(error, TypeError, 'the fetch\'s own failure is handed on');
      waits.push(retry.delayMs);
      if (waits.length === 6) abort.abort();
    },
  });
  t.same(waits, [1, 2, 4, 4, 4, 4], 'doubled, then held at maxRetryMs');
  t.same(end, { reason: 'aborted', lastSeq: 0 });
});

t.test('a client that stops reading does not hold the stop: its connection is dropped after a second', async (t) => {
  const p = await start(t);
  // A backlog far larger than the socket buffers can hold: the server's writes back up behind a
  // client that reads nothing.
  const store = p.deps.store;
  for (let round = 0; round < 40; round++) {
    await Promise.all(Array.from({ length: 500 }, (_, i) => store.append([{ event_id: `evt_bulk_${round}_${i}`, kind: 'ext.acme.note', ...SCOPE_A, actor: { type: 'agent', id: 'agent-1' }, transport: 'customer', idempotency_key: null, request_sha256: null, payload: { text: `note ${round}-${i} `.padEnd(400, 'x') } }])));
  }
  await store.settled();
  const { connect } = await import('node:net');
  const url = new URL(p.baseUrl);
  const socket = connect(Number(url.port), url.hostname);
  t.teardown(() => socket.destroy());
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  socket.pause();
  const headers = { ...auth(), ...scopeHeaders(SCOPE_A), Host: url.host };
  socket.write(`GET /v1/events/stream HTTP/1.1\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}`).join('\r\n')}\r\n\r\n`);
  await new Promise((r) => setTimeout(r, 500));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const started = Date.now();
  await p.stop();
  const took = Date.now() - started;
  t.ok(took < 5000, `stop() took ${took} ms with a stalled stream (STOP_FLUSH_MS is 1000)`);
  socket.resume();
  await closed;
  t.pass('the stalled connection was closed by the server');
});

t.test('a backlog chunk holds at most 1 MiB of events (its first whatever its size); the stream still sends every one', async (t) => {
  const { call, service } = await testApp(t);
  const text = 'stream me '.repeat(60_000); // ~600 KB a line
  for (let i = 0; i < 4; i++) t.equal((await call('/v1/events', { body: rawEvent(SCOPE_A, { payload: { n: i, text } }), idempotencyKey: `chunk-${i}` })).status, 201);
  await service.store.settled();
  const pages: number[][] = [];
  for (let after = 0; ;) {
    const rows = service.queries.scopeEventLines(SCOPE_A, after, STREAM_PAGE, STREAM_PAGE_CHARS);
    if (rows.length === 0) break;
    pages.push(rows.map((r) => r.seq));
    after = rows.at(-1)!.seq;
  }
  t.same(pages, [[1], [2], [3], [4]], 'one ~600 KB event a chunk: two would pass 1 MiB');
});
