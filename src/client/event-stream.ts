// Follows GET /v1/events/stream: the scope's events after a seq, then each new one live. Written
// on fetch, ReadableStream and TextDecoder (no EventSource: it cannot send a bearer token or the
// scope headers), so the same code runs in the console and in Node 20. A dropped connection, a
// stopped server or a 5xx is retried with Last-Event-ID (the last seq delivered), so no event is
// delivered twice or skipped; an answer that retrying cannot change (400, 401, 403, 404) ends the
// stream and is handed back.
import { withoutTrailingSlashes, type ClientScope } from './client.ts';

/** One event of the stream: its seq (the SSE id), its kind (the SSE event) and the stored event. */
export type StreamedEvent = { seq: number; kind: string; event: Record<string, unknown> };

export type StreamEventsOptions = {
  /** The server's origin, e.g. http://127.0.0.1:7337 (the console: location.origin). */
  baseUrl: string;
  /** The bearer token; null or absent sends none (the console's fetch carries its session cookie). */
  token?: string | null;
  scope: ClientScope;
  /** Deliver the events after this seq (0: from the first). */
  afterSeq: number;
  /** The fetch to use (the console's adds credentials); globalThis.fetch by default. */
  fetch?: typeof fetch;
  /** Aborting it closes the stream; streamEvents then resolves with { reason: 'aborted' }. */
  signal: AbortSignal;
  /** Each event, in seq order, once. */
  onEvent: (event: StreamedEvent) => void;
  /** A failure that is retried (no connection, a dropped stream, a 5xx): what happened and when the next try is. */
  onError?: (error: unknown, retry: { attempt: number; delayMs: number }) => void;
  /** The first retry's delay (doubled per failed attempt up to maxRetryMs; reset once a stream is open). Default 1000. */
  retryMs?: number;
  /** The longest wait between two tries. Default 30 000. */
  maxRetryMs?: number;
};

/** How a stream ended: the caller aborted it, or the server refused it in a way retrying cannot change. */
export type StreamEnd = { reason: 'aborted'; lastSeq: number } | { reason: 'refused'; status: number; body: unknown; lastSeq: number };

const MAX_RETRY_MS = 30_000;
/** Statuses a retry can change: the rest (400 bad query or scope, 401 token, 403, 404) end the stream. */
const RETRIED = (status: number) => status >= 500 || status === 408 || status === 429;

/**
 * Streams the scope's events after `afterSeq` until `signal` aborts, reconnecting after a dropped
 * connection with Last-Event-ID. Resolves with how it ended; it never rejects for an HTTP or
 * network failure (those go to onError and are retried, or end it as `refused`).
 */
export async function streamEvents(options: StreamEventsOptions): Promise<StreamEnd> {
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  const base = withoutTrailingSlashes(options.baseUrl);
  const firstDelay = options.retryMs ?? 1000;
  const maxDelay = options.maxRetryMs ?? MAX_RETRY_MS;
  let lastSeq = options.afterSeq;
  let attempt = 0;
  let delay = firstDelay;
  const { signal } = options;
  while (!signal.aborted) {
    let failure: unknown = null;
    try {
      const res = await doFetch(`${base}/v1/events/stream?after_seq=${lastSeq}`, { method: 'GET', headers: headersOf(options, lastSeq), signal });
      if (res.status === 200 && res.body) {
        attempt = 0;
        delay = firstDelay;
        const ended = await readEvents(res.body, signal, (event) => {
          lastSeq = event.seq;
          options.onEvent(event);
        }, (ms) => {
          delay = ms;
        });
        failure = ended ?? new Error('the server ended the event stream');
      } else if (RETRIED(res.status)) {
        failure = new Error(`the event stream answered ${res.status}`);
        await res.body?.cancel().catch(() => {});
      } else {
        return { reason: 'refused', status: res.status, body: await bodyOf(res), lastSeq };
      }
    } catch (err) {
      failure = err;
    }
    if (signal.aborted) break;
    attempt++;
    const wait = Math.min(delay * 2 ** Math.max(0, attempt - 1), maxDelay);
    options.onError?.(failure, { attempt, delayMs: wait });
    await sleep(wait, signal);
  }
  return { reason: 'aborted', lastSeq };
}

function headersOf(options: StreamEventsOptions, lastSeq: number): Record<string, string> {
  const headers: Record<string, string> = {
    Accept: 'text/event-stream',
    'X-Tenant-Id': options.scope.tenant_id,
    'X-Workspace-Id': options.scope.workspace_id,
    'X-Project-Id': options.scope.project_id,
  };
  if (options.token) headers.Authorization = `Bearer ${options.token}`;
  // after_seq says the same; Last-Event-ID is what the server honours first on a reconnect.
  if (lastSeq > 0) headers['Last-Event-ID'] = String(lastSeq);
  return headers;
}

/**
 * Parses the SSE body (the event-stream format of the HTML standard: lines ending in LF, CR or
 * CRLF; `:` comments; a blank line dispatches) until it ends. Resolves with the error that ended it,
 * or null when the server closed it.
 */
async function readEvents(body: ReadableStream<Uint8Array>, signal: AbortSignal, deliver: (event: StreamedEvent) => void, retry: (ms: number) => void): Promise<unknown> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let id = '';
  let kind = '';
  let data: string[] = [];
  const dispatch = () => {
    if (data.length > 0) {
      const seq = Number(id);
      const event = JSON.parse(data.join('\n')) as Record<string, unknown>;
      deliver({ seq: Number.isSafeInteger(seq) && id !== '' ? seq : Number(event.seq), kind: kind || String(event.kind ?? 'message'), event });
    }
    kind = '';
    data = [];
  };
  const line = (text: string) => {
    if (text === '') return dispatch();
    if (text.startsWith(':')) return;
    const colon = text.indexOf(':');
    const field = colon < 0 ? text : text.slice(0, colon);
    let value = colon < 0 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'event') kind = value;
    else if (field === 'id' && !value.includes('\0')) id = value;
    else if (field === 'retry' && /^\d+$/.test(value)) retry(Number(value));
  };
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      // A CR at the very end may be the first half of a CRLF: keep it for the next chunk.
      let start = 0;
      for (let i = 0; i < buffer.length; i++) {
        const ch = buffer[i];
        if (ch !== '\n' && ch !== '\r') continue;
        if (ch === '\r' && i === buffer.length - 1) break;
        line(buffer.slice(start, i));
        if (ch === '\r' && buffer[i + 1] === '\n') i++;
        start = i + 1;
      }
      buffer = buffer.slice(start);
    }
    // An event not ended by a blank line is incomplete (the connection dropped in it): dropped.
    return null;
  } catch (err) {
    return signal.aborted ? null : err;
  } finally {
    // Frees the body for the connection's clean-up; a read still pending (an abort) is refused.
    try {
      reader.releaseLock();
    } catch {
      // already released
    }
  }
}

async function bodyOf(res: Response): Promise<unknown> {
  const text = await res.text().catch(() => '');
  try {
    return JSON.parse(text);
  } catch {
    return text === '' ? null : text;
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
