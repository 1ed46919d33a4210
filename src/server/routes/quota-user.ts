// The signed-in user's quota routes (/user/quota*, /user/repos) and an organisation's (/orgs/{org}/
// quota*), acting as the user named by Sudo. Lists are largest first and paged the forge's way:
// ?page= (from 1) and ?limit= (default 30, at most 50), X-Total-Count, and a Link header. The query
// parameters are read as the route table declares them (quota-route-table.ts).
import { Hono, type Context } from 'hono';
import type { ForgeOwnerView } from '../../service/quota/forge-state.ts';
import { artifactJson, attachmentJson, packageJson, repoJson } from '../../service/quota/forge-views.ts';
import type { QuotaContext } from '../../service/quota/quota-context.ts';
import { checkQuota, listArtifacts, listAttachments, listPackages, listRepos, orgFor, quotaInfo } from '../../service/quota/quota-usage.ts';
import type { AppEnv } from '../env.ts';
import { forgeRoute, type ForgeAuth } from '../middleware/forge-auth.ts';
import { readQuery } from '../query-params.ts';
import { CHECK_QUERY, PAGED_QUERY, REPOS_QUERY } from '../quota-route-table.ts';

export function quotaUserRoutes(ctx: QuotaContext, auth: ForgeAuth): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const base = (c: Context) => new URL(c.req.url).origin;

  // The same five routes for the user and for an organisation the user owns.
  const family = (prefix: string, subject: (c: Context<AppEnv>, doer: ForgeOwnerView) => ForgeOwnerView) => {
    const route = (handler: (c: Context<AppEnv>, owner: ForgeOwnerView) => Response) =>
      forgeRoute(auth, { access: 'user', quota: true }, (c, doer) => handler(c, subject(c, doer!)));
    app.get(`${prefix}/quota`, route((c, owner) => c.json(quotaInfo(ctx, owner, false))));
    app.get(`${prefix}/quota/check`, route((c, owner) => c.json(checkQuota(ctx, owner, readQuery(c, CHECK_QUERY).subject))));
    app.get(`${prefix}/quota/attachments`, route((c, owner) => pagedJson(c, readQuery(c, PAGED_QUERY), listAttachments(ctx, owner), (a) => attachmentJson(a, base(c)))));
    app.get(`${prefix}/quota/artifacts`, route((c, owner) => pagedJson(c, readQuery(c, PAGED_QUERY), listArtifacts(ctx, owner), (a) => artifactJson(a, base(c)))));
    app.get(`${prefix}/quota/packages`, route((c, owner) => pagedJson(c, readQuery(c, PAGED_QUERY), listPackages(ctx, owner), (p) => packageJson(p, base(c)))));
  };
  family('/user', (_c, doer) => doer);
  family('/orgs/:org', (c, doer) => orgFor(ctx, c.req.param('org') ?? '', doer));

  // Not a quota route: it answers while quota is switched off too.
  app.get('/user/repos', forgeRoute(auth, { access: 'user', quota: false }, (c, doer) => {
    const owner = doer!;
    const loadedAt = ctx.forge().loadedAt;
    const { order_by: order, ...page } = readQuery(c, REPOS_QUERY);
    return pagedJson(c, page, listRepos(ctx, owner, order), (r) => repoJson(r, owner, base(c), loadedAt));
  }));
  return app;
}

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
