// The preview writes its index without fsync (src/store/unsynced-index.ts): a marker names the boot
// during which it did. A start after a restart of the machine rebuilds the index from the log; a
// start after a process that merely stopped without closing the store (same boot) trusts it; a
// clean stop flushes the index and removes the marker; gov store rebuild-index removes it too.
import t, { type Test } from 'tap';
import Database from 'better-sqlite3';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { storeRebuildIndex } from '../../src/cli/commands/store.ts';
import type { CliIo } from '../../src/cli/io.ts';
import { createQueries } from '../../src/store/queries.ts';
import { indexPathOf } from '../../src/store/store.ts';
import { currentBootId, unsyncedIndexLost, unsyncedMarkerOf } from '../../src/store/unsynced-index.ts';
import { tempDir } from '../fixtures/test-app.ts';
import { noteEvents, openTestStore, STORE_SCOPE } from '../fixtures/store-harness.ts';

const linux = currentBootId() !== null;
const pending = noteEvents();

/** A closed data dir whose log holds task-1 and 20 notes, and whose index lost task-1's row by hand. */
async function seededWithoutTaskRow(t: Test): Promise<string> {
  const dataDir = tempDir(t);
  const { store } = await openTestStore(t, dataDir);
  await store.append([pending({ kind: 'task.created', payload: { title: 'Seeded task' } })]);
  for (let i = 0; i < 20; i++) await store.append([pending()]);
  await store.close();
  // A change only a rebuild undoes (start-up's own checks read the event rows, not the tasks).
  const db = new Database(indexPathOf(dataDir));
  db.prepare("DELETE FROM tasks WHERE task_id = 'task-1'").run();
  db.close();
  return dataDir;
}

const marker = (bootId: string) => `${JSON.stringify({ boot_id: bootId, pid: 4242, since: '2026-12-01T10:00:00.000Z' })}\n`;
const taskOf = (store: { index: { db: Database.Database } }) => createQueries(store.index.db).task(STORE_SCOPE, 'task-1');

t.test('while the store is open the marker names this boot; a clean stop removes it', { skip: linux ? false : 'boot ids are read from Linux /proc' }, async (t) => {
  const dataDir = tempDir(t);
  const { store } = await openTestStore(t, dataDir);
  await store.append([pending({ kind: 'task.created', payload: { title: 'A task' } })]);
  const written = JSON.parse(readFileSync(unsyncedMarkerOf(dataDir), 'utf8'));
  t.same(Object.keys(written).sort(), ['boot_id', 'pid', 'since']);
  t.equal(written.boot_id, currentBootId());
  t.equal(written.pid, process.pid);
  await store.close();
  t.notOk(existsSync(unsyncedMarkerOf(dataDir)), 'the index is flushed and the marker gone');
});

t.test('a marker from another boot: the next start rebuilds the index from the log', async (t) => {
  const dataDir = await seededWithoutTaskRow(t);
  writeFileSync(unsyncedMarkerOf(dataDir), marker('00000000-0000-4000-8000-000000000000'));
  const { store, warnings } = await openTestStore(t, dataDir);
  t.match(warnings.join('\n'), /may have lost writes: the machine restarted while the preview \(pid 4242, since 2026-12-01T10:00:00\.000Z\) wrote the index without syncing it to disk; rebuilding it from the log\./);
  t.equal(taskOf(store)?.last_seq, 21, 'the rebuilt index has the task again');
  t.equal(store.index.lastSeq(), 21);
});

t.test('a marker that cannot be read: rebuilt as well', async (t) => {
  const dataDir = await seededWithoutTaskRow(t);
  writeFileSync(unsyncedMarkerOf(dataDir), '{"boot_id": ');
  const { store, warnings } = await openTestStore(t, dataDir);
  t.match(warnings.join('\n'), /index\.unsynced cannot be read, so the index may not have reached the disk; rebuilding it from the log\./);
  t.equal(taskOf(store)?.last_seq, 21);
});

t.test('a marker of this boot (a process that stopped without closing): the index is trusted as it is', { skip: linux ? false : 'boot ids are read from Linux /proc' }, async (t) => {
  const dataDir = await seededWithoutTaskRow(t);
  writeFileSync(unsyncedMarkerOf(dataDir), marker(currentBootId()!));
  const { store, warnings } = await openTestStore(t, dataDir);
  t.same(warnings, []);
  t.equal(taskOf(store), undefined, 'not rebuilt: the row removed by hand stays removed');
});

t.test('unsyncedIndexLost: no marker, this boot, another boot, an unknown boot', async (t) => {
  const dataDir = tempDir(t);
  t.equal(unsyncedIndexLost(dataDir, 'boot-a'), null, 'no marker');
  writeFileSync(unsyncedMarkerOf(dataDir), marker('boot-a'));
  t.equal(unsyncedIndexLost(dataDir, 'boot-a'), null);
  t.match(unsyncedIndexLost(dataDir, 'boot-b'), /^the machine restarted while the preview \(pid 4242/);
  t.match(unsyncedIndexLost(dataDir, null), /^the machine restarted/, 'a boot that cannot be told is not this one');
});

t.test('gov store rebuild-index flushes the new index and removes a marker', async (t) => {
  const dataDir = await seededWithoutTaskRow(t);
  writeFileSync(unsyncedMarkerOf(dataDir), marker('00000000-0000-4000-8000-000000000000'));
  const io: CliIo = { stdout: () => {}, stderr: () => {}, env: {}, cwd: dataDir, isTty: false, onStopSignal: () => {} };
  t.equal((await storeRebuildIndex({ dataDir }, io)).exitCode, 0);
  t.notOk(existsSync(unsyncedMarkerOf(dataDir)));
  const { store, warnings } = await openTestStore(t, dataDir);
  t.same(warnings, [], 'the next start trusts the rebuilt index');
  t.equal(taskOf(store)?.last_seq, 21);
});
