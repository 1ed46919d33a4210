// The one stderr line a 5xx writes: a JSON object with the request id (also in the answer), method,
// matched route and path, the error's name, code, message and stack. The answer itself stays
// generic; this line is where an operator finds what went wrong (docs/contract.md §4: the stack goes to
// stderr only). It never holds a header, a query string or the body.
import type { Context } from 'hono';
import { routePath } from 'hono/route';
import { AppError } from '../errors.ts';
import type { AppEnv } from './env.ts';

export type ServerErrorRecord = {
  level: 'error';
  request_id: string;
  method: string;
  /** The matched route pattern (`/v1/tasks/:task_id/closeout`), or '' when none matched. */
  route: string;
  path: string;
  status: number;
  error: string;
  code: string | null;
  message: string;
  stack: string | null;
  cause: string | null;
};

export function serverErrorRecord(c: Context<AppEnv>, err: unknown, status: number): ServerErrorRecord {
  const error = err instanceof Error ? err : null;
  const cause = error?.cause;
  return {
    level: 'error',
    request_id: c.get('requestId') ?? 'unknown',
    method: c.req.method,
    // The last matched route is the endpoint; earlier ones are the middleware patterns (`/v1/*`).
    route: routePath(c, -1),
    path: c.req.path,
    status,
    error: error?.name ?? typeof err,
    code: err instanceof AppError ? err.code : null,
    message: error?.message ?? String(err),
    stack: error?.stack ?? null,
    cause: cause === undefined ? null : cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause),
  };
}

/** One line: JSON.stringify escapes the newlines of a stack. */
export function serverErrorLine(c: Context<AppEnv>, err: unknown, status: number): string {
  return JSON.stringify(serverErrorRecord(c, err, status));
}
