// The PostgreSQL fixture (test/fixtures/postgres.ts) itself: each test gets a fresh database on a
// server that keeps fsync and synchronous_commit on, and the database is gone once the test ends.
// Without GOV_TEST_DATABASE_URL this file shows a SKIP line (a failure under CI or GOV_REQUIRE_POSTGRES=1).
import t from 'tap';
import pg from 'pg';
import { databaseUrl, redactUrl, testDatabase, type DatabaseTest } from '../fixtures/postgres.ts';

async function query<T extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

const listed = async (adminUrl: string, name: string): Promise<boolean> =>
  (await query<{ n: number }>(adminUrl, 'SELECT count(*)::int AS n FROM pg_database WHERE datname = $1', [name]))[0]?.n === 1;

t.test('a fresh database per test, durable settings, dropped when the test ends', async (t) => {
  const adminUrl = process.env.GOV_TEST_DATABASE_URL ?? '';
  const names: string[] = [];
  let ran = false;

  await t.test('the test that uses the fixture', async (t) => {
    const url = await testDatabase(t);
    if (url === null) return;
    ran = true;
    const second = await testDatabase(t);
    if (second === null) return;

    const [row] = await query<{ db: string }>(url, 'SELECT current_database() AS db');
    const name = row?.db ?? '';
    names.push(name, (await query<{ db: string }>(second, 'SELECT current_database() AS db'))[0]?.db ?? '');
    t.match(name, /^gov_test_[0-9a-f]{16}$/, `the URL names the new database (${redactUrl(url)})`);
    t.not(names[1], name, 'a second call gives another database');
    t.equal(url, databaseUrl(adminUrl, name), 'same server and user as GOV_TEST_DATABASE_URL, only the database differs');
    t.ok(await listed(adminUrl, name), 'the admin connection sees it in pg_database');
    t.same(await query(url, "SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'"), [{ n: 0 }], 'and it is empty');

    const settings = async (db: string) =>
      Object.fromEntries(
        await Promise.all(['fsync', 'synchronous_commit', 'full_page_writes'].map(async (s) => [s, (await query<Record<string, string>>(db, `SHOW ${s}`))[0]?.[s]])),
      );
    t.same(await settings(url), { fsync: 'on', synchronous_commit: 'on', full_page_writes: 'on' }, 'the server keeps fsync, synchronous_commit and full-page writes on');

    // A connection left open at the end must not keep the database alive: the drop forces it closed.
    const open = new pg.Client({ connectionString: url });
    await open.connect();
    open.on('error', () => {}); // its termination by DROP ... WITH (FORCE) is expected
    await open.query('CREATE TABLE t (x int)');
  });

  if (!ran) return;
  t.equal(names.length, 2, 'the child test got two databases');
  for (const name of names) t.notOk(await listed(adminUrl, name), `${name} is no longer in pg_database after the test ended`);
});

t.test('no GOV_TEST_DATABASE_URL: a visible skip, or a failure when PostgreSQL is required', async (t) => {
  const calls: Array<{ call: string; message: string; skip?: unknown }> = [];
  const standIn = {
    pass: (message: string, extra?: { skip?: unknown }) => (calls.push({ call: 'pass', message, skip: extra?.skip }), true),
    fail: (message: string) => (calls.push({ call: 'fail', message }), false),
    teardown: () => calls.push({ call: 'teardown', message: '' }),
  } as unknown as DatabaseTest;

  t.equal(await testDatabase(standIn, {}), null, 'no URL: null');
  t.same(
    calls.map((c) => c.call),
    ['pass'],
    'one test point, nothing to tear down',
  );
  t.match(calls[0], { skip: /GOV_TEST_DATABASE_URL is not set: .*pg-test-cluster\.sh start/ }, 'a skipped one that says how to run the tests');

  for (const env of [{ GOV_REQUIRE_POSTGRES: '1' }, { CI: 'true' }]) {
    calls.length = 0;
    t.equal(await testDatabase(standIn, env), null, `${JSON.stringify(env)}: null`);
    t.same(
      calls.map((c) => c.call),
      ['fail'],
      'and a failing test point, not a skip',
    );
    t.match(calls[0], { message: /cannot run: GOV_TEST_DATABASE_URL is not set: .*pg-test-cluster\.sh start/ }, 'that says how to run the tests');
  }
  calls.length = 0;
  await testDatabase(standIn, { CI: 'false' });
  t.same(
    calls.map((c) => c.call),
    ['pass'],
    'CI=false does not require it',
  );
});
