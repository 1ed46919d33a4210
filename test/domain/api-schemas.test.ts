// The API and event payload schemas around claim boundaries and packets: a valid sample of each
// passes, an unknown member fails at its pointer, and the rules that matter to clients hold.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { generateKeyPairSync } from 'node:crypto';
import { loadSchemaRegistry } from '../../src/schema-registry.ts';
import { attestPacket } from '../../src/domain/dsse.ts';
import { verifyPacket } from '../../src/domain/packet-verify.ts';
import { CLAIM_BOUNDARY_NON_CLAIMS } from '../../src/domain/claim-boundary.ts';

const registry = loadSchemaRegistry('schemas');
const packet = JSON.parse(readFileSync('test/fixtures/packet-valid.json', 'utf8')) as Record<string, unknown>;
const H = 'ab'.repeat(32);
const decision = {
  decision_id: 'cbd_1', engine_version: 'cb-1', evaluated_at: '2025-01-15T00:00:00Z',
  summary: { verified: 1, claimed: 0, inferred: 0, stale: 0, missing: 0, blocked: 0, not_claimed: 0 },
  blocked_claims: [], results: [{ claim: 'Build 42 passed.', confidence: 'verified', reason: 'Cited evidence is verified.' }],
  non_claims: [...CLAIM_BOUNDARY_NON_CLAIMS],
};
const evaluateRequest = { task_ids: ['task-1'], claims: [{ claim: 'Build 42 passed.', evidence: ['art-1'], depends_on: [1], kind: 'assertion' }], as_of: '2025-01-15T00:00:00Z', stale_after_days: 30 };
const receiptedEvent = {
  schema_version: 'service.event.v1', event_id: 'evt_r', seq: 9, kind: 'proof_packet.receipted', tenant_id: 'ten-a', workspace_id: 'ws-1',
  project_id: 'prj-1', transport: 'customer', recorded_at: '2025-01-15T00:00:00Z', idempotency_key: null, request_sha256: null,
  payload: { packet_sha256: `sha256:${H}` }, prev_hash: `sha256:${H}`, event_hash: `sha256:${H}`,
};
const check = { status: 'pass', detail: 'recomputed' };

const samples: [string, Record<string, unknown>, string][] = [
  ['api/claim-evaluate-request.json', evaluateRequest, '/claims/0'],
  ['api/claim-decision.json', decision, '/results/0'],
  ['api/proof-packet-request.json', { task_ids: ['task-1'], session_ids: ['s-1'], claims: evaluateRequest.claims, integrity_class: 'signed', signature_alg: 'hmac-sha256', packet_status: 'final', non_claims: ['x'], as_of: '2025-01-15T00:00:00Z' }, ''],
  ['api/receipt.json', { receipt_id: 'evt_r', packet_sha256: `sha256:${H}`, event: receiptedEvent, log_index: 8, inclusion_proof: [H], checkpoint: 'gov.local/log\n9\nAAAA\n\n— gov.local/log sig\n' }, '/event'],
  ['api/signature-verify-request.json', { packet }, ''],
  ['api/signature-verify-response.json', { ok: true, checks: { packet_hash: check, signature: check, hash_chain: { status: 'skipped', detail: 'no events' }, receipt: { status: 'fail', code: 'receipt_mismatch', detail: 'x' } }, non_claims: ['x'] }, '/checks/packet_hash'],
  ['api/keys.json', { keys: [{ key_id: 'ed25519:0011', alg: 'ed25519', public_key_pem: '-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA\n-----END PUBLIC KEY-----\n' }] }, '/keys/0'],
  ['api/attestation.json', { payloadType: 'application/vnd.in-toto+json', payload: 'eyJ9', signatures: [{ keyid: 'ed25519:0011', sig: 'c2ln' }] }, '/signatures/0'],
  ['events/claim-boundary-evaluated.json', { request: evaluateRequest, as_of: '2025-01-15T00:00:00Z', stale_after_days: 30, decision }, '/decision'],
  ['events/proof-packet-assembled.json', { packet, redaction_actions: [{ artifact_id: 'art-1', field: 'uri', rule: 'secret_param' }] }, '/redaction_actions/0'],
  ['events/proof-packet-receipted.json', { packet_sha256: `sha256:${H}` }, ''],
  ['events/access-logged.json', { action: 'attempted', outcome: 'denied', resource: { type: 'proof_packet', id: 'task-9' }, code: 'not_found_in_scope', reason: 'Names a task outside the caller scope.', task_ids: ['task-9'], session_ids: ['s-1'] }, '/resource'],
];

type Obj = Record<string, unknown>;
function at(root: Obj, pointer: string): Obj {
  let node: unknown = root;
  for (const k of pointer.split('/').slice(1)) node = (node as Obj)[k];
  return node as Obj;
}

t.test('each sample is valid; an unknown member fails at the root and one level down', async (t) => {
  for (const [schema, sample, inner] of samples) {
    t.same(registry.validate(schema, sample), [], `${schema} sample`);
    for (const pointer of new Set(['', inner])) {
      const broken = structuredClone(sample);
      at(broken, pointer).surplus = 1;
      t.ok(registry.validate(schema, broken).some((e) => e.pointer === `${pointer}/surplus`), `${schema}: unknown member under ${pointer || '(root)'}`);
    }
  }
});

t.test('rules clients rely on', async (t) => {
  const fails = (schema: string, value: unknown, pointer: string, name: string) =>
    t.ok(registry.validate(schema, value).some((e) => e.pointer === pointer), name);
  fails('api/claim-evaluate-request.json', { task_ids: ['task-1'], claims: [{ claim: 'x'.repeat(301) }] }, '/claims/0/claim', 'claim text over 300');
  fails('api/claim-evaluate-request.json', { task_ids: ['task-1'], claims: [{ claim: 'x', depends_on: [-1] }] }, '/claims/0/depends_on/0', 'negative depends_on');
  fails('api/claim-evaluate-request.json', { task_ids: ['task-1'], claims: [{ claim: 'x', kind: 'opinion' }] }, '/claims/0/kind', 'unknown claim kind');
  fails('api/claim-evaluate-request.json', { task_ids: [], claims: [] }, '/task_ids', 'empty task_ids');
  fails('api/claim-decision.json', { ...decision, non_claims: [] }, '/non_claims', 'a decision always carries a non-claim');
  fails('api/claim-decision.json', { ...decision, results: [{ ...decision.results[0], confidence: 'probable' }] }, '/results/0/confidence', 'confidence enum');
  fails('api/proof-packet-request.json', { task_ids: ['t1'], packet_status: 'exported' }, '/packet_status', 'a request may only ask for draft or final');
  fails('api/proof-packet-request.json', { task_ids: ['t1', 't1'] }, '/task_ids', 'duplicate task_ids');
  fails('api/keys.json', { keys: [{ key_id: 'hm-1', alg: 'hmac-sha256', public_key_pem: '-----BEGIN PUBLIC KEY-----\nAA==\n-----END PUBLIC KEY-----\n' }] }, '/keys/0/alg', 'no HMAC key is ever served');
  fails('api/keys.json', { keys: [{ key_id: 'k-1', alg: 'ed25519', public_key_pem: '-----BEGIN PRIVATE KEY-----\nAA==\n-----END PRIVATE KEY-----\n' }] }, '/keys/0/public_key_pem', 'a private key PEM is refused');
  fails('api/attestation.json', { payloadType: 'application/json', payload: 'eyJ9', signatures: [{ keyid: 'k', sig: 'c2ln' }] }, '/payloadType', 'in-toto payload type only');
  fails('api/attestation.json', { payloadType: 'application/vnd.in-toto+json', payload: 'eyJ9', signatures: [] }, '/signatures', 'at least one signature');
  fails('api/signature-verify-response.json', { ok: true, checks: { packet_hash: check, signature: check, hash_chain: check, receipt: { status: 'unknown', detail: 'x' } }, non_claims: ['x'] }, '/checks/receipt/status', 'check status enum');
  fails('api/receipt.json', { receipt_id: 'evt_r', packet_sha256: `sha256:${H}`, event: { ...receiptedEvent, kind: 'task.closed' }, log_index: 8, inclusion_proof: [], checkpoint: 'c' }, '/event/kind', 'the receipt event is a proof_packet.receipted');
  fails('api/receipt.json', { receipt_id: 'evt_r', packet_sha256: `sha256:${H}`, event: receiptedEvent, log_index: -1, inclusion_proof: [H.toUpperCase()], checkpoint: 'c' }, '/inclusion_proof/0', 'audit path is lower-case hex');
  fails('events/access-logged.json', { action: 'denied', outcome: 'denied', resource: { type: 'task', id: 'task-1' } }, '/action', 'denied is an outcome, not an action');
  fails('events/access-logged.json', { action: 'viewed', outcome: 'maybe', resource: { type: 'task', id: 'task-1' } }, '/outcome', 'outcome enum');
  fails('events/access-logged.json', { action: 'viewed', outcome: 'allowed', resource: { type: 'Task', id: 'task-1' } }, '/resource/type', 'resource type is snake_case');
  fails('events/proof-packet-assembled.json', { packet: { ...packet, packet_status: 'lost' }, redaction_actions: [] }, '/packet/packet_status', 'the stored packet is a valid packet');
  for (const action of ['viewed', 'exported', 'approved', 'changed', 'attempted']) {
    t.same(registry.validate('events/access-logged.json', { action, outcome: 'allowed', resource: { type: 'task', id: 'task-1' } }), [], `action ${action}`);
  }
});

t.test('what the sibling modules emit fits these schemas', async (t) => {
  const { privateKey } = generateKeyPairSync('ed25519');
  t.same(registry.validate('api/attestation.json', attestPacket(packet, { keyid: 'ed25519:0011', privateKey })), [], 'attestPacket output');
  const verification = verifyPacket({ packet, keys: [] });
  t.same(registry.validate('api/signature-verify-response.json', { ...verification, non_claims: [...CLAIM_BOUNDARY_NON_CLAIMS] }), [], 'verifyPacket output plus non_claims');
});
