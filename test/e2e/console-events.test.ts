// Live events in the console, in Debian's Chromium (issue 16): the page follows the scope's SSE
// stream (GET /v1/events/stream, signed in by the session cookie) and an event POSTed by the test
// appears without a reload, once; an event of another scope never does; paused and resumed, the
// events written meanwhile arrive; the preview stopped, the view says what to do and keeps trying
// until the preview, started again, refuses the old session. Screenshots under
// .tap/screenshots/e2e-console-events/.
import t, { type Test } from 'tap';
import { consolePreview, openConsole, openView, requireBrowser, screenshot } from '../fixtures/browser.ts';

const browser = await requireBrowser(t);

if (browser !== null) {
  const { build, preview, page, watch, shots } = await openConsole(t, browser, import.meta.url);
  const table = page.getByRole('table', { name: 'Live events' });
  const rowOf = (seq: number) => table.locator('tbody tr').filter({ has: page.locator('td[data-label="Seq"]', { hasText: new RegExp(`^${seq}$`) }) });
  const state = page.getByTestId('connection-state');
  /** The page's polite live region (role=status), always present. */
  const live = page.getByRole('status').and(page.getByTestId('live-status'));
  const note = async (t: Test, text: string, scope = { tenant_id: 'acme', workspace_id: 'platform', project_id: 'billing' }) => {
    const res = await preview.api('/v1/events', {
      scope: scope,
      idempotencyKey: `note-${text}`,
      body: { kind: 'ext.acme.note', ...scope, payload: { text } },
    });
    t.equal(res.status, 201, `POST /v1/events (${text})`);
    return (res.json as { event: { seq: number } }).event.seq;
  };

  await t.test('an event POSTed by the test arrives live, once, without a reload', async (t) => {
    t.equal((await preview.api('/v1/tasks', { body: { task_id: 'task-live', title: 'Watch the stream in the console', session_id: 'sess-live' } })).status, 201, 'POST /v1/tasks');
    await openView(page, '#/events', 'Live events');
    await state.filter({ hasText: 'Connection: Live' }).waitFor();
    await table.locator('tbody tr', { hasText: 'task.created' }).waitFor();
    t.pass('the backlog (task.created) is shown once the stream is live');
    await page.evaluate(() => ((window as unknown as { marker: string }).marker = 'no reload'));

    const other = await note(t, 'written in another scope', { tenant_id: 'other', workspace_id: 'platform', project_id: 'billing' });
    const seq = await note(t, 'a note that arrives live');
    t.ok(seq > other, 'written after the other scope\'s event');
    await rowOf(seq).waitFor();
    t.match(await rowOf(seq).innerText(), /ext\.acme\.note/, `seq ${seq} is shown with its kind`);
    t.equal(await rowOf(seq).count(), 1, 'once');
    t.equal(await rowOf(other).count(), 0, 'the event of another scope never reaches this scope\'s stream');
    t.equal(await page.evaluate(() => (window as unknown as { marker?: string }).marker), 'no reload', 'the page was not reloaded');
    const streams = preview.received.filter((r) => r.path === '/v1/events/stream');
    t.ok(streams.length >= 1 && streams.every((r) => r.session && r.status === 200), 'the stream is read with the session cookie (200), never a token');
    await watch.snapshot(page, 'events');
    await screenshot(page, shots, 'live-events');
  });

  await t.test('paused, then resumed: the events written meanwhile arrive', async (t) => {
    await page.getByRole('button', { name: 'Pause' }).click();
    await state.filter({ hasText: 'Connection: Paused' }).waitFor();
    // The connection's state is said once in the page's polite live region, not by the badge itself.
    await live.filter({ hasText: 'Live events: Paused.' }).waitFor();
    t.equal(await live.getAttribute('aria-live'), 'polite', 'the pause is said in the polite live region (role=status)');
    t.equal(await state.getAttribute('role'), null, 'and the badge is not a second live region saying it again');
    const meanwhile = await note(t, 'written while the page was paused');
    t.equal(await rowOf(meanwhile).count(), 0, 'nothing new is shown while paused (the stream is closed)');
    await page.getByRole('button', { name: 'Resume' }).click();
    await rowOf(meanwhile).waitFor();
    await state.filter({ hasText: 'Connection: Live' }).waitFor();
    await live.filter({ hasText: 'Live events: Live.' }).waitFor();
    t.pass('resumed, the live region says the stream is live again');
    t.equal(await rowOf(meanwhile).count(), 1, 'resumed, the event written meanwhile arrives once');
    const after = await note(t, 'written after the resume');
    await rowOf(after).waitFor();
    t.pass(`and the next one (seq ${after}) arrives live`);
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, shots, 'live-events');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  await t.test('the preview stops: the view says to start it again and keeps trying; started again, it says the session is gone', async (t) => {
    await openView(page, '#/events', 'Live events');
    await state.filter({ hasText: 'Connection: Live' }).waitFor();
    const port = Number(new URL(preview.baseUrl).port);
    await preview.stop();
    const alert = page.getByRole('alert').filter({ hasText: 'The server did not answer' });
    await alert.waitFor();
    t.match(await alert.innerText(), /start it again \(npx gov preview start\), then run npx gov console to sign in again/, 'an alert says to start the preview again and sign in again with npx gov console');
    t.notMatch(await alert.innerText(), /--base-url|GOV_BASE_URL|run\.json/, 'and gives no command-line advice');
    t.equal(await page.getByRole('heading', { level: 1, name: 'Live events' }).count(), 1, 'the view keeps its heading');
    t.match(await state.innerText(), /Connection: Reconnecting/, 'and keeps trying');
    await live.filter({ hasText: 'Live events: Reconnecting.' }).waitFor();
    await screenshot(page, shots, 'live-events-not-answering');
    // Each try waits twice as long as the last (1, 2, 4 s …), but never more than 5 s.
    await page.getByText('Trying again in 5 s.').waitFor({ timeout: 15_000 });
    t.equal(await alert.count(), 1, 'still one alert after several tries');

    // The preview started again where it ran: its sessions are new, so it answers the old cookie 401.
    const next = await consolePreview(t, build.dir, undefined, { port });
    await page.getByRole('heading', { level: 1, name: 'Signed out' }).waitFor({ timeout: 7000 });
    t.match(await page.getByRole('alert').filter({ hasText: 'Signed out' }).innerText(), /npx gov console/, 'once a try is answered 401, the page says it is signed out and how to sign in again');
    const tries = next.received.filter((r) => r.path === '/v1/events/stream');
    t.match(tries, [{ session: true, status: 401 }], 'the stream was tried once against the new run, with the old cookie: 401');
    // Longer than the view's longest wait between tries (5 s): a retry would have come by now.
    await page.waitForTimeout(6000);
    t.equal(next.received.filter((r) => r.path === '/v1/events/stream').length, 1, 'and not again: a 401 ends the retrying');
    await screenshot(page, shots, 'live-events-signed-out');
  });

  await t.test('the run tokens appear in no page, script, stylesheet, cookie, URL, header or console message', async (t) => {
    await watch.snapshot(page, 'events, last');
    await watch.assertNoSecret(t, preview.tokens);
  });
}
