// Signing in to the console (docs/console.md "Signing in"): the operator token mints a one-time
// login code, the code gives an HttpOnly, SameSite=Strict session cookie once, the cookie reads as
// the console, and logout (cookie, CSRF value, own Origin) ends the session. The customer token
// mints nothing. Nothing here sends a token to the login or logout routes.
import { createClient } from '../client/client.ts';
import { check, happy, negative, type SmokeCheck } from './check.ts';
import type { SmokeCtx, SmokeResponse } from './context.ts';

const MINT = 'POST /admin/console/login-codes';
const LOGIN = 'GET /console/login';
const LOGOUT = 'POST /console/logout';

async function mint(ctx: SmokeCtx): Promise<{ code: string; url: string }> {
  return ctx.expect(await ctx.call(MINT, { as: 'operator', scope: null }), 201);
}

/**
 * GET /console/login as a browser starts it: without a token, the 303 and its cookies seen rather
 * than followed (smoke's own client follows redirects).
 */
async function login(ctx: SmokeCtx, code: string): Promise<SmokeResponse> {
  const manual: typeof fetch = (input, init) => fetch(input, { ...init, redirect: 'manual' });
  const client = createClient({ baseUrl: ctx.target.baseUrl, token: null, fetch: manual });
  const res = await client.request('GET', '/console/login', { query: { code }, headers: { Accept: 'text/html' } });
  return { ...res, route: LOGIN, url: 'GET /console/login?code=…' };
}

/** Signs in with a fresh code; the session and CSRF cookies as a Cookie header, and the CSRF value. */
async function signIn(ctx: SmokeCtx): Promise<{ cookie: string; csrf: string; setCookies: string[] }> {
  const { code } = await mint(ctx);
  const res = await login(ctx, code);
  ctx.expect(res, 303);
  check(res.headers.get('location') === '/console', `the sign-in leads to ${res.headers.get('location')}, not /console`);
  const setCookies = res.headers.getSetCookie();
  const value = (name: string) => setCookies.find((c) => c.startsWith(`${name}=`))?.split(';')[0]!.slice(name.length + 1) ?? '';
  const session = value('gov_session');
  const csrf = value('gov_csrf');
  check(session !== '' && csrf !== '', `the sign-in set no gov_session and gov_csrf cookies: ${setCookies.join(' | ') || 'none'}`);
  return { cookie: `gov_session=${session}; gov_csrf=${csrf}`, csrf, setCookies };
}

/** Whether /health shows its detail to this Cookie header (it does to a console session). */
async function healthDetail(ctx: SmokeCtx, cookie: string): Promise<boolean> {
  const body = ctx.expect(await ctx.call('GET /health', { as: 'none', scope: null, headers: { Cookie: cookie } }), 200);
  return body !== null && typeof body === 'object' && 'detail' in body;
}

export function consoleAuthChecks(): SmokeCheck[] {
  const signedIn = { operator: true, needs: [MINT] };
  return [
    happy('console-auth: POST /admin/console/login-codes mints a one-time sign-in link on this origin', MINT, async (ctx) => {
      const { code, url } = await mint(ctx);
      check(url === `${new URL(ctx.target.baseUrl).origin}/console/login?code=${code}`, `the link is ${url}`);
      check(!url.includes(ctx.target.tokens.operator!) && !url.includes(ctx.target.tokens.customer), 'the link holds a token');
    }, { operator: true }),
    negative('console-auth: the customer token cannot mint a login code', MINT, async (ctx) => {
      ctx.expect(await ctx.call(MINT, { as: 'customer', scope: null }), 403, { code: 'operator_token_required' });
    }),
    happy('console-auth: GET /console/login exchanges a code for an HttpOnly, SameSite=Strict session that reads /health detail', LOGIN, async (ctx) => {
      const { cookie, setCookies } = await signIn(ctx);
      const session = setCookies.find((c) => c.startsWith('gov_session=')) ?? '';
      check(/; HttpOnly(;|$)/.test(session) && /; SameSite=Strict(;|$)/.test(session) && /; Path=\/(;|$)/.test(session), `the session cookie is ${session.replace(/=[^;]*/, '=…')}`);
      check(await healthDetail(ctx, cookie), '/health shows no detail to the console session');
    }, signedIn),
    negative('console-auth: a login code works once (the second use is 401)', LOGIN, async (ctx) => {
      const { code } = await mint(ctx);
      ctx.expect(await login(ctx, code), 303);
      const again = await login(ctx, code);
      check(again.status === 401 && again.headers.getSetCookie().length === 0, `the second use answered ${again.status}, setting ${again.headers.getSetCookie().length} cookies`);
    }, signedIn),
    happy('console-auth: POST /console/logout ends the session', LOGOUT, async (ctx) => {
      const { cookie, csrf } = await signIn(ctx);
      const origin = new URL(ctx.target.baseUrl).origin;
      ctx.expect(await ctx.call(LOGOUT, { as: 'none', scope: null, headers: { Cookie: cookie, Origin: origin, 'X-CSRF-Token': csrf } }), 204);
      check(!(await healthDetail(ctx, cookie)), '/health still shows its detail to the ended session');
    }, signedIn),
    negative('console-auth: logout without the CSRF value is 403', LOGOUT, async (ctx) => {
      const { cookie } = await signIn(ctx);
      const origin = new URL(ctx.target.baseUrl).origin;
      ctx.expect(await ctx.call(LOGOUT, { as: 'none', scope: null, headers: { Cookie: cookie, Origin: origin } }), 403, { code: 'csrf_token_invalid' });
    }, signedIn),
  ];
}
