// GET /v1/events/stream: the scope's events as Server-Sent Events, for the console and for
// integrators that want to follow a scope live. First every event after the cursor, read from the
// index a page at a time (a long backlog never sits in memory: the next page is read only when the
// client has taken the last one), then each event as the index applies it — woken by the store's
// onIndexed, never by polling. Each event is `id: <seq>`, `event: <kind>` and its stored line as
// `data:`, so a reconnecting EventSource resumes with Last-Event-ID. The stream ends when the
// client goes away and when the server stops (deps.stopping), so a stop never waits on a stream.
import type { Scope } from '../../domain/event.ts';
import { AppError } from '../../errors.ts';
import { nodeRequest } from '../env.ts';
import { readQuery, type QuerySpec } from '../query-params.ts';
import { P } from '../responses.ts';
import type { Route, RouteDeps } from '../route-spec.ts';

export const EVENT_STREAM_QUERY = {
  after_seq: { schema: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0 }, description: 'Only events after this seq (0, the default, starts at the first event); a Last-Event-ID header wins over it.' },
} as const satisfies QuerySpec;

/** Events read from the index per page of the backlog (one chunk written to the socket). */
export const STREAM_PAGE = 500;
/**
 * And at most this many characters of events a chunk (its first event whatever its size): 500
 * events of a megabyte each were one 440 MB chunk, built and written in one turn of the event loop.
 */
export const STREAM_PAGE_CHARS = 1024 * 1024;
/** How long the stream may stay silent before a comment line tells proxies and clients it is alive. */
export const KEEP_ALIVE_MS = 15_000;
/**
 * How long a stopping server lets a stream's socket flush what was queued before it drops the
 * connection: a client that does not read (a suspended laptop, a stuck proxy) must not hold the stop.
 */
export const STOP_FLUSH_MS = 1_000;

export const EVENT_STREAM_ROUTES: Route[] = [
  {
    method: 'GET', path: '/v1/events/stream', status: 'preview', access: 'read', scoped: true,
    summary: "The scope's events as Server-Sent Events: those after after_seq (or Last-Event-ID), then each new one as it is indexed.",
    readme: '`?after_seq=` (default 0; `Last-Event-ID` wins); `text/event-stream`: `id: <seq>`, `event: <kind>`, `data: <stored event>`; `: keep-alive` every 15 s',
    query: EVENT_STREAM_QUERY, responses: { 200: 'text/event-stream', 400: P },
    handler: (c, deps) => {
      const { after_seq: afterSeq } = readQuery(c, EVENT_STREAM_QUERY);
      const resumeAt = lastEventId(c.req.header('last-event-id'));
      const socket = nodeRequest(c)?.socket;
      const dropLater = () => {
        if (socket === undefined || socket.destroyed) return;
        const timer = setTimeout(() => socket.destroy(), STOP_FLUSH_MS);
        timer.unref();
        socket.once('close', () => clearTimeout(timer));
      };
      return c.body(eventStream(deps, c.get('scope'), resumeAt ?? afterSeq, dropLater), 200, {
        'Content-Type': 'text/event-stream',
        'Cache-Control': 'no-cache',
        // The connection ends with the stream: a server that stops closes it at once rather than
        // keep it open, idle, until its keep-alive timeout.
        Connection: 'close',
      });
    },
  },
];

/** The seq an EventSource sends back when it reconnects; an empty one is none (SSE). */
function lastEventId(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const seq = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(seq)) {
    throw new AppError('bad_request', 'Last-Event-ID must be the seq of an event this stream sent (an integer ≥ 0); leave it out to start at after_seq.', { details: [{ pointer: '/headers/Last-Event-ID', detail: 'integer ≥ 0' }] });
  }
  return seq;
}

/** One event as SSE: the stored line is one canonical JSON line already (no newline inside). */
function frame(row: { seq: number; kind: string; line: string }): string {
  return `id: ${row.seq}\nevent: ${row.kind}\ndata: ${row.line}\n\n`;
}

/**
 * A pull stream: each pull answers the next page after the last seq sent, or waits until the index
 * moves past what it just read (or KEEP_ALIVE_MS pass: a comment). Pulls come only as fast as the
 * socket drains, which is the backpressure that bounds memory.
 */
function eventStream(deps: RouteDeps, scope: Scope, afterSeq: number, onStop: () => void): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let after = afterSeq;
  let done = false;
  /** Resolves the pull waiting for the index, if one is. */
  let wake: (() => void) | null = null;
  let keepAlive: ReturnType<typeof setTimeout> | undefined;
  let unsubscribe = (): void => {};
  let controller: ReadableStreamDefaultController<Uint8Array> | null = null;
  const ring = () => {
    const waiting = wake;
    wake = null;
    waiting?.();
  };
  const finish = () => {
    if (done) return;
    done = true;
    unsubscribe();
    deps.stopping.removeEventListener('abort', stop);
    clearTimeout(keepAlive);
    ring();
  };
  // The server stops: what is queued is written (for STOP_FLUSH_MS at most), then the response ends.
  const stop = () => {
    if (done) return;
    finish();
    controller?.close();
    onStop();
  };

  return new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
      if (deps.stopping.aborted) {
        stop();
        return;
      }
      unsubscribe = deps.store.onIndexed(ring);
      deps.stopping.addEventListener('abort', stop);
    },
    async pull(c) {
      while (!done) {
        // Read before the page: an event indexed after this is waited for, not missed.
        const indexed = deps.store.indexedSeq();
        let rows: Array<{ seq: number; kind: string; line: string }>;
        try {
          rows = deps.queries.scopeEventLines(scope, after, STREAM_PAGE, STREAM_PAGE_CHARS);
        } catch (err) {
          // The index is being rebuilt or cannot be read: the connection drops and the client
          // reconnects with Last-Event-ID (answered 503 until the index is back).
          finish();
          if (/^SQLITE_(CORRUPT|NOTADB)/.test(String((err as { code?: unknown } | null)?.code ?? ''))) deps.store.markIndexCorrupt((err as Error).message);
          throw err;
        }
        if (rows.length > 0) {
          after = rows[rows.length - 1]!.seq;
          c.enqueue(encoder.encode(rows.map(frame).join('')));
          return;
        }
        const woken = await new Promise<boolean>((resolve) => {
          if (done || deps.store.indexedSeq() > indexed) return resolve(true);
          wake = () => {
            clearTimeout(keepAlive);
            resolve(true);
          };
          keepAlive = setTimeout(() => {
            wake = null;
            resolve(false);
          }, KEEP_ALIVE_MS);
        });
        if (!woken) {
          c.enqueue(encoder.encode(': keep-alive\n\n'));
          return;
        }
      }
    },
    // The client went away (the adapter cancels the body when the socket closes).
    cancel: finish,
  });
}
