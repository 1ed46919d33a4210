// Optimistic concurrency for writes decided on state read before the append: the append states
// what it read (a stream version, a complete snapshot) as an expectation, and when another write
// got in between, the whole decision runs again on the new state. No lock is held meanwhile.
import { AppError } from '../errors.ts';

export const WRITE_CONFLICT = 'write_conflict';

/** The error an expectation raises when the state a decision read has moved on. */
export function writeConflict(what: string): AppError {
  return new AppError(WRITE_CONFLICT, `${what} changed while this request was being decided, several times in a row; send it again.`);
}

/** Runs `attempt` until it does not fail with a write conflict, at most `attempts` times. */
export async function retryOnConflict<T>(attempt: () => Promise<T>, attempts = 8): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await attempt();
    } catch (err) {
      if (!(err instanceof AppError && err.code === WRITE_CONFLICT) || i >= attempts) throw err;
    }
  }
}
