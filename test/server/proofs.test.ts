// Claim boundaries, Proof Packets, receipts, verification and attestations through the routes,
// including the cross-tenant / cross-workspace confusion guard.
import t, { type Test } from 'tap';
import { createPublicKey } from 'node:crypto';
import { canonicalJson } from '../../src/domain/canonical-json.ts';
import { verifyEnvelope } from '../../src/domain/dsse.ts';
import { leafHash, verifyInclusion } from '../../src/domain/merkle.ts';
import { hashBytes } from '../../src/domain/packet-hash.ts';
import { verifyPacket } from '../../src/domain/packet-verify.ts';
import { parseCheckpoint, verifyNote } from '../../src/domain/signed-note.ts';
import { assertSchema, rawEvent, SCOPE_A, SCOPE_B, testApp } from '../fixtures/test-app.ts';

const ref = (artifact: string, extra: Record<string, unknown> = {}) => ({
  artifact_id: artifact,
  uri: `https://ci.internal.test/${artifact}?token=s3cr3t&page=2`,
  evidence_type: 'log',
  sha256: 'b'.repeat(64),
  confidence: 'verified',
  redaction: 'none',
  content_trust: 'trusted_internal',
  captured_at: '2026-11-01T09:00:00Z',
  ...extra,
});

async function seeded(t: Test) {
  const ctx = await testApp(t);
  await ctx.call('/v1/tasks', { body: { task_id: 'task-1', title: 'Publish the audit trail export', session_id: 'sess-1' } });
  await ctx.call('/v1/tasks/task-1/checkpoints', { body: { progress: 'Export job ran', evidence_refs: [ref('run-1')] } });
  const last = await ctx.call('/v1/events', { body: rawEvent(SCOPE_A, { kind: 'evidence.attached', task_id: 'task-1', payload: { note: 'customer screenshot' }, evidence_refs: [ref('shot-1', { content_trust: 'customer_asserted', etag: 'W/"1"', sha256: undefined })] }), idempotencyKey: 'ev-1' });
  // The snapshot time: after the seeded work, before anything the tests do (the test clock ticks a second per read).
  AS_OF = last.json.event.recorded_at;
  return ctx;
}

let AS_OF = '';

t.test('claim boundary evaluation over the task evidence', async (t) => {
  const { call, service } = await seeded(t);
  const res = await call('/v1/claim-boundaries/evaluate', {
    body: {
      task_ids: ['task-1'],
      as_of: AS_OF,
      claims: [
        { claim: 'The export job ran to completion.', evidence: ['run-1'] },
        { claim: 'The customer saw the export.', evidence: ['shot-1'] },
        { claim: 'The export is semantically correct.', evidence: ['run-1'] },
        { claim: 'A log that does not exist proves it.', evidence: ['nope-1'] },
        { claim: 'Therefore the export is published.', depends_on: [0] },
        { claim: 'We make no statement about retention.', kind: 'non_claim' },
      ],
    },
  });
  t.equal(res.status, 200);
  assertSchema(t, 'api/claim-decision.json', res.json);
  t.same(res.json.results.map((r: any) => r.confidence), ['verified', 'claimed', 'blocked', 'missing', 'inferred', 'not_claimed']);
  t.equal(res.json.engine_version, 'cb-1');
  t.equal(res.json.blocked_claims.length, 1);
  t.match(res.json.non_claims.join(' '), /semantic/i);
  const last = service.queries.eventsOfKind(SCOPE_A, 'claim_boundary.evaluated');
  t.equal(last.length, 1, 'claim_boundary.evaluated appended');
});

t.test('packets: every integrity class, schema-valid, deterministic, retrievable', async (t) => {
  const { call } = await seeded(t);
  const keys = (await call('/v1/keys')).json;
  assertSchema(t, 'api/keys.json', keys);
  t.same(keys.keys.map((k: any) => k.alg), ['ed25519', 'ecdsa-p256-sha256'], 'no HMAC secret is ever served');
  for (const [integrity_class, signature_alg] of [['hash_bound', undefined], ['signed', 'ed25519'], ['signed', 'ecdsa-p256-sha256'], ['signed', 'hmac-sha256'], ['signed_and_receipted', 'ed25519']] as const) {
    const body = { task_ids: ['task-1'], integrity_class, ...(signature_alg ? { signature_alg } : {}), as_of: AS_OF, claims: [{ claim: 'The export job ran.', evidence: ['run-1'] }] };
    const first = await call('/v1/proof-packets', { body });
    t.equal(first.status, 201, `${integrity_class} ${signature_alg}`);
    assertSchema(t, 'api/proof-packet.json', first.json);
    t.equal(first.json.integrity.integrity_class, integrity_class);
    t.equal(first.json.redaction_manifest.summary.partial, 2, 'token query values were redacted');
    t.notMatch(JSON.stringify(first.json.evidence_refs), /s3cr3t/);
    const again = await call('/v1/proof-packets', { body });
    if (signature_alg === 'ecdsa-p256-sha256') {
      t.same({ ...again.json, integrity: { ...again.json.integrity, signature: null } }, { ...first.json, integrity: { ...first.json.integrity, signature: null } }, 'identical but for the randomised ECDSA value');
    } else if (integrity_class !== 'signed_and_receipted') {
      t.equal(canonicalJson(again.json), canonicalJson(first.json), 'same request + as_of → byte-identical');
    }
    const fetched = await call(`/v1/proof-packets/${first.json.packet_id}`);
    t.equal(fetched.status, 200);
    assertSchema(t, 'api/proof-packet.json', fetched.json);
    const verified = await call('/v1/signatures/verify', { body: { packet: first.json } });
    t.equal(verified.status, 200);
    assertSchema(t, 'api/signature-verify-response.json', verified.json);
    t.equal(verified.json.ok, true, `${integrity_class} ${signature_alg} verifies: ${JSON.stringify(verified.json.checks)}`);
  }
  const manifestPacket = (await call('/v1/proof-packets', { body: { task_ids: ['task-1'], as_of: AS_OF } })).json;
  const manifest = await call(`/v1/proof-packets/${manifestPacket.packet_id}/redaction-manifest`);
  assertSchema(t, 'api/redaction-manifest-response.json', manifest.json);
  t.equal(manifest.json.redaction_manifest.manifest_sha256, `sha256:${(await import('../../src/domain/canonical-json.ts')).sha256Hex(canonicalJson(manifest.json.actions))}`);
});

t.test('tampering fails exactly the right check', async (t) => {
  const { call } = await seeded(t);
  const packet = (await call('/v1/proof-packets', { body: { task_ids: ['task-1'], integrity_class: 'signed_and_receipted', as_of: AS_OF } })).json;
  const verify = async (p: unknown) => (await call('/v1/signatures/verify', { body: { packet: p } })).json.checks;
  const statuses = (checks: any) => Object.fromEntries(Object.entries(checks).map(([k, v]: any) => [k, v.status]));
  t.same(statuses(await verify(packet)), { packet_hash: 'pass', signature: 'pass', hash_chain: 'pass', receipt: 'pass' });
  t.match(statuses(await verify({ ...packet, packet_status: 'final' })), { packet_hash: 'fail', signature: 'pass', hash_chain: 'pass', receipt: 'pass' });
  const badSig = { ...packet, integrity: { ...packet.integrity, signature: { ...packet.integrity.signature, value: packet.integrity.signature.value.replace(/^./, (c: string) => (c === 'A' ? 'B' : 'A')) } } };
  t.match(statuses(await verify(badSig)), { packet_hash: 'pass', signature: 'fail' });
  // The timeline grows after the packet: the hash chain is still the packet's own range.
  await call('/v1/tasks/task-1/checkpoints', { body: { progress: 'later work' } });
  t.match(statuses(await verify(packet)), { hash_chain: 'pass' });
});

t.test('a receipt verifies against its signed checkpoint and fails against a changed log', async (t) => {
  const { call } = await seeded(t);
  const packet = (await call('/v1/proof-packets', { body: { task_ids: ['task-1'], integrity_class: 'signed_and_receipted', as_of: AS_OF } })).json;
  t.equal(packet.receipt_id, packet.integrity.receipt_id);
  const receipt = await call(`/v1/receipts/${packet.receipt_id}`);
  t.equal(receipt.status, 200);
  assertSchema(t, 'api/receipt.json', receipt.json);
  const keys = (await call('/v1/keys')).json.keys;
  const publicKey = createPublicKey(keys.find((k: any) => k.alg === 'ed25519').public_key_pem);
  const origin = receipt.json.checkpoint.split('\n')[0];
  const note = verifyNote(receipt.json.checkpoint, { name: origin, publicKey });
  t.equal(note.ok, true, 'the checkpoint note verifies with the public key alone');
  const checkpoint = parseCheckpoint((note as { body: string }).body);
  const leaf = leafHash(hashBytes(receipt.json.event.event_hash));
  const proof = receipt.json.inclusion_proof.map((h: string) => Buffer.from(h, 'hex'));
  t.ok(verifyInclusion(leaf, receipt.json.log_index, checkpoint.size, proof, checkpoint.rootHash), 'inclusion proof verifies');
  const changedLeaf = leafHash(Buffer.alloc(32, 7));
  t.notOk(verifyInclusion(changedLeaf, receipt.json.log_index, checkpoint.size, proof, checkpoint.rootHash), 'fails for another event');
  // Offline: the verifier with only the packet, the timeline and the public key.
  const timeline = (await call('/v1/tasks/task-1/timeline?limit=1000')).json.events;
  const offline = verifyPacket({ packet, events: timeline, keys, receipt: receipt.json, log: { publicKey: keys[0].public_key_pem } });
  t.equal(offline.ok, true, JSON.stringify(offline.checks));
  const tamperedEvent = { ...receipt.json, event: { ...receipt.json.event, payload: { packet_sha256: `sha256:${'0'.repeat(64)}` } } };
  t.equal(verifyPacket({ packet, events: timeline, keys, receipt: tamperedEvent, log: { publicKey: keys[0].public_key_pem } }).checks.receipt.status, 'fail');
  t.equal((await call('/v1/receipts/rcpt_nope')).status, 404);
  t.equal((await call(`/v1/receipts/${packet.receipt_id}`, { scope: SCOPE_B })).status, 404, 'not visible from another scope');
});

t.test('the DSSE attestation verifies with the public key from /v1/keys', async (t) => {
  const { call } = await seeded(t);
  const packet = (await call('/v1/proof-packets', { body: { task_ids: ['task-1'], integrity_class: 'signed', as_of: AS_OF } })).json;
  const env = await call(`/v1/proof-packets/${packet.packet_id}/attestation`);
  t.equal(env.status, 200);
  assertSchema(t, 'api/attestation.json', env.json);
  t.equal(env.json.payloadType, 'application/vnd.in-toto+json');
  const key = createPublicKey((await call('/v1/keys')).json.keys[0].public_key_pem);
  t.ok(verifyEnvelope(env.json, key));
  const statement = JSON.parse(Buffer.from(env.json.payload, 'base64').toString('utf8'));
  t.equal(statement._type, 'https://in-toto.io/Statement/v1');
  t.same(statement.predicate, packet);
  t.notOk(verifyEnvelope({ ...env.json, payload: Buffer.from(JSON.stringify({ ...statement, predicate: {} })).toString('base64') }, key), 'a changed payload fails');
});

t.test('confusion guard: another tenant or workspace is blocked, nothing assembled, access logged', async (t) => {
  const { call, service } = await seeded(t);
  // Tenant B and workspace ws-2 of tenant A each ask about tenant A's task-1.
  for (const scope of [SCOPE_B, { ...SCOPE_A, workspace_id: 'ws-2' }]) {
    const before = service.store.tail().seq;
    for (const [path, body] of [['/v1/proof-packets', { task_ids: ['task-1'] }], ['/v1/claim-boundaries/evaluate', { task_ids: ['task-1'], claims: [{ claim: 'It ran.' }] }]] as const) {
      const res = await call(path, { scope, body });
      t.equal(res.status, 404, `${scope.tenant_id}/${scope.workspace_id} ${path}`);
      t.equal(res.json.code, 'not_found_in_scope');
    }
    const denied = service.queries.eventsOfKind(scope, 'access.logged');
    t.equal(denied.length, 2, 'two denials logged in the caller scope');
    t.match(denied[0]!.payload, { action: 'attempted', outcome: 'denied', code: 'not_found_in_scope', resource: { type: 'task', id: 'task-1' } });
    t.equal(service.store.tail().seq, before + 2, 'only the access log entries were appended');
    t.same(service.queries.eventsOfKind(scope, 'proof_packet.assembled'), []);
  }
  t.same(service.queries.eventsOfKind(SCOPE_A, 'access.logged'), [], 'nothing leaked into the owner scope');
  const session = await call('/v1/proof-packets', { body: { task_ids: ['task-1'], session_ids: ['sess-of-b'] } });
  t.equal(session.status, 404, 'a session not in scope is blocked too');
  // A packet of A includes A's own access log entries about its tasks.
  const packet = (await call('/v1/proof-packets', { body: { task_ids: ['task-1'] } })).json;
  t.equal(packet.access_log_ids.length, 1, 'the denied session attempt is in the packet');
});

t.test('packet request rules', async (t) => {
  const { call } = await seeded(t);
  t.equal((await call('/v1/proof-packets', { body: { task_ids: ['task-1'], colour: 'red' } })).status, 422);
  t.equal((await call('/v1/proof-packets', { body: { task_ids: [] } })).status, 422);
  t.equal((await call('/v1/proof-packets', { body: { task_ids: ['task-1'] }, token: 'operator' })).status, 403);
  t.equal((await call('/v1/proof-packets/pkt_missing')).status, 404);
  const key = await call('/v1/proof-packets', { body: { task_ids: ['task-1'], as_of: AS_OF }, idempotencyKey: 'pk-1' });
  const replay = await call('/v1/proof-packets', { body: { task_ids: ['task-1'], as_of: AS_OF }, idempotencyKey: 'pk-1' });
  t.equal(replay.status, 200);
  t.equal(replay.text, key.text);
});
