// The README's agent flow seen in the console, in Debian's Chromium (issue 16): a task created
// through the API (with a checkpoint and attached evidence) appears in the Tasks view with its
// timeline; a closeout sent from the form without the gates' fields is refused with the repair
// prompts shown inline and nothing written; fixed and sent again, the task is closed. Search finds
// it (discovery only). The New task and checkpoint forms refuse a placeholder at its field and then
// write; "More tasks" pages the list. Screenshots under .tap/screenshots/e2e-console-tasks/.
import t from 'tap';
import { createHash } from 'node:crypto';
import { openConsole, openView, requireBrowser, screenshot } from '../fixtures/browser.ts';

const browser = await requireBrowser(t);

if (browser !== null) {
  const { preview, page, watch, shots } = await openConsole(t, browser, import.meta.url);
  /** The page's polite live region (role=status), always present. */
  const live = page.getByRole('status').and(page.getByTestId('live-status'));
  const TASK = 'task-1';
  const TITLE = 'Rotate the exporter signing key';
  const events = () => preview.eventLines().map((l) => JSON.parse(l) as { kind: string; task_id?: string });
  const kinds = () => events().map((e) => e.kind);
  const taskKinds = () => events().filter((e) => e.task_id === TASK).map((e) => e.kind);

  await t.test('a task created through the API appears in the Tasks view with its timeline', async (t) => {
    const created = await preview.api('/v1/tasks', { body: { task_id: TASK, title: TITLE, session_id: 'sess-1' } });
    t.equal(created.status, 201, 'POST /v1/tasks');
    const checkpoint = await preview.api(`/v1/tasks/${TASK}/checkpoints`, {
      body: { progress: 'Rotated in staging', next_actions: ['Rotate production'], context_lines: ['Staging and production share the vault path billing/exporter'] },
    });
    t.equal(checkpoint.status, 201, 'a checkpoint');
    const evidence = await preview.api('/v1/events', {
      idempotencyKey: 'attach-77',
      body: {
        kind: 'evidence.attached', tenant_id: 'acme', workspace_id: 'platform', project_id: 'billing', task_id: TASK, payload: {},
        evidence_refs: [{ artifact_id: 'ci-run-77', uri: 'https://ci.example.test/runs/77', evidence_type: 'log', etag: 'W/"77"', confidence: 'claimed', redaction: 'none', content_trust: 'trusted_internal', captured_at: '2026-11-01T10:00:00Z' }],
      },
    });
    t.equal(evidence.status, 201, 'evidence attached');

    await openView(page, '#/tasks', 'Tasks');
    const row = page.getByRole('table', { name: 'Tasks' }).getByRole('row').filter({ hasText: TASK });
    await row.getByRole('link', { name: TITLE }).waitFor();
    t.match(await row.innerText(), /\bopen\b/, 'listed as open');
    await watch.snapshot(page, 'tasks');
    await screenshot(page, shots, 'tasks');

    await row.getByRole('link', { name: TITLE }).click();
    const timeline = page.getByRole('list', { name: 'Timeline' });
    await timeline.locator('li.event').nth(2).waitFor();
    const shown = await timeline.locator('li.event .kind').allInnerTexts();
    t.same(shown, taskKinds(), 'the timeline shows the events of the task in events.jsonl, in seq order');
    t.equal(shown.length, 3, 'created, checkpoint, evidence');
    t.match(await page.locator('#chain-note').innerText(), /3 events loaded/, 'with the chain note');
    // An event row opens to its stored JSON.
    await timeline.locator('li.event summary').first().click();
    await timeline.locator('li.event pre').first().waitFor();
    t.match(await timeline.locator('li.event pre').first().innerText(), new RegExp(`"task_id": "${TASK}"`), 'an event row opens to its stored JSON');
    // The tasks view marks the timeline's render for the bench (the figure itself is the bench's).
    const measured = await page.evaluate(() => performance.getEntriesByName('console:timeline').length);
    t.ok(measured >= 1, 'the console:timeline measure is recorded');
    await watch.snapshot(page, 'task');
    await screenshot(page, shots, 'task-timeline');
  });

  await t.test('a refused closeout shows the repair prompts inline; fixed and resent, the task closes', async (t) => {
    const form = page.getByRole('form', { name: 'Close out' });
    await form.waitFor();
    const before = preview.eventLines().length;
    await form.getByLabel('Outcome').selectOption('completed');
    await form.getByLabel('Summary').fill('Rotated the key');
    await form.getByRole('button', { name: 'Close task' }).click();
    const alert = form.getByRole('alert').filter({ hasText: 'The closeout was refused' });
    await alert.waitFor();
    t.match(await alert.innerText(), /Nothing was written/, 'the form says the refusal wrote nothing');
    for (const field of ['context_lines', 'future_agent_traps', 'verification']) {
      const prompt = form.locator(`ul.prompt[data-field="${field}"]`);
      await prompt.waitFor();
      t.match(await prompt.innerText(), new RegExp(field), `the repair prompt for ${field} is shown at its field`);
      t.equal(await form.locator(`#closeout-${field}`).getAttribute('aria-invalid'), 'true', `${field} is marked invalid`);
    }
    t.match(await form.locator('#closeout-evidence_refs-prompt, ul.prompt[data-field="evidence_refs"]').first().innerText(), /evidence_refs/, 'and the evidence prompt at the evidence rows');
    // Each marked input of an evidence row is described by that prompt, as the other fields are by theirs.
    for (const name of ['artifact_id', 'uri', 'sha256', 'etag', 'captured_at']) {
      const input = form.locator(`#closeout-evidence-0-${name}`);
      t.equal(await input.getAttribute('aria-invalid'), 'true', `evidence ${name} is marked invalid`);
      t.equal(await input.getAttribute('aria-describedby'), 'closeout-evidence_refs-prompt', `and described by the evidence_refs repair prompt`);
    }
    await page.waitForFunction(() => document.activeElement?.getAttribute('aria-invalid') === 'true');
    t.equal(await page.evaluate(() => document.activeElement?.id), await form.locator('[aria-invalid="true"]').first().getAttribute('id'), 'the keyboard focus lands on the first field to fix');
    t.equal(preview.eventLines().length, before, 'the refused closeout wrote nothing');
    t.match((await preview.api(`/v1/tasks/${TASK}`)).json, { task_id: TASK, status: 'open' }, 'the task is still open');
    await watch.snapshot(page, 'closeout refused');
    await screenshot(page, shots, 'closeout-refused');

    // Fix every field the prompts named; the summary's text is kept from the first try, then replaced.
    t.equal(await form.getByLabel('Summary').inputValue(), 'Rotated the key', 'what was typed stays in the form');
    await form.getByLabel('Summary').fill('Rotated the exporter signing key and re-signed the pending exports.');
    await form.getByLabel('Verification').fill('Exporter test suite: 41 of 41 pass after the rotation');
    await form.getByLabel('Context lines').fill('The exporter reads its key from vault path billing/exporter/signing');
    await form.getByLabel('Future agent traps').fill('Rotating without re-signing pending exports breaks the nightly upload');
    const evidence = form.getByRole('group', { name: 'Evidence 1' });
    await evidence.getByLabel('Artifact id').fill('ci-run-77');
    await evidence.getByLabel('URI').fill('https://ci.example.test/runs/77');
    await evidence.getByLabel('SHA-256').fill(createHash('sha256').update('ci log').digest('hex'));
    await evidence.getByLabel('Content trust').selectOption('trusted_internal');
    await evidence.getByLabel('Captured at').fill('2026-11-01T09:00:00Z');
    await form.getByRole('button', { name: 'Close task' }).click();
    await page.locator('p.pass', { hasText: 'Task closed: completed.' }).waitFor();
    await live.filter({ hasText: 'Task closed: completed.' }).waitFor();
    t.pass('the success is said in the page\'s polite live region');
    const facts = page.locator('dl[aria-label="Task"]');
    await facts.locator('.badge', { hasText: /^closed$/ }).waitFor();
    t.match(await facts.innerText(), /completed/, 'the task shows closed, completed');
    await page.getByRole('list', { name: 'Timeline' }).locator('li.event .kind', { hasText: 'task.closed' }).waitFor();
    t.equal(await page.getByRole('form', { name: 'Close out' }).count(), 0, 'the closeout form is gone: the task is closed');
    t.equal(preview.eventLines().length, before + 1, 'one event written');
    t.equal(kinds().at(-1), 'task.closed', 'and it is task.closed');
    t.match((await preview.api(`/v1/tasks/${TASK}`)).json, { task_id: TASK, status: 'closed', outcome: 'completed' }, 'the API agrees: closed, completed');
    await watch.snapshot(page, 'task closed');
    await screenshot(page, shots, 'task-closed');
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, shots, 'task-closed');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  await t.test('search finds the task and says it is discovery only', async (t) => {
    await openView(page, '#/search', 'Search');
    t.match(await page.getByRole('note', { name: 'Discovery only' }).innerText(), /Discovery only — never proof/, 'the page says search is discovery, not proof');
    await page.getByRole('searchbox', { name: 'Query' }).fill('vault');
    await page.getByRole('searchbox', { name: 'Query' }).press('Enter');
    const hits = page.getByRole('list', { name: 'Search results' });
    await hits.getByRole('link', { name: TASK }).first().waitFor();
    t.ok((await hits.locator('li').count()) >= 1, `searching "vault" lists ${TASK}`);
    t.match(await hits.locator('mark').first().innerText(), /vault/i, 'the match is highlighted');
    await watch.snapshot(page, 'search');
    await screenshot(page, shots, 'search');
  });

  await t.test('the New task and checkpoint forms write through their gates; More tasks pages the list', async (t) => {
    await openView(page, '#/tasks', 'Tasks');
    await page.getByRole('button', { name: 'New task' }).click();
    const create = page.getByRole('form', { name: 'New task' });
    await create.getByLabel('Title', { exact: true }).fill('TBD');
    await create.getByLabel('Task id (optional)').fill('task-2');
    const before = preview.eventLines().length;
    await create.getByRole('button', { name: 'Create task' }).click();
    await create.locator('ul.prompt[data-field="title"]').waitFor();
    t.equal(await create.locator('#new-task-title').getAttribute('aria-invalid'), 'true', 'a placeholder title is refused at its field');
    t.equal(preview.eventLines().length, before, 'the refused task wrote nothing');
    await create.getByLabel('Title', { exact: true }).fill('Re-sign the archived exports');
    await create.getByRole('button', { name: 'Create task' }).click();
    await page.waitForFunction(() => location.hash === '#/tasks/task-2');
    t.match((await preview.api('/v1/tasks/task-2')).json, { task_id: 'task-2', title: 'Re-sign the archived exports', status: 'open' }, 'created, and the page went to it');

    const checkpoint = page.getByRole('form', { name: 'Write a checkpoint' });
    await checkpoint.getByLabel('Progress').fill('TODO');
    await checkpoint.getByRole('button', { name: 'Write checkpoint' }).click();
    await checkpoint.locator('ul.prompt[data-field="progress"]').waitFor();
    t.equal(preview.eventLines().length, before + 1, 'a placeholder progress is refused and writes nothing');
    // The live region is in the page before the write: a region added with its message is often not read.
    const region = await live.elementHandle();
    t.notMatch(await live.innerText(), /Checkpoint written/, 'the polite live region is there before the checkpoint is written');
    await checkpoint.getByLabel('Progress').fill('Re-signed the first archive');
    await checkpoint.getByRole('button', { name: 'Write checkpoint' }).click();
    await checkpoint.getByText(/Checkpoint written as event #\d+/).waitFor();
    await live.filter({ hasText: /Checkpoint written as event #\d+\./ }).waitFor();
    t.ok(await region?.evaluate((el) => el.isConnected && /Checkpoint written/.test(el.textContent ?? '')), 'and the same region says the success');
    t.equal(await live.getAttribute('aria-live'), 'polite', 'politely');
    t.same(events().filter((e) => e.task_id === 'task-2').map((e) => e.kind), ['task.created', 'task.checkpoint.written'], 'one checkpoint written for task-2');

    // Two tasks so far; 50 more make the list longer than its first page of 50.
    for (let i = 0; i < 50; i++) {
      const res = await preview.api('/v1/tasks', { body: { task_id: `task-page-${String(i).padStart(2, '0')}`, title: `Paged task ${i}`, session_id: 'sess-1' } });
      if (res.status !== 201) t.fail(`task-page-${i}: ${res.status}`);
    }
    await openView(page, '#/tasks', 'Tasks');
    const rows = page.getByRole('table', { name: 'Tasks' }).locator('tbody tr');
    await page.getByRole('button', { name: 'More tasks' }).waitFor();
    t.equal(await rows.count(), 50, 'the first page holds 50 tasks');
    await page.getByRole('button', { name: 'More tasks' }).click();
    // The button hides while the page loads, so wait for the rows, not for the button to go.
    await rows.nth(51).waitFor();
    await page.getByRole('status').filter({ hasText: 'Loading' }).waitFor({ state: 'detached' });
    t.equal(await rows.count(), 52, 'More tasks appends the rest');
    t.equal(await page.getByRole('button', { name: 'More tasks' }).count(), 0, 'and after the last page there is no More tasks');
    t.equal(await rows.filter({ hasText: 'task-1' }).filter({ hasText: 'Rotate the exporter signing key' }).count(), 1, 'the oldest task is on the second page, once');
  });

  await t.test('the run tokens appear in no page, script, stylesheet, cookie, URL, header or console message', async (t) => {
    await watch.assertNoSecret(t, preview.tokens);
  });
}
