// UNVERIFIED, not run by tap (the name does not end in .test.ts): the skip-link check fails today —
// the console's "Skip to content" (href="#main") is taken by the hash router for a route and shows
// "Not found". Rename to console-keyboard.test.ts once the skip link moves focus without routing.
// Keyboard use of the console in Debian's Chromium (issue 16 item 4): from the top of a view, Tab
// reaches "Skip to content" first and Enter lands on the view's content, the view staying what it
// was; Tab reaches the navigation and Enter opens a view. Screenshots under
// .tap/screenshots/e2e-console-keyboard/.
import t from 'tap';
import { openConsole, requireBrowser, screenshot } from '../fixtures/browser.ts';

const browser = await requireBrowser(t);

if (browser !== null) {
  const { preview, page, watch, shots } = await openConsole(t, browser, import.meta.url);

  await t.test('Tab from the top reaches "Skip to content"; Enter lands on the content of the same view', async (t) => {
    await page.goto(`${preview.baseUrl}/console#/search`);
    await page.getByRole('heading', { level: 1, name: 'Search' }).waitFor();
    await page.keyboard.press('Tab');
    t.equal(await page.evaluate(() => document.activeElement?.textContent?.trim()), 'Skip to content', 'the first Tab stop is the skip link');
    await page.keyboard.press('Enter');
    // Two frames: a hash change, if any, is rendered by then.
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    const after = await page.evaluate(() => ({ hash: location.hash, inMain: document.activeElement?.closest('main') !== null, title: document.querySelector('h1')?.textContent }));
    t.equal(after.title, 'Search', 'the view stays the same (the skip link is not taken for a route)');
    t.equal(after.hash, '#/search', 'and so does its address');
    t.ok(after.inMain, 'the focus is in the main content');
    await screenshot(page, shots, 'after-skip');
  });

  await t.test('Tab reaches the navigation and Enter opens a view', async (t) => {
    // (Access keys are not exercised: synthetic key events do not reach Chromium's accesskey handling.)
    await page.goto(`${preview.baseUrl}/console`);
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    let stops = 0;
    while (stops < 12 && (await page.evaluate(() => document.activeElement?.textContent?.trim())) !== 'Tasks') {
      await page.keyboard.press('Tab');
      stops++;
    }
    t.equal(await page.evaluate(() => document.activeElement?.textContent?.trim()), 'Tasks', `the Tasks link is reached in ${stops} Tab stops`);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Tasks' }).waitFor();
    t.pass('Enter opens the Tasks view');
  });

  await t.test('the run tokens appear in no page, script, stylesheet, cookie, URL, header or console message', async (t) => {
    await watch.assertNoSecret(t, preview.tokens);
  });
}
