// The Governance view in Debian's Chromium (issue 16): the README's walk-through through the API (an
// owner, an asset registered, a high-risk evaluation that requests an approval) and the console
// showing the asset with its tier, the approval in the queue, and the dashboard. Screenshots under
// .tap/screenshots/e2e-console-governance/.
import t from 'tap';
import { openConsole, openView, requireBrowser, screenshot } from '../fixtures/browser.ts';

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

  await t.test('the run tokens appear in no page, script, stylesheet, cookie, URL, header or console message', async (t) => {
    await watch.assertNoSecret(t, preview.tokens);
  });
}
