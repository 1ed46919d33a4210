// The preview's signing keys under <data-dir>/keys/ (mode 0600), made on first start: ed25519 (packets,
// DSSE attestations and the log's signed checkpoints), ECDSA P-256, and the HMAC preview secret.
import { createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { keyIdFor, publicKeyDer, publicKeyPem, type SignatureAlg } from '../domain/signing.ts';
import { AppError } from '../errors.ts';

export type AsymmetricKey = { alg: 'ed25519' | 'ecdsa-p256-sha256'; keyId: string; privateKey: KeyObject; publicKey: KeyObject; publicKeyPem: string };

export type KeyRing = {
  ed25519: AsymmetricKey;
  ecdsa: AsymmetricKey;
  hmac: { alg: 'hmac-sha256'; keyId: string; secret: Buffer };
  /** The C2SP checkpoint origin of this preview's log (also the note key name). */
  logOrigin: string;
  /**
   * Key sets signing no more (the hosted store's earlier generations, gov db rotate-keys): their
   * public keys are still served by GET /v1/keys, after the current ones, so what they signed verifies.
   */
  retired?: ReadonlyArray<{ ed25519: AsymmetricKey; ecdsa: AsymmetricKey }>;
};

/** The key material as it is kept: two PKCS#8 PEM private keys and the base64url HMAC secret. */
export type KeyMaterial = { ed25519Pem: string; ecdsaPem: string; hmacSecret: string };

const newEd25519Pem = () => generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
const newEcdsaPem = () => generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
const newHmacSecret = () => randomBytes(32).toString('base64url');

/** Fresh key material (a new preview's, or a hosted store's first). */
export function newKeyMaterial(): KeyMaterial {
  return { ed25519Pem: newEd25519Pem(), ecdsaPem: newEcdsaPem(), hmacSecret: newHmacSecret() };
}

/** The key ring of some key material; the log's origin names its ed25519 key. */
export function keyRingOf(material: KeyMaterial): KeyRing {
  const ed25519 = asymmetric(material.ed25519Pem, 'ed25519');
  const secret = Buffer.from(material.hmacSecret.trim(), 'base64url');
  return {
    ed25519,
    ecdsa: asymmetric(material.ecdsaPem, 'ecdsa-p256-sha256'),
    hmac: { alg: 'hmac-sha256', keyId: keyIdFor('hmac-sha256', secret), secret },
    logOrigin: `gov.local/preview/${ed25519.keyId.split(':')[1]}`,
  };
}

/** The key files of a data dir (each made when missing). */
export function keyFilesOf(dataDir: string): { ed25519: string; ecdsa: string; hmac: string } {
  const dir = join(dataDir, 'keys');
  return { ed25519: join(dir, 'ed25519.pem'), ecdsa: join(dir, 'ecdsa-p256.pem'), hmac: join(dir, 'hmac-sha256.key') };
}

/** The data dir's key material, or null when it has no keys yet (read by gov db import). */
export function readKeyMaterial(dataDir: string): KeyMaterial | null {
  const files = keyFilesOf(dataDir);
  if (!existsSync(files.ed25519) || !existsSync(files.ecdsa) || !existsSync(files.hmac)) return null;
  return { ed25519Pem: readFileSync(files.ed25519, 'utf8'), ecdsaPem: readFileSync(files.ecdsa, 'utf8'), hmacSecret: readFileSync(files.hmac, 'utf8').trim() };
}

export function loadOrCreateKeys(dataDir: string): KeyRing {
  mkdirSync(join(dataDir, 'keys'), { recursive: true, mode: 0o700 });
  const files = keyFilesOf(dataDir);
  // Each key made only when its file is missing (a first start), so a start costs no key generation.
  if (!existsSync(files.ed25519)) writeSecret(files.ed25519, newEd25519Pem());
  if (!existsSync(files.ecdsa)) writeSecret(files.ecdsa, newEcdsaPem());
  if (!existsSync(files.hmac)) writeSecret(files.hmac, newHmacSecret());
  const material = readKeyMaterial(dataDir)!;
  // Each file read as the key it must be, so a damaged one is named (and the start stops, exit 3).
  for (const [path, check] of [[files.ed25519, () => asymmetric(material.ed25519Pem, 'ed25519')], [files.ecdsa, () => asymmetric(material.ecdsaPem, 'ecdsa-p256-sha256')]] as const) {
    try {
      check();
    } catch (err) {
      throw new AppError('store_corrupt', `The key file ${path} is not a private key this preview can read (${(err as Error).message}). Restore it from a backup of ${join(dataDir, 'keys')}; or, to make new keys, move that directory away — packets signed with the old keys then no longer verify against this preview's GET /v1/keys.`, { cause: err });
    }
  }
  return keyRingOf(material);
}

function asymmetric(pem: string, alg: AsymmetricKey['alg']): AsymmetricKey {
  const privateKey = createPrivateKey(pem);
  const publicKey = createPublicKey(privateKey);
  return { alg, keyId: keyIdFor(alg as SignatureAlg, publicKeyDer(publicKey)), privateKey, publicKey, publicKeyPem: publicKeyPem(publicKey) };
}

function writeSecret(path: string, text: string): void {
  writeFileSync(path, text, { mode: 0o600 });
  chmodSync(path, 0o600);
}
