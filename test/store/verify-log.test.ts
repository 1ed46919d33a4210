// `gov events verify` and the end of the log: a torn last line (unterminated, or ended but not an
// event) and the events of a unit whose last line is missing are what start-up cuts. Verify reports
// them (exit 1, "torn tail at byte N (start-up would cut it)", tail.status "torn" in --json) instead
// of "ok … hash chain intact", and its cut_at is exactly where start-up truncates the log.
import t, { type Test } from 'tap';
import { appendFileSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { eventsVerify } from '../../src/cli/commands/store.ts';
import type { CliIo } from '../../src/cli/io.ts';
import type { PendingEvent } from '../../src/store/event-log.ts';
import { indexPathOf, logPathOf, openStore } from '../../src/store/store.ts';
import { verifyLog, type LogVerification } from '../../src/store/verify-log.ts';
import { fixedClock, tempDir } from '../fixtures/test-app.ts';

const scope = { tenant_id: 'tenant-a', workspace_id: 'ws-1', project_id: 'proj-1' };
let id = 0;
const pending = (): PendingEvent => ({ event_id: `evt_${++id}`, kind: 'ext.acme.note', ...scope, transport: 'customer', idempotency_key: null, request_sha256: null, payload: { text: `note ${id}` } });

/** A data dir whose log holds one single event, then one unit of three events. */
async function dataDirWithUnit(t: Test): Promise<{ dir: string; lines: string[] }> {
  const dir = tempDir(t);
  const store = await openStore({ dataDir: dir, clock: fixedClock(), warn: () => {} });
  await store.append([pending()]);
  await store.append([pending(), pending(), pending()]);
  await store.close();
  return { dir, lines: readFileSync(logPathOf(dir), 'utf8').split('\n').filter(Boolean) };
}

function verifyCommand(dir: string) {
  const io: CliIo = { stdout: () => {}, stderr: () => {}, env: {}, cwd: dir, isTty: false, onStopSignal: () => {} };
  return eventsVerify({ dataDir: dir }, io);
}

/** Start-up's own recovery, to compare with what verify said it would cut. */
async function sizeAfterStartUp(dir: string): Promise<number> {
  const store = await openStore({ dataDir: dir, clock: fixedClock(), warn: () => {} });
  await store.close();
  return statSync(logPathOf(dir)).size;
}

/** A crash inside a unit: only the first lines reached the log, and the index never saw the unit. */
function keepOnly(dir: string, text: string): void {
  writeFileSync(logPathOf(dir), text);
  rmSync(indexPathOf(dir), { force: true });
}

const bytes = (lines: string[]) => Buffer.byteLength(lines.map((l) => `${l}\n`).join(''));

t.test('a clean log: ok, exit 0, tail clean', async (t) => {
  const { dir } = await dataDirWithUnit(t);
  const size = statSync(logPathOf(dir)).size;
  const result = verifyLog(dir);
  t.match(result, { ok: true, event_count: 4, problem: null });
  t.strictSame(result.tail, { status: 'clean', cut_at: size, cut_bytes: 0, torn_lines: 0, incomplete_unit: null, detail: 'the log ends with a whole line and a whole unit' });
  const cli = verifyCommand(dir);
  t.equal(cli.exitCode, 0);
  t.match(cli.text, /^ok: 4 events, seq 1–4 gapless, hash chain intact\n/);
});

const cases: { name: string; damage: (dir: string, lines: string[]) => void; keep: (lines: string[]) => number; expect: Partial<LogVerification['tail']>; events: number }[] = [
  {
    name: 'an unterminated last line',
    damage: (dir) => appendFileSync(logPathOf(dir), '{"seq":5,"kind":"ext.acme.no'),
    keep: (lines) => bytes(lines),
    expect: { torn_lines: 1, incomplete_unit: null, cut_bytes: 28 },
    events: 4,
  },
  {
    name: 'a last line that ends but is not an event',
    damage: (dir) => appendFileSync(logPathOf(dir), '\u0000\u0000\u0000\n'),
    keep: (lines) => bytes(lines),
    expect: { torn_lines: 1, incomplete_unit: null, cut_bytes: 4 },
    events: 4,
  },
  {
    name: 'a unit missing its last line',
    damage: (dir, lines) => keepOnly(dir, lines.slice(0, 3).map((l) => `${l}\n`).join('')),
    keep: (lines) => bytes(lines.slice(0, 1)),
    expect: { torn_lines: 0, incomplete_unit: { first_seq: 2, last_seq: 3, size: 3 } },
    events: 1,
  },
  {
    name: 'a unit missing its last line, then a torn line',
    damage: (dir, lines) => keepOnly(dir, `${lines.slice(0, 2).map((l) => `${l}\n`).join('')}${lines[2]!.slice(0, 40)}`),
    keep: (lines) => bytes(lines.slice(0, 1)),
    expect: { torn_lines: 1, incomplete_unit: { first_seq: 2, last_seq: 2, size: 3 } },
    events: 1,
  },
];

for (const c of cases) {
  t.test(`${c.name}: reported as a torn tail at the byte start-up cuts, exit 1`, async (t) => {
    const { dir, lines } = await dataDirWithUnit(t);
    c.damage(dir, lines);
    const size = statSync(logPathOf(dir)).size;
    const cutAt = c.keep(lines);
    const result = verifyLog(dir);
    t.equal(result.ok, false);
    t.match(result, { problem: null, first_bad_seq: null, event_count: c.events, last_seq: c.events });
    t.match(result.tail, { status: 'torn', cut_at: cutAt, cut_bytes: size - cutAt, ...c.expect });
    t.match(result.tail.detail, /never acknowledged$/);

    const cli = verifyCommand(dir);
    t.equal(cli.exitCode, 1);
    t.strictSame(cli.json, result);
    const text = cli.text.split('\n');
    t.equal(text[0], `torn tail at byte ${cutAt} (start-up would cut it): ${result.tail.detail}`);
    t.equal(text[1], `before it: ${c.events} events, seq 1–${c.events} gapless, hash chain intact`);
    t.notOk(text.some((l) => l.startsWith('ok')), 'never says ok');

    t.equal(await sizeAfterStartUp(dir), cutAt, 'start-up cuts exactly there');
    t.match(verifyLog(dir), { ok: true, tail: { status: 'clean' } }, 'and then the log is clean');
  });
}

t.test('a bad middle line and a torn tail: both reported', async (t) => {
  const { dir, lines } = await dataDirWithUnit(t);
  const changed = [lines[0]!.replace(/"text":"note \d+"/, '"text":"note X"'), ...lines.slice(1)];
  writeFileSync(logPathOf(dir), `${changed.map((l) => `${l}\n`).join('')}{"torn`);
  const cli = verifyCommand(dir);
  t.equal(cli.exitCode, 1);
  const text = cli.text.split('\n');
  t.match(text[0], /^FAILED at seq 1: event_hash does not recompute/);
  t.equal(text[1], `torn tail at byte ${bytes(changed)} (start-up would cut it): ${(cli.json as LogVerification).tail.detail}`);
});
