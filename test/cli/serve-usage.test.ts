// gov serve and gov db refuse what they cannot run with, before anything listens, each with a
// sentence that says what to give: no database (exit 2), no issuer or audience, both or neither
// JWKS, an algorithm that is never accepted; a database that cannot be reached or is not migrated
// (exit 3). --help shows examples.
import t, { type Test } from 'tap';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { testIssuer } from '../fixtures/oidc.ts';
import { testDatabase } from '../fixtures/postgres.ts';
import { runGov } from '../fixtures/spawn-preview.ts';
import { tempDir } from '../fixtures/test-app.ts';

/** Without GOV_* from the caller's environment, so each case gives exactly what it names. */
const CLEAN_ENV = { GOV_DATABASE_URL: '', GOV_OIDC_ISSUER: '', GOV_OIDC_AUDIENCE: '', GOV_OIDC_JWKS_URL: '', GOV_OIDC_JWKS_FILE: '' };

async function refused(t: Test, args: string[], exit: number, code: string, says: RegExp): Promise<void> {
  const res = await runGov([...args, '--json'], { env: CLEAN_ENV });
  t.equal(res.code, exit, `${args.slice(0, 2).join(' ')} … exits ${exit}`);
  const doc = JSON.parse(res.stdout) as { ok: boolean; code: string; message: string };
  t.equal(doc.code, code);
  t.match(doc.message, says);
}

t.test('gov serve: usage errors name what to give', async (t) => {
  const idp = await testIssuer();
  t.teardown(() => idp.close());
  const jwks = join(tempDir(t), 'jwks.json');
  writeFileSync(jwks, JSON.stringify(idp.jwks));
  const oidc = ['--issuer', idp.issuer, '--audience', idp.audience, '--jwks-file', jwks];
  const db = ['--database-url', 'postgres://gov@127.0.0.1:1/gov'];
  await refused(t, ['serve', ...oidc], 2, 'usage_error', /--database-url postgres:\/\/.*GOV_DATABASE_URL/);
  await refused(t, ['serve', '--database-url', 'mysql://x/y', ...oidc], 2, 'usage_error', /must be a postgres:\/\/ URL/);
  await refused(t, ['serve', ...db, '--jwks-file', jwks], 2, 'usage_error', /--issuer .*--audience/);
  await refused(t, ['serve', ...db, '--issuer', idp.issuer, '--audience', idp.audience], 2, 'usage_error', /exactly one of --jwks-url .* or --jwks-file/);
  await refused(t, ['serve', ...db, ...oidc, '--jwks-url', 'https://idp.example/jwks'], 2, 'usage_error', /exactly one of --jwks-url/);
  await refused(t, ['serve', ...db, ...oidc, '--algorithms', 'RS256,none'], 2, 'usage_error', /none/);
  await refused(t, ['serve', ...db, ...oidc, '--algorithms', 'HS256'], 2, 'usage_error', /HS256/);
  // Port 1 on loopback: nothing listens there.
  await refused(t, ['serve', ...db, ...oidc, '--port', '0'], 3, 'database_unreachable', /Cannot use the database at postgres:\/\/gov@127\.0\.0\.1:1\/gov .*check --database-url/);
  await refused(t, ['db', 'migrate', ...db], 3, 'database_unreachable', /PostgreSQL runs/);
  await refused(t, ['db', 'import', ...db], 2, 'usage_error', /--from-data-dir DIR/);
});

t.test('a password in the database URL never reaches a message', async (t) => {
  const res = await runGov(['db', 'migrate', '--database-url', 'postgres://gov:s3cret-pw@127.0.0.1:1/gov', '--json'], { env: CLEAN_ENV });
  t.equal(res.code, 3);
  t.notMatch(res.stdout + res.stderr, /s3cret-pw/);
  t.match(res.stdout, /postgres:\/\/gov:\*\*\*@127\.0\.0\.1:1\/gov/);
});

t.test('gov serve on a database that is not migrated: exit 3, run gov db migrate', async (t) => {
  const url = await testDatabase(t);
  if (url === null) return;
  const idp = await testIssuer();
  t.teardown(() => idp.close());
  const jwks = join(tempDir(t), 'jwks.json');
  writeFileSync(jwks, JSON.stringify(idp.jwks));
  await refused(t, ['serve', '--database-url', url, '--issuer', idp.issuer, '--audience', idp.audience, '--jwks-file', jwks, '--port', '0'], 3, 'database_not_migrated', /run gov db migrate --database-url URL first/);
});

t.test('--help of the hosted commands shows examples', async (t) => {
  for (const args of [['serve'], ['db', 'migrate'], ['db', 'import'], ['db', 'rotate-keys']]) {
    const res = await runGov([...args, '--help']);
    t.equal(res.code, 0, `${args.join(' ')} --help`);
    t.match(res.stdout, /Examples:\n\s+\$ (\S+=\S+ )?gov /);
  }
});
