// DSSE v1 envelopes and the in-toto statement of a packet: the spec's PAE vector, round trip, and
// tampering with the payload, its type, the signature or the key.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { createHash, verify } from 'node:crypto';
import { canonicalJson } from '../../src/domain/canonical-json.ts';
import {
  attestPacket, IN_TOTO_PAYLOAD_TYPE, inTotoStatementForPacket, pae, signEnvelope, verifyEnvelope,
} from '../../src/domain/dsse.ts';
import { otherKey, packetKey } from '../fixtures/proof-keys.ts';
import { proofScenario } from '../fixtures/proof-packet.ts';

const vector = JSON.parse(readFileSync(new URL('../fixtures/vectors/dsse/pae.json', import.meta.url), 'utf8'));
const signer = { keyid: 'ed25519:test', privateKey: packetKey.privateKey };

t.test('PAE', async (t) => {
  t.equal(pae(vector.payloadType, Buffer.from(vector.payload)).toString('utf8'), vector.pae, 'the spec vector');
  t.same(pae('t\u00e9', Buffer.from([0, 1])), Buffer.concat([Buffer.from('DSSEv1 3 t\u00e9 2 '), Buffer.from([0, 1])]), 'lengths count bytes');
  t.equal(pae('', Buffer.alloc(0)).toString(), 'DSSEv1 0  0 ');
});

t.test('sign and verify an envelope', async (t) => {
  const payload = Buffer.from('{"hello":"world"}');
  const env = signEnvelope('application/example', payload, signer);
  t.same(Object.keys(env).sort(), ['payload', 'payloadType', 'signatures']);
  t.equal(env.payload, payload.toString('base64'));
  t.equal(env.signatures[0]!.keyid, 'ed25519:test');
  t.match(env.signatures[0]!.sig, /^[A-Za-z0-9+/]+={0,2}$/, 'standard base64');
  t.ok(verify(null, pae('application/example', payload), packetKey.publicKey, Buffer.from(env.signatures[0]!.sig, 'base64')), 'the signature covers the PAE');
  t.ok(verifyEnvelope(env, packetKey.publicKey));
  const urlSafe = { ...env, payload: Buffer.from(payload).toString('base64url') };
  t.ok(verifyEnvelope(urlSafe, packetKey.publicKey), 'URL-safe base64 is accepted too');

  const tampered: [string, unknown][] = [
    ['payload', { ...env, payload: Buffer.from('{"hello":"World"}').toString('base64') }],
    ['payload type', { ...env, payloadType: 'application/other' }],
    ['signature', { ...env, signatures: [{ keyid: 'k', sig: Buffer.alloc(64, 1).toString('base64') }] }],
    ['no signatures', { ...env, signatures: [] }],
    ['not an envelope', { payload: env.payload }],
    ['garbage payload', { ...env, payload: '!!' }],
  ];
  for (const [name, value] of tampered) t.equal(verifyEnvelope(value, packetKey.publicKey), false, name);
  t.equal(verifyEnvelope(env, otherKey.publicKey), false, 'another key');
});

t.test('the in-toto statement of a packet', async (t) => {
  const { packet } = proofScenario('signed');
  const statement = inTotoStatementForPacket(packet);
  const digest = createHash('sha256').update(canonicalJson(packet)).digest('hex');
  t.same(statement, {
    _type: 'https://in-toto.io/Statement/v1',
    subject: [{ name: 'proof-packet:pkt_0001', digest: { sha256: digest }, annotations: { packet_sha256: packet.integrity.packet_sha256 } }],
    predicateType: 'https://schemas.gov.local/api/proof-packet.json',
    predicate: packet,
  });
  t.equal(createHash('sha256').update(canonicalJson(statement.predicate)).digest('hex'), statement.subject[0]!.digest.sha256,
    'hashing the canonical predicate gives the subject digest');

  const env = attestPacket(packet, signer);
  t.equal(env.payloadType, IN_TOTO_PAYLOAD_TYPE);
  t.same(JSON.parse(Buffer.from(env.payload, 'base64').toString('utf8')), statement);
  t.ok(verifyEnvelope(env, packetKey.publicKey));
  const changed = structuredClone(statement);
  changed.predicate.packet_status = 'revoked';
  t.notOk(verifyEnvelope({ ...env, payload: Buffer.from(canonicalJson(changed)).toString('base64') }, packetKey.publicKey),
    'a changed predicate fails');
});
