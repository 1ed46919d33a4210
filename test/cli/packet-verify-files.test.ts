// `gov packet verify` offline with a wrong file given to --receipt or --timeline (each the other's
// document): both are bad input, exit 2 naming the flag and what the file is not, never a check
// that failed. A real receipt with a wrong receipt_id still fails the receipt check (exit 1). Run
// as main.ts runs it (runCli), against a preview in this process.
import t from 'tap';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runGov } from '../fixtures/cli-run.ts';
import { inProcessPreview, previewApi } from '../fixtures/served-app.ts';
import { tempDir } from '../fixtures/test-app.ts';

const gov = runGov;

t.test('a timeline given to --receipt, or a receipt to --timeline: exit 2 naming the flag', async (t) => {
  const dir = tempDir(t);
  const p = await inProcessPreview(t, dir);
  const call = previewApi(p);
  const api = async (method: string, path: string, body?: unknown) => (await call(method, path, body)).json;
  await api('POST', '/v1/tasks', { task_id: 'task-1', title: 'Export the quarterly audit', session_id: 'sess-1' });
  const packet = await api('POST', '/v1/proof-packets', { task_ids: ['task-1'], integrity_class: 'signed_and_receipted' });
  const files = { packet: join(dir, 'packet.json'), keys: join(dir, 'keys.json'), timeline: join(dir, 'timeline.json'), receipt: join(dir, 'receipt.json'), wrongId: join(dir, 'wrong-id.json') };
  writeFileSync(files.packet, JSON.stringify(packet));
  writeFileSync(files.keys, JSON.stringify(await api('GET', '/v1/keys')));
  writeFileSync(files.timeline, JSON.stringify(await api('GET', '/v1/tasks/task-1/timeline')));
  writeFileSync(files.receipt, JSON.stringify(await api('GET', `/v1/receipts/${packet.receipt_id}`)));
  writeFileSync(files.wrongId, JSON.stringify({ ...JSON.parse(readFileSync(files.receipt, 'utf8')), receipt_id: 'rcpt_someone_else' }));
  const verify = (...extra: string[]) => gov(['packet', 'verify', files.packet, '--keys', files.keys, ...extra], dir);

  const right = await verify('--timeline', files.timeline, '--receipt', files.receipt);
  t.equal(right.code, 0, right.stdout + right.stderr);

  const receiptAsTimeline = await verify('--timeline', files.receipt, '--json');
  t.equal(receiptAsTimeline.code, 2);
  t.match(JSON.parse(receiptAsTimeline.stdout), { ok: false, code: 'bad_input_file', message: `--timeline ${files.receipt} is not a timeline (GET /v1/tasks/{id}/timeline answer, or an array of events).`, file: files.receipt });

  const timelineAsReceipt = await verify('--receipt', files.timeline, '--json');
  t.equal(timelineAsReceipt.code, 2, 'not exit 1: no receipt check ran');
  t.match(JSON.parse(timelineAsReceipt.stdout), { ok: false, code: 'bad_input_file', message: new RegExp(`^--receipt ${files.timeline} is not a receipt \\(GET /v1/receipts/\\{id\\} answer`), file: files.timeline });
  t.match(timelineAsReceipt.stderr, /^gov: --receipt .*timeline\.json is not a receipt/);

  // A receipt of the wrong id is a receipt: its check fails.
  const wrongId = await verify('--receipt', files.wrongId, '--json');
  t.equal(wrongId.code, 1);
  t.match(JSON.parse(wrongId.stdout), { ok: false, checks: { receipt: { status: 'fail', code: 'receipt_id_mismatch' } } });
});
