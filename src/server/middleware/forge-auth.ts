// Forge conventions for the quota routes: bearer auth (401 + WWW-Authenticate), the operator token
// for admin routes, `Sudo: <username>` for the user routes, quota switched off → 404 (only once the
// operator token is shown), and Forgejo's error bodies ({message, url}; a missing target adds
// errors: []) from one code → status table.
// A 5xx says nothing internal in {message} and writes its one structured line to stderr.
import type { Context, Handler } from 'hono';
import { AppError } from '../../errors.ts';
import type { ForgeOwnerView } from '../../service/quota/forge-state.ts';
import type { AppEnv } from '../env.ts';
import { serverErrorLine } from '../error-log.ts';
import { internalErrorDetail, isKnownCode, statusOf } from '../problem.ts';
import type { TransportOf } from './auth.ts';

/** Error code → HTTP status for forge routes; codes not listed fall back to the problem table. */
export const FORGE_STATUS: Record<string, number> = {
  invalid_body: 400,
  forge_data_invalid: 400,
  malformed_json: 400,
  forge_unauthorized: 401,
  forge_admin_required: 403,
  sudo_required: 403,
  sudo_not_allowed: 403,
  not_org_owner: 403,
  quota_disabled: 404,
  quota_rule_not_found: 404,
  quota_group_not_found: 404,
  forge_user_not_found: 404,
  forge_org_not_found: 404,
  quota_user_not_in_group: 404,
  quota_rule_not_in_group: 404,
  quota_rule_exists: 409,
  quota_group_exists: 409,
  quota_user_in_group: 409,
  quota_rule_in_group: 409,
  unrecognised_subject: 422,
  quota_group_unknown: 422,
  invalid_order_by: 422,
};

export function forgeStatusOf(code: string): number {
  return FORGE_STATUS[code] ?? statusOf(code);
}

/** The forge's API_SWAGGER_URL, on the address the caller used. */
export function swaggerUrl(c: Context): string {
  return `${new URL(c.req.url).origin}/api/swagger`;
}

/**
 * The forge body for any error: an AppError of either table keeps its message (written for the
 * caller); anything else, an AppError with an unknown code included, is a 500 that names only the
 * request id.
 */
export function forgeErrorResponse(c: Context<AppEnv>, err: unknown): Response {
  const known = err instanceof AppError && (FORGE_STATUS[err.code] !== undefined || isKnownCode(err.code));
  const status = known ? forgeStatusOf(err.code) : 500;
  const message = known ? err.message : internalErrorDetail(c.get('requestId') ?? 'unknown');
  const body: { message: string; url: string; errors?: string[] } = { message, url: swaggerUrl(c) };
  if (status === 404) body.errors = [];
  const headers: Record<string, string> = { 'Content-Type': 'application/json; charset=utf-8' };
  if (status === 401) headers['WWW-Authenticate'] = 'Bearer';
  return new Response(JSON.stringify(body), { status, headers });
}

export type ForgeAuth = {
  transportOf: TransportOf;
  /** Where a 5xx's structured line goes (the root app's logError). */
  logError: (line: string) => void;
  /** Quota switched on in the configuration. */
  quotaEnabled: () => boolean;
  /** A forge user (not an organisation) by login, case-insensitively. */
  user: (login: string) => ForgeOwnerView | undefined;
};

/**
 * `admin`: the operator token; a Sudo header is not needed and is ignored. `user`: the operator
 * token with `Sudo: <username>` (or `?sudo=`), acting as that user. `quota`: the route is a quota
 * route and does not exist (404) for the operator while quota is switched off; the forge data and
 * repository routes are not quota routes and stay.
 */
export type ForgeRouteOptions = { access: 'admin' | 'user'; quota: boolean };

export type ForgeHandler = (c: Context<AppEnv>, doer: ForgeOwnerView | null) => Response | Promise<Response>;

/**
 * Wraps a route handler with the checks above, in order (token → operator → disabled → Sudo), and
 * turns every error of the checks and of the handler into a forge error body right here (a 5xx
 * logged first): the root app's onError (problem+json) never sees them. Hono's compose hands a
 * thrown error to the root onError at the innermost level, so a separate middleware could not
 * catch it around next().
 */
export function forgeRoute(auth: ForgeAuth, options: ForgeRouteOptions, handler: ForgeHandler): Handler<AppEnv> {
  return async (c) => {
    try {
      const transport = auth.transportOf(c.req.header('authorization'));
      if (transport === null) {
        throw new AppError('forge_unauthorized', 'token is required: send Authorization: Bearer <token> with a token from the run file (<data-dir>/run.json).');
      }
      c.set('transport', transport);
      // Only the user routes act as someone (their table entries declare ?sudo=).
      const sudo = options.access === 'user' ? (c.req.header('sudo') ?? c.req.query('sudo')) : undefined;
      if (transport !== 'operator') {
        if (options.access === 'admin') throw new AppError('forge_admin_required', 'user should be the site admin: this route needs the operator token.');
        throw sudo === undefined
          ? new AppError('sudo_required', 'This route acts as a forge user: send the operator token with the header Sudo: <username>.')
          : new AppError('sudo_not_allowed', 'Only administrators allowed to sudo: send Sudo with the operator token.');
      }
      // Only after the operator token: whether quota is switched on is the instance's configuration,
      // which an unauthenticated or customer call must not learn from a 404.
      if (options.quota && !auth.quotaEnabled()) {
        throw new AppError('quota_disabled', 'Quota is not enabled on this instance; set "quota": {"enabled": true} in the preview configuration.');
      }
      if (options.access === 'admin') return await handler(c, null);
      if (sudo === undefined || sudo === '') {
        throw new AppError('sudo_required', 'The operator token is not a forge user: send the header Sudo: <username> to act as one.');
      }
      const doer = auth.user(sudo);
      if (!doer) throw new AppError('forge_user_not_found', `Sudo names no user of the forge data: "${sudo}".`);
      return await handler(c, doer);
    } catch (err) {
      const res = forgeErrorResponse(c, err);
      if (res.status >= 500) auth.logError(serverErrorLine(c, err, res.status));
      return res;
    }
  };
}
