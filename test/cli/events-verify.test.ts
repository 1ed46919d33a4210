// `gov events verify` through its program (as main.ts runs it: an exception would be exit 3) and,
// once, through the real binary: a malformed line or a damaged index is exit 1 with the finding in
// the text and as one JSON document under --json; a clean data dir is exit 0.
import t, { type Test } from 'tap';
import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { exitCodeOf } from '../../src/cli/exit-codes.ts';
import type { CliIo } from '../../src/cli/io.ts';
import { createProgram, type ProgramState } from '../../src/cli/program.ts';
import type { PendingEvent } from '../../src/store/event-log.ts';
import { indexPathOf, logPathOf, openStore } from '../../src/store/store.ts';
import { runGov as runCli } from '../fixtures/cli-run.ts';
import { runGov } from '../fixtures/spawn-preview.ts';
import { fixedClock, tempDir } from '../fixtures/test-app.ts';

const scope = { tenant_id: 'tenant-a', workspace_id: 'ws-1', project_id: 'proj-1' };
let id = 0;
const pending = (): PendingEvent => ({ event_id: `evt_${++id}`, kind: 'ext.acme.note', ...scope, task_id: 'task-1', transport: 'customer', idempotency_key: null, request_sha256: null, payload: { text: `note ${id}` } });

const base = tempDir(t);
t.before(async () => {
  const store = await openStore({ dataDir: base, clock: fixedClock(), warn: () => {} });
  for (let k = 0; k < 5; k++) await store.append([pending()]);
  await store.close();
});

function copyOf(t: Test): string {
  const dir = tempDir(t);
  cpSync(base, dir, { recursive: true });
  return dir;
}

/** Runs `gov ARGS` in-process the way main.ts does, exit code included. */
async function gov(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = { stdout: (s) => void (stdout += s), stderr: (s) => void (stderr += s), env: {}, cwd: base, isTty: false, onStopSignal: () => {} };
  const state: ProgramState = { exitCode: 0 };
  try {
    await createProgram(io, state).parseAsync(args, { from: 'user' });
    return { code: state.exitCode, stdout, stderr };
  } catch (err) {
    return { code: exitCodeOf(err), stdout, stderr: stderr + String(err) };
  }
}

/** The case: a middle line's event_hash is `sha256:X…`, not 64 hex. */
function malformHash(dir: string): number {
  const lines = readFileSync(logPathOf(dir), 'utf8').split('\n');
  lines[2] = lines[2]!.replace(/"event_hash":"sha256:[0-9a-f]{64}"/, `"event_hash":"sha256:X${'0'.repeat(63)}"`);
  writeFileSync(logPathOf(dir), lines.join('\n'));
  return Buffer.byteLength(`${lines[0]}\n${lines[1]}\n`);
}

t.test('a clean data dir: exit 0, the index agrees', async (t) => {
  const dir = copyOf(t);
  const text = await gov(['events', 'verify', '--data-dir', dir]);
  t.equal(text.code, 0, text.stderr);
  t.match(text.stdout, /^ok: 5 events, seq 1–5 gapless, hash chain intact\nmerkle root: sha256:[0-9a-f]{64}\nindex: agrees \(integrity_check ok; /);
  const json = await gov(['events', 'verify', '--data-dir', dir, '--json']);
  t.match(JSON.parse(json.stdout), { ok: true, problem: null, index: { status: 'agrees', index_seq: 5 } });
});

t.test('a malformed event_hash in a middle line: exit 1 naming seq, byte and why, in text and --json', async (t) => {
  const dir = copyOf(t);
  const offset = malformHash(dir);
  const text = await gov(['events', 'verify', '--data-dir', dir]);
  t.equal(text.code, 1, text.stderr);
  t.equal(text.stderr, '');
  t.equal(text.stdout.split('\n')[0], `FAILED at seq 3 (byte ${offset}): the line is not a service.event.v1 envelope: member event_hash is not a sha256:<64 lower-case hex> hash`);
  const json = await gov(['events', 'verify', '--data-dir', dir, '--json']);
  t.equal(json.code, 1, json.stderr);
  t.match(JSON.parse(json.stdout), { ok: false, first_bad_seq: 3, first_bad_offset: offset, problem_code: 'envelope_invalid', merkle_root: null, last_seq: 2, event_count: 5 });
});

t.test('a line that parses to its event but is not its canonical form: exit 1, line_not_canonical', async (t) => {
  const dir = copyOf(t);
  const path = logPathOf(dir);
  const lines = readFileSync(path, 'utf8').split('\n');
  // A duplicate member before the real one: JSON.parse keeps the last, so the event still hashes
  // right, but a first-wins reader would take the injected payload.
  lines[3] = `{"payload":{"evil":"injected"},${lines[3]!.slice(1)}`;
  writeFileSync(path, lines.join('\n'));
  const json = await gov(['events', 'verify', '--data-dir', dir, '--json']);
  t.equal(json.code, 1, json.stderr);
  t.match(JSON.parse(json.stdout), { ok: false, first_bad_seq: 4, problem_code: 'line_not_canonical' });
});

t.test('the same through the real binary: exit 1 and exactly one JSON document', async (t) => {
  const dir = copyOf(t);
  malformHash(dir);
  const res = await runGov(['events', 'verify', '--data-dir', dir, '--json']);
  t.equal(res.code, 1, res.stderr);
  t.equal(res.stderr, '');
  t.match(JSON.parse(res.stdout), { ok: false, first_bad_seq: 3, problem_code: 'envelope_invalid' });
});

t.test('no data dir: exit 2 naming it and the flag; no log: exit 3; a directory where the log belongs: exit 3 naming it', async (t) => {
  const missing = `${tempDir(t)}/nowhere`;
  const res = await runCli(['events', 'verify', '--data-dir', missing], base);
  t.equal(res.code, 2, res.stdout);
  t.equal(res.stderr, `gov: The data dir ${missing} (--data-dir) does not exist or is not a directory; check the path, or start the preview once (gov preview start --data-dir) to create it.\n`);
  const empty = tempDir(t);
  const none = await runCli(['events', 'verify', '--data-dir', empty, '--json'], base);
  t.equal(none.code, 3);
  t.match(JSON.parse(none.stdout), { ok: false, code: 'not_found', message: `There is no event log at ${logPathOf(empty)}; point --data-dir at a preview's data dir.` });
  mkdirSync(logPathOf(empty));
  for (const args of [['events', 'verify'], ['store', 'rebuild-index']]) {
    const dirLog = await runCli([...args, '--data-dir', empty], base);
    t.equal(dirLog.code, 3, args.join(' '));
    t.equal(dirLog.stderr, `gov: ${logPathOf(empty)} is a directory where the event log belongs; move it away and run the command again.\n`, args.join(' '));
  }
  await t.rejects(openStore({ dataDir: empty, clock: fixedClock(), warn: () => {} }), { code: 'file_system_refused', message: `${logPathOf(empty)} is a directory where the event log belongs; move it away and run the command again.` }, 'the preview refuses it at start');
});

t.test('random bytes past page 1 of the index: exit 1, the index is corrupt', async (t) => {
  const dir = copyOf(t);
  const file = readFileSync(indexPathOf(dir));
  for (let k = 4096; k < file.length; k++) file[k] = (k * 2654435761) >>> 24;
  writeFileSync(indexPathOf(dir), file);
  const text = await gov(['events', 'verify', '--data-dir', dir]);
  t.equal(text.code, 1, text.stderr);
  const lines = text.stdout.split('\n');
  t.match(lines[0], /^FAILED in the index: the index is corrupt: /);
  t.match(lines.at(-2), /^index: corrupt \(/);
  const json = await gov(['events', 'verify', '--data-dir', dir, '--json']);
  t.equal(json.code, 1);
  t.match(JSON.parse(json.stdout), { ok: false, problem_code: 'index_corrupt', index: { status: 'corrupt' } });
});

t.test("one index row's line changed: exit 1 naming the seq and the column", async (t) => {
  const dir = copyOf(t);
  const db = new Database(indexPathOf(dir));
  db.exec("UPDATE events SET line = replace(line, 'note 4', 'note 5') WHERE seq = 4");
  db.close();
  const text = await gov(['events', 'verify', '--data-dir', dir]);
  t.equal(text.code, 1, text.stderr);
  t.equal(text.stdout.split('\n')[0], "FAILED at seq 4 (index line): the index's line of seq 4 differs from the log's line");
  const json = await gov(['events', 'verify', '--data-dir', dir, '--json']);
  t.match(JSON.parse(json.stdout), { ok: false, first_bad_seq: 4, problem_code: 'index_row_differs', index: { status: 'disagrees', first_bad_seq: 4, column: 'line' } });
});

t.test('an empty log: ok, said as no events (not "seq 1–0")', async (t) => {
  const { mkdirSync, writeFileSync: write } = await import('node:fs');
  const { join } = await import('node:path');
  const dir = join(tempDir(t), 'empty');
  mkdirSync(dir);
  write(join(dir, 'events.jsonl'), '');
  const text = await gov(['events', 'verify', '--data-dir', dir]);
  t.equal(text.code, 0, text.stderr);
  t.match(text.stdout, /^ok: no events yet \(an empty log\)\n/);
});

/**
 * A copy of the data dir in a directory SQLite may not write: mode 0555 for a user, a read-only
 * tmpfs for root (whom modes do not stop). Null where neither can be made (root without mount).
 */
function readOnlyCopy(t: Test): string | null {
  const dir = tempDir(t);
  if (process.getuid?.() !== 0) {
    cpSync(base, dir, { recursive: true });
    chmodSync(dir, 0o555);
    t.teardown(() => chmodSync(dir, 0o755));
    return dir;
  }
  if (spawnSync('mount', ['-t', 'tmpfs', 'tmpfs', dir]).status !== 0) return null;
  t.teardown(() => void spawnSync('umount', [dir]));
  cpSync(base, dir, { recursive: true });
  return spawnSync('mount', ['-o', 'remount,ro', dir]).status === 0 ? dir : null;
}

t.test('an index on a read-only file system is not checked, and not called corrupt', async (t) => {
  const dir = readOnlyCopy(t);
  // Root in a container that may not mount: no directory can refuse SQLite there.
  if (dir === null) return t.pass('a read-only data dir', { skip: 'no read-only directory can be made here (root without mount)' });
  const out = await gov(['events', 'verify', '--data-dir', dir, '--json']);
  t.equal(out.code, 0, 'the log verifies: exit 0');
  const report = JSON.parse(out.stdout);
  t.equal(report.ok, true);
  t.equal(report.event_count, 5);
  t.equal(report.index.status, 'unreadable', 'the index was not read, which is no finding about it');
  t.equal(report.index.code, null);
  t.match(report.index.detail, /^not checked: .*-shm.*copy the data dir somewhere writable/);
  const text = await gov(['events', 'verify', '--data-dir', dir]);
  t.equal(text.code, 0);
  t.match(text.stdout, /index: unreadable \(not checked/);
});
