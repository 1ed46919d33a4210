// What the PostgreSQL adapter does beyond the store contract: a process whose index is found damaged
// refuses reads and writes with 503 index_unavailable (nothing half-written), rebuilds the index
// from the database while it runs, and answers again with every event, those other processes
// appended meanwhile included.
import t from 'tap';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { AppError } from '../../src/errors.ts';
import { migrateDatabase } from '../../src/store/pg/pg-log-tools.ts';
import { openPgStore } from '../../src/store/pg/pg-store.ts';
import { testDatabase } from '../fixtures/postgres.ts';
import { noteEvents } from '../fixtures/store-harness.ts';
import { fixedClock, tempDir } from '../fixtures/test-app.ts';

const codeOf = (p: Promise<unknown>): Promise<string> =>
  p.then(
    () => 'ok',
    (err: unknown) => (err instanceof AppError ? err.code : String(err)),
  );

t.test('a damaged index is rebuilt from the database while the process runs', async (t) => {
  const url = await testDatabase(t);
  if (url === null) return;
  await migrateDatabase(url);
  const warnings: string[] = [];
  const store = await openPgStore({ databaseUrl: url, clock: fixedClock(), warn: (m) => warnings.push(m) });
  t.teardown(() => store.close());
  const other = await openPgStore({ databaseUrl: url, clock: fixedClock(), warn: () => {} });
  t.teardown(() => other.close());
  const note = noteEvents();
  for (let k = 0; k < 10; k++) await store.append([note({ event_id: `evt_a${k}` })]);
  await store.settled();
  const rows = () => store.index.db.prepare<[], { seq: number; line: string }>('SELECT seq, line FROM events ORDER BY seq').all();
  const before = rows();

  store.markIndexCorrupt('a test says the file is damaged');
  t.equal(store.indexStatus().state, 'unavailable');
  t.equal(await codeOf(store.settled()), 'index_unavailable', 'reads are refused meanwhile');
  // Another process appends while this one rebuilds.
  await other.append([note({ event_id: 'evt_b1' })]);

  t.ok(await store.rebuilt(), 'the rebuild succeeds');
  t.equal(store.indexStatus().state, 'current');
  await store.settled();
  t.same(rows().slice(0, 10), before, 'the rebuilt index holds the same rows');
  t.equal(rows().length, 11, "and the other process's event appended meanwhile");
  const next = await store.append([note({ event_id: 'evt_a10' })]);
  t.equal(next.events[0]!.seq, 12, 'appends go on after it');
  t.match(warnings.join('\n'), /is being rebuilt from the database[\s\S]*Rebuilt this process's index from the database/);
});

t.test('a --cache-dir used before is rebuilt from the database, not replayed on top of its old index', async (t) => {
  const url = await testDatabase(t);
  if (url === null) return;
  await migrateDatabase(url);
  const cacheDir = tempDir(t);
  const note = noteEvents();
  const first = await openPgStore({ databaseUrl: url, clock: fixedClock(), warn: () => {}, cacheDir });
  for (let k = 0; k < 5; k++) await first.append([note()]);
  await first.close();
  t.ok(existsSync(join(cacheDir, 'index.sqlite')), 'the given cache dir keeps its index after a stop');
  const second = await openPgStore({ databaseUrl: url, clock: fixedClock(), warn: () => {}, cacheDir });
  t.teardown(() => second.close());
  t.same(second.index.db.prepare<[], { seq: number }>('SELECT seq FROM events ORDER BY seq').all().map((r) => r.seq), [1, 2, 3, 4, 5], 'each event once');
  t.equal((await second.append([note()])).events[0]!.seq, 6);
});
