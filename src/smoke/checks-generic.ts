// Negative calls made for every route the server lists, from its route list and its OpenAPI
// document alone: no token (401), a token it never issued (401), the wrong transport (403: the
// operator on a /v1/ write, the customer on /admin/ and the forge's user routes), missing scope
// headers (400), a malformed JSON body (400) and one nested too deep (400).
import { check, COMPUTE_ONLY, negative, type SmokeCheck } from './check.ts';
import type { SmokeCtx } from './context.ts';

export type ListedRoute = { method: string; path: string };

/** The public routes every gov server has; the document marks any other (the console's) with `security: []`. */
const PUBLIC = new Set(['GET /health', 'GET /openapi.json', 'OPTIONS /v1/events']);
const FORGE_USER = /^(\/api\/v1)?\/(user|orgs)(\/|$)/;

export function genericChecks(routes: ListedRoute[], doc: Record<string, any> | null): SmokeCheck[] {
  const out: SmokeCheck[] = [];
  for (const { method, path } of routes) {
    const route = `${method} ${path}`;
    const op = doc?.paths?.[path]?.[method.toLowerCase()];
    if (PUBLIC.has(route) || (Array.isArray(op?.security) && op.security.length === 0)) continue;
    const v1 = path.startsWith('/v1/');
    const hasBody = method !== 'GET' && method !== 'DELETE' && (op ? op.requestBody !== undefined : method !== 'PUT');
    const body = hasBody ? { body: {} } : {};
    out.push(negative(`${route}: no token → 401`, route, async (ctx) => {
      const res = await ctx.call(route, { as: 'none', ...body });
      ctx.expect(res, 401, v1 ? { code: 'unauthorized' } : {});
      check(/^Bearer\b/i.test(res.headers.get('www-authenticate') ?? ''), '401 without WWW-Authenticate: Bearer');
    }));
    out.push(negative(`${route}: a token the server never issued → 401`, route, async (ctx) => {
      // The hosted service reads any bearer value as a JWT: one it cannot verify is token_invalid.
      ctx.expect(await ctx.call(route, { as: 'bogus', ...body }), 401, v1 ? { code: ctx.hosted ? 'token_invalid' : 'unauthorized' } : {});
    }));
    // An operator-only /v1 POST (the console's login codes) is no customer write.
    const operatorOnly = Array.isArray(op?.security) && op.security.length > 0 && op.security.every((s: Record<string, unknown>) => 'operatorToken' in s);
    if (v1 && method !== 'GET' && !COMPUTE_ONLY.has(route) && !operatorOnly) {
      out.push(negative(`${route}: the operator token on a customer write → 403`, route, async (ctx) => {
        ctx.expect(await ctx.call(route, { as: 'operator', ...body }), 403, { code: 'operator_transport_rejected' });
      }, { operator: true }));
    }
    if (!v1 && (path.includes('/admin/') || FORGE_USER.test(path))) {
      out.push(negative(`${route}: the customer token → 403`, route, async (ctx) => {
        ctx.expect(await ctx.call(route, { as: 'customer', ...body, ...(FORGE_USER.test(path) ? { sudo: 'anyone' } : {}) }), 403);
      }));
    }
    if (v1 && op && needsScope(op, doc!)) {
      out.push(negative(`${route}: no scope headers → 400 scope_required`, route, async (ctx) => {
        ctx.expect(await ctx.call(route, { scope: null, ...body }), 400, { code: 'scope_required' });
      }));
    }
    if (v1 && hasBody) {
      out.push(negative(`${route}: malformed JSON → 400 malformed_json`, route, async (ctx: SmokeCtx) => {
        const res = await ctx.call(route, { rawBody: '{"broken": ', ...(route === 'POST /v1/events' ? { idempotencyKey: `smoke-${ctx.runId}-malformed` } : {}) });
        ctx.expect(res, 400, { code: 'malformed_json' });
      }));
      // Refused before any schema check, however deep: a bounded scan, never the stack (a 5xx).
      out.push(negative(`${route}: a body nested 5,000 levels → 400 json_too_deep`, route, async (ctx: SmokeCtx) => {
        const rawBody = `{"a":${'['.repeat(5000)}${']'.repeat(5000)}}`;
        const res = await ctx.call(route, { rawBody, ...(route === 'POST /v1/events' ? { idempotencyKey: `smoke-${ctx.runId}-deep` } : {}) });
        ctx.expect(res, 400, { code: 'json_too_deep' });
      }));
    }
  }
  return out;
}

/** The operation declares the X-Tenant-Id header (directly or through components.parameters). */
function needsScope(op: Record<string, any>, doc: Record<string, any>): boolean {
  const params = (op.parameters ?? []) as Record<string, any>[];
  return params.some((p) => {
    const resolved = typeof p.$ref === 'string' ? doc.components?.parameters?.[p.$ref.split('/').pop()!] : p;
    return resolved?.in === 'header' && String(resolved.name).toLowerCase() === 'x-tenant-id' && resolved.required === true;
  });
}
