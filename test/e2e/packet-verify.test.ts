// `gov packet verify` end to end: a packet exported by a real preview verified offline with only
// the packet, the timeline, the receipt and the public keys; online; tampered; bad files.
import t from 'tap';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inProcessPreview, previewApi } from '../fixtures/served-app.ts';
import { tempDir } from '../fixtures/test-app.ts';
import { runGov } from '../fixtures/spawn-preview.ts';

t.test('verify an exported packet offline and online', async (t) => {
  const dir = tempDir(t);
  // The preview runs in this process; the verifier is the real CLI.
  const p = await inProcessPreview(t, dir);
  const call = previewApi(p);
  const api = async (method: string, path: string, body?: unknown) => (await call(method, path, body)).json;
  await api('POST', '/v1/tasks', { task_id: 'task-1', title: 'Export the quarterly audit', session_id: 'sess-1' });
  await api('POST', '/v1/tasks/task-1/checkpoints', { progress: 'Collected the access logs for the quarter' });
  const packet = await api('POST', '/v1/proof-packets', { task_ids: ['task-1'], integrity_class: 'signed_and_receipted' });
  t.equal(packet.integrity.integrity_class, 'signed_and_receipted');
  const files = {
    packet: join(dir, 'packet.json'),
    keys: join(dir, 'keys.json'),
    timeline: join(dir, 'timeline.json'),
    receipt: join(dir, 'receipt.json'),
    tampered: join(dir, 'tampered.json'),
  };
  writeFileSync(files.packet, JSON.stringify(packet));
  writeFileSync(files.keys, JSON.stringify(await api('GET', '/v1/keys')));
  writeFileSync(files.timeline, JSON.stringify(await api('GET', '/v1/tasks/task-1/timeline')));
  writeFileSync(files.receipt, JSON.stringify(await api('GET', `/v1/receipts/${packet.receipt_id}`)));
  writeFileSync(files.tampered, JSON.stringify({ ...packet, packet_status: 'final' }));

  const offline = await runGov(['packet', 'verify', files.packet, '--keys', files.keys, '--timeline', files.timeline, '--receipt', files.receipt, '--json']);
  t.equal(offline.code, 0, offline.stderr);
  const report = JSON.parse(offline.stdout);
  t.match(report, { mode: 'offline', ok: true, checks: { packet_hash: { status: 'pass' }, signature: { status: 'pass' }, hash_chain: { status: 'pass' }, receipt: { status: 'pass' } } });

  // Only the packet and the keys, as a stranger may hold them: verified, and said what was not checked.
  const bare = await runGov(['packet', 'verify', files.packet, '--keys', files.keys]);
  t.equal(bare.code, 0, bare.stdout + bare.stderr);
  t.match(bare.stdout, /^packet verified \(offline\), but not its hash chain: no timeline was given \(--timeline FILE, per task\), nor its receipt: no receipt was given \(--receipt FILE\)\n/);
  t.match(bare.stdout, /receipt\s+skipped\s+the receipt \S+ was not given/);

  const tampered = await runGov(['packet', 'verify', files.tampered, '--keys', files.keys, '--timeline', files.timeline, '--receipt', files.receipt]);
  t.equal(tampered.code, 1);
  t.match(tampered.stdout, /packet_hash\s+fail/);

  const online = await runGov(['packet', 'verify', files.packet, '--token-file', join(dir, 'run.json'), '--json']);
  t.equal(online.code, 0, online.stderr);
  t.match(JSON.parse(online.stdout), { mode: 'online', ok: true });

  const missing = await runGov(['packet', 'verify', join(dir, 'nope.json'), '--keys', files.keys]);
  t.equal(missing.code, 2);
  t.match(missing.stderr, /nope\.json/);
  const both = await runGov(['packet', 'verify', files.packet, '--keys', files.keys, '--base-url', p.baseUrl]);
  t.equal(both.code, 2);
  await p.stop();
});
