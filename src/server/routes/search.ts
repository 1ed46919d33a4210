// GET /v1/search: reads the query parameters as the route table declares them and answers with the
// search service (scope-filtered FTS5 discovery, newest first; discovery only, never proof authority).
import { Hono } from 'hono';
import type { ServiceDeps } from '../../service/deps.ts';
import { searchEvents } from '../../service/search-service.ts';
import type { AppEnv } from '../env.ts';
import { readQuery } from '../query-params.ts';
import { readScope } from '../request-input.ts';
import { SEARCH_QUERY } from '../route-table.ts';

export function searchRoutes(deps: ServiceDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get('/v1/search', (c) => {
    const scope = readScope(c);
    const query = readQuery(c, SEARCH_QUERY, deps.registry);
    return c.json(searchEvents(deps, scope, { q: query.q, kind: query.kind, taskId: query.task_id, cursor: query.cursor, limit: query.limit }));
  });
  return app;
}
