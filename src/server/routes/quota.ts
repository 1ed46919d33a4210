// The forge quota routes (docs/quota.md §5), each declared once under its bare path and served
// again under /api/v1 for Forgejo clients: the admin routes (rules, groups, rule-in-group links,
// group members, a user's groups and quota info, the forge data set; operator token only) and the
// user and organisation routes (acting as the user named by Sudo). Lists are largest first and paged
// the forge's way (forge-paging.ts). A route that takes a body checks its path targets first and
// reads the body after, so the statuses come in the table's order.
import type { Context } from 'hono';
import { SUBJECTS } from '../../domain/quota/subjects.ts';
import { replaceForgeData } from '../../service/quota/forge-data.ts';
import type { ForgeOwnerView } from '../../service/quota/forge-state.ts';
import { artifactJson, attachmentJson, groupJson, packageJson, repoJson, ruleJson, userJson } from '../../service/quota/forge-views.ts';
import {
  addRuleToGroup, addUserToGroup, createGroup, createRule, deleteGroup, deleteRule, editRule, findGroup, findOwner, findRule,
  groupMembers, removeRuleFromGroup, removeUserFromGroup, setUserGroups,
} from '../../service/quota/quota-admin.ts';
import { checkQuota, listArtifacts, listAttachments, listPackages, listRepos, orgFor, quotaInfo, REPO_ORDERS } from '../../service/quota/quota-usage.ts';
import { AppError, isAppError } from '../../errors.ts';
import type { AppEnv } from '../env.ts';
import { readQuery, type QuerySpec } from '../query-params.ts';
import { readJsonBody } from '../request-input.ts';
import type { Route, RouteDeps, RouteHandler, RouteSpec } from '../route-spec.ts';
import { pagedJson } from './forge-paging.ts';

/** Forgejo clients call the API under this prefix; docs/quota.md §5 names the bare paths. */
export const FORGE_API_PREFIX = '/api/v1';

// The forge reads its list options leniently (Forgejo's ListOptions): never a 4xx for paging.
/** The lists, largest first: ?page= and ?limit=. */
export const PAGED_QUERY = {
  page: { schema: { type: 'integer', minimum: 1, default: 1 }, form: 'int', description: 'The page, from 1.' },
  limit: { schema: { type: 'integer', minimum: 1, maximum: 50, default: 30 }, form: 'int', description: 'Items per page.' },
} as const satisfies QuerySpec;

/** /user/repos: the forge's order_by values, then paging. */
export const REPOS_QUERY = {
  order_by: {
    schema: { type: 'string', enum: REPO_ORDERS },
    form: 'string',
    description: 'The order; size is largest first (git + LFS), reversesize smallest first. Without one, the data set\'s order.',
    refusal: { code: 'invalid_order_by', message: (v) => `order_by "${v}" is not supported; use size, reversesize, alphabetically or id.` },
  },
  ...PAGED_QUERY,
} as const satisfies QuerySpec;

/** The quota checks: the one subject to check, trimmed as the forge reads it. */
export const CHECK_QUERY = {
  subject: {
    schema: { type: 'string', enum: SUBJECTS },
    required: true,
    form: 'trim',
    description: 'The quota subject to check, e.g. size:all.',
    refusal: {
      code: 'unrecognised_subject',
      message: (v) => `${v === undefined ? 'The subject query parameter is missing' : `"${v}" is not a quota subject`}; send ?subject=size:all (or another size:… subject).`,
    },
  },
} as const satisfies QuerySpec;

/** Every /user and /orgs route: Sudo as a query parameter (read by the forge's auth middleware). */
const SUDO_QUERY = {
  sudo: { schema: { type: 'string' }, description: 'The forge user to act as, with the operator token, in place of the Sudo header (the header wins when both are sent).' },
} as const satisfies QuerySpec;

const E = 'quota/forge-error.json';
type Method = RouteSpec['method'];
type Responses = RouteSpec['responses'];

const param = (c: Context, name: string) => c.req.param(name) ?? '';
const origin = (c: Context) => new URL(c.req.url).origin;
/**
 * The seed's 400 on the routes that name a target in their path. A percent-escape that is not
 * UTF-8 (`%FF`, a cut-off `%E0%A4`, a bare `%`) cannot be decoded, and the router then hands the
 * parameter over as written, so /admin/quota/groups/%FF would read, change or delete the group
 * literally named "%FF" (whose path is %25FF). Checked after authentication, before any lookup.
 */
function assertPathDecodes(c: Context): void {
  for (const segment of new URL(c.req.url).pathname.split('/')) {
    try {
      decodeURIComponent(segment);
    } catch {
      throw new AppError('bad_request', `The path segment ${JSON.stringify(segment)} is not percent-encoded UTF-8; encode each name's UTF-8 bytes, and a literal % as %25.`);
    }
  }
}

/** The 400 of assertPathDecodes, on a route with a path parameter. */
const pathRefusal = (path: string): Responses => (path.includes('{') ? { 400: E } : {});

/**
 * The request's JSON body, with the forge's statuses: the seed keeps 422 for an unrecognised
 * subject, an unknown group and an unknown rule, so a body no JSON reader reads one way (a member
 * named twice, half a character) is a bad request here, 400, where /v1 answers 422 not_plain_json.
 */
async function forgeBody(c: Context): Promise<unknown> {
  try {
    return await readJsonBody(c);
  } catch (err) {
    if (isAppError(err) && err.code === 'not_plain_json') throw new AppError('invalid_body', err.message, { ...(err.details ? { details: err.details } : {}), cause: err });
    throw err;
  }
}

/** 204 once `work` is done. */
const noContent = async (c: Context, work: Promise<unknown>) => {
  await work;
  return c.body(null, 204);
};

/** An admin route (operator token); `quota: false` for the forge data routes, which stay while quota is off. */
function admin(method: Method, path: string, summary: string, responses: Responses, handler: RouteHandler, options: { request?: string; quota?: boolean } = {}): Route {
  return {
    method, path, status: 'preview', access: 'admin', scoped: false, summary,
    responses: { 401: E, 403: E, ...pathRefusal(path), ...responses },
    ...(options.request === undefined ? {} : { request: options.request }),
    forge: { access: 'admin', quota: options.quota ?? true },
    handler: (c, deps) => {
      assertPathDecodes(c);
      return handler(c, deps);
    },
  };
}

/**
 * A GET acting as the Sudo user; on /orgs/{org} routes, as that organisation (for its owners).
 * `quota: false` for /user/repos, which is not a quota route and answers while quota is off.
 */
function user(path: string, summary: string, responses: Responses, query: QuerySpec, handler: (c: Context<AppEnv>, deps: RouteDeps, owner: ForgeOwnerView) => Response, quota = true): Route {
  return {
    method: 'GET', path, status: 'preview', access: 'read', scoped: false, summary,
    query: { ...query, ...SUDO_QUERY }, responses: { 401: E, 403: E, ...pathRefusal(path), ...responses },
    forge: { access: 'user', quota },
    handler: (c, deps) => {
      assertPathDecodes(c);
      const doer = c.get('doer')!;
      const org = c.req.param('org');
      return handler(c, deps, org === undefined ? doer : orgFor(deps.quota, org, doer));
    },
  };
}

/** The same five routes for the user and for an organisation the user owns. */
function ownerRoutes(prefix: '/user' | '/orgs/{org}', who: { info: string; check: string; lists: string }): Route[] {
  return [
    user(`${prefix}/quota`, who.info, { 200: 'quota/quota-info.json', 404: E }, {}, (c, deps, owner) => c.json(quotaInfo(deps.quota, owner, false))),
    user(`${prefix}/quota/check`, who.check, { 200: 'quota/check-result.json', 404: E, 422: E }, CHECK_QUERY,
      (c, deps, owner) => c.json(checkQuota(deps.quota, owner, readQuery(c, CHECK_QUERY).subject))),
    user(`${prefix}/quota/attachments`, `${who.lists} attachments, largest first (paged).`, { 200: 'quota/attachment-list.json', 404: E }, PAGED_QUERY,
      (c, deps, owner) => pagedJson(c, readQuery(c, PAGED_QUERY), listAttachments(deps.quota, owner), (a) => attachmentJson(a, origin(c)))),
    user(`${prefix}/quota/artifacts`, `${who.lists} artifacts, largest first (paged).`, { 200: 'quota/artifact-list.json', 404: E }, PAGED_QUERY,
      (c, deps, owner) => pagedJson(c, readQuery(c, PAGED_QUERY), listArtifacts(deps.quota, owner), (a) => artifactJson(a, origin(c)))),
    user(`${prefix}/quota/packages`, `${who.lists} packages, largest first (paged).`, { 200: 'quota/package-list.json', 404: E }, PAGED_QUERY,
      (c, deps, owner) => pagedJson(c, readQuery(c, PAGED_QUERY), listPackages(deps.quota, owner), (p) => packageJson(p, origin(c)))),
  ];
}

const BASE: Route[] = [
  admin('GET', '/admin/quota/rules', 'List quota rules.', { 200: 'quota/rule-list.json', 404: E },
    (c, { quota }) => c.json(quota.q.rules().map((r) => ruleJson(r, true)))),
  admin('POST', '/admin/quota/rules', 'Create a quota rule (quota.rule.created).', { 201: 'quota/rule.json', 400: E, 404: E, 409: E, 422: E },
    async (c, { quota }) => c.json(ruleJson(await createRule(quota, await forgeBody(c)), true), 201), { request: 'quota/create-rule-options.json' }),
  admin('GET', '/admin/quota/rules/{quotarule}', 'Get a quota rule.', { 200: 'quota/rule.json', 404: E },
    (c, { quota }) => c.json(ruleJson(findRule(quota, param(c, 'quotarule')), true))),
  admin('PATCH', '/admin/quota/rules/{quotarule}', 'Edit a quota rule; absent or null members stay (quota.rule.edited).', { 200: 'quota/rule.json', 400: E, 404: E, 422: E },
    async (c, { quota }) => {
      const name = param(c, 'quotarule');
      findRule(quota, name);
      return c.json(ruleJson(await editRule(quota, name, await forgeBody(c)), true));
    }, { request: 'quota/edit-rule-options.json' }),
  admin('DELETE', '/admin/quota/rules/{quotarule}', 'Delete a quota rule; it leaves every group (quota.rule.deleted).', { 204: null, 404: E },
    async (c, { quota }) => noContent(c, deleteRule(quota, param(c, 'quotarule')))),
  admin('GET', '/admin/quota/groups', 'List quota groups with their rules.', { 200: 'quota/group-list.json', 404: E },
    (c, { quota }) => c.json(quota.q.groups().map((g) => groupJson(g, true)))),
  admin('POST', '/admin/quota/groups', 'Create a quota group with its rules, atomically (quota.group.created, quota.rule.created, quota.group.rule_added).', { 201: 'quota/group.json', 400: E, 404: E, 409: E, 422: E },
    async (c, { quota }) => c.json(groupJson(await createGroup(quota, await forgeBody(c)), true), 201), { request: 'quota/create-group-options.json' }),
  admin('GET', '/admin/quota/groups/{quotagroup}', 'Get a quota group with its rules.', { 200: 'quota/group.json', 404: E },
    (c, { quota }) => c.json(groupJson(findGroup(quota, param(c, 'quotagroup')), true))),
  admin('DELETE', '/admin/quota/groups/{quotagroup}', 'Delete a quota group; its rules stay (quota.group.deleted).', { 204: null, 404: E },
    async (c, { quota }) => noContent(c, deleteGroup(quota, param(c, 'quotagroup')))),
  admin('GET', '/admin/quota/groups/{quotagroup}/users', 'List the users in a quota group.', { 200: 'quota/user-list.json', 404: E },
    (c, { quota }) => {
      const members = groupMembers(quota, param(c, 'quotagroup'));
      const loadedAt = quota.forge().loadedAt;
      return c.json(members.map((m) => userJson(m, origin(c), loadedAt)));
    }),
  admin('PUT', '/admin/quota/groups/{quotagroup}/users/{username}', 'Add a user to a quota group (quota.group.user_added).', { 204: null, 404: E, 409: E },
    async (c, { quota }) => noContent(c, addUserToGroup(quota, param(c, 'quotagroup'), param(c, 'username')))),
  admin('DELETE', '/admin/quota/groups/{quotagroup}/users/{username}', 'Remove a user from a quota group (quota.group.user_removed).', { 204: null, 404: E },
    async (c, { quota }) => noContent(c, removeUserFromGroup(quota, param(c, 'quotagroup'), param(c, 'username')))),
  admin('PUT', '/admin/quota/groups/{quotagroup}/rules/{quotarule}', 'Add a rule to a quota group (quota.group.rule_added).', { 204: null, 404: E, 409: E },
    async (c, { quota }) => noContent(c, addRuleToGroup(quota, param(c, 'quotagroup'), param(c, 'quotarule')))),
  admin('DELETE', '/admin/quota/groups/{quotagroup}/rules/{quotarule}', 'Remove a rule from a quota group (quota.group.rule_removed).', { 204: null, 404: E },
    async (c, { quota }) => noContent(c, removeRuleFromGroup(quota, param(c, 'quotagroup'), param(c, 'quotarule')))),
  admin('POST', '/admin/users/{username}/quota/groups', 'Set the user\'s quota groups to exactly the list (quota.user.groups_set).', { 204: null, 400: E, 404: E, 422: E },
    async (c, { quota }) => {
      const login = param(c, 'username');
      findOwner(quota, login);
      return noContent(c, setUserGroups(quota, login, await forgeBody(c)));
    }, { request: 'quota/set-user-groups-options.json' }),
  admin('GET', '/admin/users/{username}/quota', 'A user\'s quota info, with names.', { 200: 'quota/quota-info.json', 404: E },
    (c, { quota }) => c.json(quotaInfo(quota, findOwner(quota, param(c, 'username')), true))),
  // The forge data set: one forge.data.replaced event; a reference to an unknown owner or
  // repository is a 400 naming it. Not quota routes: they stay while quota is switched off.
  admin('PUT', '/admin/forge/data', 'Replace the forge data set (forge.data.replaced).', { 204: null, 400: E },
    async (c, { quota }) => noContent(c, replaceForgeData(quota, await forgeBody(c), 'api')), { request: 'quota/forge-data.json', quota: false }),
  admin('GET', '/admin/forge/data', 'The current forge data set.', { 200: 'quota/forge-data.json' },
    (c, { quota }) => c.json(quota.forge().data), { quota: false }),
  ...ownerRoutes('/user', { info: 'The Sudo user\'s quota info, without names.', check: 'Whether the Sudo user is within quota for ?subject= (bare true or false).', lists: 'The Sudo user\'s' }),
  user('/user/repos', 'The Sudo user\'s repositories; ?order_by=size is largest first (paged).', { 200: 'quota/repository-list.json', 404: E, 422: E }, REPOS_QUERY,
    (c, deps, owner) => {
      const loadedAt = deps.quota.forge().loadedAt;
      const { order_by: order, ...page } = readQuery(c, REPOS_QUERY);
      return pagedJson(c, page, listRepos(deps.quota, owner, order), (r) => repoJson(r, owner, origin(c), loadedAt));
    }, false),
  ...ownerRoutes('/orgs/{org}', { info: 'An organisation\'s quota info, for its owners.', check: 'Whether an organisation is within quota for ?subject=.', lists: 'An organisation\'s' }),
];

export const QUOTA_ROUTES: Route[] = ['', FORGE_API_PREFIX].flatMap((prefix) => BASE.map((r): Route => ({ ...r, path: `${prefix}${r.path}` })));
