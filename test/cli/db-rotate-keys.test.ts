// gov db rotate-keys: a new generation of signing keys signs, the previous one stays listed by
// GET /v1/keys (after the current keys) so what it signed still verifies, the log's origin and the
// HMAC secret (which keys recorded per-tenant hashes) stay; a store without keys is refused.
import t from 'tap';
import { execFile } from 'node:child_process';
import { createPublicKey } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import { signPacketHash, verifyPacketHash } from '../../src/domain/signing.ts';
import { loadOrCreatePgKeys } from '../../src/store/pg/pg-files.ts';
import { migrateDatabase } from '../../src/store/pg/pg-log-tools.ts';
import { publicKeys } from '../../src/service/receipts-service.ts';
import { testDatabase } from '../fixtures/postgres.ts';

const GOV = join(import.meta.dirname, '..', '..', 'bin', 'gov.js');
const HASH = `sha256:${'ab'.repeat(32)}`;

function gov(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [GOV, ...args], { encoding: 'utf8' }, (err, stdout, stderr) => resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : 1, stdout, stderr }));
  });
}

t.test('rotate: new keys sign, old ones stay listed, origin and HMAC secret stay', async (t) => {
  const url = await testDatabase(t);
  if (url === null) return;
  const migrated = await migrateDatabase(url);
  t.same(migrated.applied.map((m) => m.version), [1, 2], 'both migrations apply to a fresh database');

  const none = await gov(['db', 'rotate-keys', '--database-url', url, '--json']);
  t.equal(none.code, 3, 'a store without keys cannot rotate');
  t.match(JSON.parse(none.stdout), { ok: false, code: 'not_found' });

  const pool = new pg.Pool({ connectionString: url, max: 2 });
  t.teardown(() => pool.end());
  const first = await loadOrCreatePgKeys(pool);
  t.same(first.retired, [], 'one generation: nothing retired');
  const signedBefore = signPacketHash('ed25519', HASH, first.ed25519.privateKey);

  const rotated = await gov(['db', 'rotate-keys', '--database-url', url, '--json']);
  t.equal(rotated.code, 0, rotated.stderr);
  const report = JSON.parse(rotated.stdout);
  t.equal(report.generation, 2);
  t.equal(report.retired.ed25519, first.ed25519.keyId, 'the previous ed25519 key is retired');
  t.not(report.signing.ed25519, first.ed25519.keyId, 'a new ed25519 key signs');

  const second = await loadOrCreatePgKeys(pool);
  t.equal(second.ed25519.keyId, report.signing.ed25519, 'a process starting now signs with the new key');
  t.equal(second.ecdsa.keyId, report.signing.ecdsa);
  t.equal(second.logOrigin, first.logOrigin, 'the log origin names the first generation and stays');
  t.same(second.hmac.secret, first.hmac.secret, 'the HMAC secret stays (recorded per-tenant hashes still match)');
  const listed = publicKeys(second).keys;
  t.same(listed.map((k) => k.key_id), [second.ed25519.keyId, second.ecdsa.keyId, first.ed25519.keyId, first.ecdsa.keyId], 'current keys first, then the retired ones');
  const old = listed.find((k) => k.key_id === first.ed25519.keyId)!;
  t.ok(verifyPacketHash('ed25519', HASH, signedBefore, createPublicKey(old.public_key_pem)), 'a signature of the retired key verifies with the listed key');

  await gov(['db', 'rotate-keys', '--database-url', url]);
  const third = await loadOrCreatePgKeys(pool);
  t.same(publicKeys(third).keys.length, 6, 'three generations: six public keys listed');
  t.same(third.retired!.map((r) => r.ed25519.keyId), [second.ed25519.keyId, first.ed25519.keyId], 'retired newest first');
  const retiredAt = (await pool.query<{ id: number; retired: boolean }>('SELECT id, retired_at IS NOT NULL AS retired FROM gov_keys ORDER BY id')).rows;
  t.same(retiredAt, [{ id: 1, retired: true }, { id: 2, retired: true }, { id: 3, retired: false }]);
});
