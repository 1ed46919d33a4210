// The as_of a request names (packets, claim evaluations, exports), as an instant.
import { formatDateTime, parseDateTime } from '../domain/date-time.ts';
import { AppError } from '../errors.ts';
import type { ServiceDeps } from './deps.ts';

/**
 * Not later than the server's clock: events could still be recorded at or before a future as_of,
 * so its snapshot (a packet's bytes, an export's) could change.
 */
export function requestedAsOf(deps: ServiceDeps, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const asOfMs = parseDateTime(text, 'as_of');
  const now = snapshotNow(deps);
  if (asOfMs > now) {
    throw new AppError('as_of_in_future', `The as_of ${formatDateTime(asOfMs)} is later than the server's clock and its last recorded event (${formatDateTime(now)}); a snapshot holds only what has been recorded: send an as_of at or before now, or leave it out for now.`);
  }
  return asOfMs;
}

/**
 * "Now" for a snapshot: the clock, or the log's last recorded_at while the clock is behind it. A
 * batch is recorded at the clock but never before the batch ahead of it, so after the clock goes
 * back, new events carry the last recorded_at until the clock catches up: a snapshot as of the
 * clock would leave them out (a new task's packet would be an empty snapshot), and an as_of naming
 * their own recorded_at would be "in the future".
 */
export function snapshotNow(deps: ServiceDeps): number {
  const now = deps.clock().getTime();
  const tail = deps.store.tail();
  const recorded = tail.seq > 0 ? Date.parse(tail.recordedAt) : Number.NaN;
  return Number.isFinite(recorded) && recorded > now ? recorded : now;
}
