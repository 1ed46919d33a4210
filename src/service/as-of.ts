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
  const now = deps.clock().getTime();
  if (asOfMs > now) {
    throw new AppError('as_of_in_future', `The as_of ${formatDateTime(asOfMs)} is later than the server's clock (${formatDateTime(now)}); a snapshot holds only what has been recorded: send an as_of at or before now, or leave it out for now.`);
  }
  return asOfMs;
}
