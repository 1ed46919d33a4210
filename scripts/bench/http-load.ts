// A small keep-alive HTTP client (node:http, lowest client overhead on a 2-core box where client
// and server share the CPU) and two bounded load generators: closed-loop (N workers, each sending
// its next request when the previous answered) and open-loop (requests due on a fixed schedule).
import { setMaxListeners } from 'node:events';
import http from 'node:http';
import { percentile } from './section.ts';

export type Reply = { status: number; body: string; ms: number };
export type Send = { method?: string; path: string; headers?: Record<string, string>; body?: string };

/** One connection pool to one server; `close()` destroys its sockets so the server can stop cleanly. */
export type HttpClient = { send(req: Send, signal?: AbortSignal): Promise<Reply>; close(): void };

const REQUEST_TIMEOUT_MS = 30_000;

export function httpClient(baseUrl: string, maxSockets = 64): HttpClient {
  const url = new URL(baseUrl);
  if (url.hostname !== '127.0.0.1') throw new Error(`the bench only talks to 127.0.0.1, not ${url.hostname}`);
  const agent = new http.Agent({ keepAlive: true, maxSockets });
  const send = (req: Send, signal?: AbortSignal): Promise<Reply> => new Promise((resolve, reject) => {
    const started = performance.now();
    const headers: Record<string, string | number> = { ...req.headers };
    if (req.body !== undefined) headers['Content-Length'] = Buffer.byteLength(req.body);
    const r = http.request({ agent, host: url.hostname, port: url.port, method: req.method ?? (req.body === undefined ? 'GET' : 'POST'), path: req.path, headers, ...(signal ? { signal } : {}) }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, ms: performance.now() - started }));
      res.on('error', reject);
    });
    r.setTimeout(REQUEST_TIMEOUT_MS, () => r.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms for ${req.path}`)));
    r.on('error', reject);
    r.end(req.body);
  });
  return { send, close: () => agent.destroy() };
}

export type LoadOptions = {
  concurrency: number;
  /** Stop issuing new requests after this long (in-flight ones finish). */
  durationMs: number;
  maxRequests: number;
  /** Builds request i (0-based, unique within this load run). */
  request: (i: number) => Send;
  okStatus: number;
};

export type LoadResult = {
  concurrency: number;
  requests: number;
  /** Answers with the expected status. */
  ok: number;
  errors: number;
  /** Answers by status code (`transport` for a request that got none), to tell conflicts from failures. */
  byStatus: Record<string, number>;
  seconds: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** The first unexpected answer, to say why a run had errors. */
  firstError?: string;
};

export async function runLoad(client: HttpClient, options: LoadOptions): Promise<LoadResult> {
  const latencies: number[] = [];
  let issued = 0;
  let ok = 0;
  let errors = 0;
  const byStatus: Record<string, number> = {};
  let firstError: string | undefined;
  const started = performance.now();
  const deadline = started + options.durationMs;
  const worker = async () => {
    while (issued < options.maxRequests && performance.now() < deadline) {
      const i = issued++;
      try {
        const reply = await client.send(options.request(i));
        latencies.push(reply.ms);
        byStatus[reply.status] = (byStatus[reply.status] ?? 0) + 1;
        if (reply.status === options.okStatus) ok++;
        else {
          errors++;
          firstError ??= `${reply.status} ${reply.body.slice(0, 300)}`;
        }
      } catch (err) {
        errors++;
        byStatus.transport = (byStatus.transport ?? 0) + 1;
        firstError ??= (err as Error).message;
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  return {
    concurrency: options.concurrency,
    requests: latencies.length,
    ok,
    errors,
    byStatus,
    seconds,
    perSecond: latencies.length / seconds,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    ...(firstError === undefined ? {} : { firstError }),
  };
}

/** Sequential timed requests (one at a time): the latency of a read on an otherwise idle server. */
export async function timeSequential(client: HttpClient, count: number, request: (i: number) => Send, okStatus = 200): Promise<{ p50Ms: number; p99Ms: number; bytes: number }> {
  const latencies: number[] = [];
  let bytes = 0;
  for (let i = 0; i < count; i++) {
    const reply = await client.send(request(i));
    if (reply.status !== okStatus) throw new Error(`expected ${okStatus} from ${request(i).path}, got ${reply.status}: ${reply.body.slice(0, 300)}`);
    latencies.push(reply.ms);
    bytes = reply.body.length;
  }
  return { p50Ms: percentile(latencies, 0.5), p99Ms: percentile(latencies, 0.99), bytes };
}

export type OpenLoopOptions = {
  /** Arrivals per second; request i is due at start + i / rate, whatever the server's pace. */
  ratePerSecond: number;
  durationMs: number;
  maxRequests: number;
  /** How long answers are awaited after the schedule ends; what is still open then is aborted. */
  drainMs: number;
  request: (i: number) => Send;
  okStatus: number;
};

export type OpenLoopResult = {
  connections: number;
  /** Requests due on the schedule (all of them are sent unless the drain deadline passes first). */
  due: number;
  ok: number;
  /** Wrong status, transport failure, or no answer by the drain deadline (`unfinished`). */
  errors: number;
  unfinished: number;
  seconds: number;
  /** Expected-status answers per second, from the first due time to the last answer. */
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** How late the generator itself sent, p99: when high, the load generator (not the server) lagged. */
  sendLagP99Ms: number;
  firstError?: string;
};

/**
 * Open-loop load over a fixed set of connections (request i on connection i mod n). Each latency
 * runs from the request's due time, not from when it was written to a socket, so a stall is charged
 * for every request that queued behind it; a closed loop hides those (its clients stop sending while
 * they wait: coordinated omission). Bounded by count, by the schedule's length and by `drainMs`; an
 * unanswered request counts as an error with its latency up to the abort, a lower bound.
 */
export async function runOpenLoop(connections: HttpClient[], options: OpenLoopOptions): Promise<OpenLoopResult> {
  const total = Math.min(options.maxRequests, Math.floor((options.ratePerSecond * options.durationMs) / 1000));
  const intervalMs = 1000 / options.ratePerSecond;
  const abort = new AbortController();
  // One abort listener per in-flight request is expected here, not a leak; silence Node's warning.
  setMaxListeners(total + 1, abort.signal);
  const done = new Uint8Array(total);
  const latencies: number[] = [];
  const lags: number[] = [];
  const answers: Promise<void>[] = [];
  let ok = 0;
  let errors = 0;
  let lastAnswer = 0;
  let firstError: string | undefined;
  const start = performance.now();
  const dueAt = (i: number) => start + i * intervalMs;
  const settle = (i: number, error: string | null) => {
    if (done[i]) return; // already counted as unfinished when the drain deadline passed
    done[i] = 1;
    lastAnswer = performance.now();
    latencies.push(lastAnswer - dueAt(i));
    if (error === null) ok++;
    else {
      errors++;
      firstError ??= error;
    }
  };
  const fire = (i: number) => {
    lags.push(performance.now() - dueAt(i));
    answers.push(connections[i % connections.length]!.send(options.request(i), abort.signal).then(
      (reply) => settle(i, reply.status === options.okStatus ? null : `${reply.status} ${reply.body.slice(0, 300)}`),
      (err: Error) => settle(i, err.message),
    ));
  };
  // A timer per due request would cost more than the requests; one tick sends everything now due.
  let next = 0;
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now();
      while (next < total && dueAt(next) <= now) fire(next++);
      if (next >= total) resolve();
      else setTimeout(tick, Math.max(0, dueAt(next) - performance.now()));
    };
    tick();
  });

  const deadline = start + options.durationMs + options.drainMs;
  let timer: NodeJS.Timeout | undefined;
  const allAnswered = Promise.all(answers).then(() => false);
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), Math.max(0, deadline - performance.now()))));
  let unfinished = 0;
  if (await Promise.race([allAnswered, late])) {
    const abortedAt = performance.now();
    for (let i = 0; i < total; i++) {
      if (done[i]) continue;
      done[i] = 1;
      unfinished++;
      latencies.push(abortedAt - dueAt(i));
    }
    errors += unfinished;
    firstError ??= `${unfinished} requests unanswered ${options.drainMs} ms after the schedule ended`;
    abort.abort();
  }
  clearTimeout(timer);
  const seconds = ((lastAnswer || performance.now()) - start) / 1000;
  return {
    connections: connections.length,
    due: total,
    ok,
    errors,
    unfinished,
    seconds,
    perSecond: ok / seconds,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    maxMs: percentile(latencies, 1),
    sendLagP99Ms: percentile(lags, 0.99),
    ...(firstError === undefined ? {} : { firstError }),
  };
}
