// The dashboard (docs/governance/dashboard.md): the scope's governance counts as of one index
// position and the clock's now. The rules live in src/service/governance/dashboard-service.ts.
// Reading it is not access-logged (docs/governance/dashboard.md says why).
import { readDashboard } from '../../service/governance/dashboard-service.ts';
import type { Route } from '../route-spec.ts';
import { readContextOf } from '../write-context.ts';

export const DASHBOARD_ROUTES: Route[] = [
  {
    method: 'GET', path: '/v1/governance/dashboard', status: 'preview', access: 'read', scoped: true,
    summary: "The scope's governance as of one index position (last_seq) and now: assets, approvals, reviews, incidents with their Art. 73 clocks, posture per profile, vendors, evidence by effective trust; non-claims.",
    readme: 'counts from the projections, read in one snapshot of the index; `as_of`, `last_seq`; not access-logged',
    responses: { 200: 'api/dashboard.json' },
    handler: async (c, deps) => c.json(await readDashboard(deps, readContextOf(c))),
  },
];
