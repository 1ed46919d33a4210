// What a smoke check works with: the target, its tokens, one call helper that fills a route's
// placeholders and picks token and scope, and `expect`, which checks a status and validates the
// body against the server's own OpenAPI document.
import { createClient, type ApiResult, type ClientScope, type GovClient, type QueryValue } from '../client/client.ts';
import { brief, check, fail, routeKey } from './check.ts';
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

export type SmokeResponse = ApiResult & { route: string; url: string };

export type SmokeCtx = {
  target: SmokeTarget;
  /** Random per run, so names never collide with data already on a running server. */
  runId: string;
  scopeA: ClientScope;
  scopeB: ClientScope;
  /** Known-good values for placeholders, keyed by the path segment before them ("tasks" → a task id). */
  samples: Map<string, string>;
  validator: ResponseValidator | null;
  /** Routes the server lists in /health, as routeKey()s. */
  listed: Set<string>;
  call(route: string, options?: SmokeCall): Promise<SmokeResponse>;
  /** Asserts the status (and problem `code`), validates the body against the document; returns the body. */
  expect(res: SmokeResponse, status: number, options?: { code?: string }): any;
};

export const MISSING_NAME = 'smoke-nothing-here';

export function createSmokeCtx(target: SmokeTarget, runId: string, validator: ResponseValidator | null, listed: Set<string>): SmokeCtx {
  const client: GovClient = createClient({ baseUrl: target.baseUrl, token: null });
  const scope = (tenant: string): ClientScope => ({ tenant_id: `smoke-${tenant}-${runId}`, workspace_id: 'ws-smoke', project_id: 'proj-smoke' });
  const samples = new Map<string, string>();
  const tokenOf = (role: Role): string | null => {
    if (role === 'customer') return target.tokens.customer;
    if (role === 'operator') return target.tokens.operator ?? fail('this check needs the operator token');
    return role === 'bogus' ? `not-a-token-${runId}` : null;
  };

  const ctx: SmokeCtx = {
    target,
    runId,
    scopeA: scope('a'),
    scopeB: scope('b'),
    samples,
    validator,
    listed,
    async call(route, o = {}) {
      const [method, template] = route.split(' ') as [string, string];
      const path = fillPath(template, o.params ?? {}, samples);
      const headers: Record<string, string> = { ...o.headers };
      if (o.sudo !== undefined) headers.Sudo = o.sudo;
      const res = await client.request(method, path, {
        token: tokenOf(o.as ?? 'customer'),
        scope: o.scope === undefined ? (template.startsWith('/v1/') ? ctx.scopeA : null) : o.scope,
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
        check(res.body?.code === options.code, `${res.url}: expected code ${options.code}, got ${brief(res.body?.code ?? res.body, 100)}`);
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
