// The preview's signing keys under <data-dir>/keys/ (mode 0600), made on first start: ed25519 (packets,
// DSSE attestations and the log's signed checkpoints), ECDSA P-256, and the HMAC preview secret.
import { createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { keyIdFor, publicKeyDer, publicKeyPem, type SignatureAlg } from '../domain/signing.ts';

export type AsymmetricKey = { alg: 'ed25519' | 'ecdsa-p256-sha256'; keyId: string; privateKey: KeyObject; publicKey: KeyObject; publicKeyPem: string };

export type KeyRing = {
  ed25519: AsymmetricKey;
  ecdsa: AsymmetricKey;
  hmac: { alg: 'hmac-sha256'; keyId: string; secret: Buffer };
  /** The C2SP checkpoint origin of this preview's log (also the note key name). */
  logOrigin: string;
};

export function loadOrCreateKeys(dataDir: string): KeyRing {
  const dir = join(dataDir, 'keys');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const ed25519 = asymmetric(join(dir, 'ed25519.pem'), 'ed25519', () => generateKeyPairSync('ed25519').privateKey);
  const ecdsa = asymmetric(join(dir, 'ecdsa-p256.pem'), 'ecdsa-p256-sha256', () => generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey);
  const secretPath = join(dir, 'hmac-sha256.key');
  if (!existsSync(secretPath)) writeSecret(secretPath, randomBytes(32).toString('base64url'));
  const secret = Buffer.from(readFileSync(secretPath, 'utf8').trim(), 'base64url');
  return {
    ed25519,
    ecdsa,
    hmac: { alg: 'hmac-sha256', keyId: keyIdFor('hmac-sha256', secret), secret },
    logOrigin: `gov.local/preview/${ed25519.keyId.split(':')[1]}`,
  };
}

function asymmetric(path: string, alg: AsymmetricKey['alg'], generate: () => KeyObject): AsymmetricKey {
  if (!existsSync(path)) writeSecret(path, generate().export({ type: 'pkcs8', format: 'pem' }) as string);
  const privateKey = createPrivateKey(readFileSync(path, 'utf8'));
  const publicKey = createPublicKey(privateKey);
  return { alg, keyId: keyIdFor(alg as SignatureAlg, publicKeyDer(publicKey)), privateKey, publicKey, publicKeyPem: publicKeyPem(publicKey) };
}

function writeSecret(path: string, text: string): void {
  writeFileSync(path, text, { mode: 0o600 });
  chmodSync(path, 0o600);
}
