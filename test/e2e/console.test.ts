// The console's sign-in in Debian's Chromium (issue 16): `gov console` mints a one-time login URL
// that the browser exchanges for an HttpOnly session cookie; a used or expired code is 401 and sets
// no cookie; a cookie write from another origin is 403 and writes nothing; the session dies with the
// run (the next preview answers the old cookie 401 and the console says it is signed out); the
// run's tokens appear in no page, script, stylesheet, cookie, URL, header or console message. Sign out
// in the header ends the session; an API that does not answer leaves each view its heading and
// browser advice (start the preview, npx gov console), never the command line's.
// Screenshots of the overview (1280 and 390 px wide) and of every view reached from the navigation
// under .tap/screenshots/e2e-console/.
import t from 'tap';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { consolePreview, openConsole, openView, requireBrowser, screenshot, signIn } from '../fixtures/browser.ts';
import { runGov } from '../fixtures/spawn-preview.ts';

const browser = await requireBrowser(t);

if (browser !== null) {
  const { build, preview, context, page, watch, shots } = await openConsole(t, browser, import.meta.url, { signIn: false });
  const secrets: Record<string, string> = { ...preview.tokens };
  const loginPath = `${preview.baseUrl}/console/login?code=`;
  let usedUrl = '';

  /** GET a login URL (not as a browser: the refusal is a problem body, not the HTML page). */
  const exchange = async (url: string) => {
    const res = await fetch(url, { redirect: 'manual' });
    const text = await res.text();
    return { status: res.status, setCookie: res.headers.getSetCookie(), location: res.headers.get('location'), text };
  };

  await t.test('gov console prints a one-time login URL; the browser signs in with it', async (t) => {
    const out = await runGov(['console', '--json', '--no-open', '--data-dir', preview.dataDir]);
    t.equal(out.code, 0, `gov console exits 0 ${out.stderr}`);
    const printed = JSON.parse(out.stdout) as { url: string; expires_at: string };
    t.ok(printed.url.startsWith(loginPath), `the URL is this preview's login route: ${printed.url.replace(/code=.*/, 'code=…')}`);
    const ttl = Date.parse(printed.expires_at) - Date.now();
    t.ok(ttl > 0 && ttl <= 60_000, `the code is good for at most 60 s (${Math.round(ttl / 1000)} s left)`);
    for (const [name, token] of Object.entries(preview.tokens)) {
      t.notOk(out.stdout.includes(token) || out.stderr.includes(token), `gov console prints no ${name} token`);
    }
    usedUrl = printed.url;

    const before = preview.eventLines().length;
    await signIn(page, printed.url);
    t.equal(new URL(page.url()).pathname, '/console', 'the login lands on the console');
    t.notOk(page.url().includes('code='), 'and the code is not left in the address bar');
    const cookies = await context.cookies();
    const session = cookies.find((c) => c.name === 'gov_session');
    const csrf = cookies.find((c) => c.name === 'gov_csrf');
    t.match(session, { httpOnly: true, sameSite: 'Strict', domain: '127.0.0.1' }, 'gov_session is HttpOnly and SameSite=Strict on this host');
    t.match(csrf, { httpOnly: false, sameSite: 'Strict' }, 'gov_csrf is readable by the page (double submit)');
    t.notOk(session?.expires !== undefined && session.expires > 0, 'the session cookie is a session cookie: it dies with the browser and the run');
    const visible = await page.evaluate(() => document.cookie);
    t.notMatch(visible, /gov_session/, 'the page cannot read the session cookie');
    t.equal(preview.eventLines().length, before, 'signing in writes no event');

    // The overview reads the API with the cookie alone.
    await openView(page, '', 'Overview');
    await page.getByText(preview.dataDir).first().waitFor();
    await watch.snapshot(page, 'overview');
    await screenshot(page, shots, 'overview');
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, shots, 'overview');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  await t.test('a used login code answers 401 and sets no cookie', async (t) => {
    t.ok(usedUrl, 'the code gov console printed');
    const again = await exchange(usedUrl);
    t.equal(again.status, 401, 'the same code a second time');
    t.same(again.setCookie, [], 'no cookie is set');
    t.match(JSON.parse(again.text), { code: 'login_code_invalid' }, 'login_code_invalid');
    // In a browser with no session: the 401 page, and still no cookie.
    const other = await browser.newContext();
    t.teardown(() => other.close());
    const visit = await (await other.newPage()).goto(usedUrl);
    t.equal(visit?.status(), 401, 'the browser is refused too');
    t.same(await other.cookies(), [], 'and holds no cookie');
    const unknown = await exchange(`${loginPath}${'A'.repeat(43)}`);
    t.equal(unknown.status, 401, 'a code never minted');
    t.same(unknown.setCookie, [], 'sets no cookie');
  });

  await t.test('an expired login code answers 401; a fresh one still signs in', async (t) => {
    const stale = await preview.loginCode();
    // The server's clock, not the test, moves past the code's expiry.
    preview.advanceClock(60_001);
    const expired = await exchange(stale.url);
    t.equal(expired.status, 401, 'a code past its 60 s');
    t.same(expired.setCookie, [], 'sets no cookie');
    t.match(JSON.parse(expired.text), { code: 'login_code_invalid' }, 'login_code_invalid');
    const fresh = await exchange((await preview.loginCode()).url);
    t.equal(fresh.status, 303, 'a fresh code minted after the jump signs in');
    t.equal(fresh.location, '/console', 'and sends the browser to the console');
    t.ok(fresh.setCookie.some((c) => c.startsWith('gov_session=')) && fresh.setCookie.some((c) => c.startsWith('gov_csrf=')), 'and sets both cookies');
    t.ok(fresh.setCookie.find((c) => c.startsWith('gov_session='))?.match(/;\s*HttpOnly/i) && fresh.setCookie.find((c) => c.startsWith('gov_session='))?.match(/;\s*SameSite=Strict/i), 'gov_session: HttpOnly; SameSite=Strict');
  });

  await t.test('a cookie write from another origin answers 403 and writes nothing', async (t) => {
    const cookies = await context.cookies();
    const cookieHeader = cookies.map((c) => `${c.name}=${c.value}`).join('; ');
    const csrf = cookies.find((c) => c.name === 'gov_csrf')?.value ?? '';
    const task = (id: string) => JSON.stringify({ task_id: id, title: 'Written by a page of another origin', session_id: 'sess-cross' });
    const scope = { 'X-Tenant-Id': 'acme', 'X-Workspace-Id': 'platform', 'X-Project-Id': 'billing' };

    // A page of another loopback port (the same site, another origin) posts with the cookie.
    const evil: Server = createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><title>another origin</title><h1>another origin</h1>');
    });
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
    t.teardown(() => new Promise<void>((resolve) => evil.close(() => resolve())));
    const evilOrigin = `http://127.0.0.1:${(evil.address() as AddressInfo).port}`;
    const before = preview.eventLines().length;
    const evilPage = watch.watch(await context.newPage());
    t.teardown(() => evilPage.close());
    await evilPage.goto(evilOrigin);
    const answered = evilPage.waitForResponse((r) => r.url() === `${preview.baseUrl}/v1/tasks` && r.request().method() === 'POST');
    // A "simple" request (no preflight) that carries the cookie: the server must refuse it itself.
    await evilPage.evaluate(
      ([url, body]) => fetch(url!, { method: 'POST', mode: 'no-cors', credentials: 'include', body }).then(() => 'sent', (e: Error) => e.message),
      [`${preview.baseUrl}/v1/tasks`, task('task-cross-page')],
    );
    const response = await answered;
    t.equal(response.status(), 403, 'the cross-origin POST with the cookie is refused');
    // What the server received (the browser's raw headers are not all visible to playwright).
    const got = preview.received.filter((r) => r.method === 'POST' && r.path === '/v1/tasks');
    t.match(got, [{ origin: evilOrigin, secFetchSite: 'same-site', session: true, csrf: false, status: 403 }], 'the browser sent the session cookie with the foreign Origin (same site, another port); 403');
    t.ok(preview.accessLines.some((l) => /\bPOST \/v1\/tasks 403\b/.test(l)), 'the access log has the 403');

    // The same request sent directly, with the cookie and even the CSRF value, from a foreign Origin.
    const direct = await fetch(`${preview.baseUrl}/v1/tasks`, {
      method: 'POST',
      headers: { Cookie: cookieHeader, Origin: evilOrigin, 'X-CSRF-Token': csrf, 'Content-Type': 'application/json', ...scope },
      body: task('task-cross-direct'),
    });
    t.equal(direct.status, 403, 'a foreign Origin with the cookie and the CSRF value');
    t.match(await direct.json(), { code: 'origin_not_allowed' }, 'origin_not_allowed');
    const noCsrf = await fetch(`${preview.baseUrl}/v1/tasks`, {
      method: 'POST',
      headers: { Cookie: cookieHeader, Origin: preview.baseUrl, 'Content-Type': 'application/json', ...scope },
      body: task('task-no-csrf'),
    });
    t.equal(noCsrf.status, 403, 'the own Origin without the CSRF header');
    t.match(await noCsrf.json(), { code: 'csrf_token_invalid' }, 'csrf_token_invalid');
    t.equal(preview.eventLines().length, before, 'nothing was written to events.jsonl');
    for (const id of ['task-cross-page', 'task-cross-direct', 'task-no-csrf']) {
      t.equal((await preview.api(`/v1/tasks/${id}`)).status, 404, `${id} does not exist`);
    }

    // Control: the console's own page, with the cookie and its CSRF value, may write.
    const own = await page.evaluate(
      async ([body, token]) => {
        const res = await fetch('/v1/tasks', { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': token!, 'X-Tenant-Id': 'acme', 'X-Workspace-Id': 'platform', 'X-Project-Id': 'billing' }, body });
        return res.status;
      },
      [task('task-same-origin'), csrf],
    );
    t.equal(own, 201, 'the same write from the console page itself is accepted');
    t.equal(preview.eventLines().length, before + 1, 'and written');
  });

  await t.test('every view opens from the navigation, loading nothing from elsewhere (screenshots at 1280 px)', async (t) => {
    const nav = page.getByRole('navigation', { name: 'Views' });
    const firstUrl = watch.urls.length;
    const views: Array<[string, string]> = [['Overview', 'overview'], ['Tasks', 'tasks'], ['Proof Packets', 'packets'], ['Search', 'search'], ['Quota', 'quota'], ['Governance', 'governance'], ['Live events', 'events']];
    for (const [label, file] of views) {
      await nav.getByRole('link', { name: label, exact: true }).click();
      // A view's title starts with its label (Governance names its section: "Governance · Dashboard").
      await page.getByRole('heading', { level: 1, name: new RegExp(`^${label}( · .+)?$`) }).waitFor();
      t.equal(await nav.getByRole('link', { name: label, exact: true }).getAttribute('aria-current'), 'page', `${label}: open, and marked current in the navigation`);
      await page.getByText('Loading…', { exact: true }).waitFor({ state: 'detached' });
      await watch.snapshot(page, label);
      await screenshot(page, shots, `view-${file}`);
    }
    // No external fonts, scripts or CDNs: the console works offline.
    const elsewhere = watch.urls.slice(firstUrl).filter((u) => !u.startsWith(`${preview.baseUrl}/`) && !/^(about|blob|data):/.test(u));
    t.same(elsewhere, [], `every one of the ${watch.urls.length - firstUrl} URLs the views loaded is on the preview's origin`);
  });

  await t.test('when the API does not answer, each view keeps its heading and says what to do in a browser', async (t) => {
    // The preview as if stopped: every request past the page itself (already loaded) gets no answer.
    await page.route(
      (url) => url.origin === preview.baseUrl && !url.pathname.startsWith('/console'),
      (route) => route.abort('connectionrefused'),
    );
    t.teardown(() => page.unrouteAll());
    const views: Array<[string, string]> = [['#/', 'Overview'], ['#/tasks/task-same-origin', 'Task task-same-origin'], ['#/governance/dashboard', 'Governance'], ['#/quota', 'Quota']];
    for (const [hash, title] of views) {
      await page.evaluate((h) => (location.hash = h), hash);
      await page.getByRole('heading', { level: 1, name: title, exact: true }).waitFor();
      // A view may read more than one route (a task and its timeline): each failed read has its box.
      const alert = page.getByRole('alert').filter({ hasText: 'The server did not answer' }).first();
      await alert.waitFor();
      t.equal(await page.getByRole('heading', { level: 1, name: title, exact: true }).count(), 1, `${hash}: the view keeps its heading (${title})`);
      const said = await alert.innerText();
      t.match(said, /start it again \(npx gov preview start\), then run npx gov console to sign in again/, `${hash}: says to start the preview again and sign in again with npx gov console`);
      t.notMatch(said, /--base-url|GOV_BASE_URL|run\.json/, `${hash}: and gives no command-line advice`);
    }
    await screenshot(page, shots, 'api-not-answering');
    await page.unrouteAll();
    await openView(page, '', 'Overview');
  });

  await t.test('the colours follow the system setting: dark and light', async (t) => {
    await openView(page, '', 'Overview');
    const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    await page.emulateMedia({ colorScheme: 'light' });
    const light = await background();
    await page.emulateMedia({ colorScheme: 'dark' });
    const dark = await background();
    t.not(dark, light, `the page background changes with prefers-color-scheme (${light} → ${dark})`);
    await screenshot(page, shots, 'overview-dark');
    await page.emulateMedia({ colorScheme: 'light' });
  });

  await t.test('the session dies with the run: the next preview refuses the cookie and the console says so', async (t) => {
    // Cookies are per host, not per port: the browser sends this run's cookie to the next preview too.
    const next = await consolePreview(t, build.dir);
    secrets['next run customer'] = next.tokens.customer;
    secrets['next run operator'] = next.tokens.operator;
    await page.goto(`${next.baseUrl}/console#/tasks`);
    await page.getByRole('heading', { level: 1, name: 'Signed out' }).waitFor();
    t.match(await page.getByRole('alert').filter({ hasText: 'Signed out' }).innerText(), /npx gov console/, 'the console says how to sign in again');
    const refused = next.received.filter((r) => r.path.startsWith('/v1/'));
    t.ok(refused.length > 0 && refused.every((r) => r.session && r.status === 401), `the next run answers the old cookie 401 (${refused.map((r) => `${r.method} ${r.path} ${r.status}`).join(', ')})`);
    await watch.snapshot(page, 'signed out');
    await screenshot(page, shots, 'signed-out');
    await page.goto(`${preview.baseUrl}/console`);
    await openView(page, '', 'Overview');
  });

  await t.test('Sign out in the header ends the session, clears both cookies and shows the signed-out page', async (t) => {
    await openView(page, '', 'Overview');
    const header = page.getByRole('banner');
    const cookieHeader = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    const before = preview.eventLines().length;
    await header.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { level: 1, name: 'Signed out' }).waitFor();
    t.match(await page.getByRole('alert').filter({ hasText: 'Signed out' }).innerText(), /You signed out[^]*npx gov console/, 'the page says the session ended and how to sign in again');
    t.equal(await header.getByRole('button', { name: 'Sign out' }).count(), 0, 'and offers no Sign out any more');
    const logout = preview.received.filter((r) => r.method === 'POST' && r.path === '/console/logout');
    t.match(logout, [{ origin: preview.baseUrl, session: true, csrf: true, status: 204 }], 'POST /console/logout with the cookie, the CSRF header and the page\'s own Origin: 204');
    const names = (await context.cookies()).map((c) => c.name);
    t.notOk(names.includes('gov_session') || names.includes('gov_csrf'), `both cookies are cleared (left: ${names.join(', ') || 'none'})`);
    const stale = await fetch(`${preview.baseUrl}/v1/tasks`, { headers: { Cookie: cookieHeader, 'X-Tenant-Id': 'acme', 'X-Workspace-Id': 'platform', 'X-Project-Id': 'billing' } });
    t.equal(stale.status, 401, 'the old session cookie is refused from now on');
    t.equal(preview.eventLines().length, before, 'signing out writes no event');
    await screenshot(page, shots, 'signed-out-by-user');
    // Signed in again for what follows.
    await signIn(page, (await preview.loginCode()).url);
    await openView(page, '', 'Overview');
    t.equal(await page.getByRole('banner').getByRole('button', { name: 'Sign out' }).count(), 1, 'a fresh sign-in shows Sign out again');
  });

  await t.test('the run tokens appear in no page, script, stylesheet, cookie, URL, header or console message', async (t) => {
    await openView(page, '', 'Overview');
    await watch.snapshot(page, 'overview, last');
    await watch.assertNoSecret(t, secrets);
  });
}
