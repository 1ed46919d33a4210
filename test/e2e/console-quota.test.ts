// The Quota view in Debian's Chromium (issue 16): a quota group made through the forge admin API
// puts alice over quota; the console shows her standing with the deciding group and rule, the same
// decision the server's /user/quota/check answers, every subject's decision for her, and a dry run
// that changes a decision in the page without writing anything. The session cookie reads the admin
// routes but cannot write them. Screenshots under .tap/screenshots/e2e-console-quota/.
import t from 'tap';
import { openConsole, openView, requireBrowser, screenshot } from '../fixtures/browser.ts';

const browser = await requireBrowser(t);

if (browser !== null) {
  const { preview, page, watch, shots } = await openConsole(t, browser, import.meta.url);
  const operator = { token: 'operator' as const, scope: null };
  /** The server's own decision for a user and subject (GET /user/quota/check as that user). */
  const check = async (user: string, subject: string) => (await preview.api(`/user/quota/check?subject=${subject}`, { ...operator, headers: { Sudo: user } })).json as boolean;

  await t.test('a quota decision: alice over quota by the deciding group and rule, as the server decides', async (t) => {
    const group = await preview.api('/admin/quota/groups', { ...operator, body: { name: 'small', rules: [{ name: 'git-1mib', limit: 1_048_576, subjects: ['size:git:all'] }] } });
    t.equal(group.status, 201, 'POST /admin/quota/groups: a group with one rule, 1 MiB of git');
    t.equal((await preview.api('/admin/quota/groups/small/users/alice', { ...operator, method: 'PUT' })).status, 204, 'alice joins it');
    t.equal(await check('alice', 'size:git:all'), false, 'the server: alice (1.25 MiB of repositories) is not within size:git:all');
    t.equal(await check('bob', 'size:git:all'), true, 'the server: bob (no group: the built-in unlimited one) is within');

    await openView(page, '#/quota', 'Quota');
    const standing = page.getByRole('table', { name: 'Standing' });
    const alice = standing.locator('tr[data-owner="alice"]');
    await alice.waitFor();
    const aliceText = await alice.innerText();
    t.match(aliceText, /OVER/, 'alice is shown over quota');
    t.match(aliceText, /small \/ git-1mib/, 'decided by group small, rule git-1mib');
    t.match(aliceText, /MiB \/ 1\.0 MiB/, 'with her usage against the 1 MiB limit');
    t.match(await standing.locator('tr[data-owner="bob"]').innerText(), /within/, 'bob is within');
    const groups = page.getByRole('table', { name: 'Groups' });
    t.match(await groups.locator('tbody tr', { has: page.getByRole('rowheader', { name: 'small', exact: true }) }).innerText(), /git-1mib[^]*alice/, 'the group lists its rule and its member');
    await watch.snapshot(page, 'quota');
    await screenshot(page, shots, 'quota');

    await alice.getByRole('link', { name: 'alice' }).click();
    const decisions = page.locator('table.pv-decisions');
    const gitAll = decisions.locator('tr[data-subject="size:git:all"]');
    await gitAll.waitFor();
    const row = await gitAll.locator('td').allInnerTexts();
    t.match(row, [/OVER/, /OVER/, /small/, /git-1mib/], 'size:git:all for alice: recorded and dry run OVER, group small, rule git-1mib');
    t.match(await decisions.locator('tr[data-subject="size:repos:public"]').innerText(), /OVER[^]*git-1mib/, 'a child subject is decided by the same rule (its ancestor size:git:all)');
    t.match(await decisions.locator('tr[data-subject="size:assets:all"]').innerText(), /NOT WITHIN[^]*no rule covers this subject/, 'a subject no rule covers is not within, and says why');
    t.equal(await check('alice', 'size:assets:all'), false, 'as the server decides');
    await screenshot(page, shots, 'quota-alice');
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, shots, 'quota-alice');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  await t.test('the dry run changes the decision in the page and writes nothing', async (t) => {
    const before = preview.eventLines().length;
    await page.getByLabel('Public repositories', { exact: true }).fill('0');
    const gitAll = page.locator('table.pv-decisions tr[data-subject="size:git:all"]');
    await gitAll.locator('td', { hasText: 'changed' }).waitFor();
    const row = await gitAll.locator('td').allInnerTexts();
    t.match(row, [/OVER/, /within/], 'without her public repository (1 MiB), alice would be within size:git:all');
    t.equal(preview.eventLines().length, before, 'nothing was written');
    t.equal(await check('alice', 'size:git:all'), false, 'and the server still decides on the recorded usage');
    await screenshot(page, shots, 'quota-dry-run');
  });

  await t.test('Reset to recorded usage undoes any change, text that is not a byte count included', async (t) => {
    const reset = page.getByRole('button', { name: 'Reset to recorded usage' });
    const packages = page.getByLabel('Packages', { exact: true });
    await reset.click();
    t.ok(await reset.isDisabled(), 'at the recorded usage there is nothing to reset');
    const recorded = await packages.inputValue();
    for (const bad of ['garbage', '-5']) {
      await packages.fill(bad);
      await page.getByRole('alert').filter({ hasText: 'Every counter needs a byte count of 0 or more' }).waitFor();
      t.ok(await reset.isEnabled(), `with "${bad}" in Packages, Reset is enabled`);
      await reset.click();
      t.equal(await packages.inputValue(), recorded, 'and puts the recorded usage back');
      t.ok(await reset.isDisabled(), 'after which it is disabled again');
    }
  });

  await t.test('an owner the forge does not have is named as unknown, not replaced by the picker alone', async (t) => {
    await openView(page, '#/quota/nobody', 'Quota');
    const explain = page.locator('section[aria-labelledby="explain-title"]');
    const alert = explain.getByRole('alert').filter({ hasText: 'No such owner' });
    await alert.waitFor();
    t.match(await alert.innerText(), /no user or organisation “nobody”/, 'the page says the owner nobody does not exist');
    t.equal(await page.getByRole('heading', { name: /Dry run for/ }).count(), 0, 'and shows no dry run for anyone else');
    await screenshot(page, shots, 'quota-unknown-owner');
    await openView(page, '#/quota/alice', 'Quota');
    await page.getByRole('heading', { name: 'Dry run for alice (nothing is written)' }).waitFor();
    t.equal(await explain.getByRole('alert').filter({ hasText: 'No such owner' }).count(), 0, 'a known owner shows no such message');
  });

  await t.test('the session cookie reads the admin quota routes but cannot write them', async (t) => {
    const before = preview.eventLines().length;
    const status = await page.evaluate(async () => {
      const csrf = /(?:^|;\s*)gov_csrf=([^;]*)/.exec(document.cookie)?.[1] ?? '';
      const res = await fetch('/admin/quota/rules', { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': decodeURIComponent(csrf) }, body: JSON.stringify({ name: 'from-the-page', limit: 1, subjects: ['size:all'] }) });
      return res.status;
    });
    t.equal(status, 403, 'a POST to an admin route from the console page, with the cookie and the CSRF value: the customer token\'s 403');
    t.equal(preview.eventLines().length, before, 'nothing was written');
    t.equal((await preview.api('/admin/quota/rules/from-the-page', operator)).status, 404, 'the rule does not exist');
  });

  await t.test('the run tokens appear in no page, script, stylesheet, cookie, URL, header or console message', async (t) => {
    await watch.assertNoSecret(t, preview.tokens);
  });
}
