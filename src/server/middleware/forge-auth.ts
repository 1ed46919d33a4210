// Forge conventions for the quota routes: bearer auth (401 + WWW-Authenticate), the operator token
// for admin routes, `Sudo: <username>` for the user routes, quota switched off → 404 (only once the
// operator token is shown). Their errors become Forgejo's bodies in forge-errors.ts.
import type { MiddlewareHandler } from 'hono';
import { AppError } from '../../errors.ts';
import type { ForgeOwnerView } from '../../service/quota/forge-state.ts';
import type { AppEnv } from '../env.ts';
import { cookieSession, type CookieAuth, type TransportOf } from './auth.ts';

export type ForgeAuth = {
  transportOf: TransportOf;
  /** Quota switched on in the configuration. */
  quotaEnabled: () => boolean;
  /** A forge user (not an organisation) by login, case-insensitively. */
  user: (login: string) => ForgeOwnerView | undefined;
  /**
   * The console's sessions: a session cookie reads the admin routes (GET only) as the operator, and
   * is the customer transport on every other forge request.
   */
  cookies?: CookieAuth;
};

/**
 * `admin`: the operator token; a Sudo header is not needed and is ignored. `user`: the operator
 * token with `Sudo: <username>` (or `?sudo=`), acting as that user. `quota`: the route is a quota
 * route and does not exist (404) for the operator while quota is switched off; the forge data and
 * repository routes are not quota routes and stay.
 */
export type ForgeRouteOptions = { access: 'admin' | 'user'; quota: boolean };

/**
 * The checks above, in order (token → operator → disabled → Sudo), as the middleware of a forge
 * route; it leaves the user the route acts as in c.get('doer') (null on an admin route). What it and the
 * handler throw goes to the root onError like any route's; forgeErrors (mounted on every forge route
 * before this) then answers it in the forge's shape.
 */
export function forgeAuth(auth: ForgeAuth, options: ForgeRouteOptions): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    let transport = auth.transportOf(c.req.header('authorization'));
    // The console shows quota groups, rules and users' quota read-only: a GET of an admin route is
    // the one forge request its cookie makes as the operator. Anything else it sends is answered as
    // the customer token's would be (403: the operator token is needed), the cookie standing in for
    // the customer transport as on /v1; a write must still pass the cookie's Origin and CSRF checks.
    const session = transport === null && auth.cookies !== undefined ? cookieSession(c, auth.cookies) : null;
    if (session !== null) {
      transport = options.access === 'admin' && c.req.method === 'GET' ? 'operator' : 'customer';
      c.set('cookieSession', true);
    }
    if (transport === null) {
      // Forgejo's own message for no token; a token that is none of the run's is said as such.
      const sent = c.req.header('authorization') !== undefined;
      throw new AppError('forge_unauthorized', sent
        ? 'the token is not valid: send Authorization: Bearer <token> with a token from the run file (<data-dir>/run.json) of the running preview.'
        : 'token is required: send Authorization: Bearer <token> with a token from the run file (<data-dir>/run.json).');
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
    if (options.access === 'admin') {
      c.set('doer', null);
    } else {
      if (sudo === undefined || sudo === '') {
        throw new AppError('sudo_required', 'The operator token is not a forge user: send the header Sudo: <username> to act as one.');
      }
      const doer = auth.user(sudo);
      if (!doer) throw new AppError('forge_user_not_found', `Sudo names no user of the forge data: "${sudo}".`);
      c.set('doer', doer);
    }
    await next();
  };
}
