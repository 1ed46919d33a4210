// What a user or organisation asks about its own quota: usage and groups, a check for one subject,
// and the items that use space (largest first), all evaluated with the engine of domain/quota.
import { evaluateSubject, type GroupListSource, type QuotaGroup } from '../../domain/quota/evaluate.ts';
import type { Subject } from '../../domain/quota/subjects.ts';
import { userKey } from '../../domain/quota/quota-events.ts';
import type { ForgeArtifact, ForgeAttachment, ForgePackage, ForgeRepo } from '../../domain/quota/usage.ts';
import { AppError } from '../../errors.ts';
import type { ForgeOwnerView, Numbered } from './forge-state.ts';
import { quotaInfoJson, repoBytes, type QuotaInfoJson } from './forge-views.ts';
import type { QuotaContext } from './quota-context.ts';

/** The owner's group list: assigned groups, else the existing default groups, else the built-in one. */
export function groupListOf(ctx: QuotaContext, owner: ForgeOwnerView): { source: GroupListSource; groups: QuotaGroup[] } {
  return ctx.groupLists()(owner.login);
}

/** Quota info; the built-in default group is never listed (the forge lists no group then). */
export function quotaInfo(ctx: QuotaContext, owner: ForgeOwnerView, withNames: boolean): QuotaInfoJson {
  const list = groupListOf(ctx, owner);
  return quotaInfoJson(ctx.forge().usage(owner.login), list.source === 'builtin_default' ? [] : list.groups, withNames);
}

/** Whether the owner is within quota for one subject (the route's declaration reads ?subject=). */
export function checkQuota(ctx: QuotaContext, owner: ForgeOwnerView, subject: Subject): boolean {
  const decision = evaluateSubject(groupListOf(ctx, owner).groups, ctx.forge().usage(owner.login), subject, { enabled: ctx.config.enabled });
  return decision.within;
}

/** Largest first; equal sizes keep the data set's order. */
function largestFirst<T>(items: Numbered<T>[], size: (item: T) => number): Numbered<T>[] {
  return [...items].sort((a, b) => size(b.item) - size(a.item) || a.id - b.id);
}

export const listAttachments = (ctx: QuotaContext, owner: ForgeOwnerView): Numbered<ForgeAttachment>[] =>
  largestFirst(ctx.forge().attachmentsOf(owner.login), (a) => a.size);
export const listArtifacts = (ctx: QuotaContext, owner: ForgeOwnerView): Numbered<ForgeArtifact>[] =>
  largestFirst(ctx.forge().artifactsOf(owner.login), (a) => a.size);
export const listPackages = (ctx: QuotaContext, owner: ForgeOwnerView): Numbered<ForgePackage>[] =>
  largestFirst(ctx.forge().packagesOf(owner.login), (p) => p.size);

// Forgejo's order_by values for /user/repos. docs/quota.md §5 has `size` answer largest first, so the
// size orders here read "size" as largest first and "reversesize" as smallest first. Orders by
// dates, stars or forks have nothing to sort by in the data set and keep its order.
// The /user/repos route declares them as the values of ?order_by= (server/quota-route-table.ts).
export const REPO_ORDERS = ['name', 'id', 'newest', 'oldest', 'recentupdate', 'leastupdate', 'reversealphabetically', 'alphabetically',
  'reversesize', 'size', 'reversegitsize', 'gitsize', 'reverselfssize', 'lfssize', 'moststars', 'feweststars', 'mostforks', 'fewestforks'] as const;
export type RepoOrder = (typeof REPO_ORDERS)[number];

/** Without an order, the data set's order. */
export function listRepos(ctx: QuotaContext, owner: ForgeOwnerView, order: RepoOrder | undefined): Numbered<ForgeRepo>[] {
  const repos = ctx.forge().reposOf(owner.login);
  const by = (key: (r: ForgeRepo) => number, dir: 1 | -1) => [...repos].sort((a, b) => dir * (key(a.item) - key(b.item)) || a.id - b.id);
  const byName = (dir: 1 | -1) => [...repos].sort((a, b) => dir * a.item.name.toLowerCase().localeCompare(b.item.name.toLowerCase()) || a.id - b.id);
  switch (order) {
    case 'size': return by(repoBytes, -1);
    case 'reversesize': return by(repoBytes, 1);
    case 'gitsize': return by((r) => r.size, -1);
    case 'reversegitsize': return by((r) => r.size, 1);
    case 'lfssize': return by((r) => r.lfs_size ?? 0, -1);
    case 'reverselfssize': return by((r) => r.lfs_size ?? 0, 1);
    case 'name':
    case 'alphabetically': return byName(1);
    case 'reversealphabetically': return byName(-1);
    default: return repos;
  }
}

/**
 * The organisation behind /orgs/{org}/quota for the acting user: 404 when there is no such
 * organisation, 403 when the user is not one of its owners (forge administrators always are).
 */
export function orgFor(ctx: QuotaContext, orgName: string, doer: ForgeOwnerView): ForgeOwnerView {
  const org = ctx.forge().owner(orgName);
  if (!org || org.kind !== 'org') throw new AppError('forge_org_not_found', `There is no organisation "${orgName}" in the forge data.`);
  if (!doer.is_admin && !org.owners.includes(userKey(doer.login))) {
    throw new AppError('not_org_owner', `User "${doer.login}" is not an owner of organisation "${org.login}"; only its owners see its quota.`);
  }
  return org;
}
