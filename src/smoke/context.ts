// What a smoke check works with: the target, its tokens, one call helper that fills a route's
// placeholders, picks token and scope and refuses any write the run does not allow, and `expect`,
// which checks a status and validates the body against the server's own OpenAPI document.
import { createClient, type ApiResponse, type ClientScope, type GovClient, type QueryValue } from '../client/client.ts';
import { brief, check, fail, reachAllows, routeKey, routeReach, type WriteReach } from './check.ts';
import type { ResponseValidator } from './response-validator.ts';

export type SmokeTarget = { baseUrl: string; tokens: { customer: string; operator: string | null } };

/** Who calls: the customer or operator token, no token at all, or a token the server never issued. */
export type Role = 'customer' | 'operator' | 'none' | 'bogus';

export type SmokeCall = {
  as?: Role;
  /** Placeholder values by name; a missing one comes from `samples`, else a name nothing has. */
  params?: Record<string, string>;
  /** Scope headers; defaults to scope A on /v1/ routes and none elsewhere. */
  scope?: ClientScope | null;
  body?: unknown;
  rawBody?: string;
  query?: Record<string, QueryValue>;
  headers?: Record<string, string>;
  idempotencyKey?: string;
  sudo?: string;
};

export type SmokeResponse = ApiResponse & { route: string; url: string };

export type SmokeCtx = {
  target: SmokeTarget;
  /** Random per run, so names never collide with data already on a running server. */
  runId: string;
  /** How far this run may write; `call` refuses anything further (a check that tries fails). */
  reach: WriteReach;
  /** The run's own tenants: `smoke-<run id>`, `smoke-<run id>-b`, and `-c`, which is never written. */
  scopeA: ClientScope;
  scopeB: ClientScope;
  scopeC: ClientScope;
  /** Known-good values for placeholders, keyed by the path segment before them ("tasks" → a task id). */
  samples: Map<string, string>;
  validator: ResponseValidator | null;
  /** Routes the server lists in /health, as routeKey()s. */
  listed: Set<string>;
  /** The server is the hosted service (its /health mode): OIDC tokens, no loopback Host or Origin guard. */
  hosted: boolean;
  call(route: string, options?: SmokeCall): Promise<SmokeResponse>;
  /** Asserts the status (and problem `code`), validates the body against the document; returns the body. */
  expect(res: SmokeResponse, status: number, options?: { code?: string }): any;
};

export const MISSING_NAME = 'smoke-nothing-here';

/** Whether a tenant id belongs to the run (`smoke-<run id>` or `smoke-<run id>-<suffix>`). */
export function isRunTenant(tenant: unknown, runId: string): boolean {
  return typeof tenant === 'string' && (tenant === `smoke-${runId}` || tenant.startsWith(`smoke-${runId}-`));
}

export function createSmokeCtx(target: SmokeTarget, runId: string, validator: ResponseValidator | null, listed: Set<string>, reach: WriteReach = 'forge', hosted = false): SmokeCtx {
  const client: GovClient = createClient({ baseUrl: target.baseUrl, token: null });
  const scope = (suffix: string): ClientScope => ({ tenant_id: `smoke-${runId}${suffix}`, workspace_id: 'ws-smoke', project_id: 'proj-smoke' });
  const samples = new Map<string, string>();
  const tokenOf = (role: Role): string | null => {
    if (role === 'customer') return target.tokens.customer;
    if (role === 'operator') return target.tokens.operator ?? fail('this check needs the operator token');
    return role === 'bogus' ? `not-a-token-${runId}` : null;
  };

  const ctx: SmokeCtx = {
    target,
    runId,
    reach,
    scopeA: scope(''),
    scopeB: scope('-b'),
    scopeC: scope('-c'),
    samples,
    validator,
    listed,
    hosted,
    async call(route, o = {}) {
      const [method, template] = route.split(' ') as [string, string];
      const path = fillPath(template, o.params ?? {}, samples);
      const scope = o.scope === undefined ? (template.startsWith('/v1/') ? ctx.scopeA : null) : o.scope;
      refuseForeignWrite(route, reach, runId, scope, o.body);
      const headers: Record<string, string> = { ...o.headers };
      if (o.sudo !== undefined) headers.Sudo = o.sudo;
      const res = await client.request(method, path, {
        token: tokenOf(o.as ?? 'customer'),
        scope,
        headers,
        ...(o.body !== undefined ? { body: o.body } : {}),
        ...(o.rawBody !== undefined ? { rawBody: o.rawBody } : {}),
        ...(o.query !== undefined ? { query: o.query } : {}),
        ...(o.idempotencyKey !== undefined ? { idempotencyKey: o.idempotencyKey } : {}),
      });
      return { ...res, route, url: `${method} ${path}` };
    },
    expect(res, status, options = {}) {
      if (res.status !== status) fail(`${res.url}: expected ${status}, got ${res.status}${errorSummary(res.body)}`);
      if (options.code !== undefined) {
        const code = res.body !== null && typeof res.body === 'object' && 'code' in res.body ? res.body.code : undefined;
        check(code === options.code, `${res.url}: expected code ${options.code}, got ${brief(code ?? res.body, 100)}`);
      }
      const success = status >= 200 && status < 300;
      if (!validator) {
        if (success) fail('the server has no usable /openapi.json to validate the body against');
        return res.body;
      }
      if (!validator.response(res.route, status)) {
        if (success) fail(`the server's /openapi.json lists no ${status} response for ${res.route}`);
        return res.body;
      }
      const mediaType = (res.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
      const errors = validator.validate(res.route, status, mediaType, res.body);
      if (errors.length > 0) fail(`${res.url} ${status}: body does not match the document's schema: ${errors.slice(0, 3).join('; ')}`);
      return res.body;
    },
  };
  return ctx;
}

/**
 * The last line of defence behind the runner's skipping: a request that could write beyond the
 * run's reach is never sent — a write the run does not allow, or a /v1/ write whose scope header or
 * body names a tenant that is not the run's own (the user's data stays untouched).
 */
function refuseForeignWrite(route: string, allowed: WriteReach, runId: string, scope: ClientScope | null, body: unknown): void {
  const needed = routeReach(route);
  if (!reachAllows(allowed, needed)) {
    fail(`smoke refused to send ${route}: it may write ${needed === 'forge' ? "the forge's shared state" : 'data'}, which this run does not allow`);
  }
  if (needed !== 'smoke_tenant') return;
  const bodyTenant = body !== null && typeof body === 'object' ? (body as { tenant_id?: unknown }).tenant_id : undefined;
  for (const tenant of [scope?.tenant_id, bodyTenant]) {
    if (tenant !== undefined && !isRunTenant(tenant, runId)) fail(`smoke refused to send ${route} for tenant ${brief(tenant, 60)}: it writes only in its own smoke-${runId} tenants`);
  }
}

/** Fills each {placeholder}: an explicit value, else the sample for the segment before it, else a name nothing has. */
export function fillPath(template: string, params: Record<string, string>, samples: Map<string, string>): string {
  const segments = template.split('/');
  return segments
    .map((segment, i) => {
      const match = /^\{([^}]+)\}$/.exec(segment);
      if (!match) return segment;
      const value = params[match[1]!] ?? samples.get(segments[i - 1] ?? '') ?? MISSING_NAME;
      return encodeURIComponent(value);
    })
    .join('/');
}

/** Whether the server lists a route (placeholder names ignored). */
export function isListed(listed: Set<string>, route: string): boolean {
  return listed.has(routeKey(route));
}

function errorSummary(body: any): string {
  if (body && typeof body === 'object') {
    if (typeof body.code === 'string') return ` (${body.code}: ${brief(body.detail ?? '', 120)})`;
    if (typeof body.message === 'string') return ` (${brief(body.message, 120)})`;
    return ` (${brief(body, 120)})`;
  }
  return body === null ? '' : ` (${brief(body, 120)})`;
}
