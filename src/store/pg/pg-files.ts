// What the hosted service keeps in the database besides the log: its signing keys (a row per key
// generation: the first made by the first process that starts, or copied from a preview by gov db
// import; later ones by gov db rotate-keys; never logged) and the evidence quarantine
// (content-addressed bytes, as the preview's quarantine directory).
import { createHash } from 'node:crypto';
import type pg from 'pg';
import { AppError } from '../../errors.ts';
import { keyRingOf, newKeyMaterial, type KeyMaterial, type KeyRing } from '../keys.ts';
import { hexOf, type Quarantine } from '../quarantine.ts';

type KeyRow = { id: number; ed25519_pem: string; ecdsa_pem: string; hmac_secret: string };

/**
 * The store's key ring: its newest generation signs, the earlier ones stay listed for verification.
 * Made now when the store has none (two processes starting at once agree: the first insert wins).
 * The log's origin names the first generation's key, so it stays the same across rotations.
 */
export async function loadOrCreatePgKeys(pool: pg.Pool): Promise<KeyRing> {
  const select = async () => (await pool.query<KeyRow>('SELECT id, ed25519_pem, ecdsa_pem, hmac_secret FROM gov_keys ORDER BY id')).rows;
  let rows = await select();
  if (rows.length === 0) {
    // Keys are made once per store, not at every start.
    await storePgKeys(pool, newKeyMaterial());
    rows = await select();
  }
  const rings = rows.map((row) => keyRingOf({ ed25519Pem: row.ed25519_pem, ecdsaPem: row.ecdsa_pem, hmacSecret: row.hmac_secret }));
  const current = rings[rings.length - 1]!;
  return { ...current, logOrigin: rings[0]!.logOrigin, retired: rings.slice(0, -1).reverse().map((r) => ({ ed25519: r.ed25519, ecdsa: r.ecdsa })) };
}

/** Stores key material unless the store has keys already; true when it was stored. */
export async function storePgKeys(client: pg.ClientBase | pg.Pool, material: KeyMaterial): Promise<boolean> {
  const result = await client.query('INSERT INTO gov_keys (id, ed25519_pem, ecdsa_pem, hmac_secret) VALUES (1, $1, $2, $3) ON CONFLICT (id) DO NOTHING', [material.ed25519Pem, material.ecdsaPem, material.hmacSecret]);
  return result.rowCount === 1;
}

export type Rotation = { generation: number; signing: { ed25519: string; ecdsa: string }; retired: { ed25519: string; ecdsa: string } };

/**
 * A new generation of signing keys (ed25519, ECDSA P-256) becomes the current one; the previous is
 * marked retired and stays listed by GET /v1/keys. The HMAC secret is kept: it keys the per-tenant
 * hashes already recorded (invitee e-mails, session hosts), which must still match.
 */
export async function rotatePgKeys(client: pg.ClientBase): Promise<Rotation> {
  await client.query('BEGIN');
  try {
    await client.query('LOCK TABLE gov_keys IN EXCLUSIVE MODE');
    const last = (await client.query<KeyRow>('SELECT id, ed25519_pem, ecdsa_pem, hmac_secret FROM gov_keys ORDER BY id DESC LIMIT 1')).rows[0];
    if (last === undefined) throw new AppError('not_found', 'The store has no signing keys to rotate yet: start gov serve once (it makes the first ones) or import a preview (gov db import copies its keys).');
    const fresh = newKeyMaterial();
    const generation = last.id + 1;
    await client.query('UPDATE gov_keys SET retired_at = now() WHERE id = $1', [last.id]);
    await client.query('INSERT INTO gov_keys (id, ed25519_pem, ecdsa_pem, hmac_secret) VALUES ($1, $2, $3, $4)', [generation, fresh.ed25519Pem, fresh.ecdsaPem, last.hmac_secret]);
    await client.query('COMMIT');
    const previous = keyRingOf({ ed25519Pem: last.ed25519_pem, ecdsaPem: last.ecdsa_pem, hmacSecret: last.hmac_secret });
    const next = keyRingOf({ ...fresh, hmacSecret: last.hmac_secret });
    return { generation, signing: { ed25519: next.ed25519.keyId, ecdsa: next.ecdsa.keyId }, retired: { ed25519: previous.ed25519.keyId, ecdsa: previous.ecdsa.keyId } };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  }
}

export function openPgQuarantine(pool: pg.Pool): Quarantine {
  const put = async (kind: 'raw' | 'projection', bytes: Uint8Array): Promise<string> => {
    const hex = createHash('sha256').update(bytes).digest('hex');
    await pool.query('INSERT INTO gov_quarantine (kind, sha256, bytes) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [kind, hex, Buffer.from(bytes)]);
    return hex;
  };
  return {
    putRaw: (bytes) => put('raw', bytes),
    hasRaw: async (sha256) => (await pool.query("SELECT 1 FROM gov_quarantine WHERE kind = 'raw' AND sha256 = $1", [hexOf(sha256)])).rowCount === 1,
    putProjection: (text) => put('projection', Buffer.from(text, 'utf8')),
    async projection(sha256) {
      const row = (await pool.query<{ bytes: Buffer }>("SELECT bytes FROM gov_quarantine WHERE kind = 'projection' AND sha256 = $1", [hexOf(sha256)])).rows[0];
      return row?.bytes.toString('utf8');
    },
  };
}
