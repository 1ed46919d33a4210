// Reads that need no data of the run's own: the shape of what the server already holds (quota
// rules, groups, the forge data set) and the 404s of what nobody has, asked in the run's tenant C.
// They run in every mode, so `--read-only` still checks answer shapes — but for the packet and the
// receipt, whose 404 the access log records as a denial in tenant C (a write: not --read-only).
import { check, happy, negative, type SmokeCheck } from './check.ts';
import type { SmokeCtx } from './context.ts';

/** The forge routes under their bare paths and again under Forgejo's /api/v1. */
const FORGE_PREFIXES = ['', '/api/v1'];

export function readChecks(): SmokeCheck[] {
  const none = (ctx: SmokeCtx) => `smoke-${ctx.runId}-none`;
  const unknown = (name: string, route: string, param: string, logged = false) =>
    negative(`reads: ${name} is 404`, route, async (ctx) => {
      ctx.expect(await ctx.call(route, { scope: ctx.scopeC, params: { [param]: none(ctx) } }), 404);
    }, logged ? { writes: 'smoke_tenant' } : {});
  return [
    happy('reads: GET /v1/search in a tenant nobody wrote answers no results', 'GET /v1/search', async (ctx) => {
      const body = ctx.expect(await ctx.call('GET /v1/search', { scope: ctx.scopeC, query: { q: 'governance' } }), 200);
      check(body.results.length === 0, `${body.results.length} results in an empty tenant`);
    }),
    unknown('an unknown task', 'GET /v1/tasks/{task_id}', 'task_id'),
    unknown('the timeline of an unknown task', 'GET /v1/tasks/{task_id}/timeline', 'task_id'),
    unknown('an unknown Proof Packet', 'GET /v1/proof-packets/{packet_id}', 'packet_id', true),
    unknown('an unknown receipt', 'GET /v1/receipts/{receipt_id}', 'receipt_id', true),
    ...FORGE_PREFIXES.flatMap((prefix) => [
      happy(`reads: GET ${prefix}/admin/quota/rules answers the rule list`, `GET ${prefix}/admin/quota/rules`, async (ctx) => {
        check(Array.isArray(ctx.expect(await ctx.call(`GET ${prefix}/admin/quota/rules`, { as: 'operator' }), 200)), 'not a list');
      }, { operator: true }),
      happy(`reads: GET ${prefix}/admin/quota/groups answers the group list`, `GET ${prefix}/admin/quota/groups`, async (ctx) => {
        check(Array.isArray(ctx.expect(await ctx.call(`GET ${prefix}/admin/quota/groups`, { as: 'operator' }), 200)), 'not a list');
      }, { operator: true }),
      happy(`reads: GET ${prefix}/admin/forge/data answers the data set`, `GET ${prefix}/admin/forge/data`, async (ctx) => {
        ctx.expect(await ctx.call(`GET ${prefix}/admin/forge/data`, { as: 'operator' }), 200);
      }, { operator: true }),
    ]),
  ];
}
