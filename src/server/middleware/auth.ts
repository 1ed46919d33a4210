// Bearer authentication with the per-run tokens, compared in constant time. The token decides the
// transport: the customer token is the customer transport, the operator token the operator one.
// Without an Authorization header, the console's session cookie is the customer transport, its
// unsafe requests checked against cross-site use (docs/console.md "Signing in").
import type { Context, MiddlewareHandler } from 'hono';
import { hash, timingSafeEqual } from 'node:crypto';
import { rolesMayWrite } from '../../domain/governance/team.ts';
import { AppError } from '../../errors.ts';
import { CSRF_HEADER, type ConsoleSession, type ConsoleSessions } from '../console-sessions.ts';
import type { AppEnv, Transport } from '../env.ts';
import { isLoopbackOrigin } from './loopback-guard.ts';

export type Tokens = { customer: string; operator: string };

/** Which transport an Authorization header names: the customer's, the operator's, or none. */
export type TransportOf = (authorization: string | undefined) => Transport | null;

/**
 * The run's token check. Its tokens are fixed for its lifetime, so they are hashed once here, by
 * the composition root, not on every request.
 */
export function tokenCheck(tokens: Tokens): TransportOf {
  const customer = digest(tokens.customer);
  const operator = digest(tokens.operator);
  // RFC 9110 §11.1: the scheme is case-insensitive (bearer, BEARER); the token itself is compared
  // exactly. §11.4 puts 1*SP between them, as the hosted service's parser reads it too.
  return (authorization) => {
    const match = /^Bearer +([\x21-\x7e]+)$/i.exec(authorization ?? '');
    if (!match) return null;
    // Hash both sides first so the comparison is constant-time whatever the lengths.
    const given = digest(match[1]!);
    const isCustomer = timingSafeEqual(given, customer);
    const isOperator = timingSafeEqual(given, operator);
    return isCustomer ? 'customer' : isOperator ? 'operator' : null;
  };
}

function digest(text: string): Buffer {
  return hash('sha256', text, 'buffer');
}

/** The console's sessions and the server's port (a cookie write must come from this origin). */
export type CookieAuth = { sessions: ConsoleSessions; port: () => number };

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The request's console session when it sends no Authorization header (a bearer token, sent, always
 * decides), else null. An unsafe method must also come from a page of this origin and carry the
 * session's CSRF value: SameSite=Strict keeps other sites' requests from sending the cookie, and
 * these checks stand behind it (another port of localhost is the same site, not the same origin).
 */
export function cookieSession(c: Context<AppEnv>, auth: CookieAuth): ConsoleSession | null {
  if (c.req.header('authorization') !== undefined) return null;
  const session = auth.sessions.fromRequest(c);
  if (session === null) return null;
  if (!SAFE_METHODS.has(c.req.method)) checkCookieWrite(c, session, auth);
  return session;
}

/** 403 unless an unsafe cookie request is same-origin (Origin, Sec-Fetch-Site) and carries the CSRF value. */
export function checkCookieWrite(c: Context<AppEnv>, session: ConsoleSession, auth: CookieAuth): void {
  const origin = c.req.header('origin');
  const site = c.req.header('sec-fetch-site');
  if (origin === undefined || !isOwnOrigin(origin, auth.port()) || (site !== undefined && site !== 'same-origin')) {
    throw new AppError('origin_not_allowed', 'A request signed in by the console cookie must come from the console page itself (Origin: this server\'s own http://127.0.0.1, localhost or [::1] origin with its port).');
  }
  if (!auth.sessions.csrfMatches(session, c.req.header(CSRF_HEADER))) {
    throw new AppError('csrf_token_invalid', `A request signed in by the console cookie must send ${CSRF_HEADER} with the value of the gov_csrf cookie; reload the console, or sign in again with npx gov console.`);
  }
}

/** A loopback origin with the server's own port. */
function isOwnOrigin(origin: string, port: number): boolean {
  return isLoopbackOrigin(origin) && Number(new URL(origin).port || 80) === port;
}

export function requireAuth(transportOf: TransportOf, cookies?: CookieAuth): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    let transport = transportOf(c.req.header('authorization'));
    // The console's cookie signs in as the customer transport: the page reads and writes as an
    // integrator's code would, and an operator-only route still asks for the operator token.
    const session = transport === null && cookies !== undefined ? cookieSession(c, cookies) : null;
    if (session !== null) transport = 'customer';
    if (!transport) {
      throw new AppError('unauthorized', 'Send Authorization: Bearer <token> with a token from the run file (<data-dir>/run.json) of the running preview.');
    }
    c.set('transport', transport);
    c.set('cookieSession', session !== null);
    await next();
  };
}

/**
 * A route declared as a write is a customer write: the operator token gets 403 and nothing is
 * written. In the hosted service a token whose only team role is `auditor` gets 403 too: an
 * auditor reads and exports (docs/governance/approvals.md §5.1), and writes nothing.
 */
export function requireCustomerWrite(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (c.get('transport') === 'operator') {
      throw new AppError('operator_transport_rejected', 'Customer writes are not accepted over the operator transport; send this request with the customer token.');
    }
    const identity = c.get('identity');
    if (identity !== undefined && !rolesMayWrite(identity.roles)) {
      throw new AppError('role_required', 'An auditor reads and exports but writes nothing; this write needs a token with another team role (contributor, agent, governance_reviewer, accountable_executive, admin or owner).');
    }
    await next();
  };
}
