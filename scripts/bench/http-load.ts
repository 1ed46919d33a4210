// A small keep-alive HTTP client (node:http, lowest client overhead on a 2-core box where client
// and server share the CPU) and a bounded closed-loop load generator: N workers, each sending its
// next request when the previous answered, until a request count or a deadline is reached.
import http from 'node:http';
import { percentile } from './section.ts';

export type Reply = { status: number; body: string; ms: number };
export type Send = { method?: string; path: string; headers?: Record<string, string>; body?: string };

/** One connection pool to one server; `close()` destroys its sockets so the server can stop cleanly. */
export type HttpClient = { send(req: Send): Promise<Reply>; close(): void };

const REQUEST_TIMEOUT_MS = 30_000;

export function httpClient(baseUrl: string, maxSockets = 64): HttpClient {
  const url = new URL(baseUrl);
  if (url.hostname !== '127.0.0.1') throw new Error(`the bench only talks to 127.0.0.1, not ${url.hostname}`);
  const agent = new http.Agent({ keepAlive: true, maxSockets });
  const send = (req: Send): Promise<Reply> => new Promise((resolve, reject) => {
    const started = performance.now();
    const headers: Record<string, string | number> = { ...req.headers };
    if (req.body !== undefined) headers['Content-Length'] = Buffer.byteLength(req.body);
    const r = http.request({ agent, host: url.hostname, port: url.port, method: req.method ?? (req.body === undefined ? 'GET' : 'POST'), path: req.path, headers }, (res) => {
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
  errors: number;
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
  let errors = 0;
  let firstError: string | undefined;
  const started = performance.now();
  const deadline = started + options.durationMs;
  const worker = async () => {
    while (issued < options.maxRequests && performance.now() < deadline) {
      const i = issued++;
      try {
        const reply = await client.send(options.request(i));
        latencies.push(reply.ms);
        if (reply.status !== options.okStatus) {
          errors++;
          firstError ??= `${reply.status} ${reply.body.slice(0, 300)}`;
        }
      } catch (err) {
        errors++;
        firstError ??= (err as Error).message;
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  return {
    concurrency: options.concurrency,
    requests: latencies.length,
    errors,
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
