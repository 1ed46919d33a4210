// The public surface: /health (sanitized, and with detail for the operator; no served route classed
// target), /openapi.json (an OpenAPI 3.1 document that covers every listed route), the loopback
// CORS preflight and the Origin guard (docs/contract.md §2).
import { check, happy, negative, skip, type SmokeCheck } from './check.ts';
import { isListed } from './context.ts';

const LOOPBACK_ORIGIN = 'http://localhost:5173';
const FOREIGN_ORIGIN = 'https://smoke.example';

export function publicChecks(): SmokeCheck[] {
  return [
    happy('public: GET /health answers the sanitized status and route list', 'GET /health', async (ctx) => {
      const body = ctx.expect(await ctx.call('GET /health', { as: 'none' }), 200);
      check(body.status === 'ok' || body.status === 'degraded', `status is ${body.status}`);
      check(Array.isArray(body.routes) && body.routes.length > 0, 'the route list is empty');
      check(body.detail === undefined, 'detail is shown without the operator token');
    }),
    happy('public: GET /health adds store detail for the operator', 'GET /health', async (ctx) => {
      const body = ctx.expect(await ctx.call('GET /health', { as: 'operator' }), 200);
      check(Number.isInteger(body.detail?.event_count), 'no detail.event_count with the operator token');
    }, { operator: true }),
    negative('public: GET /health with the customer token shows no detail', 'GET /health', async (ctx) => {
      const body = ctx.expect(await ctx.call('GET /health'), 200);
      check(body.detail === undefined, 'detail is shown to the customer token');
    }),
    happy('public: GET /openapi.json is an OpenAPI 3.1 document of every listed route', 'GET /openapi.json', async (ctx) => {
      const body = ctx.expect(await ctx.call('GET /openapi.json', { as: 'none' }), 200);
      check(typeof body.openapi === 'string' && /^3\.1\./.test(body.openapi), `openapi is ${body.openapi}`);
      const missing = [...ctx.listed].filter((key) => !ctx.validator?.operation(key));
      check(missing.length === 0, `routes listed in /health but missing from the document: ${missing.join(', ')}`);
    }),
    happy('public: OPTIONS /v1/events preflight echoes a loopback origin', 'OPTIONS /v1/events', async (ctx) => {
      const res = await ctx.call('OPTIONS /v1/events', { as: 'none', scope: null, headers: { Origin: LOOPBACK_ORIGIN, 'Access-Control-Request-Method': 'POST' } });
      ctx.expect(res, 204);
      check(res.headers.get('access-control-allow-origin') === LOOPBACK_ORIGIN, `Access-Control-Allow-Origin is ${res.headers.get('access-control-allow-origin')}`);
      check(/\bOrigin\b/i.test(res.headers.get('vary') ?? ''), 'no Vary: Origin');
      const allowed = (res.headers.get('access-control-allow-headers') ?? '').toLowerCase();
      for (const h of ['authorization', 'content-type', 'idempotency-key', 'x-tenant-id']) check(allowed.includes(h), `Access-Control-Allow-Headers lacks ${h}`);
      check(res.body === null, 'the preflight has a body');
    }),
    negative('public: a preflight without an Origin gets no CORS grant', 'OPTIONS /v1/events', async (ctx) => {
      const res = await ctx.call('OPTIONS /v1/events', { as: 'none', scope: null });
      ctx.expect(res, 204);
      check(res.headers.get('access-control-allow-origin') === null, 'Access-Control-Allow-Origin sent without an Origin');
    }),
    negative('public: a foreign Origin is refused (403 origin_not_allowed)', 'GET /health', async (ctx) => {
      // The preview's loopback guard; the hosted service sits behind a proxy and takes bearer tokens only.
      if (ctx.hosted) return skip('the hosted service has no loopback Host/Origin guard (docs/hosting.md)');
      ctx.expect(await ctx.call('GET /health', { as: 'none', headers: { Origin: FOREIGN_ORIGIN } }), 403, { code: 'origin_not_allowed' });
    }),
    negative('public: a foreign Origin gets no preflight grant', 'OPTIONS /v1/events', async (ctx) => {
      const res = await ctx.call('OPTIONS /v1/events', { as: 'none', scope: null, headers: { Origin: FOREIGN_ORIGIN } });
      check(res.status === 403 || res.headers.get('access-control-allow-origin') === null, `a foreign origin was granted (${res.status})`);
      check(res.headers.get('access-control-allow-origin') !== '*', 'Access-Control-Allow-Origin is *');
    }),
    happy('public: every listed route has a status class', 'GET /health', async (ctx) => {
      const body = ctx.expect(await ctx.call('GET /health', { as: 'none' }), 200);
      const bad = (body.routes as { method: string; path: string; status: string }[]).filter((r) => !['live', 'preview', 'target'].includes(r.status));
      check(bad.length === 0, `routes without a live/preview/target class: ${bad.map((r) => `${r.method} ${r.path}`).join(', ')}`);
      check(isListed(ctx.listed, 'GET /openapi.json'), '/health does not list GET /openapi.json');
    }),
    happy('public: no listed route is classed target (a served route is live or preview)', 'GET /health', async (ctx) => {
      const body = ctx.expect(await ctx.call('GET /health', { as: 'none' }), 200);
      const target = (body.routes as { method: string; path: string; status: string }[]).filter((r) => r.status === 'target');
      check(target.length === 0, `served yet classed target: ${target.map((r) => `${r.method} ${r.path}`).join(', ')}`);
    }),
  ];
}
