// Signatures for the three packet algorithms: round trips, tampering, strict encodings, key checks.
import t from 'tap';
import { createPublicKey, generateKeyPairSync, sign } from 'node:crypto';
import {
  keyIdFor, publicKeyDer, publicKeyPem, signBytes, signPacketHash, verifyBytes, verifyPacketHash,
  type SignatureAlg, type SignatureKey,
} from '../../src/domain/signing.ts';
import { ecdsaKey, hmacSecret, otherKey, packetKey } from '../fixtures/proof-keys.ts';

const HASH = `sha256:${'0f'.repeat(32)}`;
const ALGS: { alg: SignatureAlg; signKey: SignatureKey; verifyKey: SignatureKey; wrongKey: SignatureKey; length: number }[] = [
  { alg: 'ed25519', signKey: packetKey.privateKey, verifyKey: packetKey.publicKey, wrongKey: otherKey.publicKey, length: 64 },
  { alg: 'ecdsa-p256-sha256', signKey: ecdsaKey.privateKey, verifyKey: ecdsaKey.publicKey, wrongKey: generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).publicKey, length: 64 },
  { alg: 'hmac-sha256', signKey: hmacSecret, verifyKey: hmacSecret, wrongKey: Buffer.alloc(32, 0x45), length: 32 },
];

t.test('round trip, wrong key, wrong data, tampered value', async (t) => {
  for (const { alg, signKey, verifyKey, wrongKey, length } of ALGS) {
    const value = signPacketHash(alg, HASH, signKey);
    t.match(value, /^[A-Za-z0-9_-]+$/, `${alg}: base64url`);
    t.equal(Buffer.from(value, 'base64url').length, length, `${alg}: raw length (P1363 for ECDSA)`);
    t.ok(verifyPacketHash(alg, HASH, value, verifyKey), `${alg}: verifies`);
    t.ok(verifyPacketHash(alg, HASH, value, alg === 'hmac-sha256' ? signKey : createPublicKey(signKey as never)), `${alg}: verifies with the public half`);
    t.notOk(verifyPacketHash(alg, HASH, value, wrongKey), `${alg}: another key fails`);
    t.notOk(verifyPacketHash(alg, HASH.replace('0f', '1f'), value, verifyKey), `${alg}: other data fails`);
    const raw = Buffer.from(value, 'base64url');
    raw[5] = raw[5]! ^ 0x01;
    t.notOk(verifyPacketHash(alg, HASH, raw.toString('base64url'), verifyKey), `${alg}: flipped byte fails`);
    t.notOk(verifyPacketHash(alg, HASH, `${value}=`, verifyKey), `${alg}: padded spelling refused`);
    t.notOk(verifyPacketHash(alg, HASH, `${value.slice(0, -1)}+`, verifyKey), `${alg}: a standard-base64 character refused`);
    t.notOk(verifyPacketHash(alg, HASH, value.slice(0, -2), verifyKey), `${alg}: truncated fails`);
    t.notOk(verifyPacketHash(alg, HASH, '', verifyKey), `${alg}: empty fails`);
  }
});

t.test('the packet signature covers the ASCII bytes of packet_sha256', async (t) => {
  const value = signPacketHash('ed25519', HASH, packetKey.privateKey);
  t.equal(value, sign(null, Buffer.from(HASH, 'ascii'), packetKey.privateKey).toString('base64url'));
  t.ok(verifyBytes('ed25519', Buffer.from(HASH), value, packetKey.publicKey));
});

t.test('a DER-encoded ECDSA signature is refused: only IEEE P1363 r||s is accepted', async (t) => {
  const der = sign('sha256', Buffer.from(HASH), ecdsaKey.privateKey).toString('base64url');
  t.notOk(verifyPacketHash('ecdsa-p256-sha256', HASH, der, ecdsaKey.publicKey));
});

t.test('a key that does not fit the algorithm is key_alg_mismatch', async (t) => {
  const cases: [string, () => unknown][] = [
    ['ed25519 with a P-256 key', () => signBytes('ed25519', Buffer.from('x'), ecdsaKey.privateKey)],
    ['ecdsa with an ed25519 key', () => signBytes('ecdsa-p256-sha256', Buffer.from('x'), packetKey.privateKey)],
    ['signing with a public key', () => signBytes('ed25519', Buffer.from('x'), packetKey.publicKey)],
    ['hmac with a key pair', () => signBytes('hmac-sha256', Buffer.from('x'), packetKey.privateKey)],
    ['ed25519 with a secret', () => verifyBytes('ed25519', Buffer.from('x'), 'A'.repeat(86), hmacSecret)],
  ];
  for (const [name, run] of cases) {
    t.throws(run, { name: 'AppError', code: 'key_alg_mismatch' }, name);
  }
});

t.test('key ids and PEM', async (t) => {
  const id = keyIdFor('ed25519', publicKeyDer(packetKey.privateKey));
  t.match(id, /^ed25519:[0-9a-f]{16}$/);
  t.match(id, /^[A-Za-z0-9][A-Za-z0-9_.:-]*$/, 'fits the seed id pattern');
  t.equal(id, keyIdFor('ed25519', publicKeyDer(packetKey.publicKey)), 'the same from either half');
  t.not(id, keyIdFor('ed25519', publicKeyDer(otherKey.publicKey)));
  t.match(keyIdFor('ecdsa-p256-sha256', publicKeyDer(ecdsaKey.publicKey)), /^ecdsa-p256-sha256:[0-9a-f]{16}$/);
  t.match(keyIdFor('hmac-sha256', hmacSecret), /^hmac-sha256:[0-9a-f]{16}$/);
  const pem = publicKeyPem(packetKey.privateKey);
  t.match(pem, /^-----BEGIN PUBLIC KEY-----\n/);
  t.notMatch(pem, /PRIVATE/);
  t.ok(createPublicKey(pem).equals(packetKey.publicKey));
});
