// Signing in to the console (docs/console.md "Signing in"), over real HTTP: the operator token mints
// a one-time login code (60 s); the code gives an HttpOnly, SameSite=Strict session cookie and a
// readable CSRF cookie once; the cookie is the customer transport on /v1 — reads as they are, writes
// only from the server's own Origin with the CSRF value (each refusal writes nothing); a bearer
// token always decides; the forge admin routes read (GET only), any other forge request is the
// customer token's 403, and /health shows its detail; logout ends the session. No token appears in
// any answer of the flow. The code and session store is also tested on its own (single use, expiry,
// caps).
import t, { type Test } from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { withQuota } from '../../src/config.ts';
import { startPreview } from '../../src/deps.ts';
import { createConsoleSessions, LOGIN_CODE_TTL_MS, MAX_LOGIN_CODES, MAX_SESSIONS } from '../../src/server/console-sessions.ts';
import { testSchemas } from '../fixtures/templates.ts';
import { assertSchema, counterIds, SCOPE_A, tempDir, TOKENS } from '../fixtures/test-app.ts';

const START = Date.parse('2026-11-01T10:00:00.000Z');
const SCOPE = { 'X-Tenant-Id': SCOPE_A.tenant_id, 'X-Workspace-Id': SCOPE_A.workspace_id, 'X-Project-Id': SCOPE_A.project_id };

type Answer = { status: number; headers: Headers; text: string; json: any };

/** A served preview whose clock the test moves, and every answer it gave (for the token check). */
async function served(t: Test) {
  let now = START;
  const preview = await startPreview({ ...withQuota(), dataDir: tempDir(t), host: '127.0.0.1', port: 0, forgeData: 'default' }, {
    tokens: TOKENS, clock: () => new Date(now), newId: counterIds(), warn: () => {}, logError: () => {}, registry: testSchemas(),
  });
  t.teardown(() => preview.stop());
  const answers: Answer[] = [];
  const send = async (path: string, init: { method?: string; token?: string; headers?: Record<string, string>; body?: unknown } = {}): Promise<Answer> => {
    const headers: Record<string, string> = { ...init.headers };
    if (init.token !== undefined) headers.Authorization = `Bearer ${init.token}`;
    if (init.body !== undefined) headers['Content-Type'] = 'application/json';
    const res = await fetch(`${preview.baseUrl}${path}`, { method: init.method ?? 'GET', headers, redirect: 'manual', ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }) });
    const text = await res.text();
    let json: unknown = null;
    try {
      json = JSON.parse(text);
    } catch {
      json = null;
    }
    const answer = { status: res.status, headers: res.headers, text, json };
    answers.push(answer);
    return answer;
  };
  const mint = async () => {
    const res = await send('/admin/console/login-codes', { method: 'POST', token: TOKENS.operator });
    t.equal(res.status, 201, 'the operator token mints a login code');
    return res.json as { code: string; url: string; expires_at: string };
  };
  /** Signs in with a fresh code: the Cookie header to send and the CSRF value. */
  const signIn = async () => {
    const { code } = await mint();
    const res = await send(`/console/login?code=${code}`);
    t.equal(res.status, 303);
    const value = (name: string) => res.headers.getSetCookie().find((c) => c.startsWith(`${name}=`))!.split(';')[0]!.slice(name.length + 1);
    return { cookie: `gov_session=${value('gov_session')}; gov_csrf=${value('gov_csrf')}`, csrf: value('gov_csrf') };
  };
  return {
    preview, send, mint, signIn, answers,
    origin: preview.baseUrl,
    advance: (ms: number) => void (now += ms),
    events: () => preview.deps.store.tail().seq,
  };
}

/** No answer of the flow holds either token, in a header or the body. */
function noToken(t: Test, answers: Answer[]): void {
  for (const answer of answers) {
    const headers = [...answer.headers].map(([k, v]) => `${k}: ${v}`).join('\n');
    for (const [name, token] of Object.entries(TOKENS)) {
      if (headers.includes(token) || answer.text.includes(token)) t.fail(`the ${name} token appears in an answer (${answer.status})`);
    }
  }
  t.ok(answers.length > 8, `${answers.length} answers hold no token`);
}

const task = (id: string) => ({ task_id: id, title: 'Rotate the exporter signing key', session_id: 'sess-1' });

t.test('a login code: minted by the operator token only, good once, within 60 s', async (t) => {
  const s = await served(t);
  const minted = await s.mint();
  assertSchema(t, 'api/console-login-code.json', minted);
  t.equal(minted.url, `${s.origin}/console/login?code=${minted.code}`, 'a link to this origin holding the code');
  t.equal(minted.expires_at, new Date(START + LOGIN_CODE_TTL_MS).toISOString(), 'expires 60 s after it was made');

  const refused = await s.send('/admin/console/login-codes', { method: 'POST', token: TOKENS.customer });
  t.match([refused.status, refused.json], [403, { code: 'operator_token_required' }], 'the customer token cannot mint');
  t.match([(await s.send('/admin/console/login-codes', { method: 'POST' })).status], [401], 'no token: 401');

  const first = await s.send(`/console/login?code=${minted.code}`);
  t.equal(first.status, 303, 'the code signs in');
  t.equal(first.headers.get('location'), '/console', 'and leads to the console');
  t.equal(first.headers.get('cache-control'), 'no-store');
  t.equal(first.headers.get('referrer-policy'), 'no-referrer');
  const cookies = first.headers.getSetCookie();
  t.equal(cookies.length, 2, 'two cookies');
  const attrs = (name: string) => {
    const [pair, ...rest] = cookies.find((c) => c.startsWith(`${name}=`))!.split(';').map((p) => p.trim());
    return { value: pair!.slice(name.length + 1), attrs: rest.sort() };
  };
  const session = attrs('gov_session');
  const csrf = attrs('gov_csrf');
  t.same(session.attrs, ['HttpOnly', 'Path=/', 'SameSite=Strict'], 'gov_session: HttpOnly; SameSite=Strict; Path=/ (a session cookie: no Max-Age, no Expires)');
  t.same(csrf.attrs, ['Path=/', 'SameSite=Strict'], 'gov_csrf: readable by the page, SameSite=Strict; Path=/');
  t.match(session.value, /^[A-Za-z0-9_-]{43}$/, 'the session id is 32 random bytes');
  t.match(csrf.value, /^[A-Za-z0-9_-]{43}$/);
  t.not(session.value, csrf.value);

  const again = await s.send(`/console/login?code=${minted.code}`);
  t.match([again.status, again.json], [401, { code: 'login_code_invalid', status: 401 }], 'the second use is 401');
  t.match(again.json.detail, /npx gov console/, 'which says how to get a fresh link');
  t.same(again.headers.getSetCookie(), [], 'and sets no cookie');
  const page = await s.send(`/console/login?code=${minted.code}`, { headers: { Accept: 'text/html,application/xhtml+xml' } });
  t.equal(page.status, 401, 'a browser is refused too');
  t.match(page.headers.get('content-type'), /^text\/html/, 'with a small page');
  t.match(page.text, /npx gov console/, 'that says to run npx gov console again');

  const expiring = await s.mint();
  s.advance(LOGIN_CODE_TTL_MS - 1000);
  t.equal((await s.send(`/console/login?code=${expiring.code}`)).status, 303, 'a code 59 s old still works');
  const stale = await s.mint();
  s.advance(LOGIN_CODE_TTL_MS);
  const expired = await s.send(`/console/login?code=${stale.code}`);
  t.match([expired.status, expired.json], [401, { code: 'login_code_invalid' }], 'a code 60 s old is 401');
  t.same(expired.headers.getSetCookie(), []);

  for (const query of [`?code=${'A'.repeat(43)}`, '?code=not-a-code', '?code=', '']) {
    const res = await s.send(`/console/login${query}`);
    t.match([res.status, res.json], [401, { code: 'login_code_invalid' }], `an unknown or malformed code (${query || 'none'}) is 401`);
  }
  noToken(t, s.answers);
});

t.test('every answer of the sign-in is no-store and no-referrer, a refusal of either shape too', async (t) => {
  const s = await served(t);
  const good = await s.mint();
  const answers: [string, Answer][] = [
    ['the 303 of a good code', await s.send(`/console/login?code=${good.code}`)],
    ['the problem for a used code', await s.send(`/console/login?code=${good.code}`)],
    ['the problem for a malformed code', await s.send('/console/login?code=nonsense')],
    ['the problem for no code', await s.send('/console/login')],
    ['the page for a browser', await s.send('/console/login?code=nonsense', { headers: { Accept: 'text/html' } })],
  ];
  for (const [what, res] of answers) {
    t.equal(res.headers.get('cache-control'), 'no-store', `${what} (${res.status}): Cache-Control: no-store`);
    t.equal(res.headers.get('referrer-policy'), 'no-referrer', `${what} (${res.status}): Referrer-Policy: no-referrer`);
  }
  const problem = answers[2]![1];
  t.match([problem.status, problem.headers.get('content-type'), problem.json], [401, 'application/problem+json', { code: 'login_code_invalid' }], 'the problem is still the problem');
  t.ok(problem.headers.get('x-request-id'), 'with its request id');
});

t.test('the cookie session: reads /v1, writes only from its own Origin with the CSRF value', async (t) => {
  const s = await served(t);
  const { cookie, csrf } = await s.signIn();
  const port = new URL(s.origin).port;
  const templates = await s.send('/v1/templates', { headers: { Cookie: cookie } });
  t.equal(templates.status, 200, 'a /v1 read with the cookie alone');

  const write = (id: string, headers: Record<string, string>) => s.send('/v1/tasks', { method: 'POST', headers: { Cookie: cookie, ...SCOPE, ...headers }, body: task(id) });
  const before = s.events();
  const refusals: [string, Record<string, string>, string][] = [
    ['no X-CSRF-Token', { Origin: s.origin }, 'csrf_token_invalid'],
    ['a wrong X-CSRF-Token', { Origin: s.origin, 'X-CSRF-Token': `${csrf.slice(0, -1)}${csrf.endsWith('A') ? 'B' : 'A'}` }, 'csrf_token_invalid'],
    ['no Origin', { 'X-CSRF-Token': csrf }, 'origin_not_allowed'],
    ['a foreign Origin', { Origin: 'http://evil.example', 'X-CSRF-Token': csrf }, 'origin_not_allowed'],
    ['a loopback Origin on another port', { Origin: `http://127.0.0.1:${Number(port) === 1 ? 2 : Number(port) - 1}`, 'X-CSRF-Token': csrf }, 'origin_not_allowed'],
    ['another port of localhost', { Origin: `http://localhost:${Number(port) + 1}`, 'X-CSRF-Token': csrf }, 'origin_not_allowed'],
    ['Sec-Fetch-Site: same-site', { Origin: s.origin, 'X-CSRF-Token': csrf, 'Sec-Fetch-Site': 'same-site' }, 'origin_not_allowed'],
  ];
  for (const [what, headers, code] of refusals) {
    const res = await write(`task-${code}`, headers);
    t.match([res.status, res.json], [403, { code }], `${what}: 403 ${code}`);
    t.equal(s.events(), before, `${what}: nothing written`);
  }
  const csrfOnly = await s.send('/v1/tasks', { method: 'POST', headers: { ...SCOPE, Origin: s.origin, 'X-CSRF-Token': csrf }, body: task('task-no-cookie') });
  t.equal(csrfOnly.status, 401, 'the CSRF value without the session cookie is nothing');
  t.equal(s.events(), before);

  const created = await write('task-1', { Origin: s.origin, 'X-CSRF-Token': csrf, 'Sec-Fetch-Site': 'same-origin' });
  t.equal(created.status, 201, 'own Origin and the CSRF value: the write lands');
  t.equal(s.events(), before + 1, 'one event');
  const last = readFileSync(join(s.preview.dataDir, 'events.jsonl'), 'utf8').trim().split('\n').at(-1)!;
  t.match(JSON.parse(last), { kind: 'task.created', actor: { type: 'service_account', id: 'preview-customer' } }, 'as the customer transport');
  const byName = await write('task-2', { Origin: `http://localhost:${port}`, 'X-CSRF-Token': csrf });
  t.equal(byName.status, 201, 'http://localhost:<port> is the server\'s own origin too');
  t.equal((await s.send('/v1/tasks/task-1', { headers: { Cookie: cookie, ...SCOPE } })).status, 200, 'and reads it back');

  // A bearer token, sent, always decides.
  const wrongBearer = await s.send('/v1/templates', { token: 'not-a-token', headers: { Cookie: cookie } });
  t.equal(wrongBearer.status, 401, 'a wrong bearer token with a good cookie is 401');
  const operatorWrite = await s.send('/v1/tasks', { method: 'POST', token: TOKENS.operator, headers: { Cookie: cookie, ...SCOPE }, body: task('task-3') });
  t.match([operatorWrite.status, operatorWrite.json], [403, { code: 'operator_transport_rejected' }], 'the operator token with a cookie is still the operator');
  const customer = await s.send('/v1/tasks', { method: 'POST', token: TOKENS.customer, headers: { Cookie: 'gov_session=stale', ...SCOPE }, body: task('task-4') });
  t.equal(customer.status, 201, 'the customer token needs no CSRF value (integrators unchanged)');
  const stale = await s.send('/v1/templates', { headers: { Cookie: 'gov_session=not-a-session' } });
  t.match([stale.status, stale.json], [401, { code: 'unauthorized' }], 'an unknown session cookie is 401');

  // A cookie session cannot mint another code (to copy itself elsewhere).
  const mint = await s.send('/admin/console/login-codes', { method: 'POST', headers: { Cookie: cookie, Origin: s.origin, 'X-CSRF-Token': csrf } });
  t.match([mint.status, mint.json], [403, { code: 'operator_token_required' }], 'a cookie session cannot mint a code');
});

t.test('the cookie session reads the forge admin routes and /health detail; anything else is the customer token\'s 403', async (t) => {
  const s = await served(t);
  const { cookie, csrf } = await s.signIn();
  t.equal((await s.send('/admin/quota/groups', { headers: { Cookie: cookie } })).status, 200, 'GET an admin route');
  t.equal((await s.send('/api/v1/admin/quota/rules', { headers: { Cookie: cookie } })).status, 200, 'under /api/v1 too');
  const before = s.events();
  // Anything else is the customer transport's: the forge's 403 and body, as for the customer token.
  const own = { Origin: s.origin, 'X-CSRF-Token': csrf };
  const forged: [string, string, string, Record<string, string>, unknown][] = [
    ['POST a rule', 'POST', '/admin/quota/rules', own, { name: 'r1', limit: 1, subjects: ['size:all'] }],
    ['POST a group', 'POST', '/admin/quota/groups', own, { name: 'g1', rules: [] }],
    ['PUT a user into a group', 'PUT', '/api/v1/admin/quota/groups/g1/users/alice', own, undefined],
    ['a user route with Sudo', 'GET', '/user/quota', { Sudo: 'alice' }, undefined],
    ['a user route without Sudo', 'GET', '/user/quota', {}, undefined],
  ];
  for (const [what, method, path, headers, body] of forged) {
    const byCookie = await s.send(path, { method, headers: { Cookie: cookie, ...headers }, body });
    const byCustomer = await s.send(path, { method, token: TOKENS.customer, headers, body });
    t.equal(byCookie.status, 403, `${what} with the cookie: 403`);
    t.same([byCookie.status, byCookie.json], [byCustomer.status, byCustomer.json], `${what}: the customer token's answer`);
    t.equal(byCookie.headers.get('www-authenticate'), null, `${what}: not a 401's challenge`);
  }
  const noCsrf = await s.send('/admin/quota/groups', { method: 'POST', headers: { Cookie: cookie, Origin: s.origin }, body: { name: 'g1', rules: [] } });
  t.match([noCsrf.status, noCsrf.json.message], [403, /X-CSRF-Token/], 'a forge write with the cookie is checked for its CSRF value first');
  t.equal(s.events(), before, 'nothing written');
  t.ok((await s.send('/health', { headers: { Cookie: cookie } })).json.detail, '/health shows the detail to the session');
  t.notOk((await s.send('/health')).json.detail, 'and not without it');
});

t.test('logout ends the session and clears both cookies; no token in any answer of the flow', async (t) => {
  const s = await served(t);
  const { cookie, csrf } = await s.signIn();
  const noCsrf = await s.send('/console/logout', { method: 'POST', headers: { Cookie: cookie, Origin: s.origin } });
  t.match([noCsrf.status, noCsrf.json], [403, { code: 'csrf_token_invalid' }], 'logout needs the CSRF value');
  const foreign = await s.send('/console/logout', { method: 'POST', headers: { Cookie: cookie, Origin: 'http://127.0.0.1:1', 'X-CSRF-Token': csrf } });
  t.match([foreign.status, foreign.json], [403, { code: 'origin_not_allowed' }], 'and the own Origin');
  t.equal((await s.send('/v1/templates', { headers: { Cookie: cookie } })).status, 200, 'the session is still live');

  const out = await s.send('/console/logout', { method: 'POST', headers: { Cookie: cookie, Origin: s.origin, 'X-CSRF-Token': csrf } });
  t.equal(out.status, 204);
  const cleared = out.headers.getSetCookie();
  t.equal(cleared.length, 2);
  for (const name of ['gov_session', 'gov_csrf']) t.ok(cleared.some((c) => c.startsWith(`${name}=;`) && /Max-Age=0/.test(c)), `${name} is cleared`);
  t.equal((await s.send('/v1/templates', { headers: { Cookie: cookie } })).status, 401, 'the ended session reads nothing');
  t.notOk((await s.send('/health', { headers: { Cookie: cookie } })).json.detail, 'and sees no /health detail');
  t.equal((await s.send('/console/logout', { method: 'POST', headers: { Cookie: cookie, Origin: s.origin, 'X-CSRF-Token': csrf } })).status, 401, 'a second logout is 401');

  noToken(t, s.answers);
});

t.test('the store: single use, expiry by its clock, capped maps', async (t) => {
  let now = START;
  const sessions = createConsoleSessions(() => new Date(now));
  const a = sessions.mintCode();
  t.equal(a.expiresAt.getTime(), START + LOGIN_CODE_TTL_MS);
  const s1 = sessions.redeem(a.code);
  t.ok(s1, 'redeemed');
  t.equal(sessions.redeem(a.code), null, 'once');
  t.equal(sessions.session(s1!.id), s1, 'the session is live');
  t.ok(sessions.csrfMatches(s1!, s1!.csrf));
  t.notOk(sessions.csrfMatches(s1!, undefined));
  t.notOk(sessions.csrfMatches(s1!, s1!.id), 'the session id is not the CSRF value');
  t.equal(sessions.session(''), null, 'an empty gov_session names no session');
  t.equal(sessions.session(undefined), null, 'no gov_session, no session');
  t.equal(sessions.session(s1!.csrf), null, 'the CSRF value is not a session id');
  const b = sessions.mintCode();
  now += LOGIN_CODE_TTL_MS;
  t.equal(sessions.redeem(b.code), null, 'expired at 60 s');

  const codes = Array.from({ length: MAX_LOGIN_CODES + 1 }, () => sessions.mintCode());
  t.equal(sessions.redeem(codes[0]!.code), null, `the oldest of ${MAX_LOGIN_CODES + 1} codes is dropped`);
  t.ok(sessions.redeem(codes[1]!.code), 'the others stay');
  const made = [];
  for (let i = 0; i < MAX_SESSIONS; i++) made.push(sessions.redeem(sessions.mintCode().code)!);
  t.equal(sessions.session(s1!.id), null, `past ${MAX_SESSIONS} sessions the oldest is dropped`);
  t.ok(sessions.session(made.at(-1)!.id));
  t.ok(sessions.end(made[5]!.id));
  t.notOk(sessions.end(made[5]!.id), 'ended once');
  t.equal(sessions.session(made[5]!.id), null);
});
