// Signatures over bytes for the packet's three algorithms (`packet_integrity.signature.alg`),
// values in unpadded base64url, plus the key helpers the store and `GET /v1/keys` share.
// API: signBytes, verifyBytes, signPacketHash, verifyPacketHash, publicKeyPem, publicKeyDer, keyIdFor.
import {
  createHash, createHmac, createPublicKey, sign, timingSafeEqual, verify, type KeyObject,
} from 'node:crypto';
import { AppError } from '../errors.ts';

export const SIGNATURE_ALGS = ['ed25519', 'ecdsa-p256-sha256', 'hmac-sha256'] as const;
export type SignatureAlg = (typeof SIGNATURE_ALGS)[number];

/** A KeyObject for the asymmetric algorithms; the raw secret for hmac-sha256. */
export type SignatureKey = KeyObject | Uint8Array;

const BASE64URL = /^[A-Za-z0-9_-]*$/;

/** Sign `data`; the value is base64url without padding. ECDSA uses IEEE P1363 r‖s (64 bytes), not DER. */
export function signBytes(alg: SignatureAlg, data: Uint8Array, key: SignatureKey): string {
  const raw = alg === 'hmac-sha256'
    ? createHmac('sha256', secretOf(alg, key)).update(data).digest()
    : alg === 'ed25519'
      ? sign(null, data, asymmetricKey(alg, key, 'private'))
      : sign('sha256', data, { key: asymmetricKey(alg, key, 'private'), dsaEncoding: 'ieee-p1363' });
  return raw.toString('base64url');
}

/**
 * True only for a valid signature. A malformed value (not canonical base64url, wrong length) is
 * false, not an error; a key that does not fit the algorithm throws `key_alg_mismatch`.
 */
export function verifyBytes(alg: SignatureAlg, data: Uint8Array, signature: string, key: SignatureKey): boolean {
  const raw = decodeSignature(signature);
  if (raw === undefined) return false;
  if (alg === 'hmac-sha256') {
    const expected = createHmac('sha256', secretOf(alg, key)).update(data).digest();
    // Constant time: an early-exit compare would leak how many leading bytes of a forgery match.
    return raw.length === expected.length && timingSafeEqual(raw, expected);
  }
  // Both are fixed at 64 bytes; refusing other lengths also refuses DER-encoded ECDSA values.
  if (raw.length !== 64) return false;
  const publicKey = asymmetricKey(alg, key, 'public');
  return alg === 'ed25519'
    ? verify(null, data, publicKey, raw)
    : verify('sha256', data, { key: publicKey, dsaEncoding: 'ieee-p1363' }, raw);
}

/** docs/contract.md §9: a packet signature covers the ASCII bytes of its `packet_sha256` URI. */
export function signPacketHash(alg: SignatureAlg, packetSha256: string, key: SignatureKey): string {
  return signBytes(alg, Buffer.from(packetSha256, 'ascii'), key);
}

export function verifyPacketHash(alg: SignatureAlg, packetSha256: string, signature: string, key: SignatureKey): boolean {
  return verifyBytes(alg, Buffer.from(packetSha256, 'ascii'), signature, key);
}

/** SPKI PEM of an asymmetric key (a private key gives its public half). */
export function publicKeyPem(key: KeyObject): string {
  return publicOf(key).export({ type: 'spki', format: 'pem' }).toString();
}

/** SPKI DER of an asymmetric key: the input of `keyIdFor`. */
export function publicKeyDer(key: KeyObject): Buffer {
  return publicOf(key).export({ type: 'spki', format: 'der' });
}

/**
 * A stable key id that is a valid id (docs/contract.md §3): `<alg>:<first 16 hex of SHA-256(SPKI DER)>`.
 * For hmac-sha256 pass the secret: it is hashed under a label so the id is not a bare hash of it.
 */
export function keyIdFor(alg: SignatureAlg, publicKeyDerOrSecret: Uint8Array): string {
  const digest = createHash('sha256');
  if (alg === 'hmac-sha256') digest.update('gov hmac-sha256 key id\n');
  return `${alg}:${digest.update(publicKeyDerOrSecret).digest('hex').slice(0, 16)}`;
}

export function isSignatureAlg(value: unknown): value is SignatureAlg {
  return typeof value === 'string' && (SIGNATURE_ALGS as readonly string[]).includes(value);
}

/** Strict base64url: a value that does not round-trip is refused, so one signature has one spelling. */
function decodeSignature(value: string): Buffer | undefined {
  if (typeof value !== 'string' || !BASE64URL.test(value)) return undefined;
  const raw = Buffer.from(value, 'base64url');
  return raw.toString('base64url') === value ? raw : undefined;
}

function publicOf(key: KeyObject): KeyObject {
  if (key.type === 'secret') throw mismatch('a secret key has no public half');
  return key.type === 'private' ? createPublicKey(key) : key;
}

function secretOf(alg: SignatureAlg, key: SignatureKey): Uint8Array {
  if (key instanceof Uint8Array) return key;
  if (key.type === 'secret') return key.export();
  throw mismatch(`${alg} needs a secret, not a ${key.type} key`);
}

function asymmetricKey(alg: SignatureAlg, key: SignatureKey, use: 'private' | 'public'): KeyObject {
  if (key instanceof Uint8Array || key.type === 'secret') throw mismatch(`${alg} needs an asymmetric key`);
  if (use === 'private' && key.type !== 'private') throw mismatch(`signing with ${alg} needs a private key`);
  const fits = alg === 'ed25519'
    ? key.asymmetricKeyType === 'ed25519'
    : key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1';
  if (!fits) throw mismatch(`a ${key.asymmetricKeyType} key does not fit ${alg}`);
  return use === 'public' ? publicOf(key) : key;
}

function mismatch(reason: string): AppError {
  return new AppError('key_alg_mismatch', `The key does not fit the signature algorithm: ${reason}.`, {
    details: [{ pointer: '', detail: reason }],
  });
}
