// The event stream as the smoke checks open it: tenant A's, from the start, one try (a check reports a
// failure rather than reconnecting), closed by the check or after STREAM_WAIT_MS.
import { streamEvents, type StreamedEvent, type StreamEnd } from '../client/event-stream.ts';
import type { SmokeCtx } from './context.ts';

export const STREAM = 'GET /v1/events/stream';
/** How long a check waits for the stream (its headers, or the events it looks for). */
export const STREAM_WAIT_MS = 10_000;

export type SmokeStream = { end: StreamEnd; contentType: string | null; error: unknown };

/**
 * Opens the stream; `onEvent` gets each event and `stop`, which closes it (as does `stopOnOpen`, once
 * the answer's headers arrive). A failure closes it too, and is in `error`.
 */
export async function openSmokeStream(ctx: SmokeCtx, options: { stopOnOpen?: boolean; onEvent?: (event: StreamedEvent, stop: () => void) => void } = {}): Promise<SmokeStream> {
  const abort = new AbortController();
  const stop = () => abort.abort();
  const timer = setTimeout(stop, STREAM_WAIT_MS);
  let contentType: string | null = null;
  let error: unknown = null;
  const end = await streamEvents({
    baseUrl: ctx.target.baseUrl,
    token: ctx.target.tokens.customer,
    scope: ctx.scopeA,
    afterSeq: 0,
    signal: abort.signal,
    fetch: async (input, init) => {
      const res = await fetch(input, init);
      contentType = res.headers.get('content-type');
      if (options.stopOnOpen === true && res.ok) stop();
      return res;
    },
    onEvent: (event) => options.onEvent?.(event, stop),
    onError: (err) => {
      error = err;
      stop();
    },
  }).finally(() => clearTimeout(timer));
  return { end, contentType, error };
}
