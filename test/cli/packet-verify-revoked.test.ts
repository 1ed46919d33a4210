// `gov packet verify` reports a packet's status and refuses a revoked packet as current (docs/contract.md
// §9): exit 1 when the file says revoked (offline), or when the preview's latest issue of the
// packet_id is revoked (online), though the file's integrity still verifies. Run through the
// program as main.ts runs it (an exception would be exit 3), against a preview in this process.
import t from 'tap';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exitCodeOf } from '../../src/cli/exit-codes.ts';
import { packetSha256 } from '../../src/domain/packet-hash.ts';
import type { CliIo } from '../../src/cli/io.ts';
import { createProgram, type ProgramState } from '../../src/cli/program.ts';
import { inProcessPreview, previewApi } from '../fixtures/served-app.ts';
import { tempDir } from '../fixtures/test-app.ts';

async function gov(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = { stdout: (s) => void (stdout += s), stderr: (s) => void (stderr += s), env: {}, cwd, isTty: false, onStopSignal: () => {} };
  const state: ProgramState = { exitCode: 0 };
  try {
    await createProgram(io, state).parseAsync(args, { from: 'user' });
    return { code: state.exitCode, stdout, stderr };
  } catch (err) {
    return { code: exitCodeOf(err), stdout, stderr: stderr + String(err) };
  }
}

t.test('a revoked packet is refused offline and online; a current one passes with its status', async (t) => {
  const dir = tempDir(t);
  const p = await inProcessPreview(t, dir);
  const api = previewApi(p);
  await api('POST', '/v1/tasks', { task_id: 'task-1', title: 'Export the quarterly audit', session_id: 'sess-1' });
  await api('POST', '/v1/tasks/task-1/checkpoints', { progress: 'Collected the access logs for the quarter' });
  const draft = (await api('POST', '/v1/proof-packets', { task_ids: ['task-1'], integrity_class: 'signed' })).json;
  const final = await api('POST', `/v1/proof-packets/${draft.packet_id}/status`, { status: 'final' });
  t.equal(final.status, 201);
  const revoked = await api('POST', `/v1/proof-packets/${draft.packet_id}/status`, { status: 'revoked', reason: 'The wrong quarter was exported' });
  t.equal(revoked.status, 201);
  const files = { final: join(dir, 'final.json'), revoked: join(dir, 'revoked.json'), keys: join(dir, 'keys.json') };
  writeFileSync(files.final, JSON.stringify(final.json));
  writeFileSync(files.revoked, JSON.stringify(revoked.json));
  writeFileSync(files.keys, JSON.stringify((await api('GET', '/v1/keys')).json));

  const current = await gov(['packet', 'verify', files.final, '--keys', files.keys, '--json'], dir);
  t.equal(current.code, 0, current.stderr);
  t.match(JSON.parse(current.stdout), { mode: 'offline', ok: true, status: 'final', current: true });

  const offline = await gov(['packet', 'verify', files.revoked, '--keys', files.keys], dir);
  t.equal(offline.code, 1, 'a revoked file is refused');
  t.match(offline.stdout, /signature\s+pass/, 'its integrity still verifies');
  t.match(offline.stdout, /status\s+revoked/);
  t.match(offline.stdout, /^packet intact but REFUSED as not current \(offline\)/, 'the first line is no acceptance');
  t.match(offline.stdout, /REFUSED: packet pkt_[0-9a-f]+ is revoked/);
  const offlineJson = await gov(['packet', 'verify', files.revoked, '--keys', files.keys, '--json'], dir);
  t.equal(offlineJson.code, 1);
  t.match(JSON.parse(offlineJson.stdout), { ok: true, status: 'revoked', current: false });

  // Online, the final file verifies, but the preview's latest issue of its packet_id is revoked.
  const online = await gov(['packet', 'verify', files.final, '--token-file', join(dir, 'run.json'), '--json'], dir);
  t.equal(online.code, 1, online.stderr);
  t.match(JSON.parse(online.stdout), { mode: 'online', ok: true, status: 'final', latest_status: 'revoked', current: false });
  const onlineText = await gov(['packet', 'verify', files.final, '--token-file', join(dir, 'run.json')], dir);
  t.equal(onlineText.code, 1);
  t.match(onlineText.stdout, /latest issue at the server: revoked/);
  t.match(onlineText.stdout, /REFUSED: packet pkt_[0-9a-f]+ has been revoked at the preview/);

  // A packet whose latest issue is current passes online.
  const other = (await api('POST', '/v1/proof-packets', { task_ids: ['task-1'], packet_status: 'final', non_claims: ['Another packet.'] })).json;
  writeFileSync(join(dir, 'other.json'), JSON.stringify(other));
  const fine = await gov(['packet', 'verify', join(dir, 'other.json'), '--token-file', join(dir, 'run.json'), '--json'], dir);
  t.equal(fine.code, 0, fine.stderr);
  t.match(JSON.parse(fine.stdout), { mode: 'online', ok: true, status: 'final', latest_status: 'final', current: true });

  // Online, only the preview's latest issue is current: an earlier issue of the packet_id, or a body
  // it never issued (here re-hashed after an edit, which a hash_bound packet cannot prevent), is not.
  const draftFile = join(dir, 'draft.json');
  writeFileSync(draftFile, JSON.stringify(draft));
  const earlier = await gov(['packet', 'verify', draftFile, '--token-file', join(dir, 'run.json'), '--json'], dir);
  t.equal(earlier.code, 1, 'an earlier issue is not current');
  t.match(JSON.parse(earlier.stdout), { mode: 'online', status: 'draft', latest_status: 'revoked', current: false });
  const plain = (await api('POST', '/v1/proof-packets', { task_ids: ['task-1'], non_claims: ['A hash-bound packet.'] })).json;
  const edited = { ...plain, claim_boundary: { ...plain.claim_boundary, summary: { ...plain.claim_boundary.summary, verified: 7 } } };
  edited.integrity = { ...plain.integrity, packet_sha256: packetSha256(edited) };
  writeFileSync(join(dir, 'edited.json'), JSON.stringify(edited));
  const forged = await gov(['packet', 'verify', join(dir, 'edited.json'), '--token-file', join(dir, 'run.json')], dir);
  t.equal(forged.code, 1, 'a body the preview did not issue is refused');
  t.match(forged.stdout, /REFUSED: packet pkt_[0-9a-f]+ is not the preview's latest issue of it/);
  const plainFile = join(dir, 'plain.json');
  writeFileSync(plainFile, JSON.stringify(plain));
  t.equal((await gov(['packet', 'verify', plainFile, '--token-file', join(dir, 'run.json')], dir)).code, 0, 'the issued body passes');
  // Offline without --timeline the hash chain is not checked; a timeline given is all there is.
  const skippedChain = await gov(['packet', 'verify', plainFile, '--keys', files.keys, '--json'], dir);
  t.match(JSON.parse(skippedChain.stdout), { ok: true, checks: { hash_chain: { status: 'skipped' } } });
  writeFileSync(join(dir, 'empty-timeline.json'), JSON.stringify({ events: [] }));
  const emptyTimeline = await gov(['packet', 'verify', plainFile, '--keys', files.keys, '--timeline', join(dir, 'empty-timeline.json'), '--json'], dir);
  t.equal(emptyTimeline.code, 1);
  t.match(JSON.parse(emptyTimeline.stdout), { ok: false, checks: { hash_chain: { status: 'fail', code: 'event_range_mismatch' } } });

  // A file that is no Proof Packet v1 is refused offline as online does (bad input, exit 2), never
  // reported verified for the members it happens to hold.
  const packet = final.json as Record<string, unknown> & { integrity: Record<string, unknown> };
  const { claim_boundary: _c, ...noBoundary } = packet;
  const { redaction_manifest: _r, ...noManifest } = packet;
  const { non_claims: _n, ...noNonClaims } = packet;
  const broken: [string, unknown][] = [
    ['no claim_boundary', noBoundary], ['no redaction_manifest', noManifest], ['no non_claims', noNonClaims],
    ['empty non_claims', { ...packet, non_claims: [] }], ['another schema_version', { ...packet, schema_version: 'proof-packet.v0' }],
    ['a status no packet has', { ...packet, packet_status: 'approved' }], ['an unknown member', { ...packet, colour: 'red' }],
    ['an unknown integrity member', { ...packet, integrity: { ...packet.integrity, note: 'trust me' } }],
  ];
  for (const [name, doc] of broken) {
    writeFileSync(join(dir, 'broken.json'), JSON.stringify(doc));
    const refused = await gov(['packet', 'verify', join(dir, 'broken.json'), '--keys', files.keys], dir);
    t.equal(refused.code, 2, `${name}: bad input`);
    t.match(refused.stderr, /is not a Proof Packet v1/, `${name}: says why`);
    t.notMatch(refused.stdout, /packet verified/, `${name}: never verified`);
  }
  await p.stop();
});
