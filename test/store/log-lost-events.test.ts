// A log that lost acknowledged events the index still holds is refused at start (store_corrupt,
// exit 3), the index left as it is: the log cut back or removed (the index reaches past it), and a
// line damaged in place among the newest (it no longer parses, or its event_hash no longer
// recomputes, while the index's copy does). Rebuilding the index from such a log, as start-up did,
// threw away the last intact copy of those events. An index row that is the damaged one is still
// rebuilt from the log (index-damage.test.ts).
import t, { type Test } from 'tap';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { indexPathOf, logPathOf } from '../../src/store/store.ts';
import { tempDir } from '../fixtures/test-app.ts';
import { noteEvents, openTestStore } from '../fixtures/store-harness.ts';

const pending = noteEvents();

/** A closed data dir with 12 events in its log and its index. */
async function seeded(t: Test): Promise<string> {
  const dataDir = tempDir(t);
  const { store } = await openTestStore(t, dataDir);
  await store.append([pending({ kind: 'task.created', payload: { title: 'Seeded task' } })]);
  for (let i = 0; i < 11; i++) await store.append([pending()]);
  await store.close();
  return dataDir;
}

const indexedSeqs = (dataDir: string) => {
  const db = new Database(indexPathOf(dataDir), { readonly: true });
  try {
    return (db.prepare('SELECT count(*) AS n, max(seq) AS last FROM events').get() as { n: number; last: number });
  } finally {
    db.close();
  }
};
const logLines = (dataDir: string) => readFileSync(logPathOf(dataDir), 'utf8').split('\n').filter(Boolean);

async function refused(t: Test, dataDir: string, message: RegExp) {
  await t.rejects(openTestStore(t, dataDir), { code: 'store_corrupt', message }, 'start is refused');
  t.same(indexedSeqs(dataDir), { n: 12, last: 12 }, 'the index still holds every event, untouched');
  await t.rejects(openTestStore(t, dataDir), { code: 'store_corrupt' }, 'and so is the next start: nothing was rebuilt');
}

t.test('a log cut back to an older prefix: refused, the index kept', async (t) => {
  const dataDir = await seeded(t);
  writeFileSync(logPathOf(dataDir), `${logLines(dataDir).slice(0, 5).join('\n')}\n`);
  await refused(t, dataDir, /The index holds events up to seq 12, but the log .* ends at seq 5: the log has lost acknowledged events\. Restore .* from a backup .* gov store rebuild-index --accept-loss \(with the preview stopped\), or delete .*index\.sqlite\./);
});

t.test('a log removed: refused, the index kept', async (t) => {
  const dataDir = await seeded(t);
  renameSync(logPathOf(dataDir), `${logPathOf(dataDir)}.moved`);
  await refused(t, dataDir, /up to seq 12, but the log .* ends at seq 0/);
});

t.test('a line damaged in place (no longer JSON): refused, naming its seq', async (t) => {
  const dataDir = await seeded(t);
  const lines = logLines(dataDir);
  lines[6] = `${lines[6]!.slice(0, 20)}${'\u0000'.repeat(10)}${lines[6]!.slice(30)}`;
  writeFileSync(logPathOf(dataDir), `${lines.join('\n')}\n`);
  await refused(t, dataDir, /The line of seq 7 in the log .* is damaged .* the index holds an intact copy of it\. Run gov events verify/);
});

t.test('a line changed in place (its event_hash no longer recomputes), the last one too: refused', async (t) => {
  for (const at of [3, 11]) {
    const dataDir = await seeded(t);
    const lines = logLines(dataDir);
    lines[at] = lines[at]!.replace('"preview-customer"', '"someone-else"').replace('"note ', '"NOTE ');
    t.not(lines[at], logLines(dataDir)[at], 'the line changed');
    writeFileSync(logPathOf(dataDir), `${lines.join('\n')}\n`);
    await refused(t, dataDir, new RegExp(`The line of seq ${at + 1} in the log .* is damaged`));
  }
});

t.test('the newest line torn mid-line, or a unit cut to its first event: refused before anything is cut', async (t) => {
  // A torn tail is cut at start as never acknowledged; but an index holding those seqs proves they
  // were, and the refused start must leave the log as it found it (the lines it would cut may be
  // all that is left of them besides the index).
  const dataDir = tempDir(t);
  const { store } = await openTestStore(t, dataDir);
  for (let i = 0; i < 10; i++) await store.append([pending()]);
  await store.append([pending(), pending()]);
  await store.close();
  const whole = readFileSync(logPathOf(dataDir));
  const lines = logLines(dataDir);
  const torn = whole.subarray(0, whole.length - 40);
  const unitCut = Buffer.from(`${lines.slice(0, 11).join('\n')}\n`);
  for (const [name, bytes] of [['torn mid-line', torn], ['unit cut', unitCut]] as const) {
    writeFileSync(logPathOf(dataDir), bytes);
    await refused(t, dataDir, /The index holds events up to seq 12, but the log .* ends at seq 10: the log has lost acknowledged events/);
    t.ok(readFileSync(logPathOf(dataDir)).equals(bytes), `${name}: the log is byte for byte what it was`);
  }
});

t.test('the log intact: starts as always', async (t) => {
  const dataDir = await seeded(t);
  const { store } = await openTestStore(t, dataDir);
  t.equal(store.index.lastSeq(), 12);
  t.ok(existsSync(indexPathOf(dataDir)));
});

t.test('a line removed from the middle, or copied in: refused, naming the seq, only a backup offered', async (t) => {
  const removed = await seeded(t);
  const lines = logLines(removed);
  writeFileSync(logPathOf(removed), `${[...lines.slice(0, 7), ...lines.slice(8)].join('\n')}\n`);
  await refused(t, removed, /The log .* has no line for seq 8, which the index holds intact: the log has lost an acknowledged event\. Run gov events verify --data-dir \S+ to see every damaged line, then restore .* from a backup/);
  const copied = await seeded(t);
  const again = logLines(copied);
  writeFileSync(logPathOf(copied), `${[...again.slice(0, 5), again[4]!, ...again.slice(5)].join('\n')}\n`);
  await refused(t, copied, /The log .* holds seq 5 twice: a line was copied in\./);
  // A damaged line cannot be rebuilt past, so neither message offers to start over.
  await t.rejects(openTestStore(t, removed), { message: /^(?!.*accept-loss)(?!.*delete)/s }, 'no start over offered');
});

t.test('an index that trails the log (a crash) is compared with its own lines: one damaged among them is refused', async (t) => {
  const full = await seeded(t);
  const lines = logLines(full);
  // The index as a crash leaves it: built from the first 8 lines, the log since grown to 12.
  const dataDir = tempDir(t);
  writeFileSync(logPathOf(dataDir), `${lines.slice(0, 8).join('\n')}\n`);
  await (await openTestStore(t, dataDir)).store.close();
  const damaged = [...lines];
  // Seq 3: among the index's rows (1–8), not among the log's last 8 lines (5–12).
  damaged[2] = damaged[2]!.replace('"kind":"', '"kind":"x');
  writeFileSync(logPathOf(dataDir), `${damaged.join('\n')}\n`);
  await t.rejects(openTestStore(t, dataDir), { code: 'store_corrupt', message: /The line of seq 3 in the log .* is damaged/ }, 'start is refused');
  // Intact, the same trailing index catches up.
  writeFileSync(logPathOf(dataDir), `${lines.join('\n')}\n`);
  const { store } = await openTestStore(t, dataDir);
  await store.close();
  t.same(indexedSeqs(dataDir), { n: 12, last: 12 }, 'caught up');
});
