// The packet verifier: every integrity class and algorithm passes, and each tampered field fails
// exactly the checks that cover it, with their codes (the sigstore habit: start valid, break one).
import t from 'tap';
import { eventHash } from '../../src/domain/event-hash.ts';
import { formatCheckpoint, signNote } from '../../src/domain/signed-note.ts';
import { verifyPacket, type CheckName, type PacketVerification } from '../../src/domain/packet-verify.ts';
import { LOG_ORIGIN, logKey, otherKey } from '../fixtures/proof-keys.ts';
import { proofScenario, type IntegrityClass, type Scenario } from '../fixtures/proof-packet.ts';

type Expect = Partial<Record<CheckName, string>>;
type Asserts = Pick<typeof t, 'same' | 'equal'>;
const CHECKS: CheckName[] = ['packet_hash', 'signature', 'hash_chain', 'receipt'];
const BASELINE: Record<IntegrityClass, Record<CheckName, 'pass' | 'skipped'>> = {
  hash_bound: { packet_hash: 'pass', signature: 'skipped', hash_chain: 'pass', receipt: 'skipped' },
  signed: { packet_hash: 'pass', signature: 'pass', hash_chain: 'pass', receipt: 'skipped' },
  signed_and_receipted: { packet_hash: 'pass', signature: 'pass', hash_chain: 'pass', receipt: 'pass' },
};

/** Every check has the baseline status except the failing ones, which carry the expected codes. */
function assertOutcome(t: Asserts, result: PacketVerification, cls: IntegrityClass, failing: Expect, name: string) {
  const got = Object.fromEntries(CHECKS.map((c) => [c, result.checks[c].status === 'fail' ? `fail:${result.checks[c].code}` : result.checks[c].status]));
  const want = Object.fromEntries(CHECKS.map((c) => [c, failing[c] ? `fail:${failing[c]}` : BASELINE[cls][c]]));
  t.same(got, want, name);
  t.equal(result.ok, Object.keys(failing).length === 0, `${name}: ok`);
}

t.test('valid packets of every class and algorithm', async (t) => {
  const cases: [IntegrityClass, 'ed25519' | 'ecdsa-p256-sha256' | 'hmac-sha256'][] = [
    ['hash_bound', 'ed25519'], ['signed', 'ed25519'], ['signed', 'ecdsa-p256-sha256'], ['signed', 'hmac-sha256'],
    ['signed_and_receipted', 'ed25519'], ['signed_and_receipted', 'ecdsa-p256-sha256'], ['signed_and_receipted', 'hmac-sha256'],
  ];
  for (const [cls, alg] of cases) {
    const result = verifyPacket(proofScenario(cls, alg));
    assertOutcome(t, result, cls, {}, `${cls} ${alg}`);
    for (const c of CHECKS) t.type(result.checks[c].detail, 'string');
  }
  const shuffled = proofScenario('signed');
  shuffled.events.reverse();
  assertOutcome(t, verifyPacket(shuffled), 'signed', {}, 'events in any order');
  const { events: _events, ...noTimeline } = proofScenario('signed');
  const unchecked = verifyPacket(noTimeline);
  t.equal(unchecked.checks.hash_chain.status, 'skipped', 'no timeline given: hash_chain skipped');
  t.equal(unchecked.ok, true);
  // A stranger holding only the packet and the keys: the receipt is not checked, and nothing failed.
  const { receipt: _receipt, ...noReceipt } = proofScenario('signed_and_receipted');
  const unreceipted = verifyPacket(noReceipt);
  t.match(unreceipted.checks.receipt, { status: 'skipped', detail: /^the receipt evt_receipt was not given$/ }, 'no receipt given: receipt skipped');
  t.equal(unreceipted.ok, true);
  // A timeline given is all there is: one without the packet's events fails the chain.
  const noEvents = verifyPacket({ ...proofScenario('signed'), events: [] });
  t.match(noEvents.checks.hash_chain, { status: 'fail', code: 'event_range_mismatch' }, 'an empty timeline: the packet names events that are not there');
  t.equal(noEvents.ok, false);
});

const rehash = (e: Scenario['events'][number]) => Object.assign(e, { event_hash: eventHash({ ...e }) });
const taskA = (s: Scenario) => s.events.filter((e) => e.task_id === 'task-a');
const flipHex = (h: string) => (h[0] === '0' ? '1' : '0') + h.slice(1);

const tampers: [string, IntegrityClass, (s: Scenario) => void, Expect][] = [
  ['packet member changed', 'signed_and_receipted', (s) => { s.packet.packet_status = 'draft'; }, { packet_hash: 'packet_hash_mismatch' }],
  ['non_claims changed', 'signed', (s) => { s.packet.non_claims.push('more'); }, { packet_hash: 'packet_hash_mismatch' }],
  ['member added', 'hash_bound', (s) => { s.packet.note = 'x'; }, { packet_hash: 'packet_hash_mismatch' }],
  ['top-level receipt_id changed (not hashed)', 'signed_and_receipted', (s) => { s.packet.receipt_id = 'evt_9'; }, { receipt: 'receipt_id_mismatch' }],
  ['hash_chain_root changed', 'signed', (s) => { s.packet.hash_chain_root = `sha256:${'0'.repeat(64)}`; },
    { packet_hash: 'packet_hash_mismatch', hash_chain: 'hash_chain_root_mismatch' }],
  ['canonicalization changed', 'signed', (s) => { s.packet.integrity.canonicalization = 'jcs'; }, { packet_hash: 'unsupported_canonicalization' }],
  ['integrity.packet_sha256 changed', 'signed_and_receipted', (s) => { s.packet.integrity.packet_sha256 = `sha256:${'1'.repeat(64)}`; },
    { packet_hash: 'packet_hash_mismatch', signature: 'signature_invalid', receipt: 'receipt_event_mismatch' }],
  ['signature changed', 'signed', (s) => { s.packet.integrity.signature.value = flipHex(s.packet.integrity.signature.value); }, { signature: 'signature_invalid' }],
  // ECDSA signatures differ from run to run: the first character is replaced by another one, never by itself.
  ['signature changed (ecdsa)', 'signed', (s) => { const v = s.packet.integrity.signature.value; s.packet.integrity.signature.value = `${v.startsWith('A') ? 'B' : 'A'}${v.slice(1)}`; }, { signature: 'signature_invalid' }],
  ['signature removed', 'signed', (s) => { delete s.packet.integrity.signature; }, { signature: 'signature_missing' }],
  ['unknown key id', 'signed', (s) => { s.packet.integrity.key_id = 'ed25519:0000000000000000'; }, { signature: 'unknown_key' }],
  ['alg not that of the key', 'signed', (s) => { s.packet.integrity.signature.alg = 'ecdsa-p256-sha256'; }, { signature: 'key_alg_mismatch' }],
  ['public key replaced', 'signed', (s) => { s.keys = s.keys.map((k) => ({ ...k, public_key_pem: k.alg === 'ed25519' ? otherKey.publicKey.export({ type: 'spki', format: 'pem' }).toString() : k.public_key_pem })); }, { signature: 'signature_invalid' }],
  ['hmac secret not available', 'signed', (s) => { s.packet.integrity.signature.alg = 'hmac-sha256'; delete s.hmacSecret; }, { signature: 'unknown_key' }],
  ['an event removed', 'signed', (s) => { s.events.splice(s.events.indexOf(taskA(s)[2]!), 1); }, { hash_chain: 'event_count_mismatch' }],
  ['the first event removed', 'signed', (s) => { s.events.splice(0, 1); }, { hash_chain: 'event_range_mismatch' }],
  ['an event payload changed', 'signed', (s) => { taskA(s)[1]!.payload = { progress: 'rewritten' }; }, { hash_chain: 'event_hash_mismatch' }],
  ['an event rewritten and rehashed', 'signed', (s) => { rehash(Object.assign(taskA(s)[0]!, { payload: { progress: 'x' } })); }, { hash_chain: 'prev_hash_mismatch' }],
  ['the last event rewritten and rehashed', 'signed', (s) => { rehash(Object.assign(taskA(s).at(-1)!, { payload: { progress: 'x' } })); }, { hash_chain: 'hash_chain_root_mismatch' }],
  ['an event duplicated', 'signed', (s) => { s.events.push({ ...taskA(s)[0]! }); }, { hash_chain: 'duplicate_seq' }],
  ['receipt not in the log', 'signed_and_receipted', (s) => { s.receipt = null; }, { receipt: 'receipt_missing' }],
  ['receipt id changed', 'signed_and_receipted', (s) => { s.receipt!.receipt_id = 'evt_other'; }, { receipt: 'receipt_id_mismatch' }],
  ['receipt event changed', 'signed_and_receipted', (s) => { s.receipt!.event = { ...s.receipt!.event, recorded_at: '2030-01-01T00:00:00Z' }; }, { receipt: 'receipt_event_hash_mismatch' }],
  ['receipt event of another packet', 'signed_and_receipted', (s) => { s.receipt!.event = rehash({ ...s.receipt!.event, payload: { packet_sha256: `sha256:${'2'.repeat(64)}` } }); }, { receipt: 'receipt_event_mismatch' }],
  ['receipt event of another kind', 'signed_and_receipted', (s) => { s.receipt!.event = rehash({ ...s.receipt!.event, kind: 'proof_packet.assembled' }); }, { receipt: 'receipt_event_mismatch' }],
  ['inclusion proof changed', 'signed_and_receipted', (s) => { s.receipt!.inclusion_proof[0] = flipHex(s.receipt!.inclusion_proof[0]!); }, { receipt: 'inclusion_proof_invalid' }],
  ['inclusion proof shortened', 'signed_and_receipted', (s) => { s.receipt!.inclusion_proof.pop(); }, { receipt: 'inclusion_proof_invalid' }],
  ['inclusion proof in upper case', 'signed_and_receipted', (s) => { s.receipt!.inclusion_proof[0] = s.receipt!.inclusion_proof[0]!.toUpperCase(); }, { receipt: 'inclusion_proof_invalid' }],
  ['log index changed', 'signed_and_receipted', (s) => { s.receipt!.log_index += 1; }, { receipt: 'inclusion_proof_invalid' }],
  ['checkpoint note changed', 'signed_and_receipted', (s) => { s.receipt!.checkpoint = s.receipt!.checkpoint.replace('\n12\n', '\n13\n'); }, { receipt: 'checkpoint_invalid' }],
  ['checkpoint re-signed over another root', 'signed_and_receipted', (s) => {
    s.receipt!.checkpoint = signNote(formatCheckpoint({ origin: LOG_ORIGIN, size: 12, rootHash: Buffer.alloc(32, 9) }), { name: LOG_ORIGIN, ...logKey });
  }, { receipt: 'inclusion_proof_invalid' }],
  ['checkpoint signed by another key', 'signed_and_receipted', (s) => {
    s.receipt!.checkpoint = signNote(s.receipt!.checkpoint.slice(0, s.receipt!.checkpoint.indexOf('\n\n') + 1), { name: LOG_ORIGIN, ...otherKey });
  }, { receipt: 'checkpoint_invalid' }],
  ['log key replaced', 'signed_and_receipted', (s) => { s.log = { ...s.log!, publicKey: otherKey.publicKey }; }, { receipt: 'checkpoint_invalid' }],
  ['log origin differs', 'signed_and_receipted', (s) => { s.log = { ...s.log!, origin: 'gov.local/elsewhere', name: LOG_ORIGIN }; }, { receipt: 'checkpoint_invalid' }],
  ['log key missing', 'signed_and_receipted', (s) => { delete s.log; }, { receipt: 'log_key_missing' }],
  ['the two receipt ids disagree, no receipt given', 'signed_and_receipted', (s) => { delete s.receipt; s.packet.receipt_id = 'evt_9'; }, { receipt: 'receipt_id_mismatch' }],
  ['a receipt_id added to a signed packet (not hashed)', 'signed', (s) => { s.packet.receipt_id = 'evt_9'; }, { receipt: 'receipt_id_mismatch' }],
  ['a receipt shown on a signed packet that the log lacks', 'signed', (s) => { s.packet.receipt_id = 'evt_9'; s.packet.integrity.receipt_id = 'evt_9'; s.receipt = null; }, { receipt: 'receipt_missing' }],
  ['a made-up signature shown on a hash_bound packet', 'hash_bound', (s) => {
    s.packet.integrity.key_id = s.keys.find((k) => k.alg === 'ed25519')!.key_id;
    s.packet.integrity.signature = { alg: 'ed25519', value: 'A'.repeat(86) };
  }, { signature: 'signature_invalid' }],
  ['a signature under no key shown on a hash_bound packet', 'hash_bound', (s) => { s.packet.integrity.signature = { alg: 'ed25519', value: 'A'.repeat(86) }; }, { signature: 'unknown_key' }],
];

t.test('each tampered field fails exactly the checks that cover it', async (t) => {
  for (const [name, cls, tamper, failing] of tampers) {
    const scenario = proofScenario(cls, name.includes('ecdsa') ? 'ecdsa-p256-sha256' : 'ed25519');
    tamper(scenario);
    assertOutcome(t, verifyPacket(scenario), cls, failing, name);
  }
});

t.test('what a packet shows beyond its class is checked, and passes when it holds', async (t) => {
  // integrity lies outside packet_sha256: a signed packet relabelled hash_bound keeps a good signature.
  const relabelled = proofScenario('signed');
  relabelled.packet.integrity.integrity_class = 'hash_bound';
  const signed = verifyPacket(relabelled);
  t.match(signed.checks.signature, { status: 'pass' }, 'the signature a hash_bound packet shows is verified');
  t.equal(signed.ok, true);
  // A receipted packet relabelled signed keeps its receipt, which is checked when given.
  const receipted = proofScenario('signed_and_receipted');
  receipted.packet.integrity.integrity_class = 'signed';
  t.match(verifyPacket(receipted).checks.receipt, { status: 'pass' }, 'the receipt a signed packet shows is verified');
  const { receipt: _receipt, ...noReceipt } = receipted;
  t.match(verifyPacket(noReceipt).checks.receipt, { status: 'skipped', detail: /was not given/ }, 'and skipped as not given without it');
});

t.test('a task of the packet without its timeline is named', async (t) => {
  // As a two-task packet verified with one task's timeline: the range opens with an event of the other.
  const scenario = proofScenario('signed');
  const taskB = scenario.events.find((e) => e.task_id === 'task-b')!;
  scenario.packet.task_ids = ['task-a', 'task-b'];
  (scenario.packet.event_range as { first_event_id: string }).first_event_id = taskB.event_id;
  scenario.events = taskA(scenario);
  const result = verifyPacket(scenario);
  t.match(result.checks.hash_chain, { status: 'fail', code: 'event_range_mismatch', detail: "the timelines given hold no event of task task-b: give each task's timeline (--timeline FILE, per task)" });
});

t.test('a packet that cannot be parsed fails every check', async (t) => {
  for (const packet of [null, [], 'pkt', { integrity: null }, { integrity: { packet_sha256: 'x', key_id: 'k', integrity_class: 'other' } }]) {
    const result = verifyPacket({ ...proofScenario('signed'), packet });
    t.same(Object.values(result.checks).map((c) => c.code), ['malformed_packet', 'malformed_packet', 'malformed_packet', 'malformed_packet']);
    t.equal(result.ok, false);
  }
});
