// The Node HTTP server around the app (@hono/node-server's request listener on node:http). Every
// request Node can parse reaches the app, a missing or odd Host included, so the loopback guard
// answers it; what Node cannot parse gets a problem body written on the raw socket.
import { getRequestListener, RequestError } from '@hono/node-server';
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { AppError, type ErrorCode } from '../errors.ts';
import { isAllowedHost } from './middleware/loopback-guard.ts';
import { problemOf } from './problem.ts';

export type NodeServerDeps = {
  newRequestId: () => string;
  /** The access log: one line per answer, the app's and these. */
  access: (line: string) => void;
  /** Where a 5xx's structured line goes. */
  logError: (line: string) => void;
  /** Aborted when the server starts to stop: answers from then on close their connection. */
  stopping?: AbortSignal;
  /** How long a request's headers, and the whole request, may take to arrive (ms); REQUEST_TIMEOUTS by default. */
  timeouts?: { headersMs: number; requestMs: number };
};

/**
 * A client that sends its request a byte at a time holds a socket (and a file descriptor) for as
 * long as it likes: headers must arrive within 20 s and a whole request (at most 1 MiB) within 60 s,
 * else the answer is 408 request_timeout and the connection closes. Node checks every few seconds.
 */
export const REQUEST_TIMEOUTS = { headersMs: 20_000, requestMs: 60_000 };

type Fetch = (request: Request) => Response | Promise<Response>;

/**
 * The authority of the Request URL when the Host header is missing or one the loopback guard
 * refuses anyway (RFC 6761: `.invalid` never resolves). The adapter would otherwise answer such a
 * request a bare 400 itself (it cannot build a URL from `evil@127.0.0.1:7337` or from nothing),
 * before the guard could say why.
 */
export const PLACEHOLDER_HOST = 'host.invalid';

/** How long a refused connection is read from after the answer, before it is closed. */
const LINGER_MS = 2000;

export function createNodeServer(fetch: Fetch, deps: NodeServerDeps): Server {
  const listener = getRequestListener(fetch, {
    hostname: PLACEHOLDER_HOST,
    // Only the adapter's own refusals arrive here (a request target it cannot turn into a URL,
    // such as `/a\b` or `*`): the app answers everything else itself, errors included.
    errorHandler: (err) => adapterErrorResponse(err, deps),
  });
  // requireHostHeader: false — Node would answer an HTTP/1.1 request without Host a bare 400; the
  // guard answers it 403 host_not_allowed with a body that says what to do.
  const timeouts = deps.timeouts ?? REQUEST_TIMEOUTS;
  const server = createServer({
    requireHostHeader: false,
    headersTimeout: timeouts.headersMs,
    requestTimeout: timeouts.requestMs,
    connectionsCheckingInterval: Math.min(5_000, Math.ceil(timeouts.headersMs / 4)),
  }, (incoming: IncomingMessage, outgoing: ServerResponse) => {
    const host = incoming.headers.host;
    // The URL is built from Host only when the guard will accept it. The guard reads the Host the
    // client sent (the request's headers come from the raw header list), not this one.
    if (host !== undefined && !isAllowedHost(host, incoming.socket.localPort ?? 0)) delete incoming.headers.host;
    // A stopping server finishes what it was asked and ends each busy keep-alive connection after
    // its answer (the idle ones close at once): new requests go to the next server.
    if (deps.stopping?.aborted) outgoing.setHeader('Connection', 'close');
    void listener(incoming, outgoing);
  });
  // Sockets already answered: the parser reports again on every later chunk of a refused connection.
  const answered = new WeakSet<Socket>();
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => answerClientError(err, socket, deps, answered));
  return server;
}

function adapterErrorResponse(err: unknown, deps: NodeServerDeps): Response {
  const requestId = deps.newRequestId();
  const known = err instanceof RequestError;
  const problem = known
    ? problemOf(new AppError('bad_request', `The request target cannot be read as a URL path (${err.message}); send an origin-form path such as /health.`), requestId)
    : problemOf(err, requestId);
  // Anything else is the app's fetch throwing before it answered: a 500 like the app's own, logged.
  if (!known) {
    const error = err instanceof Error ? err : null;
    deps.logError(JSON.stringify({ level: 'error', request_id: requestId, method: null, route: '', path: null, status: problem.status, error: error?.name ?? typeof err, code: null, message: error?.message ?? String(err), stack: error?.stack ?? null, cause: null }));
  }
  deps.access(accessLine(problem.status, problem.code, requestId));
  return new Response(JSON.stringify(problem), { status: problem.status, headers: { 'Content-Type': 'application/problem+json', 'X-Request-Id': requestId } });
}

/** Node's parser error codes → the answer (Node's own default answers, with a problem body). */
function problemCodeOf(err: NodeJS.ErrnoException): keyof typeof DETAIL {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return 'request_header_fields_too_large';
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return 'payload_too_large';
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return 'request_timeout';
    default:
      return 'bad_request';
  }
}

const DETAIL = {
  request_header_fields_too_large: 'The request headers are larger than the server reads (16 KiB in all); send fewer or shorter headers.',
  payload_too_large: 'The chunk extensions of the body are too large; send the body without them.',
  request_timeout: 'The request did not arrive in time; send it again, whole.',
  bad_request: 'The request is not valid HTTP/1.1 (the request line, a header or the body framing); a path must be ASCII, with anything else percent-encoded.',
} as const satisfies Partial<Record<ErrorCode, string>>;

/**
 * Node's parser refused the bytes (no request exists, so the answer goes on the raw socket). While
 * an answer to an earlier request on this connection is pending, nothing is written: the client
 * would read the problem as that answer, or find it in the middle of it.
 */
function answerClientError(err: NodeJS.ErrnoException, socket: Socket, deps: NodeServerDeps, answered: WeakSet<Socket>): void {
  if (answered.has(socket)) return;
  answered.add(socket);
  const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (err.code === 'ECONNRESET' || !socket.writable || inFlight) {
    socket.destroy();
    return;
  }
  const requestId = deps.newRequestId();
  const code = problemCodeOf(err);
  const problem = problemOf(new AppError(code, DETAIL[code]), requestId);
  const body = JSON.stringify(problem);
  socket.end(
    `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status]}\r\n` +
      'Content-Type: application/problem+json\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${requestId}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
  deps.access(accessLine(problem.status, code, requestId));
  // A lingering close (RFC 9112 section 9.6): closing with unread bytes (the rest of an oversized
  // header block) would reset the connection, and a reset can discard the answer before the
  // client reads it. So read until the client closes, for a short while at most.
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.once('end', () => socket.destroy());
  socket.once('close', () => clearTimeout(timer));
}

/** As the app's access line (method, path, status, time), which a refused request has none of. */
function accessLine(status: number, code: string, requestId: string): string {
  return `- - ${status} - ${code} ${requestId}`;
}

/**
 * Listens on host:port and answers the base URL and the bound port (port 0 takes a free one);
 * cannot_bind, with what to do, when the address is taken or not ours.
 */
export async function listenOn(server: Server, host: string, port: number): Promise<{ baseUrl: string; port: number }> {
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
  } catch (err) {
    throw new AppError('cannot_bind', `Cannot listen on ${host}:${port} (${(err as Error).message}); choose another --port, or --port 0 for a free one.`, { cause: err });
  }
  const bound = (server.address() as { port: number }).port;
  return { baseUrl: `http://${host.includes(':') ? `[${host}]` : host}:${bound}`, port: bound };
}

/** Stops accepting, lets in-flight requests finish and closes idle keep-alive connections. */
export function closeServer(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}
