// `gov store rebuild-index` as main.ts runs it (runCli: an exception's code gives the exit code).
// A log that fails the replay's checks (a line changed in place, one that is no longer an envelope,
// a broken chain) is refused with exit 3 naming the seq, and so is a log that lost events the index
// holds (unless --accept-loss): either way the old index, perhaps the last intact record, stays
// byte for byte. Start-up's own rebuild (the index missing) refuses the same damaged log.
import t, { type Test } from 'tap';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { indexPathOf, logPathOf } from '../../src/store/store.ts';
import { copyOfDir, runGov } from '../fixtures/cli-run.ts';
import { tempDir } from '../fixtures/test-app.ts';
import { noteEvents, openTestStore } from '../fixtures/store-harness.ts';

const pending = noteEvents();
const base = tempDir(t);
t.before(async () => {
  const { store } = await openTestStore(t, base);
  for (let i = 0; i < 12; i++) await store.append([pending()]);
  await store.close();
});

const copyOf = (t: Test): string => copyOfDir(t, base);

/** Runs `gov ARGS` in-process as main.ts does: exit code, stderr's sentence and --json's error document. */
const gov = (args: string[]) => runGov(args, base);

/** Rewrites the log's line of `seq` (JSON stays valid unless the edit says otherwise). */
function editLine(dir: string, seq: number, edit: (line: string) => string): void {
  const lines = readFileSync(logPathOf(dir), 'utf8').split('\n');
  const changed = edit(lines[seq - 1]!);
  if (changed === lines[seq - 1]) throw new Error('the edit changed nothing');
  lines[seq - 1] = changed;
  writeFileSync(logPathOf(dir), lines.join('\n'));
}

const cases = [
  { name: 'one character of a payload string changed', edit: (l: string) => l.replace('"note 6 ', '"nose 6 '), why: /fails at seq 6: event_hash does not recompute from the event/ },
  { name: 'recorded_at no longer a date-time', edit: (l: string) => l.replace(/"recorded_at":"[^"]*"/, '"recorded_at":"yesterday"'), why: /fails at seq 6: the line is not a service\.event\.v1 envelope: member recorded_at is not an RFC 3339 date-time/ },
  // The parsed event still hashes right: the bytes are not what was sealed. A first-wins reader of
  // the duplicate would take the injected payload.
  { name: 'a payload member injected before the real one', edit: (l: string) => `{"payload":{"evil":"injected"},${l.slice(1)}`, why: /fails at seq 6: the line is not the canonical form of its event/ },
  { name: 'a space after a colon', edit: (l: string) => l.replace('"kind":', '"kind": '), why: /fails at seq 6: the line is not the canonical form of its event/ },
  { name: 'prev_hash pointing elsewhere', edit: (l: string) => l.replace(/"prev_hash":"sha256:[0-9a-f]/, '"prev_hash":"sha256:_').replace('"prev_hash":"sha256:_', '"prev_hash":"sha256:0'), why: /fails at seq 6: prev_hash does not match the previous event_hash: the chain is broken/ },
];

for (const c of cases) {
  t.test(`a log line with ${c.name}: exit 3 naming seq 6, the index untouched`, async (t) => {
    const dir = copyOf(t);
    editLine(dir, 6, c.edit);
    const before = readFileSync(indexPathOf(dir));
    const res = await gov(['store', 'rebuild-index', '--data-dir', dir]);
    t.equal(res.code, 3, res.stdout);
    t.match(res.stderr, c.why);
    t.match(res.stderr, /an index built before is left as it is\. Restore the log from a backup \(gov events verify --data-dir shows every damaged line\)/);
    t.ok(readFileSync(indexPathOf(dir)).equals(before), 'the index file is byte for byte what it was');
    t.notOk(existsSync(`${indexPathOf(dir)}.rebuilding`), 'the half-built index is gone');
    const verify = await gov(['events', 'verify', '--data-dir', dir]);
    t.match(verify.stdout, /^FAILED at seq 6 /);
    t.match(verify.stdout, /index: disagrees/, 'verify still sees the damage through the index');
  });
}

t.test('--json: the refusal is one error document naming the seq', async (t) => {
  const dir = copyOf(t);
  editLine(dir, 6, cases[0]!.edit);
  const res = await gov(['store', 'rebuild-index', '--data-dir', dir, '--json']);
  t.equal(res.code, 3);
  t.match(JSON.parse(res.stdout), { ok: false, code: 'store_corrupt', first_bad_seq: 6 });
});

t.test("start-up's rebuild of a missing index refuses the same damaged log", async (t) => {
  const dir = copyOf(t);
  editLine(dir, 6, cases[0]!.edit);
  rmSync(indexPathOf(dir));
  await t.rejects(openTestStore(t, dir), { code: 'store_corrupt', message: /fails at seq 6: event_hash does not recompute/ });
  t.notOk(existsSync(indexPathOf(dir)), 'no empty index is left behind');
  t.notOk(existsSync(`${indexPathOf(dir)}.rebuilding`), 'nor a half-built one');
});

t.test('a log cut back behind the index: exit 3, the index kept; --accept-loss rebuilds', async (t) => {
  const dir = copyOf(t);
  const lines = readFileSync(logPathOf(dir), 'utf8').split('\n');
  writeFileSync(logPathOf(dir), `${lines.slice(0, 9).join('\n')}\n`);
  const before = readFileSync(indexPathOf(dir));
  const res = await gov(['store', 'rebuild-index', '--data-dir', dir]);
  t.equal(res.code, 3, res.stdout);
  t.match(res.stderr, /The index holds events up to seq 12, but the log .* ends at seq 9: the log has lost acknowledged events\. Restore .* from a backup .*run gov store rebuild-index --accept-loss/);
  t.ok(readFileSync(indexPathOf(dir)).equals(before), 'the index file is byte for byte what it was');
  const json = await gov(['store', 'rebuild-index', '--data-dir', dir, '--json']);
  t.match(JSON.parse(json.stdout), { ok: false, code: 'store_corrupt', index_seq: 12, log_seq: 9 });
  const twin = copyOf(t);
  writeFileSync(logPathOf(twin), `${lines.slice(0, 9).join('\n')}\n`);
  const acceptedJson = await gov(['store', 'rebuild-index', '--data-dir', twin, '--accept-loss', '--json']);
  t.equal(acceptedJson.code, 0, acceptedJson.stderr);
  t.match(JSON.parse(acceptedJson.stdout), { rebuilt: true, events: 9, dropped: { first_seq: 10, last_seq: 12 } }, '--json names the dropped seqs');
  const accepted = await gov(['store', 'rebuild-index', '--data-dir', dir, '--accept-loss']);
  t.equal(accepted.code, 0, accepted.stderr);
  t.match(accepted.stdout, /^rebuilt the index from 9 events/);
  t.match(accepted.stderr, /warning: --accept-loss: the old index holds events up to seq 12, the log ends at seq 9; seqs 10–12 are dropped with the old index\./, 'says what it drops');
  t.match((await gov(['events', 'verify', '--data-dir', dir])).stdout, /index: agrees/);
});

t.test('the last line broken in place: exit 3, also with --accept-loss', async (t) => {
  const dir = copyOf(t);
  editLine(dir, 12, (l) => l.replace('"note 12 ', '"NOTE 12 '));
  const res = await gov(['store', 'rebuild-index', '--data-dir', dir]);
  t.equal(res.code, 3, res.stdout);
  t.match(res.stderr, /fails at seq 12: event_hash does not recompute from the event/);
  t.equal((await gov(['store', 'rebuild-index', '--data-dir', dir, '--accept-loss'])).code, 3, '--accept-loss cannot rebuild past it either');
});

t.test('the newest line torn mid-line behind the index: exit 3 before the cut; --accept-loss cuts and rebuilds', async (t) => {
  const dir = copyOf(t);
  const whole = readFileSync(logPathOf(dir));
  const torn = whole.subarray(0, whole.length - 40);
  writeFileSync(logPathOf(dir), torn);
  const res = await gov(['store', 'rebuild-index', '--data-dir', dir]);
  t.equal(res.code, 3, res.stdout);
  t.match(res.stderr, /The index holds events up to seq 12, but the log .* ends at seq 11: the log has lost acknowledged events/);
  t.notMatch(res.stderr, /Cut off/, 'nothing is cut, nor said to be');
  t.ok(readFileSync(logPathOf(dir)).equals(torn), 'the log is byte for byte what it was');
  const accepted = await gov(['store', 'rebuild-index', '--data-dir', dir, '--accept-loss', '--json']);
  t.equal(accepted.code, 0, accepted.stderr);
  t.match(JSON.parse(accepted.stdout), { rebuilt: true, events: 11, dropped: { first_seq: 12, last_seq: 12 } });
  t.match(accepted.stderr, /Cut off a torn last line/);
  t.match((await gov(['events', 'verify', '--data-dir', dir])).stdout, /index: agrees/);
});

t.test('a sound log: rebuilt, the index agrees', async (t) => {
  const dir = copyOf(t);
  const res = await gov(['store', 'rebuild-index', '--data-dir', dir]);
  t.equal(res.code, 0, res.stderr);
  t.match(res.stdout, /^rebuilt the index from 12 events/);
  const json = JSON.parse((await gov(['store', 'rebuild-index', '--data-dir', dir, '--json'])).stdout);
  t.same(Object.keys(json), ['rebuilt', 'events', 'seconds', 'events_per_second', 'dropped']);
  t.match(json, { rebuilt: true, events: 12, dropped: null }, 'nothing dropped');
  t.match((await gov(['events', 'verify', '--data-dir', dir])).stdout, /^ok: 12 events.*\n.*\nindex: agrees/);
});

t.test('a data dir that does not exist: exit 2 naming it and the flag; one without a log: exit 3', async (t) => {
  const missing = `${tempDir(t)}/nowhere`;
  const res = await gov(['store', 'rebuild-index', '--data-dir', missing]);
  t.equal(res.code, 2, res.stdout);
  t.equal(res.stderr, `gov: The data dir ${missing} (--data-dir) does not exist or is not a directory; check the path, or start the preview once (gov preview start --data-dir) to create it.\n`);
  const empty = tempDir(t);
  const none = await gov(['store', 'rebuild-index', '--data-dir', empty, '--json']);
  t.equal(none.code, 3);
  t.match(JSON.parse(none.stdout), { ok: false, code: 'not_found', message: /^There is no event log at / });
});
