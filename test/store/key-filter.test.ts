// The filter of used Idempotency-Keys (key-filter.ts): never "unused" for a used key, rarely
// "maybe" for an unused one, growing past its first capacity; and the preview's committed reads
// ask the index only about keys the filter may have (the keys the index held at start and every
// key the gate sealed since). The preview store's `idempotency` (what a route asks before it
// repeats its work for a replay) goes through the same filter.
import t from 'tap';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { committedReads } from '../../src/store/committed-state.ts';
import { openIndexDb } from '../../src/store/index-db.ts';
import { createKeyFilter } from '../../src/store/key-filter.ts';
import { EXTRA_PROJECTIONS } from '../../src/store/projections/registry.ts';
import { noteEvents, openTestStore } from '../fixtures/store-harness.ts';
import { tempDir } from '../fixtures/test-app.ts';

t.test('no false negatives, about 1 % false positives, across several layers', async (t) => {
  const filter = createKeyFilter();
  // 300,000 keys: past the first layer's 65,536 and the second's 262,144.
  const used = Array.from({ length: 300_000 }, (_, i) => (i % 2 === 0 ? `tenant-a\n${randomUUID()}` : `tenant-b\nkey-${i}`));
  for (const key of used) filter.add(key);
  t.ok(used.every((key) => filter.mayHave(key)), 'every added key may be used');
  const unused = Array.from({ length: 100_000 }, (_, i) => (i % 2 === 0 ? `tenant-a\n${randomUUID()}` : `tenant-b\nkey-${i}-new`));
  const falsePositives = unused.filter((key) => filter.mayHave(key)).length;
  t.ok(falsePositives / unused.length < 0.03, `false positives: ${(100 * falsePositives / unused.length).toFixed(2)} % of unused keys`);
  t.notOk(createKeyFilter().mayHave('tenant-a\nanything'), 'an empty filter has nothing');
});

t.test('committed reads consult the index only for keys the filter may have', async (t) => {
  const dir = tempDir(t);
  const index = openIndexDb(join(dir, 'index.sqlite'), EXTRA_PROJECTIONS);
  t.teardown(() => index.close());
  index.db.prepare('INSERT INTO idempotency (tenant_id, key, first_seq, size, request_sha256) VALUES (?, ?, ?, ?, ?)').run('tenant-a', 'used-before', 1, 1, 'sha256:x');
  const reads = committedReads(index.db, { filterKeys: { startAfterMs: 0 } });
  t.same(reads.idempotency('tenant-a', 'used-before'), { first_seq: 1, size: 1, request_sha256: 'sha256:x' }, 'a key the index held at start is found');
  reads.noteKey!('tenant-a', 'sealed-since');
  const unfiltered = committedReads(index.db);
  t.equal(unfiltered.noteKey, undefined, 'without filterKeys nothing is filtered (the hosted store)');
  // Without its table the index cannot answer: a look-up that reaches it throws.
  index.db.exec('DROP TABLE idempotency');
  t.throws(() => reads.idempotency('tenant-a', 'used-before'), /no such table/, 'a key loaded at start is looked up');
  t.throws(() => reads.idempotency('tenant-a', 'sealed-since'), /no such table/, 'a key sealed since is looked up');
  t.equal(reads.idempotency('tenant-a', 'never-used'), undefined, 'a new key is known new without the index');
  t.equal(reads.idempotency('tenant-b', 'used-before'), undefined, 'keys are per tenant');
  t.throws(() => unfiltered.idempotency('tenant-a', 'never-used'), /no such table/, 'unfiltered reads always ask the index');
});

t.test('the start-up scan fills the filter a page per turn; until it ends the index decides', async (t) => {
  const dir = tempDir(t);
  const index = openIndexDb(join(dir, 'index.sqlite'), EXTRA_PROJECTIONS);
  t.teardown(() => index.close());
  const insert = index.db.prepare('INSERT INTO idempotency (tenant_id, key, first_seq, size, request_sha256) VALUES (?, ?, ?, ?, ?)');
  // 12,000 keys: three pages of the scan.
  index.db.transaction(() => {
    for (let i = 0; i < 12_000; i++) insert.run('tenant-a', `key-${String(i).padStart(5, '0')}`, i + 1, 1, null);
  })();
  const reads = committedReads(index.db, { filterKeys: { startAfterMs: 0 } });
  t.same(reads.idempotency('tenant-a', 'key-11999'), { first_seq: 12_000, size: 1, request_sha256: null }, 'a key past the first page is found while the scan runs');
  for (let turn = 0; turn < 10; turn++) await new Promise((resolve) => setImmediate(resolve));
  index.db.exec('ALTER TABLE idempotency RENAME TO idempotency_away');
  for (const i of [0, 4_999, 5_000, 9_999, 10_000, 11_999]) t.throws(() => reads.idempotency('tenant-a', `key-${String(i).padStart(5, '0')}`), /no such table/, `key ${i} is looked up`);
  t.equal(reads.idempotency('tenant-a', 'key-new'), undefined, 'once the scan is done a new key is known new');
});

t.test('the preview starts the scan after it is up; until then the index decides every key', async (t) => {
  const dir = tempDir(t);
  const index = openIndexDb(join(dir, 'index.sqlite'), EXTRA_PROJECTIONS);
  t.teardown(() => index.close());
  index.db.prepare('INSERT INTO idempotency (tenant_id, key, first_seq, size, request_sha256) VALUES (?, ?, ?, ?, ?)').run('tenant-a', 'used-before', 1, 1, null);
  const reads = committedReads(index.db, { filterKeys: { startAfterMs: 150 } });
  t.equal(reads.idempotency('tenant-a', 'never-used'), undefined);
  index.db.exec('ALTER TABLE idempotency RENAME TO idempotency_away');
  t.throws(() => reads.idempotency('tenant-a', 'never-used'), /no such table/, 'before the scan a new key is looked up too');
  index.db.exec('ALTER TABLE idempotency_away RENAME TO idempotency');
  await new Promise((resolve) => setTimeout(resolve, 300));
  index.db.exec('ALTER TABLE idempotency RENAME TO idempotency_away');
  t.equal(reads.idempotency('tenant-a', 'never-used'), undefined, 'after it a new key is known new');
  t.throws(() => reads.idempotency('tenant-a', 'used-before'), /no such table/, 'and a used one is looked up');
});

t.test('the preview store answers a route\'s key look-up through the filter', async (t) => {
  const { store } = await openTestStore(t, tempDir(t));
  const note = noteEvents();
  await store.append([note({ idempotency_key: 'k-used', request_sha256: 'sha256:used' })]);
  await store.settled();
  t.same(store.idempotency('tenant-a', 'k-used'), { first_seq: 1, size: 1, request_sha256: 'sha256:used' }, 'a used key\'s record');
  t.equal(store.idempotency('tenant-a', 'k-new'), undefined);
  // The store reads the index's keys into its filter a second after it opens.
  await new Promise((resolve) => setTimeout(resolve, 1_200));
  store.index.db.exec('ALTER TABLE idempotency RENAME TO idempotency_away');
  t.throws(() => store.idempotency('tenant-a', 'k-used'), /no such table/, 'a used key is looked up in the index');
  t.equal(store.idempotency('tenant-a', 'k-new'), undefined, 'a new key is known new without the index');
  store.index.db.exec('ALTER TABLE idempotency_away RENAME TO idempotency');
});
