// Proof Packets in the console, in Debian's Chromium (issue 16): a packet assembled from the form
// (tasks picked, integrity class, algorithm) and verified with every check passing, its receipt's
// inclusion proof drawn; the downloaded copy verified as it is (passes), then the same copy
// tampered on disk and verified again: the failed check is shown; a copy that is not JSON clears the
// earlier result; a damaged inclusion proof draws its top as the recomputed hash, failed. Screenshots under
// .tap/screenshots/e2e-console-packets/.
import t from 'tap';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openConsole, openView, requireBrowser, screenshot } from '../fixtures/browser.ts';

const browser = await requireBrowser(t);

if (browser !== null) {
  const { preview, page, watch, shots } = await openConsole(t, browser, import.meta.url);
  const downloads = mkdtempSync(join(tmpdir(), 'gov-console-downloads-'));
  t.teardown(() => rmSync(downloads, { recursive: true, force: true }));
  const TASK = 'task-audit';
  let packetId = '';
  let stored = '';

  /** The checks a verification shows: name → pass / fail / skipped. */
  const checksIn = async (scope: ReturnType<typeof page.locator>) => {
    const out: Record<string, string> = {};
    for (const item of await scope.locator('li.check').all()) {
      out[(await item.getAttribute('data-check')) ?? '?'] = (await item.locator('.check-status').innerText()).trim();
    }
    return out;
  };

  await t.test('assemble a packet in the form and verify it: every check passes', async (t) => {
    t.equal((await preview.api('/v1/tasks', { body: { task_id: TASK, title: 'Export the quarterly audit', session_id: 'sess-audit' } })).status, 201, 'POST /v1/tasks');
    t.equal((await preview.api(`/v1/tasks/${TASK}/checkpoints`, { body: { progress: 'Collected the access logs for the quarter' } })).status, 201, 'a checkpoint');
    const before = preview.eventLines().length;

    await openView(page, '#/packets', 'Proof Packets');
    const form = page.locator('section[aria-labelledby="assemble-title"]');
    await form.getByRole('checkbox', { name: new RegExp(TASK) }).check();
    await form.getByLabel('Integrity class').selectOption('signed_and_receipted');
    await form.getByLabel('Signature algorithm').selectOption('ed25519');
    await screenshot(page, shots, 'packets');
    await form.getByRole('button', { name: 'Assemble packet' }).click();
    await page.getByRole('heading', { level: 1, name: /^Packet pkt_/ }).waitFor();
    packetId = decodeURIComponent(new URL(page.url()).hash.split('/')[2] ?? '');
    t.match(packetId, /^pkt_/, `assembled ${packetId}`);
    t.ok(preview.eventLines().length > before, 'the packet is written to the log');
    const read = await preview.api(`/v1/proof-packets/${packetId}`);
    t.equal(read.status, 200, 'and readable through the API');
    t.match(read.json, { task_ids: [TASK], integrity: { integrity_class: 'signed_and_receipted' } }, 'of the task picked, with the integrity class chosen');

    await page.getByRole('button', { name: 'Verify packet' }).click();
    const result = page.locator('section[aria-labelledby="verify-title"]');
    await result.getByText('Packet verified: every check passed').waitFor();
    const checks = await checksIn(result);
    t.match(checks, { packet_hash: 'pass', signature: 'pass', hash_chain: 'pass', receipt: 'pass' }, 'packet hash, signature, hash chain and receipt pass');
    t.same(Object.entries(checks).filter(([, s]) => s === 'fail'), [], 'no check fails');

    // The receipt: the inclusion proof drawn as a path to the checkpoint's root.
    const receipt = page.locator('section[aria-labelledby="receipt-title"]');
    const inclusion = receipt.getByTestId('inclusion-result');
    await inclusion.filter({ hasText: /pass|fail/ }).waitFor();
    t.match(await inclusion.innerText(), /pass — leaf \d+ and the \d+ proof hashes recompute the checkpoint's root/, 'the inclusion proof recomputes the checkpoint root');
    t.equal(await receipt.locator('svg[role="img"] .node.path.root.ok').count(), 1, 'and the drawn path ends at the root, marked ok');
    await watch.snapshot(page, 'packet');
    await screenshot(page, shots, 'packet-verified');
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, shots, 'packet-verified');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  await t.test('the downloaded copy verifies; tampered on disk, the failed check is shown', async (t) => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: `Download ${packetId}.json` }).click()]);
    stored = join(downloads, download.suggestedFilename());
    await download.saveAs(stored);
    t.equal(download.suggestedFilename(), `${packetId}.json`, 'the download is named by the packet id');
    const copy = JSON.parse(readFileSync(stored, 'utf8')) as Record<string, unknown>;
    t.equal(copy.packet_id, packetId, 'the stored copy is the packet');

    await openView(page, '#/packets', 'Proof Packets');
    const panel = page.locator('section[aria-labelledby="verify-copy-title"]');
    await panel.getByLabel('Packet file').setInputFiles(stored);
    await panel.getByRole('button', { name: 'Verify copy' }).click();
    await panel.getByText('Packet verified: every check passed').waitFor();
    t.same(Object.entries(await checksIn(panel)).filter(([, s]) => s === 'fail'), [], 'the untouched download passes every check');

    // Tamper with the stored copy: a draft claims to be final.
    const tampered = join(downloads, `${packetId}.tampered.json`);
    writeFileSync(tampered, `${JSON.stringify({ ...copy, packet_status: copy.packet_status === 'final' ? 'draft' : 'final' }, null, 2)}\n`);
    const before = preview.eventLines().length;
    await panel.getByLabel('Packet file').setInputFiles(tampered);
    await panel.getByRole('button', { name: 'Verify copy' }).click();
    await panel.getByText('Packet verification FAILED').waitFor();
    const checks = await checksIn(panel);
    t.equal(checks.packet_hash, 'fail', 'packet_hash fails for the tampered copy');
    t.match(await panel.locator('li.check[data-check="packet_hash"]').innerText(), /fail/, 'shown as failed in the list of checks');
    // The verification computes only; reading the latest issue of the packet_id is access-logged.
    const written = preview.eventLines().slice(before).map((l) => JSON.parse(l) as { kind: string; payload: { action: string; resource: unknown } });
    t.same(written.map((e) => [e.kind, e.payload.action, e.payload.resource]), [['access.logged', 'viewed', { type: 'proof_packet', id: packetId }]], 'verifying writes only the read of the latest issue');
    await watch.snapshot(page, 'tampered');
    await screenshot(page, shots, 'packet-tampered');
  });

  await t.test('a copy that is not valid JSON clears the earlier result: it never looks verified', async (t) => {
    await openView(page, '#/packets', 'Proof Packets');
    const panel = page.locator('section[aria-labelledby="verify-copy-title"]');
    await panel.getByLabel('Packet file').setInputFiles(stored);
    await panel.getByRole('button', { name: 'Verify copy' }).click();
    await panel.getByText('Packet verified: every check passed').waitFor();
    t.ok((await panel.locator('li.check').count()) > 0, 'the untouched copy verifies, check by check');

    // A damaged copy: its last characters cut off, as a broken paste or download would be.
    const text = await panel.getByLabel('Packet JSON').inputValue();
    await panel.getByLabel('Packet JSON').fill(text.trimEnd().slice(0, -5));
    await panel.getByRole('button', { name: 'Verify copy' }).click();
    await panel.getByRole('alert').filter({ hasText: 'Not valid JSON' }).waitFor();
    t.equal(await panel.getByText('Packet verified: every check passed').count(), 0, 'the earlier "Packet verified" is gone');
    t.equal(await panel.locator('li.check').count(), 0, 'and so are its checks');
    t.equal(await panel.getByRole('heading', { name: 'Checks of the copy' }).count(), 0, 'no result heading stays for a copy that was not verified');
    await screenshot(page, shots, 'packet-copy-not-json');

    // Fixed, it verifies again: the parse error goes.
    await panel.getByLabel('Packet JSON').fill(text);
    await panel.getByRole('button', { name: 'Verify copy' }).click();
    await panel.getByText('Packet verified: every check passed').waitFor();
    t.equal(await panel.getByText('Not valid JSON').count(), 0, 'the same copy, whole again, verifies and the parse error is gone');
  });

  await t.test('a damaged inclusion proof: the top of the drawing is the recomputed hash, marked failed, not the root', async (t) => {
    // The preview's real receipt, with one proof hash changed on its way to the page.
    let damaged = false;
    await page.route('**/v1/receipts/**', async (route) => {
      const response = await route.fetch();
      const receipt = (await response.json()) as { inclusion_proof: string[] };
      const first = receipt.inclusion_proof[0];
      if (first !== undefined) {
        receipt.inclusion_proof[0] = `${first[0] === '0' ? '1' : '0'}${first.slice(1)}`;
        damaged = true;
      }
      await route.fulfill({ response, json: receipt });
    });
    t.teardown(() => page.unrouteAll());
    await openView(page, `#/packets/${packetId}`, `Packet ${packetId}`);
    const receipt = page.locator('section[aria-labelledby="receipt-title"]');
    const inclusion = receipt.getByTestId('inclusion-result');
    await inclusion.filter({ hasText: /pass|fail/ }).waitFor();
    t.ok(damaged, 'the receipt reached the page with one proof hash changed');
    const said = await inclusion.innerText();
    t.match(said, /fail — the path recomputes ([0-9a-f]{16})…, not the checkpoint's root/, 'the page says the proof fails');
    const recomputed = /recomputes ([0-9a-f]{16})/.exec(said)?.[1] ?? '?';
    const top = receipt.getByTestId('merkle-top');
    const topText = await top.textContent();
    t.notMatch(topText, /\broot · size/, 'the top box is not labelled the root');
    t.match(topText, /recomputed/, 'it is labelled the recomputed value');
    t.match(topText, recomputed, `and shows the recomputed hash (${recomputed}…)`);
    t.match(await top.getAttribute('class'), /\bfail\b/, 'styled as failed');
    t.not(await top.locator('rect').evaluate((el) => getComputedStyle(el).stroke), await receipt.locator('.node.path:not(.root) rect').first().evaluate((el) => getComputedStyle(el).stroke), 'drawn in another colour than the rest of the path');
    t.match(await receipt.locator('figcaption').innerText(), /not the checkpoint's root/, 'and the caption says so');
    await screenshot(page, shots, 'packet-receipt-damaged');
    await page.unrouteAll();
  });

  await t.test('the run tokens appear in no page, script, stylesheet, cookie, URL, header or console message', async (t) => {
    await watch.assertNoSecret(t, preview.tokens);
  });
}
