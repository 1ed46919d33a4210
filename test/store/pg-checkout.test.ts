// A pooled connection held across queries (a write's transaction) that the server drops while it
// is checked out (a restart, a failover, pg_terminate_backend): its error is heard and logged, not
// left to end the process (pg's pool listens to idle connections only); what it was doing fails;
// released, it leaves the pool, and the next connection works.
import t from 'tap';
import pg from 'pg';
import { withDatabase } from '../../src/store/pg/pg-log-tools.ts';
import { checkOut, pgConfig } from '../../src/store/pg/pg-store.ts';
import { testDatabase } from '../fixtures/postgres.ts';

t.test('a checked-out connection the server drops: logged, its query fails, the pool goes on', async (t) => {
  const url = await testDatabase(t);
  if (url === null) return;
  const warnings: string[] = [];
  const pool = new pg.Pool(pgConfig(url, 2));
  pool.on('error', (err) => warnings.push(`idle: ${err.message}`));
  t.teardown(() => pool.end());
  const client = await checkOut(pool, (m) => warnings.push(m));
  const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;

  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  t.teardown(() => admin.end());
  await admin.query('SELECT pg_terminate_backend($1)', [pid]);
  // The connection's end reaches the client while it is checked out and idle between queries.
  const deadline = Date.now() + 10_000;
  while (warnings.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  t.ok(warnings.length > 0 && warnings.every((w) => /A database connection failed while in use/.test(w)), `the error was heard and logged, the process is still here: ${warnings.join(' | ')}`);
  const heard = warnings.length;
  await t.rejects(client.query('SELECT 1'), 'what the connection does next fails');
  client.release(new Error('dropped'));
  t.equal(pool.totalCount, 0, 'the dropped connection left the pool');
  const next = await checkOut(pool, (m) => warnings.push(m));
  t.same((await next.query<{ one: number }>('SELECT 1 AS one')).rows, [{ one: 1 }], 'the next connection works');
  next.release();
  t.equal(warnings.length, heard, 'nothing was reported after the release');
});

t.test('a command\'s connection the server drops: the command fails with the error, the process stays', async (t) => {
  const url = await testDatabase(t);
  if (url === null) return;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  t.teardown(() => admin.end());
  const outcome = withDatabase(url, async (client) => {
    const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);
    await new Promise((r) => setTimeout(r, 200)); // the connection's end arrives between queries
    return client.query('SELECT 1');
  });
  await t.rejects(outcome, 'the command fails with the dropped connection\'s error');
});
