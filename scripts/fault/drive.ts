// Concurrent writes of one route against a preview, recording which were acknowledged (2xx). A
// worker stops at its first transport failure (the server was killed, the connection reset) or when
// told to; the caller decides what a fault is and when it happens.
import { send, type Target } from '../fuzz/exchange.ts';
import type { WriteRoute } from './write-routes.ts';

export type DriveResult = {
  sent: number;
  /** Indexes of the writes answered 2xx: each must be in the log, whatever happens next. */
  acked: number[];
  /** Status → count of the answers that were not 2xx (e.g. 503 on a full disk). */
  refused: Record<string, number>;
  /** Requests that got no HTTP answer (in flight when the server died). */
  unanswered: number;
};

export async function driveWrites(target: Target, route: WriteRoute, options: {
  from: number;
  count: number;
  concurrency: number;
  /** Called after every acknowledgement, with all so far (the crash matrix kills the server here). */
  onAck?: (acked: number[]) => void;
  stop?: () => boolean;
}): Promise<DriveResult> {
  const result: DriveResult = { sent: 0, acked: [], refused: {}, unanswered: 0 };
  let next = options.from;
  const end = options.from + options.count;
  const worker = async () => {
    while (next < end && !options.stop?.()) {
      const i = next++;
      const req = route.request(i);
      result.sent++;
      const answer = await send(target, {
        op: route.name, method: req.method, path: req.path, query: [], auth: req.auth, headers: req.headers,
        body: req.body === undefined ? undefined : JSON.stringify(req.body), contentType: req.body === undefined ? undefined : 'application/json', notes: [],
      });
      if (answer.status >= 200 && answer.status < 300) {
        result.acked.push(i);
        options.onAck?.(result.acked);
      } else if (answer.status <= 0) {
        result.unanswered++;
        return;
      } else {
        result.refused[answer.status] = (result.refused[answer.status] ?? 0) + 1;
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  return result;
}

/** mulberry32: a small seeded generator, so a run's fault points replay from its seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
