// Paging the forge's way for its lists: ?page= (from 1) and ?limit= (default 30, at most 50),
// X-Total-Count, and a Link header.
import type { Context } from 'hono';

/** A page of a list (PAGED_QUERY has the defaults and the limit's maximum). */
export type PageRequest = { page: number; limit: number };

/** Link header entries, as the forge's genAPILinks builds them (query keys sorted, page replaced). */
export function linkHeader(url: URL, total: number, req: PageRequest): string {
  const totalPages = total === 0 ? 1 : Math.ceil(total / req.limit);
  const current = Math.min(req.page, totalPages);
  const hasNext = total > current * req.limit;
  const isLast = total === 0 || (total > (current - 1) * req.limit && !hasNext);
  const link = (page: number, rel: string) => {
    const params = new URLSearchParams(url.search);
    params.set('page', String(page));
    params.sort();
    return `<${url.origin}${url.pathname}?${params.toString()}>; rel="${rel}"`;
  };
  const links: string[] = [];
  if (hasNext) links.push(link(current + 1, 'next'));
  if (!isLast) links.push(link(totalPages, 'last'));
  if (current !== 1) links.push(link(1, 'first'));
  if (current > 1) links.push(link(current - 1, 'prev'));
  return links.join(',');
}

/** One page of `items` as JSON, with X-Total-Count and (when there is more than one page) Link. */
export function pagedJson<T>(c: Context, req: PageRequest, items: readonly T[], render: (item: T) => unknown): Response {
  const start = (req.page - 1) * req.limit;
  const links = linkHeader(new URL(c.req.url), items.length, req);
  c.header('X-Total-Count', String(items.length));
  if (links !== '') c.header('Link', links);
  c.header('Access-Control-Expose-Headers', links === '' ? 'X-Total-Count' : 'X-Total-Count, Link');
  return c.json(items.slice(start, start + req.limit).map(render));
}
