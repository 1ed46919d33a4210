// The signed-in user's quota routes (/user/quota*, /user/repos) and an organisation's (/orgs/{org}/
// quota*), acting as the user named by Sudo. Lists are largest first and paged the forge's way:
// ?page= (from 1) and ?limit= (default 30, at most 50), X-Total-Count, and a Link header.
import { Hono, type Context } from 'hono';
import type { ForgeOwnerView } from '../../service/quota/forge-state.ts';
import { artifactJson, attachmentJson, packageJson, repoJson } from '../../service/quota/forge-views.ts';
import type { QuotaContext } from '../../service/quota/quota-context.ts';
import { checkQuota, listArtifacts, listAttachments, listPackages, listRepos, orgFor, quotaInfo } from '../../service/quota/quota-usage.ts';
import type { AppEnv } from '../env.ts';
import { forgeRoute, type ForgeAuth } from '../middleware/forge-auth.ts';

export function quotaUserRoutes(ctx: QuotaContext, auth: ForgeAuth): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const base = (c: Context) => new URL(c.req.url).origin;

  // The same five routes for the user and for an organisation the user owns.
  const family = (prefix: string, subject: (c: Context<AppEnv>, doer: ForgeOwnerView) => ForgeOwnerView) => {
    const route = (handler: (c: Context<AppEnv>, owner: ForgeOwnerView) => Response) =>
      forgeRoute(auth, { access: 'user', quota: true }, (c, doer) => handler(c, subject(c, doer!)));
    app.get(`${prefix}/quota`, route((c, owner) => c.json(quotaInfo(ctx, owner, false))));
    app.get(`${prefix}/quota/check`, route((c, owner) => c.json(checkQuota(ctx, owner, c.req.query('subject')))));
    app.get(`${prefix}/quota/attachments`, route((c, owner) => pagedJson(c, listAttachments(ctx, owner), (a) => attachmentJson(a, base(c)))));
    app.get(`${prefix}/quota/artifacts`, route((c, owner) => pagedJson(c, listArtifacts(ctx, owner), (a) => artifactJson(a, base(c)))));
    app.get(`${prefix}/quota/packages`, route((c, owner) => pagedJson(c, listPackages(ctx, owner), (p) => packageJson(p, base(c)))));
  };
  family('/user', (_c, doer) => doer);
  family('/orgs/:org', (c, doer) => orgFor(ctx, c.req.param('org') ?? '', doer));

  // Not a quota route: it answers while quota is switched off too.
  app.get('/user/repos', forgeRoute(auth, { access: 'user', quota: false }, (c, doer) => {
    const owner = doer!;
    const loadedAt = ctx.forge().loadedAt;
    return pagedJson(c, listRepos(ctx, owner, c.req.query('order_by')), (r) => repoJson(r, owner, base(c), loadedAt));
  }));
  return app;
}

// The forge's list paging (Forgejo's ListOptions and pagination headers).
export const DEFAULT_PAGE_SIZE = 30;
export const MAX_PAGE_SIZE = 50;

export type PageRequest = { page: number; limit: number };

/** Like the forge's FormInt: anything that is not a plain integer counts as 0, i.e. the default. */
function formInt(value: string | undefined): number {
  return value !== undefined && /^[+-]?\d+$/.test(value) ? Number(value) : 0;
}

export function pageRequest(c: Context): PageRequest {
  const page = formInt(c.req.query('page'));
  const limit = formInt(c.req.query('limit'));
  return { page: page <= 0 ? 1 : page, limit: limit <= 0 ? DEFAULT_PAGE_SIZE : Math.min(limit, MAX_PAGE_SIZE) };
}

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
export function pagedJson<T>(c: Context, items: readonly T[], render: (item: T) => unknown): Response {
  const req = pageRequest(c);
  const start = (req.page - 1) * req.limit;
  const links = linkHeader(new URL(c.req.url), items.length, req);
  c.header('X-Total-Count', String(items.length));
  if (links !== '') c.header('Link', links);
  c.header('Access-Control-Expose-Headers', links === '' ? 'X-Total-Count' : 'X-Total-Count, Link');
  return c.json(items.slice(start, start + req.limit).map(render));
}
