// The scope and body of a request as middleware, mounted per route from its declaration: the scope
// headers first (400), then the JSON body (415, 413, 400), so every route checks them in one order
// before its handler runs.
import type { MiddlewareHandler } from 'hono';
import type { SchemaRegistry } from '../../schema-registry.ts';
import type { Scope } from '../../domain/event.ts';
import type { AppEnv } from '../env.ts';
import { AppError } from '../../errors.ts';
import { readJsonBody, readScope } from '../request-input.ts';

export function scopeHeaders(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const scope = readScope(c);
    const identity = c.get('identity');
    if (identity !== undefined && !grantsScope(identity, scope)) {
      const grants = `tenant ${identity.tenants.join(', ')}${identity.workspaces === null ? '' : `, workspace ${identity.workspaces.join(', ')}`}`;
      throw new AppError('token_scope_mismatch', `The bearer token grants ${grants}, not tenant ${scope.tenant_id} (workspace ${scope.workspace_id}); send the scope headers the token grants, or get a token for this scope.`);
    }
    c.set('scope', scope);
    await next();
  };
}

/** The hosted service's token names the tenants (and maybe workspaces) it grants; the preview's grant every scope. */
export function grantsScope(identity: AppEnv['Variables']['identity'], scope: Scope): boolean {
  if (identity === undefined) return true;
  return identity.tenants.includes(scope.tenant_id) && (identity.workspaces === null || identity.workspaces.includes(scope.workspace_id));
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
