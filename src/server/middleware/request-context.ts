// X-Request-Id on every response, and one access line per request: method, path, status and
// milliseconds. It never prints a header value or a query string (tokens and search text stay out).
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env.ts';

export function requestContext(newRequestId: () => string, access: (line: string) => void): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    const requestId = newRequestId();
    c.set('requestId', requestId);
    c.set('transport', null);
    await next();
    c.res.headers.set('X-Request-Id', requestId);
    const ms = (performance.now() - started).toFixed(1);
    access(`${c.req.method} ${c.req.path} ${c.res.status} ${ms}ms`);
  };
}
