// The forge family's error bodies (docs/quota.md §5): Forgejo's {message, url}, with errors: [] on
// a 404, instead of a problem. One middleware, mounted on every forge route, reads the error the
// root app's onError answered (hono's compose catches a throw at the innermost handler, runs
// onError, and leaves the error in c.error) and rewrites the answer in the forge's shape. The
// status is the catalogue's, as for any route; the root app has already logged a 5xx.
import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env.ts';
import { closesConnection, httpAnswerOf, internalErrorDetail } from '../problem.ts';

/** The forge's API_SWAGGER_URL, on the address the caller used. */
export function swaggerUrl(c: Context): string {
  return `${new URL(c.req.url).origin}/api/swagger`;
}

export type ForgeErrorBody = { message: string; url: string; errors?: string[] };

/**
 * The forge answer for any error: an AppError the catalogue answers keeps its status and message
 * (written for the caller); anything else is a 500 that names only the request id.
 */
export function forgeErrorResponse(c: Context<AppEnv>, err: unknown): Response {
  const answer = httpAnswerOf(err);
  const status = answer?.status ?? 500;
  const message = answer ? (err as Error).message : internalErrorDetail(c.get('requestId') ?? 'unknown');
  const body: ForgeErrorBody = { message, url: swaggerUrl(c) };
  if (status === 404) body.errors = [];
  const headers: Record<string, string> = { 'Content-Type': 'application/json; charset=utf-8' };
  if (status === 401) headers['WWW-Authenticate'] = 'Bearer';
  if (closesConnection(status)) headers.Connection = 'close';
  return new Response(JSON.stringify(body), { status, headers });
}

export function forgeErrors(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    if (c.error === undefined) return;
    // Dropping the problem answer first keeps its headers out: setting c.res over a response
    // copies the old one's headers into the new.
    c.res = undefined;
    c.res = forgeErrorResponse(c, c.error);
  };
}
