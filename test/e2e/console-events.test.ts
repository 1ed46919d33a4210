// Live events in the console, in Debian's Chromium (issue 16): the page follows the scope's SSE
// stream (GET /v1/events/stream, signed in by the session cookie) and an event POSTed by the test
// appears without a reload, once; an event of another scope never does; paused and resumed, the
// events written meanwhile arrive. Screenshots under .tap/screenshots/e2e-console-events/.
import t, { type Test } from 'tap';
import { openConsole, openView, requireBrowser, screenshot } from '../fixtures/browser.ts';

const browser = await requireBrowser(t);

if (browser !== null) {
  const { preview, page, watch, shots } = await openConsole(t, browser, import.meta.url);
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

  await t.test('the run tokens appear in no page, script, stylesheet, cookie, URL, header or console message', async (t) => {
    await watch.snapshot(page, 'events, last');
    await watch.assertNoSecret(t, preview.tokens);
  });
}
