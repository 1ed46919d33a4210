// The forge quota routes' table: each route under its bare path and again under /api/v1 for
// Forgejo clients, with the query parameters it reads, declared the forge's way (routes/quota.ts
// serves them).
import { SUBJECTS } from '../domain/quota/subjects.ts';
import { REPO_ORDERS } from '../service/quota/quota-usage.ts';
import type { QuerySpec } from './query-params.ts';
import type { RouteSpec } from './route-table.ts';

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

/** Every /user and /orgs route: Sudo as a query parameter (read by forgeRoute, middleware/forge-auth.ts). */
const SUDO_QUERY = {
  sudo: { schema: { type: 'string' }, description: 'The forge user to act as, with the operator token, in place of the Sudo header (the header wins when both are sent).' },
} as const satisfies QuerySpec;

const E = 'quota/forge-error.json';
type Spec = Omit<RouteSpec, 'status' | 'scoped'>;
const admin = (method: Spec['method'], path: string, summary: string, responses: Spec['responses'], request?: string): Spec => ({
  method, path, access: 'admin', summary, responses: { 401: E, 403: E, ...responses }, ...(request ? { request } : {}),
});
const user = (path: string, summary: string, responses: Spec['responses'], query: QuerySpec = {}): Spec => ({
  method: 'GET', path, access: 'read', summary, query: { ...query, ...SUDO_QUERY }, responses: { 401: E, 403: E, ...responses },
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
  user('/user/quota/check', 'Whether the Sudo user is within quota for ?subject= (bare true or false).', { 200: 'quota/check-result.json', 404: E, 422: E }, CHECK_QUERY),
  user('/user/quota/attachments', 'The Sudo user\'s attachments, largest first (paged).', { 200: 'quota/attachment-list.json', 404: E }, PAGED_QUERY),
  user('/user/quota/artifacts', 'The Sudo user\'s artifacts, largest first (paged).', { 200: 'quota/artifact-list.json', 404: E }, PAGED_QUERY),
  user('/user/quota/packages', 'The Sudo user\'s packages, largest first (paged).', { 200: 'quota/package-list.json', 404: E }, PAGED_QUERY),
  user('/user/repos', 'The Sudo user\'s repositories; ?order_by=size is largest first (paged).', { 200: 'quota/repository-list.json', 404: E, 422: E }, REPOS_QUERY),
  user('/orgs/{org}/quota', 'An organisation\'s quota info, for its owners.', { 200: 'quota/quota-info.json', 404: E }),
  user('/orgs/{org}/quota/check', 'Whether an organisation is within quota for ?subject=.', { 200: 'quota/check-result.json', 404: E, 422: E }, CHECK_QUERY),
  user('/orgs/{org}/quota/attachments', 'An organisation\'s attachments, largest first (paged).', { 200: 'quota/attachment-list.json', 404: E }, PAGED_QUERY),
  user('/orgs/{org}/quota/artifacts', 'An organisation\'s artifacts, largest first (paged).', { 200: 'quota/artifact-list.json', 404: E }, PAGED_QUERY),
  user('/orgs/{org}/quota/packages', 'An organisation\'s packages, largest first (paged).', { 200: 'quota/package-list.json', 404: E }, PAGED_QUERY),
];

export const QUOTA_ROUTES: RouteSpec[] = ['', FORGE_API_PREFIX].flatMap((prefix) =>
  BASE.map((r): RouteSpec => ({ ...r, path: `${prefix}${r.path}`, status: 'preview', scoped: false })),
);
