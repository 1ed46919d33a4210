// The forge quota routes: their table (each route under its bare path and again under /api/v1
// for Forgejo clients) and the Hono app that serves them, mounted by the root app.
import { Hono } from 'hono';
import type { PreviewConfig } from '../deps.ts';
import type { ServiceDeps } from '../service/deps.ts';
import { quotaContext } from '../service/quota/quota-context.ts';
import type { AppEnv } from './env.ts';
import type { Tokens } from './middleware/auth.ts';
import type { ForgeAuth } from './middleware/forge-auth.ts';
import type { RouteSpec } from './route-table.ts';
import { forgeDataRoutes } from './routes/forge-data.ts';
import { quotaAdminRoutes } from './routes/quota-admin.ts';
import { quotaUserRoutes } from './routes/quota-user.ts';

export type QuotaRouteDeps = ServiceDeps & { tokens: Tokens; config: PreviewConfig; logError: (line: string) => void };

/** Forgejo clients call the API under this prefix; docs/quota.md §5 names the bare paths. */
export const FORGE_API_PREFIX = '/api/v1';

const E = 'quota/forge-error.json';
type Spec = Omit<RouteSpec, 'status' | 'scoped'>;
const admin = (method: Spec['method'], path: string, summary: string, responses: Spec['responses'], request?: string): Spec => ({
  method, path, access: 'admin', summary, responses: { 401: E, 403: E, ...responses }, ...(request ? { request } : {}),
});
const user = (path: string, summary: string, responses: Spec['responses']): Spec => ({
  method: 'GET', path, access: 'read', summary, responses: { 401: E, 403: E, ...responses },
});

const BASE: Spec[] = [
  admin('GET', '/admin/quota/rules', 'List quota rules.', { 200: 'quota/rule-list.json', 404: E }),
  admin('POST', '/admin/quota/rules', 'Create a quota rule (quota.rule.created).', { 201: 'quota/rule.json', 400: E, 404: E, 409: E, 422: E }, 'quota/create-rule-options.json'),
  admin('GET', '/admin/quota/rules/{quotarule}', 'Get a quota rule.', { 200: 'quota/rule.json', 404: E }),
  admin('PATCH', '/admin/quota/rules/{quotarule}', 'Edit a quota rule; absent or null members stay (quota.rule.edited).', { 200: 'quota/rule.json', 400: E, 404: E, 422: E }, 'quota/edit-rule-options.json'),
  admin('DELETE', '/admin/quota/rules/{quotarule}', 'Delete a quota rule; it leaves every group (quota.rule.deleted).', { 204: null, 404: E }),
  admin('GET', '/admin/quota/groups', 'List quota groups with their rules.', { 200: 'quota/group-list.json', 404: E }),
  admin('POST', '/admin/quota/groups', 'Create a quota group with its rules, atomically (quota.group.created, quota.rule.created, quota.group.rule_added).', { 201: 'quota/group.json', 400: E, 404: E, 409: E, 422: E }, 'quota/create-group-options.json'),
  admin('GET', '/admin/quota/groups/{quotagroup}', 'Get a quota group with its rules.', { 200: 'quota/group.json', 404: E }),
  admin('DELETE', '/admin/quota/groups/{quotagroup}', 'Delete a quota group; its rules stay (quota.group.deleted).', { 204: null, 404: E }),
  admin('GET', '/admin/quota/groups/{quotagroup}/users', 'List the users in a quota group.', { 200: 'quota/user-list.json', 404: E }),
  admin('PUT', '/admin/quota/groups/{quotagroup}/users/{username}', 'Add a user to a quota group (quota.group.user_added).', { 204: null, 404: E, 409: E }),
  admin('DELETE', '/admin/quota/groups/{quotagroup}/users/{username}', 'Remove a user from a quota group (quota.group.user_removed).', { 204: null, 404: E }),
  admin('PUT', '/admin/quota/groups/{quotagroup}/rules/{quotarule}', 'Add a rule to a quota group (quota.group.rule_added).', { 204: null, 404: E, 409: E }),
  admin('DELETE', '/admin/quota/groups/{quotagroup}/rules/{quotarule}', 'Remove a rule from a quota group (quota.group.rule_removed).', { 204: null, 404: E }),
  admin('POST', '/admin/users/{username}/quota/groups', 'Set the user\'s quota groups to exactly the list (quota.user.groups_set).', { 204: null, 400: E, 404: E, 422: E }, 'quota/set-user-groups-options.json'),
  admin('GET', '/admin/users/{username}/quota', 'A user\'s quota info, with names.', { 200: 'quota/quota-info.json', 404: E }),
  admin('PUT', '/admin/forge/data', 'Replace the forge data set (forge.data.replaced).', { 204: null, 400: E }, 'quota/forge-data.json'),
  admin('GET', '/admin/forge/data', 'The current forge data set.', { 200: 'quota/forge-data.json' }),
  user('/user/quota', 'The Sudo user\'s quota info, without names.', { 200: 'quota/quota-info.json', 404: E }),
  user('/user/quota/check', 'Whether the Sudo user is within quota for ?subject= (bare true or false).', { 200: 'quota/check-result.json', 404: E, 422: E }),
  user('/user/quota/attachments', 'The Sudo user\'s attachments, largest first (paged).', { 200: 'quota/attachment-list.json', 404: E }),
  user('/user/quota/artifacts', 'The Sudo user\'s artifacts, largest first (paged).', { 200: 'quota/artifact-list.json', 404: E }),
  user('/user/quota/packages', 'The Sudo user\'s packages, largest first (paged).', { 200: 'quota/package-list.json', 404: E }),
  user('/user/repos', 'The Sudo user\'s repositories; ?order_by=size is largest first (paged).', { 200: 'quota/repository-list.json', 404: E, 422: E }),
  user('/orgs/{org}/quota', 'An organisation\'s quota info, for its owners.', { 200: 'quota/quota-info.json', 404: E }),
  user('/orgs/{org}/quota/check', 'Whether an organisation is within quota for ?subject=.', { 200: 'quota/check-result.json', 404: E, 422: E }),
  user('/orgs/{org}/quota/attachments', 'An organisation\'s attachments, largest first (paged).', { 200: 'quota/attachment-list.json', 404: E }),
  user('/orgs/{org}/quota/artifacts', 'An organisation\'s artifacts, largest first (paged).', { 200: 'quota/artifact-list.json', 404: E }),
  user('/orgs/{org}/quota/packages', 'An organisation\'s packages, largest first (paged).', { 200: 'quota/package-list.json', 404: E }),
];

export const QUOTA_ROUTES: RouteSpec[] = ['', FORGE_API_PREFIX].flatMap((prefix) =>
  BASE.map((r): RouteSpec => ({ ...r, path: `${prefix}${r.path}`, status: 'preview', scoped: false })),
);

export function quotaRoutes(deps: QuotaRouteDeps): Hono<AppEnv> {
  const ctx = quotaContext(deps, deps.config.quota);
  const auth: ForgeAuth = {
    tokens: deps.tokens,
    logError: deps.logError,
    quotaEnabled: () => ctx.config.enabled,
    user: (login) => {
      const owner = ctx.forge().owner(login);
      return owner?.kind === 'user' ? owner : undefined;
    },
  };
  const family = new Hono<AppEnv>();
  family.route('/', quotaAdminRoutes(ctx, auth));
  family.route('/', quotaUserRoutes(ctx, auth));
  family.route('/', forgeDataRoutes(ctx, auth));
  const app = new Hono<AppEnv>();
  app.route('/', family);
  app.route(FORGE_API_PREFIX, family);
  return app;
}
