// GET /v1/search: scope-filtered FTS5 discovery, newest first; discovery only, never proof authority.
import { searchEvents } from '../../service/search-service.ts';
import { readQuery, type QuerySpec } from '../query-params.ts';
import { P } from '../responses.ts';
import type { Route } from '../route-spec.ts';

/** q and/or kind (the search answers 400 invalid_query without either). */
export const SEARCH_QUERY = {
  q: {
    schema: { type: 'string', minLength: 1, maxLength: 256 },
    description: 'Words to find, all of them: each run of letters and digits is one word (the first 16 count); a q without one finds nothing. Send q, kind or both.',
    refusal: { message: 'q must be 1–256 characters.' },
  },
  kind: { schema: { type: 'string', pattern: '^[a-z][a-z0-9_.-]{0,127}$' }, description: 'Only events of this kind, e.g. task.created. Send q, kind or both.', refusal: { message: 'kind must be an event kind such as task.created.' } },
  task_id: { schema: { $ref: 'common/types.json#/$defs/id' }, description: 'Only events of this task.', refusal: { message: 'task_id must be an id.' } },
  limit: { schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 }, description: 'Results per page.' },
  cursor: { schema: { type: 'string', pattern: '^[1-9][0-9]{0,15}$' }, description: 'The next_cursor of the previous page.', refusal: { message: 'cursor must be a next_cursor value from a previous page.' } },
} as const satisfies QuerySpec;

export const SEARCH_ROUTES: Route[] = [
  {
    method: 'GET', path: '/v1/search', status: 'live', access: 'read', scoped: true,
    summary: 'Tenant-scoped discovery; not proof authority.',
    readme: '`?q=` (1–256 characters; its words must all match) and/or `&kind=`, `&task_id=&limit=` (1–100, default 20) `&cursor=`; `authority: discovery_only`',
    query: SEARCH_QUERY, responses: { 200: 'api/search-result.json', 400: P },
    handler: (c, deps) => {
      const query = readQuery(c, SEARCH_QUERY, deps.registry);
      return c.json(searchEvents(deps, c.get('scope'), { q: query.q, kind: query.kind, taskId: query.task_id, cursor: query.cursor, limit: query.limit }));
    },
  },
];
