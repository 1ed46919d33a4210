// `gov events verify` and the end of the log: a torn last line (unterminated, or ended but not an
// event) and the events of a unit whose last line is missing are what start-up cuts. Verify reports
// them (exit 1, "torn tail at byte N (start-up would cut it)", tail.status "torn" in --json) instead
// of "ok … hash chain intact", and its cut_at is exactly where start-up truncates the log. A
// malformed line anywhere before the tail (bad UTF-8 or JSON, a broken envelope member, a gap, a
// broken link) is a finding with its code, seq and byte offset: never an exception.
import t, { type Test } from 'tap';
import { appendFileSync, cpSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { eventsVerify } from '../../src/cli/commands/store.ts';
import { canonicalJson } from '../../src/domain/canonical-json.ts';
import { eventHash } from '../../src/domain/event-hash.ts';
import { ZERO_HASH } from '../../src/domain/event.ts';
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
  t.match(text[0], /^FAILED at seq 1 \(byte 0\): event_hash does not recompute/);
  t.match(cli.json, { problem_code: 'event_hash_mismatch', first_bad_seq: 1, first_bad_offset: 0, merkle_root: null });
  t.equal(text[1], `torn tail at byte ${bytes(changed)} (start-up would cut it): ${(cli.json as LogVerification).tail.detail}`);
});

type Edit = (line: string, lines: string[]) => string | Buffer;

/**
 * Line `k` (0-based) of the log replaced by what `edit` makes of it, the index left as it was. With
 * `rehash`, every event_hash and prev_hash from there on is recomputed, as a forger would.
 */
function editLine(dir: string, k: number, edit: Edit, rehash = false): { offset: number } {
  const lines = readFileSync(logPathOf(dir), 'utf8').split('\n').filter(Boolean);
  const offset = bytes(lines.slice(0, k));
  const parts = lines.map((l, i) => (i === k ? edit(l, lines) : l));
  if (rehash) {
    for (let i = k; i < parts.length; i++) {
      const event = JSON.parse(parts[i]!.toString());
      event.prev_hash = i === 0 ? ZERO_HASH : JSON.parse(parts[i - 1]!.toString()).event_hash;
      event.event_hash = eventHash(event);
      parts[i] = canonicalJson(event);
    }
  }
  writeFileSync(logPathOf(dir), Buffer.concat(parts.flatMap((p) => [typeof p === 'string' ? Buffer.from(p) : p, Buffer.from('\n')])));
  return { offset };
}
const member = (name: string, value: unknown) => (line: string) => JSON.stringify({ ...JSON.parse(line), [name]: value });
const drop = (name: string) => (line: string) => JSON.stringify({ ...JSON.parse(line), [name]: undefined });
const deep = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;

const malformed: Array<{ name: string; line: number; edit: Edit; rehash?: true; code: string; problem: RegExp }> = [
  { name: 'a malformed event_hash', line: 1, edit: (l) => l.replace(/"event_hash":"sha256:[0-9a-f]{64}"/, `"event_hash":"sha256:X${'f'.repeat(63)}"`), code: 'envelope_invalid', problem: /member event_hash is not a sha256/ },
  { name: 'a malformed prev_hash', line: 2, edit: member('prev_hash', 'sha256:1234'), code: 'envelope_invalid', problem: /member prev_hash / },
  { name: 'event_hash of the wrong type', line: 1, edit: member('event_hash', 42), code: 'envelope_invalid', problem: /member event_hash / },
  { name: 'a seq that is a string', line: 1, edit: member('seq', '2'), code: 'envelope_invalid', problem: /member seq is not a positive integer/ },
  { name: 'a seq that is not an integer', line: 2, edit: member('seq', 2.5), code: 'envelope_invalid', problem: /member seq / },
  { name: 'a missing event_id', line: 1, edit: drop('event_id'), code: 'envelope_invalid', problem: /member event_id is missing/ },
  { name: 'a missing payload', line: 1, edit: drop('payload'), code: 'envelope_invalid', problem: /member payload is missing/ },
  { name: 'a kind that is a number', line: 1, edit: member('kind', 7), code: 'envelope_invalid', problem: /member kind / },
  { name: 'a unit that is null', line: 2, edit: member('unit', null), code: 'envelope_invalid', problem: /member unit / },
  { name: 'a line that is not JSON', line: 1, edit: (l) => l.slice(0, 30), code: 'line_not_json', problem: /not valid JSON/ },
  { name: 'a line that is not UTF-8', line: 2, edit: (l) => Buffer.concat([Buffer.from(l.slice(0, 20)), Buffer.from([0xff, 0xfe]), Buffer.from(l.slice(20))]), code: 'line_not_utf8', problem: /not valid UTF-8/ },
  { name: 'a line that is JSON null', line: 1, edit: () => 'null', code: 'envelope_invalid', problem: /is null/ },
  { name: 'a line that is an array', line: 1, edit: () => '[1,2]', code: 'envelope_invalid', problem: /is an array/ },
  { name: 'a line that is nested 100,000 deep', line: 1, edit: () => deep(100_000), code: 'line_not_json|envelope_invalid', problem: /./ },
  { name: 'a payload nested 100,000 deep', line: 1, edit: (l) => l.replace(/"payload":\{[^}]*\}/, `"payload":{"x":${deep(100_000)}}`), code: 'line_not_json|event_not_plain_json|event_hash_mismatch', problem: /./ },
  { name: 'a repeated line', line: 2, edit: (_, lines) => lines[1]!, code: 'seq_gap', problem: /seq 2 found where 3 was expected/ },
  { name: 'a forged kind of the wrong type, rehashed', line: 1, edit: member('kind', 7), rehash: true, code: 'envelope_invalid', problem: /member kind / },
  { name: 'a forged unknown member, rehashed', line: 1, edit: member('note', 'x'), rehash: true, code: 'envelope_invalid', problem: /member "note" is not an envelope member/ },
  { name: 'a unit event out of place, rehashed', line: 0, edit: member('unit', { index: 1, size: 3 }), rehash: true, code: 'unit_out_of_place', problem: /out of place/ },
  { name: 'a unit cut short, rehashed', line: 2, edit: drop('unit'), rehash: true, code: 'unit_incomplete', problem: /incomplete/ },
  { name: 'recorded_at going back, rehashed', line: 2, edit: member('recorded_at', '2020-01-01T00:00:00.000Z'), rehash: true, code: 'recorded_at_decreases', problem: /decreases/ },
];

/** One data dir with a unit, copied per case (cheaper than one store per case). */
let unitBase: string | null = null;
async function copyOfUnitDir(sub: Test): Promise<{ dir: string; lines: string[] }> {
  unitBase ??= (await dataDirWithUnit(t)).dir;
  const dir = tempDir(sub);
  cpSync(unitBase, dir, { recursive: true });
  return { dir, lines: readFileSync(logPathOf(dir), 'utf8').split('\n').filter(Boolean) };
}

for (const c of malformed) {
  t.test(`${c.name}: a finding at its seq and byte, never an exception`, async (t) => {
    const { dir } = await copyOfUnitDir(t);
    const { offset } = editLine(dir, c.line, c.edit, c.rehash);
    const seq = c.line + 1;
    let result: LogVerification | undefined;
    t.doesNotThrow(() => (result = verifyLog(dir)));
    t.match(result, { ok: false, first_bad_seq: seq, first_bad_offset: offset, problem: c.problem, problem_code: new RegExp(`^(${c.code})$`), merkle_root: null, last_seq: seq - 1 });
    const cli = verifyCommand(dir);
    t.equal(cli.exitCode, 1);
    t.strictSame(cli.json, result, '--json prints the same report');
    t.equal(cli.text.split('\n')[0], `FAILED at seq ${seq} (byte ${offset}): ${result!.problem}`);
  });
}

t.test('a last line with "unit": null is a finding, not an exception (start-up keeps such a line)', async (t) => {
  const { dir, lines } = await copyOfUnitDir(t);
  const { offset } = editLine(dir, lines.length - 1, member('unit', null));
  const result = verifyLog(dir);
  t.match(result, { ok: false, first_bad_seq: lines.length, first_bad_offset: offset, problem_code: 'envelope_invalid', tail: { status: 'clean' } });
});
