// Signing in to the console without the bearer token ever reaching the page (docs/console.md
// "Signing in"): `gov console` mints a one-time login code with the operator token, the browser
// opens GET /console/login?code=… and gets an HttpOnly session cookie and a readable CSRF cookie,
// and POST /console/logout ends the session. The codes and sessions live in memory
// (console-sessions.ts) and die with the run.
import type { Context } from 'hono';
import { setCookie } from 'hono/cookie';
import type { CookieOptions } from 'hono/utils/cookie';
import { AppError } from '../../errors.ts';
import { CSRF_COOKIE, SESSION_COOKIE } from '../console-sessions.ts';
import type { AppEnv } from '../env.ts';
import { checkCookieWrite } from '../middleware/auth.ts';
import { problemResponse } from '../problem.ts';
import { readQuery } from '../query-params.ts';
import { P } from '../responses.ts';
import type { Route } from '../route-spec.ts';

const AGAIN = 'run `npx gov console` again for a fresh link';

const LOGIN_QUERY = {
  code: {
    schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{43}$' },
    required: true,
    description: 'The one-time login code of POST /admin/console/login-codes (good for one use within 60 s).',
    refusal: { code: 'login_code_invalid', message: `This sign-in link holds no login code; ${AGAIN}.` },
  },
} as const;

// The session cookie is HttpOnly (no script reads it); the CSRF cookie is readable on purpose: the
// page copies it into X-CSRF-Token, which a page of another origin cannot do (double submit).
const SESSION: CookieOptions = { path: '/', httpOnly: true, sameSite: 'Strict' };
const CSRF: CookieOptions = { path: '/', sameSite: 'Strict' };

/** The login answers' headers: nothing loads, nothing is cached, the code never leaves as a Referer. */
const PAGE_HEADERS = {
  'Content-Security-Policy': "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

function page(title: string, body: string): string {
  return `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="color-scheme" content="light dark"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title></head>\n<body><main><h1>${title}</h1>${body}</main></body></html>\n`;
}

const REFUSED = page(
  'This sign-in link does not work',
  '<p>A console sign-in link works once, within 60 seconds of being made. This one is used, expired, or from an earlier run of the preview.</p>'
    + '<p>Run <code>npx gov console</code> again: it opens a fresh link.</p>',
);

/**
 * A refused code: a small page for a browser, a problem for anything else. The problem is answered
 * here, not thrown to the root onError, because it must carry the login answers' headers too: a
 * refusal names the code in its request, and a cache or a Referer must not keep it either.
 */
function refuse(c: Context<AppEnv>, err: AppError): Response {
  if ((c.req.header('accept') ?? '').includes('text/html')) return c.html(REFUSED, 401, PAGE_HEADERS);
  const res = problemResponse(c, err);
  for (const [name, value] of Object.entries(PAGE_HEADERS)) res.headers.set(name, value);
  return res;
}

export const CONSOLE_AUTH_ROUTES: Route[] = [
  {
    method: 'POST', path: '/admin/console/login-codes', status: 'preview', access: 'admin', scoped: false, readsIndex: false,
    summary: 'A one-time login code and sign-in link for the console (single use, 60 s); operator token only.',
    readme: 'what `gov console` opens: a one-time code (single use, 60 s) in a link to `/console/login`; the operator token only, never a cookie',
    responses: { 201: 'api/console-login-code.json', 401: P, 403: P },
    handler: (c, deps) => {
      // Only the operator token mints: the customer token is what integrators' code holds, and a
      // console session must not be able to copy itself into another browser.
      if (c.get('transport') !== 'operator' || c.get('cookieSession')) {
        throw new AppError('operator_token_required', 'Login codes are made with the operator token (tokens.operator of <data-dir>/run.json); run `npx gov console`.');
      }
      const { code, expiresAt } = deps.consoleSessions.mintCode();
      // The Host the caller reached this server by (the loopback guard admitted it: a loopback name
      // with this server's port), so the link opens where the caller found the preview, IPv6 too.
      const host = (c.req.header('host') ?? `127.0.0.1:${deps.port()}`).toLowerCase();
      return c.json({ code, url: `http://${host}/console/login?code=${code}`, expires_at: expiresAt.toISOString() }, 201);
    },
  },
  {
    method: 'GET', path: '/console/login', status: 'preview', access: 'public', scoped: false,
    summary: 'Exchange a one-time login code for the console session cookie, then open the console.',
    readme: 'sets the HttpOnly session cookie and the CSRF cookie for a valid code; a used, expired or unknown code is 401',
    query: LOGIN_QUERY,
    // A 303 to /console: the spent code leaves the address bar, and a reload does not resend it.
    responses: { 303: null, 401: [P, 'text/html'] },
    handler: (c, deps) => {
      let code: string;
      try {
        ({ code } = readQuery(c, LOGIN_QUERY));
      } catch (err) {
        if (err instanceof AppError) return refuse(c, err);
        throw err;
      }
      const session = deps.consoleSessions.redeem(code);
      if (session === null) {
        return refuse(c, new AppError('login_code_invalid', `This login code is used, expired (a code works once, within 60 s) or from an earlier run; ${AGAIN}.`));
      }
      setCookie(c, SESSION_COOKIE, session.id, SESSION);
      setCookie(c, CSRF_COOKIE, session.csrf, CSRF);
      return c.body(null, 303, { ...PAGE_HEADERS, Location: '/console' });
    },
  },
  {
    method: 'POST', path: '/console/logout', status: 'preview', access: 'public', scoped: false,
    summary: 'End the console session: its cookie and X-CSRF-Token from the console page; clears both cookies.',
    readme: 'the session cookie, `X-CSRF-Token` and the console\'s own Origin; no token',
    responses: { 204: null, 401: P, 403: P },
    handler: (c, deps) => {
      const session = deps.consoleSessions.fromRequest(c);
      if (session === null) throw new AppError('unauthorized', 'No console session: this browser is not signed in (or the preview restarted); run `npx gov console` to sign in.');
      checkCookieWrite(c, session, { sessions: deps.consoleSessions, port: deps.port });
      deps.consoleSessions.end(session.id);
      setCookie(c, SESSION_COOKIE, '', { ...SESSION, maxAge: 0 });
      setCookie(c, CSRF_COOKIE, '', { ...CSRF, maxAge: 0 });
      return c.body(null, 204);
    },
  },
];
