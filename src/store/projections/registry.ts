// Every projection beyond the core ones, in one list, so the live store, the start-up catch-up and
// `gov store rebuild-index` always project the same tables.
import type { ProjectionFactory } from '../index-db.ts';
import { governanceProjection } from './governance.ts';
import { quotaProjection } from './quota.ts';

export const EXTRA_PROJECTIONS: ProjectionFactory[] = [quotaProjection, governanceProjection];
