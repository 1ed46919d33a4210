// The dashboard (docs/governance/dashboard.md): GET /v1/governance/dashboard answers the scope's
// counts as of an index position, in the run's own tenant, with its non-claims; reading it is not
// access-logged, so the check writes nothing.
import { check, happy, type SmokeCheck } from './check.ts';

const DASHBOARD = 'GET /v1/governance/dashboard';

export function dashboardChecks(): SmokeCheck[] {
  return [
    happy('dashboard: GET /v1/governance/dashboard answers counts as of an index position, with non-claims', DASHBOARD, async (ctx) => {
      const body = ctx.expect(await ctx.call(DASHBOARD), 200);
      check(body.scope.tenant_id === ctx.scopeA.tenant_id, `scope ${JSON.stringify(body.scope)}`);
      check(Number.isInteger(body.last_seq) && body.last_seq >= 0, `last_seq ${body.last_seq}`);
      check(body.assets.total === Object.values(body.assets.by_tier as Record<string, number>).reduce((s, n) => s + n, 0), 'assets by tier do not add up to the total');
      check(Array.isArray(body.non_claims) && body.non_claims.length >= 1, 'no non_claims');
    }),
  ];
}
