// What the hosted service keeps in the database besides the log: its signing keys (one row, made
// by the first process that starts, or copied from a preview by gov db import, never logged) and
// the evidence quarantine (content-addressed bytes, as the preview's quarantine directory).
import { createHash } from 'node:crypto';
import type pg from 'pg';
import { keyRingOf, newKeyMaterial, type KeyMaterial, type KeyRing } from '../keys.ts';
import { hexOf, type Quarantine } from '../quarantine.ts';

/** The store's key ring: the row of gov_keys, made now if there is none (two processes agree: the first insert wins). */
export async function loadOrCreatePgKeys(pool: pg.Pool): Promise<KeyRing> {
  const fresh = newKeyMaterial();
  await pool.query('INSERT INTO gov_keys (id, ed25519_pem, ecdsa_pem, hmac_secret) VALUES (1, $1, $2, $3) ON CONFLICT (id) DO NOTHING', [fresh.ed25519Pem, fresh.ecdsaPem, fresh.hmacSecret]);
  const row = (await pool.query<{ ed25519_pem: string; ecdsa_pem: string; hmac_secret: string }>('SELECT ed25519_pem, ecdsa_pem, hmac_secret FROM gov_keys WHERE id = 1')).rows[0]!;
  return keyRingOf({ ed25519Pem: row.ed25519_pem, ecdsaPem: row.ecdsa_pem, hmacSecret: row.hmac_secret });
}

/** Stores key material unless the store has keys already; true when it was stored. */
export async function storePgKeys(client: pg.ClientBase, material: KeyMaterial): Promise<boolean> {
  const result = await client.query('INSERT INTO gov_keys (id, ed25519_pem, ecdsa_pem, hmac_secret) VALUES (1, $1, $2, $3) ON CONFLICT (id) DO NOTHING', [material.ed25519Pem, material.ecdsaPem, material.hmacSecret]);
  return result.rowCount === 1;
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
