// POST /v1/proof-packets/{packet_id}/status (docs/contract.md §9): the status table, the re-issue
// (a new packet_sha256 that verifies, the same packet_id), GET answering the latest issue, the
// reason a revocation needs, the scope guard and idempotent replay.
import t, { type Test } from 'tap';
import { verifyPacket } from '../../src/domain/packet-verify.ts';
import { assertSchema, SCOPE_A, SCOPE_B, testApp } from '../fixtures/test-app.ts';

type Status = 'draft' | 'final' | 'exported' | 'revoked';
const STATUSES: Status[] = ['draft', 'final', 'exported', 'revoked'];
/** The table of the contract, written out: draft → final → exported; any but revoked → revoked. */
const ALLOWED = new Set(['draft>final', 'draft>revoked', 'final>exported', 'final>revoked', 'exported>revoked']);
/** How to bring a fresh draft packet to each status. */
const PATH_TO: Record<Status, Status[]> = { draft: [], final: ['final'], exported: ['final', 'exported'], revoked: ['revoked'] };

async function seeded(t: Test) {
  const ctx = await testApp(t);
  await ctx.call('/v1/tasks', { body: { task_id: 'task-1', title: 'Publish the audit trail export', session_id: 'sess-1' } });
  await ctx.call('/v1/tasks/task-1/checkpoints', { body: { progress: 'Export job ran' } });
  const keys = (await ctx.call('/v1/keys')).json.keys;
  let n = 0;
  /** A fresh draft packet (a distinct non-claim makes a distinct packet id). */
  const assemble = async (extra: Record<string, unknown> = {}) => {
    const res = await ctx.call('/v1/proof-packets', { body: { task_ids: ['task-1'], non_claims: [`Packet ${++n} of this test.`], ...extra } });
    t.equal(res.status, 201, res.status === 201 ? 'assembled' : res.text);
    return res.json;
  };
  const move = (packetId: string, body: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    ctx.call(`/v1/proof-packets/${packetId}/status`, { body, ...extra });
  const reason = (to: Status) => (to === 'revoked' ? { reason: 'Superseded by a corrected packet' } : {});
  return { ...ctx, keys, assemble, move, reason };
}

t.test('every move of the status table is allowed or refused as the table says', async (t) => {
  const { assemble, move, reason, call } = await seeded(t);
  for (const from of STATUSES) {
    for (const to of STATUSES) {
      const packet = await assemble();
      for (const step of PATH_TO[from]) t.equal((await move(packet.packet_id, { status: step, ...reason(step) })).status, 201, `setup ${step}`);
      const res = await move(packet.packet_id, { status: to, ...reason(to) });
      if (ALLOWED.has(`${from}>${to}`)) {
        t.equal(res.status, 201, `${from} → ${to} allowed: ${res.text}`);
        t.equal(res.json.packet_status, to);
        t.equal(res.json.packet_id, packet.packet_id, 'the packet_id stays');
      } else {
        t.equal(res.status, 409, `${from} → ${to} refused`);
        t.equal(res.json.code, 'invalid_transition');
        t.equal((await call(`/v1/proof-packets/${packet.packet_id}`)).json.packet_status, from, 'a refused move changes nothing');
      }
    }
  }
});

t.test('a re-issue has its own packet_sha256 and integrity, verifies, and GET answers it', async (t) => {
  const { assemble, move, keys, call, service } = await seeded(t);
  for (const extra of [{}, { integrity_class: 'signed', signature_alg: 'ecdsa-p256-sha256' }, { integrity_class: 'signed_and_receipted' }]) {
    const first = await assemble({ ...extra, packet_status: 'final' });
    const res = await move(first.packet_id, { status: 'exported' });
    t.equal(res.status, 201);
    assertSchema(t, 'api/proof-packet.json', res.json);
    const issue = res.json;
    t.not(issue.integrity.packet_sha256, first.integrity.packet_sha256, 'a new packet_sha256');
    t.equal(issue.integrity.integrity_class, first.integrity.integrity_class, 'the same integrity class');
    t.equal(issue.integrity.signature?.alg, first.integrity.signature?.alg, 'the same signature algorithm');
    t.same({ ...issue, integrity: null, receipt_id: null, packet_status: null }, { ...first, integrity: null, receipt_id: null, packet_status: null }, 'nothing else changes');
    const timeline = (await call('/v1/tasks/task-1/timeline?limit=1000')).json.events;
    const receipt = issue.receipt_id ? (await call(`/v1/receipts/${issue.receipt_id}`)).json : undefined;
    if (issue.receipt_id) t.not(issue.receipt_id, first.receipt_id, 'a new receipt');
    const verified = verifyPacket({ packet: issue, events: timeline, keys, ...(receipt ? { receipt } : {}), log: { publicKey: keys[0].public_key_pem } });
    t.equal(verified.ok, true, JSON.stringify(verified.checks));
    const got = await call(`/v1/proof-packets/${first.packet_id}`);
    t.same(got.json, issue, 'GET answers the latest issue');
    await service.store.settled();
    const changes = service.queries.eventsOfKind(SCOPE_A, 'proof_packet.status_changed').filter((e) => e.payload.packet_id === first.packet_id);
    t.equal(changes.length, 1);
    t.same(changes[0]!.payload, { packet_id: first.packet_id, from: 'final', to: 'exported', packet_sha256: issue.integrity.packet_sha256, previous_packet_sha256: first.integrity.packet_sha256 });
  }
});

t.test('revoking needs a reason of 1–500 characters', async (t) => {
  const { assemble, move, call } = await seeded(t);
  const packet = await assemble();
  for (const body of [{ status: 'revoked' }, { status: 'revoked', reason: '' }, { status: 'revoked', reason: 'x'.repeat(501) }]) {
    const res = await move(packet.packet_id, body);
    t.equal(res.status, 422, JSON.stringify(body).slice(0, 60));
    t.equal(res.json.code, 'validation_failed');
  }
  t.equal((await move(packet.packet_id, { status: 'final', colour: 'red' })).status, 422, 'unknown member');
  t.equal((await call(`/v1/proof-packets/${packet.packet_id}`)).json.packet_status, 'draft');
  const revoked = await move(packet.packet_id, { status: 'revoked', reason: 'Wrong task listed' });
  t.equal(revoked.status, 201);
  t.equal(revoked.json.packet_status, 'revoked');
});

t.test('another scope or an unknown packet is 404, and nothing is written', async (t) => {
  const { assemble, move, call, service } = await seeded(t);
  const packet = await assemble();
  for (const scope of [SCOPE_B, { ...SCOPE_A, workspace_id: 'ws-2' }]) {
    const res = await move(packet.packet_id, { status: 'final' }, { scope });
    t.equal(res.status, 404);
  }
  t.equal((await move('pkt_nope', { status: 'final' })).status, 404);
  t.equal((await call(`/v1/proof-packets/${packet.packet_id}`)).json.packet_status, 'draft');
  await service.store.settled();
  t.equal(service.queries.eventsOfKind(SCOPE_A, 'proof_packet.status_changed').length, 0);
});

t.test('a replay with the same Idempotency-Key answers the same bytes and writes nothing', async (t) => {
  const { assemble, move, service } = await seeded(t);
  const packet = await assemble({ integrity_class: 'signed', signature_alg: 'ecdsa-p256-sha256' });
  const first = await move(packet.packet_id, { status: 'final' }, { idempotencyKey: 'st-1' });
  t.equal(first.status, 201);
  const again = await move(packet.packet_id, { status: 'final' }, { idempotencyKey: 'st-1' });
  t.equal(again.status, 200);
  t.equal(again.headers.get('Idempotent-Replayed'), 'true');
  t.equal(again.text, first.text, 'the same bytes (even a randomised ECDSA signature)');
  await service.store.settled();
  t.equal(service.queries.eventsOfKind(SCOPE_A, 'proof_packet.status_changed').length, 1);
  // Without the key, the same move is decided again: final → final is not a move.
  t.equal((await move(packet.packet_id, { status: 'final' })).status, 409);
});

t.test('two moves decided on the same issue: one wins, the other is decided again', async (t) => {
  const { assemble, move, service } = await seeded(t);
  const packet = await assemble();
  const [a, b] = await Promise.all([move(packet.packet_id, { status: 'final' }), move(packet.packet_id, { status: 'final' })]);
  t.same([a.status, b.status].sort(), [201, 409], 'draft → final once; the second sees final');
  await service.store.settled();
  t.equal(service.queries.eventsOfKind(SCOPE_A, 'proof_packet.status_changed').length, 1);
});

t.test('assembling the same packet again cannot move its status back', async (t) => {
  const { assemble, move, call } = await seeded(t);
  const first = await assemble({ non_claims: ['Reassembled.'] });
  const body = { task_ids: ['task-1'], non_claims: ['Reassembled.'], as_of: first.assembled_at };
  const again = await call('/v1/proof-packets', { body });
  t.equal(again.status, 201);
  t.equal(again.json.packet_id, first.packet_id, 'the same request at the same as_of is the same packet');
  t.equal((await move(first.packet_id, { status: 'revoked', reason: 'Superseded' })).status, 201);
  const resurrect = await call('/v1/proof-packets', { body });
  t.equal(resurrect.status, 409);
  t.equal(resurrect.json.code, 'invalid_transition');
  t.equal((await call(`/v1/proof-packets/${first.packet_id}`)).json.packet_status, 'revoked', 'still revoked');
});

t.test('a revoked snapshot cannot come back under another status or an unused algorithm', async (t) => {
  const { assemble, move, call } = await seeded(t);
  const first = await assemble({ non_claims: ['Revoked, then asked for again.'] });
  const body = { task_ids: ['task-1'], non_claims: ['Revoked, then asked for again.'], as_of: first.assembled_at };
  t.equal((await move(first.packet_id, { status: 'revoked', reason: 'Superseded' })).status, 201);
  // The packet id derives from the request and the snapshot, not the status (GOVERNANCE K), nor from
  // a signature_alg that a hash_bound packet never signs with: each of these is the revoked packet.
  for (const [name, extra] of [['as final', { packet_status: 'final' }], ['as a draft again', { packet_status: 'draft' }], ['with an algorithm it does not use', { signature_alg: 'ecdsa-p256-sha256' }]] as const) {
    const res = await call('/v1/proof-packets', { body: { ...body, ...extra } });
    t.equal(res.status, 409, `${name}: ${res.text.slice(0, 200)}`);
    t.equal(res.json.code, 'invalid_transition');
    t.match(res.json.detail, new RegExp(`Proof packet ${first.packet_id} .* is already issued and now revoked`));
  }
  const draft = await assemble({ non_claims: ['A draft asked for as final.'] });
  const asFinal = await call('/v1/proof-packets', { body: { task_ids: ['task-1'], non_claims: ['A draft asked for as final.'], as_of: draft.assembled_at, packet_status: 'final' } });
  t.same([asFinal.status, asFinal.json.code], [409, 'invalid_transition'], 'an issued draft is moved by the status route, not assembled again as final');
  t.match(asFinal.json.detail, /Move it with POST \/v1\/proof-packets\/.*\/status/);
});
