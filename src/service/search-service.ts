// Discovery search (docs/contract.md §6): q (1–256 characters) and/or kind, optionally one task,
// newest first with a seq cursor. Discovery only: the answer says so and carries its non-claim.
import type { Scope } from '../domain/event.ts';
import { AppError } from '../errors.ts';
import type { SearchHit } from '../store/queries.ts';
import type { ServiceDeps } from './deps.ts';

export const SEARCH_NON_CLAIMS = [
  'Search results are discovery only and never proof authority; hydrate from GET /v1/tasks/{task_id}/timeline before making any claim.',
];

/** Each member as GET /v1/search's query declaration (server/route-table.ts) checked it. */
export type SearchRequest = { q?: string | undefined; kind?: string | undefined; taskId?: string | undefined; cursor?: string | undefined; limit: number };
export type SearchAnswer = { results: SearchHit[]; next_cursor: string | null; authority: 'discovery_only'; non_claims: string[] };

export function searchEvents(deps: ServiceDeps, scope: Scope, req: SearchRequest): SearchAnswer {
  const { q, kind, taskId, cursor, limit } = req;
  if (q === undefined && kind === undefined) throw invalid('q', 'Send q (1–256 characters) and/or kind.');
  const match = q === undefined ? null : toMatchExpression(q);
  // A q with no word in it (only punctuation, say) finds nothing: search finds words. An empty MATCH
  // would be an FTS5 syntax error, so it never reaches the index.
  if (match === '') return { results: [], next_cursor: null, authority: 'discovery_only', non_claims: SEARCH_NON_CLAIMS };
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
