// Discovery search (docs/contract.md §6): q (1–256 characters) and/or kind, optionally one task,
// newest first with a seq cursor. Discovery only: the answer says so and carries its non-claim.
import { isId, type Scope } from '../domain/event.ts';
import { AppError } from '../errors.ts';
import type { SearchHit } from '../store/queries.ts';
import type { ServiceDeps } from './deps.ts';

export const SEARCH_NON_CLAIMS = [
  'Search results are discovery only and never proof authority; hydrate from GET /v1/tasks/{task_id}/timeline before making any claim.',
];

export type SearchRequest = { q?: string; kind?: string; taskId?: string; cursor?: string; limit: number };
export type SearchAnswer = { results: SearchHit[]; next_cursor: string | null; authority: 'discovery_only'; non_claims: string[] };

export function searchEvents(deps: ServiceDeps, scope: Scope, req: SearchRequest): SearchAnswer {
  const { q, kind, taskId, cursor, limit } = req;
  if (q === undefined && kind === undefined) throw invalid('q', 'Send q (1–256 characters) and/or kind.');
  if (q !== undefined && (q.trim().length === 0 || q.length > 256)) throw invalid('q', 'q must be 1–256 characters.');
  if (kind !== undefined && !/^[a-z][a-z0-9_.-]{0,127}$/.test(kind)) throw invalid('kind', 'kind must be an event kind such as task.created.');
  if (taskId !== undefined && !isId(taskId)) throw invalid('task_id', 'task_id must be an id.');
  if (cursor !== undefined && !/^[1-9]\d{0,15}$/.test(cursor)) throw invalid('cursor', 'cursor must be a next_cursor value from a previous page.');
  const match = q === undefined ? null : toMatchExpression(q);
  if (match === '') throw invalid('q', 'q must contain at least one letter or digit.');
  // One hit more than asked tells whether another page exists.
  const hits = deps.queries.search(scope, {
    match,
    kind: kind ?? null,
    taskId: taskId ?? null,
    beforeSeq: cursor === undefined ? Number.MAX_SAFE_INTEGER : Number(cursor),
    limit: limit + 1,
  });
  const page = hits.slice(0, limit);
  return {
    results: page,
    next_cursor: hits.length > limit ? String(page[page.length - 1]!.seq) : null,
    authority: 'discovery_only',
    non_claims: SEARCH_NON_CLAIMS,
  };
}

/**
 * Every word becomes a quoted FTS5 string (no operators reach FTS5 from the caller); all must match.
 * Words split where the unicode61 tokenizer splits (anything but letters and digits), so each is a
 * single token: the index keeps no token positions (detail=column), which makes it small and fast.
 */
export function toMatchExpression(q: string): string {
  const words = q.match(/[\p{L}\p{N}]+/gu) ?? [];
  return words.slice(0, 16).map((w) => `"${w}"`).join(' AND ');
}

function invalid(name: string, message: string): AppError {
  return new AppError('invalid_query', message, { details: [{ pointer: `/query/${name}`, detail: message }] });
}
