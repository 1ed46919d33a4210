// GET /v1/search: scope-filtered FTS5 discovery, newest first. Discovery only: the body says so,
// and nothing that proves anything reads from it.
import { Hono } from 'hono';
import { AppError } from '../../errors.ts';
import type { ServiceDeps } from '../../service/deps.ts';
import type { AppEnv } from '../env.ts';
import { isId, readScope } from '../request-input.ts';
import { intParam } from './tasks-read.ts';

export const SEARCH_NON_CLAIMS = [
  'Search results are discovery only and never proof authority; hydrate from GET /v1/tasks/{task_id}/timeline before making any claim.',
];

export function searchRoutes(deps: ServiceDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get('/v1/search', (c) => {
    const scope = readScope(c);
    const q = c.req.query('q');
    const kind = c.req.query('kind') ?? null;
    const taskId = c.req.query('task_id') ?? null;
    const limit = intParam(c.req.query('limit'), 'limit', 1, 100, 20);
    const cursor = c.req.query('cursor');
    if (q === undefined && kind === null) throw invalid('q', 'Send q (1–256 characters) and/or kind.');
    if (q !== undefined && (q.trim().length === 0 || q.length > 256)) throw invalid('q', 'q must be 1–256 characters.');
    if (kind !== null && !/^[a-z][a-z0-9_.-]{0,127}$/.test(kind)) throw invalid('kind', 'kind must be an event kind such as task.created.');
    if (taskId !== null && !isId(taskId)) throw invalid('task_id', 'task_id must be an id.');
    if (cursor !== undefined && !/^[1-9]\d{0,15}$/.test(cursor)) throw invalid('cursor', 'cursor must be a next_cursor value from a previous page.');
    const match = q === undefined ? null : toMatchExpression(q);
    if (match === '') throw invalid('q', 'q must contain at least one letter or digit.');
    const hits = deps.queries.search(scope, {
      match,
      kind,
      taskId,
      beforeSeq: cursor === undefined ? Number.MAX_SAFE_INTEGER : Number(cursor),
      limit: limit + 1,
    });
    const page = hits.slice(0, limit);
    return c.json({
      results: page,
      next_cursor: hits.length > limit ? String(page[page.length - 1]!.seq) : null,
      authority: 'discovery_only',
      non_claims: SEARCH_NON_CLAIMS,
    });
  });
  return app;
}

/**
 * Every word becomes a quoted FTS5 string (no operators reach FTS5 from the caller); all must match.
 * Words split where the unicode61 tokenizer splits (anything but letters and digits), so each is a
 * single token: the index keeps no token positions (detail=column), which makes it small and fast to build.
 */
export function toMatchExpression(q: string): string {
  const words = q.match(/[\p{L}\p{N}]+/gu) ?? [];
  return words.slice(0, 16).map((w) => `"${w}"`).join(' AND ');
}

function invalid(name: string, message: string): AppError {
  return new AppError('invalid_query', message, { details: [{ pointer: `/query/${name}`, detail: message }] });
}
