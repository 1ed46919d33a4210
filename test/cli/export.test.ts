// `gov export KIND` against a served preview (with the export routes mounted): the file holds the
// answer's bytes, its export_sha256 recomputes (json and jsonl), --as-of gives the same file again,
// and the preview's refusals (an unknown kind, an as_of in the future), a missing scope and an --out
// in a directory that does not exist are usage errors.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { exportCommand } from '../../src/cli/commands/export.ts';
import type { CliIo } from '../../src/cli/io.ts';
import { canonicalJson } from '../../src/domain/canonical-json.ts';
import { AppError } from '../../src/errors.ts';
import { serveApp } from '../fixtures/served-app.ts';
import { tempDir } from '../fixtures/test-app.ts';

const env = { GOV_TENANT_ID: 'tenant-a', GOV_WORKSPACE_ID: 'ws-1', GOV_PROJECT_ID: 'proj-1' };
const io = (cwd: string, extra: Record<string, string> = {}): CliIo => ({ stdout: () => {}, stderr: () => {}, env: { ...env, ...extra }, cwd, isTty: false, onStopSignal: () => {} });

t.test('gov export writes the answer and checks its export_sha256', async (t) => {
  const served = await serveApp(t);
  const dir = tempDir(t);
  const conn = { baseUrl: served.baseUrl, tokenFile: served.tokenFile };
  const owner = { type: 'user', id: 'olivia' };
  const run = JSON.parse(readFileSync(served.tokenFile, 'utf8')) as { tokens: { customer: string } };
  const registered = await fetch(`${served.baseUrl}/v1/governance/assets`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${run.tokens.customer}`, 'Content-Type': 'application/json', 'X-Tenant-Id': 'tenant-a', 'X-Workspace-Id': 'ws-1', 'X-Project-Id': 'proj-1' },
    body: JSON.stringify({ asset_id: 'chat-1', name: 'Support chat', purpose: 'Answer billing questions', owner, deployment_context: 'web', models: [{ provider: 'acme', name: 'c-1' }] }),
  });
  t.equal(registered.status, 201);

  const json = await exportCommand('assets', { ...conn, out: 'assets.json' }, io(dir));
  t.equal(json.exitCode, 0, json.text);
  t.match(json.json, { ok: true, kind: 'assets', format: 'json', record_count: 1, out: join(dir, 'assets.json') });
  const file = readFileSync(join(dir, 'assets.json'), 'utf8');
  const doc = JSON.parse(file);
  t.equal(file, canonicalJson(doc), 'the file is the canonical answer');
  t.same(doc.records.map((a: { asset_id: string }) => a.asset_id), ['chat-1']);
  t.match(json.text, /^exported assets as of .* 1 records, \d+ bytes → .*assets\.json\nexport_sha256 sha256:[0-9a-f]{64} \(recomputed\)\n$/);

  const asOf = doc.as_of as string;
  const again = await exportCommand('assets', { ...conn, asOf, out: 'again.json' }, io(dir));
  t.equal(again.exitCode, 0);
  t.equal(readFileSync(join(dir, 'again.json'), 'utf8'), file, '--as-of: the same bytes');

  const lines = await exportCommand('access-log', { ...conn, format: 'jsonl' }, io(dir));
  t.equal(lines.exitCode, 0, lines.text);
  const text = readFileSync(join(dir, 'export-access-log.jsonl'), 'utf8');
  const header = JSON.parse(text.slice(0, text.indexOf('\n')));
  t.equal(header.record_count, text.split('\n').length - 2, 'a header line, then one line per record');
  t.match(lines.json, { ok: true, format: 'jsonl', export_sha256: header.export_sha256 });

  // The token from GOV_TOKEN, the URL from GOV_BASE_URL.
  const byEnv = await exportCommand('vendors', { out: 'vendors.json' }, io(dir, { GOV_TOKEN: run.tokens.customer, GOV_BASE_URL: served.baseUrl }));
  t.equal(byEnv.exitCode, 0);

  const refused = async (kind: string, options: Record<string, string>, ioOf = io(dir)) => {
    try {
      await exportCommand(kind, { ...conn, ...options }, ioOf);
      return 'no error';
    } catch (err) {
      return err instanceof AppError ? `${err.code}: ${err.message}` : String(err);
    }
  };
  t.match(await refused('secrets', {}), /^usage_error: .*404 not_found/);
  t.match(await refused('assets', { asOf: '2999-01-01T00:00:00Z' }), /^usage_error: .*422 as_of_in_future/);
  t.match(await refused('assets', { format: 'csv' }), /^usage_error: --format takes json or jsonl/);
  t.match(await refused('assets', {}, { ...io(dir), env: {} }), /^usage_error: An export is of one scope: pass --tenant-id, --workspace-id, --project-id/);
  t.match(await refused('assets', { tokenFile: join(dir, 'nope.json') }), /^not_running: No credentials/);
  // An --out in a directory that does not exist: the flag and the cause named (it said --data-dir, exit 3).
  t.equal(await refused('assets', { out: join(dir, 'nowhere', 'x.json') }), `usage_error: The --out directory ${join(dir, 'nowhere')} does not exist or is not a directory; create it, or give --out a file in a directory that exists.`);
});
