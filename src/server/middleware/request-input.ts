// The scope and body of a request as middleware, mounted per route from its declaration: the scope
// headers first (400), then the JSON body (415, 413, 400), so every route checks them in one order
// before its handler runs.
import type { MiddlewareHandler } from 'hono';
import type { SchemaRegistry } from '../../schema-registry.ts';
import type { AppEnv } from '../env.ts';
import { readJsonBody, readScope } from '../request-input.ts';

export function scopeHeaders(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    c.set('scope', readScope(c));
    await next();
  };
}

/**
 * The parsed JSON body; with `check`, also valid against the route's request schema. A PATCH body
 * may also come as application/merge-patch+json.
 */
export function jsonBody(check?: { registry: SchemaRegistry; schema: string }): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const body = await readJsonBody(c, { mergePatch: c.req.method === 'PATCH' });
    if (check) check.registry.assert(check.schema, body, 'body');
    c.set('body', body);
    await next();
  };
}
