// GET /v1/search: reads the query parameters and answers with the search service (scope-filtered
// FTS5 discovery, newest first; discovery only, never proof authority).
import { Hono } from 'hono';
import type { ServiceDeps } from '../../service/deps.ts';
import { searchEvents } from '../../service/search-service.ts';
import type { AppEnv } from '../env.ts';
import { intParam, readScope } from '../request-input.ts';

export function searchRoutes(deps: ServiceDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get('/v1/search', (c) => {
    const scope = readScope(c);
    const param = (name: string) => c.req.query(name);
    return c.json(searchEvents(deps, scope, {
      q: param('q'),
      kind: param('kind'),
      taskId: param('task_id'),
      cursor: param('cursor'),
      limit: intParam(param('limit'), 'limit', 1, 100, 20),
    }));
  });
  return app;
}
