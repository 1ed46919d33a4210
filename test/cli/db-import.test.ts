// `gov db import` and `gov db migrate` through the real binary on a real PostgreSQL server
// (test/fixtures/postgres.ts): a preview of 10,000 events (single- and multi-event units, several
// tasks) is copied byte for byte — the same lines, seqs and Merkle root as gov events verify finds
// in the file — with its signing keys; a second import into the now non-empty store, a preview
// with one changed character in line 5,000, and an unmigrated database are each refused with exit
// 3, the error's code, and nothing imported. `gov db migrate` run twice applies nothing the second time.
import t, { type Test } from 'tap';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import pg from 'pg';
import type { PendingEvent } from '../../src/store/event-log.ts';
import { keyFilesOf, loadOrCreateKeys } from '../../src/store/keys.ts';
import { migrateDatabase } from '../../src/store/pg/pg-log-tools.ts';
import { logPathOf, openStore } from '../../src/store/store.ts';
import { testDatabase } from '../fixtures/postgres.ts';
import { runGov } from '../fixtures/spawn-preview.ts';
import { fixedClock, tempDir } from '../fixtures/test-app.ts';

const EVENTS = 10_000;
const TASKS = 12;
const TAMPERED_SEQ = 5_000;
const scope = { tenant_id: 'tenant-a', workspace_id: 'ws-1', project_id: 'proj-1' };

type Doc = Record<string, unknown>;

/** The one JSON document a --json command printed on stdout (its text otherwise in the failure message). */
function jsonOf(t: Test, res: { stdout: string; stderr: string }): Doc {
  try {
    return JSON.parse(res.stdout) as Doc;
  } catch {
    t.fail(`stdout is not one JSON document: ${res.stdout.slice(0, 500)} (stderr: ${res.stderr.slice(0, 500)})`);
    return {};
  }
}

/** Runs `work` on one connection to the database. */
async function query<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

async function countAndHead(url: string): Promise<{ count: number; head: number }> {
  return query(url, async (c) => ({
    count: Number((await c.query<{ n: string }>('SELECT count(*) AS n FROM gov_events')).rows[0]!.n),
    head: Number((await c.query<{ seq: string }>('SELECT seq FROM gov_head WHERE id = 1')).rows[0]!.seq),
  }));
}

/** The log file's lines, without the newline that ends the last. */
function fileLines(t: Test, dir: string): string[] {
  const text = readFileSync(logPathOf(dir), 'utf8');
  t.ok(text.endsWith('\n'), 'the log ends with a newline');
  return text.slice(0, -1).split('\n');
}

/**
 * The preview: TASKS task.created events, then notes into those tasks and outside any task, every
 * 40th unit three events long (a unit under one group commit), appended 250 units at a time so
 * the store group-commits them; exactly EVENTS events in all. Its keys are made as a preview's start makes them.
 */
async function buildPreview(dir: string): Promise<void> {
  const store = await openStore({ dataDir: dir, clock: fixedClock(), warn: () => {} });
  try {
    let id = 0;
    const event = (kind: string, task: number | null): PendingEvent => {
      id++;
      return {
        event_id: `evt_import_${id}`,
        kind,
        ...scope,
        ...(task === null ? {} : { task_id: `task-${task}` }),
        transport: 'customer',
        idempotency_key: id % 7 === 0 ? `key-${id}` : null,
        request_sha256: id % 7 === 0 ? `sha256:${id.toString(16).padStart(64, '0')}` : null,
        payload: kind === 'task.created' ? { title: `Task number ${task} of the import` } : { text: `note ${id} about the vault path`, n: id },
      };
    };
    const units: PendingEvent[][] = [];
    for (let k = 1; k <= TASKS; k++) units.push([event('task.created', k)]);
    let total = TASKS;
    for (let u = 0; total < EVENTS; u++) {
      const size = Math.min(u % 40 === 0 ? 3 : 1, EVENTS - total);
      const task = u % 3 === 0 ? null : 1 + (u % TASKS);
      units.push(Array.from({ length: size }, () => event('ext.acme.note', task)));
      total += size;
    }
    for (let k = 0; k < units.length; k += 250) await Promise.all(units.slice(k, k + 250).map((unit) => store.append(unit)));
  } finally {
    await store.close();
  }
  loadOrCreateKeys(dir);
}

const base = tempDir(t, 'gov-import-');
let built = 0;
t.before(async () => {
  const started = Date.now();
  await buildPreview(base);
  built = Date.now() - started;
});

t.test('a 10,000-event preview is imported byte for byte, with its keys', async (t) => {
  const url = await testDatabase(t);
  if (url === null) return;
  t.comment(`built the preview (${EVENTS} events) in ${built} ms`);
  const lines = fileLines(t, base);
  t.equal(lines.length, EVENTS, `the preview holds ${EVENTS} lines`);
  t.ok(
    lines.some((l) => l.includes('"unit":{')),
    'some units hold several events',
  );
  await migrateDatabase(url);

  let started = Date.now();
  const imported = await runGov(['db', 'import', '--from-data-dir', base, '--database-url', url, '--json']);
  t.comment(`gov db import: ${Date.now() - started} ms`);
  t.equal(imported.code, 0, `exit 0 (stderr: ${imported.stderr})`);
  const report = jsonOf(t, imported);
  t.match(report, { events: EVENTS, last_seq: EVENTS, merkle_root: /^sha256:[0-9a-f]{64}$/, keys_copied: true });

  started = Date.now();
  const fromFile = await runGov(['events', 'verify', '--data-dir', base, '--json']);
  const fromDb = await runGov(['events', 'verify', '--database-url', url, '--json']);
  t.comment(`the two gov events verify runs: ${Date.now() - started} ms`);
  t.equal(fromFile.code, 0, `the file verifies (stderr: ${fromFile.stderr})`);
  t.equal(fromDb.code, 0, `the database verifies (stderr: ${fromDb.stderr})`);
  const file = jsonOf(t, fromFile);
  const db = jsonOf(t, fromDb);
  t.match(file, { ok: true, event_count: EVENTS, first_bad_seq: null, problem: null });
  t.match(db, { ok: true, event_count: EVENTS, last_seq: EVENTS, first_bad_seq: null, problem: null, head: { seq: EVENTS, agrees: true } });
  t.equal(db.merkle_root, file.merkle_root, 'the same Merkle root');
  t.equal(db.event_count, file.event_count, 'the same event count');
  t.equal(report.merkle_root, file.merkle_root, "the import's own root is the file's");

  const rows = await query(url, async (c) => (await c.query<{ seq: string; line: string }>('SELECT seq, line FROM gov_events ORDER BY seq')).rows);
  t.equal(rows.length, EVENTS, 'one row per line');
  const firstDiff = rows.findIndex((r, k) => r.line !== lines[k] || Number(r.seq) !== k + 1);
  t.equal(
    firstDiff,
    -1,
    firstDiff === -1
      ? "every row's line is the file's line, byte for byte, under its seq"
      : `row ${firstDiff + 1} differs: ${rows[firstDiff]?.line.slice(0, 200)} vs ${lines[firstDiff]?.slice(0, 200)}`,
  );

  const keys = await query(
    url,
    async (c) => (await c.query<{ ed25519_pem: string; ecdsa_pem: string; hmac_secret: string }>('SELECT ed25519_pem, ecdsa_pem, hmac_secret FROM gov_keys')).rows,
  );
  const files = keyFilesOf(base);
  t.equal(keys.length, 1, 'one key row');
  t.equal(keys[0]?.ed25519_pem, readFileSync(files.ed25519, 'utf8'), "the preview's ed25519 key");
  t.equal(keys[0]?.ecdsa_pem, readFileSync(files.ecdsa, 'utf8'), "the preview's ECDSA key");
  t.equal(keys[0]?.hmac_secret, readFileSync(files.hmac, 'utf8').trim(), "the preview's HMAC secret");

  const again = await runGov(['db', 'import', '--from-data-dir', base, '--database-url', url, '--json']);
  t.equal(again.code, 3, 'importing into the now non-empty store: exit 3');
  t.match(jsonOf(t, again), { ok: false, code: 'database_not_empty', message: /holds 10000 events already/ });
  t.match(again.stderr, /^gov: The database holds 10000 events already/);
  t.same(await countAndHead(url), { count: EVENTS, head: EVENTS }, 'the store is as the first import left it');
});

t.test('a preview with one character changed in line 5,000: exit 3 naming seq 5000, nothing imported', async (t) => {
  const url = await testDatabase(t);
  if (url === null) return;
  await migrateDatabase(url);
  const dir = tempDir(t, 'gov-import-tampered-');
  cpSync(base, dir, { recursive: true });
  const lines = fileLines(t, dir);
  const line = lines[TAMPERED_SEQ - 1]!;
  t.equal((JSON.parse(line) as { seq: number }).seq, TAMPERED_SEQ, `line ${TAMPERED_SEQ} is seq ${TAMPERED_SEQ}`);
  const at = line.indexOf('about the vault path');
  t.ok(at > line.indexOf('"payload":{'), 'the changed character is inside the payload');
  lines[TAMPERED_SEQ - 1] = `${line.slice(0, at)}About${line.slice(at + 5)}`;
  writeFileSync(logPathOf(dir), `${lines.join('\n')}\n`);

  const res = await runGov(['db', 'import', '--from-data-dir', dir, '--database-url', url, '--json']);
  t.equal(res.code, 3, `exit 3 (stderr: ${res.stderr})`);
  const doc = jsonOf(t, res);
  t.match(doc, { ok: false, code: 'store_corrupt', message: /\bseq 5000\b/ });
  t.match(doc.message, /Nothing was imported/);
  t.match(res.stderr, /seq 5000\b/, 'stderr names the seq too');
  t.same(await countAndHead(url), { count: 0, head: 0 }, 'the database stays empty');
  const keys = await query(url, async (c) => Number((await c.query<{ n: string }>('SELECT count(*) AS n FROM gov_keys')).rows[0]!.n));
  t.equal(keys, 0, 'no keys were copied either');
});

t.test('an unmigrated database: exit 3 database_not_migrated, telling to run gov db migrate', async (t) => {
  const url = await testDatabase(t);
  if (url === null) return;
  const res = await runGov(['db', 'import', '--from-data-dir', base, '--database-url', url, '--json']);
  t.equal(res.code, 3, `exit 3 (stderr: ${res.stderr})`);
  t.match(jsonOf(t, res), { ok: false, code: 'database_not_migrated', message: /run gov db migrate/ });
  const tables = await query(url, async (c) => (await c.query<{ t: string | null }>("SELECT to_regclass('gov_events')::text AS t")).rows[0]!.t);
  t.equal(tables, null, 'the import created no tables');
});

t.test('gov db migrate twice: the second has nothing to apply', async (t) => {
  const url = await testDatabase(t);
  if (url === null) return;
  const first = await runGov(['db', 'migrate', '--database-url', url]);
  t.equal(first.code, 0, `exit 0 (stderr: ${first.stderr})`);
  t.match(first.stdout, /^applied 1: .+\napplied 2: .+\nschema at version 2 \(2 applied\)\n$/);
  const second = await runGov(['db', 'migrate', '--database-url', url]);
  t.equal(second.code, 0, `exit 0 (stderr: ${second.stderr})`);
  t.equal(second.stdout, 'schema at version 2 (nothing to apply)\n');
  const json = await runGov(['db', 'migrate', '--database-url', url, '--json']);
  t.equal(json.code, 0);
  t.match(jsonOf(t, json), { applied: [], current: 2 });
  t.same(await countAndHead(url), { count: 0, head: 0 }, 'an empty, migrated store');
});
