// Claim boundaries, Proof Packets, receipts, verification and attestations through the routes,
// including the cross-tenant / cross-workspace confusion guard.
import t, { type Test } from 'tap';
import { createPublicKey } from 'node:crypto';
import { canonicalJson } from '../../src/domain/canonical-json.ts';
import { verifyEnvelope } from '../../src/domain/dsse.ts';
import { leafHash, verifyInclusion } from '../../src/domain/merkle.ts';
import { hashBytes, packetSha256 } from '../../src/domain/packet-hash.ts';
import { verifyPacket } from '../../src/domain/packet-verify.ts';
import { parseCheckpoint, verifyNote } from '../../src/domain/signed-note.ts';
import { expectNewEvents, expectNoEvents, expectResponse, spec } from '../fixtures/api-spec.ts';
import { assertSchema, fixedClock, rawEvent, SCOPE_A, SCOPE_B, testApp } from '../fixtures/test-app.ts';
import { earnTrust } from '../fixtures/trust.ts';

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
  // A reviewer vouches for the CI run; the screenshot stays as the customer asserted it.
  await earnTrust(ctx.call, ['run-1']);
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
  t.equal(res.json.engine_version, 'cb-2');
  t.equal(res.json.blocked_claims.length, 1);
  t.match(res.json.non_claims.join(' '), /semantic/i);
  await service.store.settled(); // the index follows the log in the background
  const last = service.queries.eventsOfKind(SCOPE_A, 'claim_boundary.evaluated');
  t.equal(last.length, 1, 'claim_boundary.evaluated appended');
});

t.test('packets: every integrity class, schema-valid, deterministic, retrievable', async (t) => {
  const { call, service } = await seeded(t);
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
    } else {
      // A receipted body keeps its receipt: one proof_packet.receipted, the same receipt_id.
      t.equal(canonicalJson(again.json), canonicalJson(first.json), 'same request + as_of → byte-identical');
    }
    if (integrity_class === 'signed_and_receipted') {
      await service.store.settled();
      t.same(service.queries.eventsOfKind(SCOPE_A, 'proof_packet.receipted').map((e) => e.event_id), [first.json.receipt_id], 'receipted once');
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

t.test('identical receipted packet requests racing each other share one receipt', async (t) => {
  const { call, service } = await seeded(t);
  const body = { task_ids: ['task-1'], integrity_class: 'signed_and_receipted', as_of: AS_OF, claims: [{ claim: 'The export job ran.', evidence: ['run-1'] }] };
  // No Idempotency-Key: each is a request of its own, decided on the same snapshot.
  const answers = await Promise.all(Array.from({ length: 12 }, () => call('/v1/proof-packets', { body })));
  t.same(answers.map((a) => a.status), Array(12).fill(201));
  const receiptIds = new Set(answers.map((a) => a.json.receipt_id));
  t.equal(receiptIds.size, 1, 'every answer names the same receipt');
  t.equal(new Set(answers.map((a) => canonicalJson(a.json))).size, 1, 'byte-identical packets');
  await service.store.settled();
  const receipts = service.queries.eventsOfKind(SCOPE_A, 'proof_packet.receipted');
  t.same(receipts.map((e) => e.event_id), [...receiptIds], 'one proof_packet.receipted in the log');
  t.equal(receipts[0]!.payload.packet_sha256, answers[0]!.json.integrity.packet_sha256);
  t.equal((await call(`/v1/receipts/${answers[0]!.json.receipt_id}`)).status, 200);
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

t.test('a re-hashed packet naming events the log does not hold fails its hash chain; integrity repeats what it hashes', async (t) => {
  const { call } = await seeded(t);
  const packet = (await call('/v1/proof-packets', { body: { task_ids: ['task-1'], as_of: AS_OF } })).json;
  const rehashed = (p: Record<string, any>) => ({ ...p, integrity: { ...p.integrity, packet_sha256: packetSha256(p) } });
  const verify = async (p: unknown) => (await call('/v1/signatures/verify', { body: { packet: p } })).json;
  // hash_bound proves only that the body is what its hash says: the log decides the rest.
  const ghost = rehashed({ ...packet, task_ids: ['ghost-task'], hash_chain_root: `sha256:${'ab'.repeat(32)}`, event_range: { first_event_id: 'evt_ghost_1', last_event_id: 'evt_ghost_9', event_count: 9 } });
  const ghostVerdict = await verify(ghost);
  t.match(ghostVerdict, { ok: false, checks: { packet_hash: { status: 'pass' }, hash_chain: { status: 'fail', code: 'event_range_mismatch' } } });
  t.match(ghostVerdict.checks.hash_chain.detail, /no event of these tasks/);
  const forgedSummary = rehashed({ ...packet, hash_chain_root: `sha256:${'11'.repeat(32)}` });
  t.match(await verify(forgedSummary), { ok: false, checks: { packet_hash: { status: 'pass' }, hash_chain: { status: 'fail', code: 'hash_chain_root_mismatch' } } });
  // integrity lies outside the hash; what it repeats from the hashed body must agree with it.
  const otherManifest = { ...packet, integrity: { ...packet.integrity, manifest_sha256: `sha256:${'0'.repeat(64)}` } };
  t.match(await verify(otherManifest), { ok: false, checks: { packet_hash: { status: 'fail', code: 'manifest_hash_mismatch' } } });
  t.match(await verify(packet), { ok: true });
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

t.test('reads of a packet, its manifest, attestation and receipt are access-logged; 404s as denied', async (t) => {
  const app = await seeded(t);
  const packet = (await app.call('/v1/proof-packets', { body: { task_ids: ['task-1'], integrity_class: 'signed_and_receipted', as_of: AS_OF } })).json;
  const viewed = (type: string, id: string) => ({ kind: 'access.logged', tenant_id: SCOPE_A.tenant_id, actor: { type: 'service_account', id: 'preview-customer' }, payload: { action: 'viewed', outcome: 'allowed', resource: { type, id }, route: { method: 'GET', path_template: '' }, status: 200, ip_class: 'unknown' } });
  const views: Array<[string, string, string, string]> = [
    [`/v1/proof-packets/${packet.packet_id}`, '/v1/proof-packets/{packet_id}', 'proof_packet', packet.packet_id],
    [`/v1/proof-packets/${packet.packet_id}/redaction-manifest`, '/v1/proof-packets/{packet_id}/redaction-manifest', 'proof_packet', packet.packet_id],
    [`/v1/proof-packets/${packet.packet_id}/attestation`, '/v1/proof-packets/{packet_id}/attestation', 'proof_packet', packet.packet_id],
    [`/v1/receipts/${packet.receipt_id}`, '/v1/receipts/{receipt_id}', 'receipt', packet.receipt_id],
  ];
  for (const [path, template, type, id] of views) {
    const entry = viewed(type, id);
    entry.payload.route.path_template = template;
    await spec(t, app).when(path).then(expectResponse(200), expectNewEvents([entry]));
    // From another scope: 404, logged as denied in the caller's scope.
    await spec(t, app, `${path} from tenant B`).when(path, { scope: SCOPE_B }).then(
      expectResponse(404, { code: 'not_found' }),
      expectNewEvents([{ kind: 'access.logged', tenant_id: SCOPE_B.tenant_id, payload: { action: 'attempted', outcome: 'denied', resource: { type, id }, reason_code: 'not_found', reason: type === 'receipt' ? `No receipt ${id} in this tenant, workspace and project.` : `No proof packet ${id} in this tenant, workspace and project; assemble one with POST /v1/proof-packets.`, route: { method: 'GET', path_template: template }, status: 404, ip_class: 'unknown' } }]),
    );
  }
  // A packet of scope A sent to scope B's verifier: 404, logged as denied; verifying in its own scope computes only.
  await spec(t, app, 'verify from tenant B').when('/v1/signatures/verify', { scope: SCOPE_B, body: { packet } })
    .then(expectResponse(404, { code: 'not_found_in_scope' }), expectNewEvents([{ kind: 'access.logged', tenant_id: SCOPE_B.tenant_id }]));
  await spec(t, app, 'verify in its scope').when('/v1/signatures/verify', { body: { packet } }).then(expectResponse(200, { ok: true }), expectNoEvents());
  // A status move is logged as changed, in the move's unit; a packet the scope lacks is a denial.
  await spec(t, app, 'status move').when(`/v1/proof-packets/${packet.packet_id}/status`, { body: { status: 'final' } }).then(
    expectResponse(201, { packet_status: 'final' }),
    expectNewEvents([
      { kind: 'proof_packet.receipted' }, { kind: 'proof_packet.status_changed' }, { kind: 'proof_packet.assembled' },
      { kind: 'access.logged', payload: { action: 'changed', outcome: 'allowed', resource: { type: 'proof_packet', id: packet.packet_id }, route: { method: 'POST', path_template: '/v1/proof-packets/{packet_id}/status' }, status: 201, ip_class: 'unknown' } },
    ]),
  );
  await spec(t, app, 'status move from tenant B').when(`/v1/proof-packets/${packet.packet_id}/status`, { scope: SCOPE_B, body: { status: 'revoked', reason: 'Not ours.' } })
    .then(expectResponse(404, { code: 'not_found' }), expectNewEvents([{ kind: 'access.logged', tenant_id: SCOPE_B.tenant_id }]));
});

t.test('confusion guard: another tenant or workspace is blocked, nothing assembled, access logged', async (t) => {
  const app = await seeded(t);
  const { call, service } = app;
  await service.store.settled();
  const ownBefore = service.queries.eventsOfKind(SCOPE_A, 'access.logged');
  // Tenant B and workspace ws-2 of tenant A each ask about tenant A's task-1.
  for (const scope of [SCOPE_B, { ...SCOPE_A, workspace_id: 'ws-2' }]) {
    for (const [path, body] of [['/v1/proof-packets', { task_ids: ['task-1'] }], ['/v1/claim-boundaries/evaluate', { task_ids: ['task-1'], claims: [{ claim: 'It ran.' }] }]] as const) {
      // Only the access log entry is appended, in the caller's scope.
      await spec(t, app, `${scope.tenant_id}/${scope.workspace_id} ${path}`).when(path, { scope, body })
        .then(expectResponse(404, { code: 'not_found_in_scope' }), expectNewEvents([{ kind: 'access.logged', tenant_id: scope.tenant_id, workspace_id: scope.workspace_id }]));
    }
    // The index follows the log in the background: wait for it before reading it directly.
    await service.store.settled();
    const denied = service.queries.eventsOfKind(scope, 'access.logged');
    t.equal(denied.length, 2, 'two denials logged in the caller scope');
    t.match(denied[0]!.payload, { action: 'attempted', outcome: 'denied', reason_code: 'not_found_in_scope', resource: { type: 'task', id: 'task-1' } });
    t.same(service.queries.eventsOfKind(scope, 'proof_packet.assembled'), []);
  }
  t.same(service.queries.eventsOfKind(SCOPE_A, 'access.logged'), ownBefore, 'nothing leaked into the owner scope');
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

t.test('as_of is an instant: a second-precision as_of between millisecond events answers 201', async (t) => {
  // Every event lands at .598 of a second: "…:02Z" sorts after "…:02.598Z" as a string.
  const { call } = await testApp(t, { clock: fixedClock(Date.parse('2026-11-01T10:00:00.598Z')) });
  const created = (await call('/v1/tasks', { body: { task_id: 'task-1', title: 'Publish the audit trail export', session_id: 'sess-1' } })).json.event;
  const later = (await call('/v1/tasks/task-1/checkpoints', { body: { progress: 'Export job ran' } })).json.event;
  t.match(later.recorded_at, /\.598Z$/);
  const asOf = `${later.recorded_at.slice(0, 19)}Z`;
  for (const [path, body] of [['/v1/proof-packets', { task_ids: ['task-1'], as_of: asOf }], ['/v1/claim-boundaries/evaluate', { task_ids: ['task-1'], as_of: asOf, claims: [{ claim: 'It ran.' }] }]] as const) {
    const res = await call(path, { body });
    t.equal(res.status, path === '/v1/proof-packets' ? 201 : 200, `${path}: ${res.text}`);
  }
  const packet = (await call('/v1/proof-packets', { body: { task_ids: ['task-1'], as_of: asOf } })).json;
  t.same(packet.event_range, { first_event_id: created.event_id, last_event_id: created.event_id, event_count: 1 }, 'the later event is outside');
  t.equal(packet.assembled_at, `${asOf.slice(0, 19)}.000Z`, 'as_of written back in the normal form');
});

t.test('as_of with an offset, later than every event, covers every event', async (t) => {
  const { call } = await seeded(t);
  // The same instant as AS_OF plus a millisecond, spelled at -12:00 with nine fraction digits.
  const instant = new Date(Date.parse(AS_OF) + 1);
  const local = new Date(instant.getTime() - 12 * 3_600_000).toISOString().slice(0, 23);
  const asOf = `${local}000000-12:00`.replace('T', 't');
  const packet = await call('/v1/proof-packets', { body: { task_ids: ['task-1'], as_of: asOf } });
  t.equal(packet.status, 201, packet.text);
  t.equal(packet.json.event_range.event_count, 4, 'every event of the task (the review of run-1 included)');
  for (const at of [packet.json.assembled_at, packet.json.claim_boundary.evaluated_at, packet.json.redaction_manifest.applied_at]) t.equal(at, instant.toISOString());
  const decision = await call('/v1/claim-boundaries/evaluate', { body: { task_ids: ['task-1'], as_of: asOf, claims: [{ claim: 'The export job ran.', evidence: ['run-1'] }] } });
  t.equal(decision.status, 200, decision.text);
  t.equal(decision.json.evaluated_at, instant.toISOString());
  t.same(decision.json.results.map((r: any) => r.confidence), ['verified'], 'the evidence recorded before as_of counts');
});

t.test('as_of later than the server clock is 422 as_of_in_future, and nothing is written', async (t) => {
  const app = await seeded(t);
  for (const asOf of ['2030-01-01T00:00:00.000Z', '2026-11-02T00:00:00+00:00']) {
    for (const [path, body] of [['/v1/proof-packets', { task_ids: ['task-1'], as_of: asOf }], ['/v1/claim-boundaries/evaluate', { task_ids: ['task-1'], as_of: asOf, claims: [{ claim: 'It ran.' }] }]] as const) {
      // A problem body: the spec checks it against api/problem.json.
      await spec(t, app, `${path} ${asOf}`).when(path, { body }).then(expectResponse(422, { code: 'as_of_in_future' }), expectNoEvents());
    }
  }
  // The packet template's gate refuses it: its validation body, as POST /v1/templates/validate answers.
  await spec(t, app, 'a space for T is not RFC 3339').when('/v1/proof-packets', { body: { task_ids: ['task-1'], as_of: '2026-11-01 10:00:00Z' } })
    .then(expectResponse(422, { ok: false, template_id: 'proof_packet.assemble.v1' }), expectNoEvents());
  // Checked before the scope guard: an out-of-scope request with a future as_of logs no access either.
  await spec(t, app, 'out of scope, future as_of').when('/v1/proof-packets', { scope: SCOPE_B, body: { task_ids: ['task-1'], as_of: '2030-01-01T00:00:00Z' } })
    .then(expectResponse(422, { code: 'as_of_in_future' }), expectNoEvents());
});

t.test('as_of before every event of the tasks is 422 empty_snapshot for claims as for packets, and nothing is written', async (t) => {
  const app = await seeded(t);
  const before = new Date(Date.parse(AS_OF) - 86_400_000).toISOString();
  for (const [path, body] of [['/v1/proof-packets', { task_ids: ['task-1'], as_of: before }], ['/v1/claim-boundaries/evaluate', { task_ids: ['task-1'], as_of: before, claims: [{ claim: 'It ran.', evidence: ['run-1'] }] }]] as const) {
    await spec(t, app, `${path} before the task`).when(path, { body }).then(expectResponse(422, { code: 'empty_snapshot' }), expectNoEvents());
  }
});

t.test('the same request with the same past as_of stays byte-identical, whatever happens between', async (t) => {
  const { call } = await seeded(t);
  const body = { task_ids: ['task-1'], as_of: AS_OF, claims: [{ claim: 'The export job ran.', evidence: ['run-1'] }] };
  const first = await call('/v1/proof-packets', { body });
  t.equal(first.status, 201);
  // Other writes after as_of: a checkpoint, a claim evaluation, a denied attempt about the task
  // (an access.logged in this scope), and packets of other as_of values (more access.logged).
  await call('/v1/tasks/task-1/checkpoints', { body: { progress: 'later work', evidence_refs: [ref('run-2')] } });
  await call('/v1/claim-boundaries/evaluate', { body: { task_ids: ['task-1'], claims: [{ claim: 'It ran.' }] } });
  t.equal((await call('/v1/proof-packets', { body: { task_ids: ['task-1'], session_ids: ['sess-of-b'] } })).status, 404);
  t.equal((await call('/v1/proof-packets', { body: { task_ids: ['task-1'] } })).status, 201);
  const second = await call('/v1/proof-packets', { body });
  await call('/v1/tasks/task-1/checkpoints', { body: { progress: 'more later work' } });
  const third = await call('/v1/proof-packets', { body });
  // The same instant in another spelling is the same request.
  const spelled = await call('/v1/proof-packets', { body: { ...body, as_of: AS_OF.replace(/\.(\d{3})Z$/, '.$1999+00:00') } });
  for (const [name, res] of [['second', second], ['third', third], ['another spelling', spelled]] as const) {
    t.equal(res.status, 201, name);
    t.equal(res.text, first.text, `${name}: the same JSON text`);
    t.equal(res.json.integrity.packet_sha256, first.json.integrity.packet_sha256, `${name}: the same packet_sha256`);
  }
  const fetched = await call(`/v1/proof-packets/${first.json.packet_id}`);
  t.equal(fetched.status, 200);
  t.equal(fetched.text, first.text, 'GET answers the same bytes');
});

t.test('a packet id names one content: with a clock that stands still, each assembly at now differs and so does its id', async (t) => {
  // A frozen clock: every event, and each assembly's own access.logged, is recorded at as_of, so
  // each later assembly at that as_of lists one more access log entry.
  const now = new Date('2026-11-01T10:00:00.000Z');
  const { call } = await testApp(t, { clock: () => new Date(now) });
  await call('/v1/tasks', { body: { task_id: 'task-1', title: 'Publish the audit trail export', session_id: 'sess-1' } });
  const body = { task_ids: ['task-1'], as_of: now.toISOString() };
  const packets = [];
  for (let i = 0; i < 3; i++) {
    const res = await call('/v1/proof-packets', { body });
    t.equal(res.status, 201);
    packets.push(res);
  }
  t.same(packets.map((p) => p.json.access_log_ids.length), [0, 1, 2], 'each assembly lists the ones before');
  t.equal(new Set(packets.map((p) => p.json.packet_id)).size, 3, 'three contents, three ids');
  t.equal(new Set(packets.map((p) => p.json.integrity.packet_sha256)).size, 3);
  for (const p of packets) t.equal((await call(`/v1/proof-packets/${p.json.packet_id}`)).text, p.text, 'GET answers each as assembled');
});

t.test('a packet lists each access entry about its tasks once, and none about other tasks', async (t) => {
  // A frozen clock, so every entry is recorded at as_of: exports of task-1, of task-2, of both.
  const now = new Date('2026-11-01T10:00:00.000Z');
  const { call, service } = await testApp(t, { clock: () => new Date(now) });
  for (const id of ['task-1', 'task-2', 'task-3']) await call('/v1/tasks', { body: { task_id: id, title: `Publish the audit trail export ${id}`, session_id: 'sess-1' } });
  const packet = async (taskIds: string[]) => {
    const res = await call('/v1/proof-packets', { body: { task_ids: taskIds, as_of: now.toISOString() } });
    t.equal(res.status, 201);
    return res.json as { packet_id: string; access_log_ids: string[] };
  };
  await packet(['task-1']);
  await packet(['task-2']);
  await packet(['task-1', 'task-2']);
  await packet(['task-3']);
  const got = await packet(['task-2', 'task-1']);
  // The entries of the scope that name task-1 or task-2, as the whole access log says (the oracle).
  const oracle = service.queries.eventsOfKind(SCOPE_A, 'access.logged')
    .filter((e) => ((e.payload.task_ids as string[] | undefined) ?? []).some((id) => id === 'task-1' || id === 'task-2'))
    .map((e) => e.event_id);
  t.equal(oracle.length, 3, 'three exports named task-1 or task-2 before this one');
  t.same(got.access_log_ids, oracle, 'each once, in log order; the export of task-3 is not among them');
});

t.test('placeholder claims and non-claims are refused with the validation body; real ones pass', async (t) => {
  const { call } = await seeded(t);
  for (const [what, body, pointer, token] of [
    ['a non-claim TBD', { non_claims: ['TBD'] }, '/non_claims/0', 'TBD'],
    ['a non-claim n/a after a real one', { non_claims: ['The export was not load-tested.', 'n/a'] }, '/non_claims/1', 'n/a'],
    ['filler text in a non-claim', { non_claims: ['lorem ipsum dolor sit amet'] }, '/non_claims/0', 'lorem ipsum'],
    ['a claim TODO', { claims: [{ claim: 'TODO' }] }, '/claims/0/claim', 'TODO'],
    ['a claim that opens with TBD', { claims: [{ claim: 'The export job ran' }, { claim: 'TBD: the audit' }] }, '/claims/1/claim', 'TBD'],
  ] as const) {
    const res = await call('/v1/proof-packets', { body: { task_ids: ['task-1'], as_of: AS_OF, ...body } });
    t.equal(res.status, 422, `${what}: ${res.text.slice(0, 200)}`);
    t.equal(res.json.ok, false);
    t.match(res.json.blockers, [{ code: 'placeholder_text', pointer }], `${what}: at ${pointer}`);
    t.match(res.json.blockers[0].detail, token, `${what}: names ${token}`);
    const validated = await call('/v1/templates/validate', { body: { template_id: 'proof_packet.assemble.v1', payload: { task_ids: ['task-1'], ...body } } });
    t.match(validated.json, { ok: false, blockers: [{ code: 'placeholder_text', pointer }] }, `${what}: validate says the same`);
  }
  const real = await call('/v1/proof-packets', { body: { task_ids: ['task-1'], as_of: AS_OF, non_claims: ['The todo-list sync was not part of this task.'], claims: [{ claim: 'The export job ran' }] } });
  t.equal(real.status, 201, real.text.slice(0, 300));
});

t.test('after the clock goes back, a packet of what was just recorded still assembles', async (t) => {
  let now = Date.parse('2026-11-20T12:00:00.000Z');
  const { call } = await testApp(t, { clock: () => new Date(now) });
  t.equal((await call('/v1/tasks', { body: { task_id: 'before', title: 'Work before the clock moved', session_id: 'sess-1' } })).status, 201);
  // The clock is set back ten minutes (an NTP step): new events keep the last recorded_at until it catches up.
  now -= 10 * 60_000;
  const created = await call('/v1/tasks', { body: { task_id: 'after', title: 'Work after the clock moved', session_id: 'sess-1' } });
  t.equal(created.status, 201);
  const recordedAt = created.json.event.recorded_at;
  t.equal(recordedAt, '2026-11-20T12:00:00.000Z', 'recorded_at never goes back');
  const byDefault = await call('/v1/proof-packets', { body: { task_ids: ['after'] } });
  t.equal(byDefault.status, 201, `as of now, the new task is in the snapshot: ${byDefault.text.slice(0, 200)}`);
  t.equal(byDefault.json.assembled_at, recordedAt, 'now is the last recorded instant while the clock is behind it');
  const named = await call('/v1/proof-packets', { body: { task_ids: ['after'], as_of: recordedAt } });
  t.equal(named.status, 201, `an as_of at the event's own recorded_at is not in the future: ${named.text.slice(0, 200)}`);
  const later = await call('/v1/proof-packets', { body: { task_ids: ['after'], as_of: '2026-11-20T12:00:00.001Z' } });
  t.same([later.status, later.json.code], [422, 'as_of_in_future'], 'past both the clock and the log is still the future');
});
