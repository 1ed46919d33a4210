// The Governance view in Debian's Chromium (issue 16): the README's walk-through through the API (an
// owner, an asset registered, a high-risk evaluation that requests an approval) and the console
// showing the asset with its tier, the approval in the queue, and the dashboard. Screenshots under
// .tap/screenshots/e2e-console-governance/.
import t from 'tap';
import { openConsole, openView, requireBrowser, screenshot } from '../fixtures/browser.ts';
import { BEST_VENDOR_ANSWERS, evidenceRef } from '../fixtures/governance.ts';

const browser = await requireBrowser(t);

if (browser !== null) {
  const { preview, page, watch, shots } = await openConsole(t, browser, import.meta.url);

  await t.test('an asset evaluated high risk shows with its tier and its approval in the queue', async (t) => {
    const owner = await preview.api('/v1/team/owner', { body: { actor: { type: 'user', id: 'olivia' } } });
    t.equal(owner.status, 201, 'the tenant owner');
    const asset = await preview.api('/v1/governance/assets', {
      body: { asset_id: 'cv-screener', name: 'CV screener', purpose: 'Rank job applications for recruiters', owner: { type: 'user', id: 'olivia' }, deployment_context: 'HR, internal', models: [{ provider: 'acme', name: 'rank-1' }] },
    });
    t.equal(asset.status, 201, 'an asset registered');
    const evaluation = await preview.api('/v1/risk/evaluations', {
      body: { asset_id: 'cv-screener', risk_inputs: { data_sensitivity: 3, decision_impact: 3, autonomy: 2, vendor_maturity: 2, prohibited_practice: 0 }, actor: { type: 'user', id: 'raj' } },
    });
    t.equal(evaluation.status, 201, 'a risk evaluation');
    const { tier, approval_id: approvalId } = (evaluation.json as { evaluation: { tier: string; approval_id: string } }).evaluation;
    t.equal(tier, 'high', 'high risk: an approval is requested');

    await openView(page, '#/governance/assets', 'Governance · Assets');
    const row = page.getByRole('table', { name: 'Assets' }).locator('tr[data-asset="cv-screener"]');
    await row.waitFor();
    const cells = await row.locator('td').allInnerTexts();
    t.match(cells, ['CV screener', 'high', /\w/, 'no', new RegExp(approvalId)], 'the asset: its name, tier high, not allowed in use, its approval');
    await watch.snapshot(page, 'assets');
    await screenshot(page, shots, 'governance-assets');

    await openView(page, '#/governance/approvals', 'Governance · Approvals');
    const approval = page.locator(`tr[data-approval="${approvalId}"]`);
    await approval.waitFor();
    t.match(await approval.locator('td').allInnerTexts(), ['cv-screener', 'high', /pending|requested|open/, /^1 of 2$/], 'the approval in the queue: the asset, high, waiting at step 1 of 2');
    await screenshot(page, shots, 'governance-approvals');

    await openView(page, '#/governance/dashboard', 'Governance · Dashboard');
    await page.getByRole('group', { name: 'Dashboard counts' }).waitFor();
    await watch.snapshot(page, 'dashboard');
    await screenshot(page, shots, 'governance-dashboard');
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, shots, 'governance-dashboard');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  await t.test('the dashboard shows evidence by effective trust and by basis, and vendors by maturity, as the API counts them', async (t) => {
    t.equal((await preview.api('/v1/vendors', { body: { vendor_id: 'acme-ai', name: 'Acme AI', answers: BEST_VENDOR_ANSWERS } })).status, 201, 'a vendor assessed');
    t.equal((await preview.api('/v1/tasks', { body: { task_id: 'task-evidence', title: 'Attach the audit evidence', session_id: 'sess-ev' } })).status, 201, 'a task');
    const refs = [evidenceRef('audit-report'), evidenceRef('ci-run-78', { content_trust: 'untrusted_external', confidence: 'claimed' }), evidenceRef('notes', { content_trust: 'customer_asserted', confidence: 'claimed' })];
    t.equal((await preview.api('/v1/tasks/task-evidence/checkpoints', { body: { progress: 'Attached the audit and the CI run', evidence_refs: refs } })).status, 201, 'three evidence artifacts cited');
    const api = (await preview.api('/v1/governance/dashboard')).json as {
      evidence: { artifacts: number; by_content_trust: Record<string, number>; by_basis: Record<string, number> };
      vendors: { assessed: number; open_critical: number; by_maturity: Record<string, number> };
    };
    t.equal(api.evidence.artifacts, 3, 'the API counts three artifacts');
    t.equal(api.vendors.assessed, 1, 'and one vendor');

    // The previous test left the dashboard open: leave it, so that it reads the API again.
    await openView(page, '#/governance/assets', 'Governance · Assets');
    await openView(page, '#/governance/dashboard', 'Governance · Dashboard');
    const table = (name: string) => page.getByRole('table', { name });
    /** A breakdown table as the page shows it: its key → count. */
    const shown = async (name: string) => {
      const out: Record<string, number> = {};
      for (const row of await table(name).locator('tbody tr').all()) out[(await row.getAttribute('data-key')) ?? '?'] = Number(await row.locator('td').innerText());
      return out;
    };
    await table('Evidence by effective trust').waitFor();
    t.same(await shown('Evidence by effective trust'), api.evidence.by_content_trust, `evidence by effective trust as the API answers it (${JSON.stringify(api.evidence.by_content_trust)})`);
    t.same(await shown('Evidence by basis of its trust'), api.evidence.by_basis, 'evidence by basis as the API answers it');
    const maturity = await shown('Vendors by maturity');
    t.same(Object.fromEntries(Object.entries(maturity).filter(([, n]) => n > 0)), api.vendors.by_maturity, `vendors by maturity as the API answers it (${JSON.stringify(api.vendors.by_maturity)})`);
    t.same(Object.keys(maturity).slice(0, 5), ['0', '1', '2', '3', '4'], 'every maturity level 0–4 has its row');
    const vendors = page.getByRole('group', { name: 'Dashboard counts' }).locator('.card', { hasText: 'Vendors' });
    t.match(await vendors.innerText(), new RegExp(`open critical ${api.vendors.open_critical}\\b`), 'the Vendors card names the open critical ones');
    await screenshot(page, shots, 'governance-dashboard-breakdowns');
  });

  await t.test('a posture profile the server does not have is named as unknown, not replaced by another', async (t) => {
    await openView(page, '#/governance/posture?profile=nope', 'Governance · Posture');
    const alert = page.getByRole('alert').filter({ hasText: 'No such profile' });
    await alert.waitFor();
    t.match(await alert.innerText(), /no regulatory profile “nope”/, 'the page says the profile nope does not exist');
    t.equal(await page.getByRole('table', { name: /./ }).count(), 0, 'and shows no other profile\'s posture');
    t.equal(await page.getByLabel('Profile').inputValue(), '', 'the picker has no profile chosen');
    await screenshot(page, shots, 'governance-posture-unknown');
    // Picking one from there shows it.
    const first = await page.getByLabel('Profile').locator('option:not([disabled])').first().getAttribute('value');
    await page.getByLabel('Profile').selectOption(first ?? '');
    await page.getByRole('group', { name: 'Posture summary' }).waitFor();
    t.equal(await page.getByRole('alert').filter({ hasText: 'No such profile' }).count(), 0, `picking ${first} shows its posture, and the message is gone`);
  });

  await t.test('the run tokens appear in no page, script, stylesheet, cookie, URL, header or console message', async (t) => {
    await watch.assertNoSecret(t, preview.tokens);
  });
}
