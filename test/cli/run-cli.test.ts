// A failing command: one sentence on stderr and the catalogue's exit code; with --json, also one
// error document on stdout ({ok: false, code, message} and what the error names), whether the
// command failed in its action or commander refused its arguments. Without --json, and for gov mcp
// (no --json: stdout is its protocol channel), nothing on stdout.
import t from 'tap';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CliIo } from '../../src/cli/io.ts';
import { runCli } from '../../src/cli/run-cli.ts';
import { GOV_BIN } from '../fixtures/spawn-preview.ts';
import { tempDir } from '../fixtures/test-app.ts';

async function gov(cwd: string, ...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const io: CliIo = { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s), env: {}, cwd, isTty: false, onStopSignal: () => {} };
  const code = await runCli(argv, io);
  return { code, stdout, stderr, doc: stdout === '' ? null : JSON.parse(stdout) };
}

t.test('--json failures print one error document; the sentence stays on stderr', async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, 'policy.json'), '{\n  "rules": [\n    {"name": "r", "limit": 1, "subjects": ["size:everything"]}\n  ]\n}\n');
  writeFileSync(join(dir, 'usage.json'), '{}\n');

  const unreadable = await gov(dir, 'quota', 'eval', '--groups', 'nope.json', '--usage', 'usage.json', '--json');
  t.equal(unreadable.code, 2);
  t.strictSame(unreadable.doc, { ok: false, code: 'bad_input_file', message: 'nope.json: cannot be read (ENOENT). Check the path and run the command again.', file: 'nope.json' });
  t.equal(unreadable.stderr, `gov: ${unreadable.doc.message}\n`);

  const broken = await gov(dir, 'quota', 'eval', '--groups', 'policy.json', '--usage', 'usage.json', '--json');
  t.equal(broken.code, 2);
  t.match(broken.doc, { ok: false, code: 'bad_input_file', file: 'policy.json', pointer: '/rules/0/subjects/0', line: 3 });
  t.same(Object.keys(broken.doc).slice(0, 3), ['ok', 'code', 'message'], 'the fixed members first');

  const noLog = await gov(dir, 'events', 'verify', '--data-dir', dir, '--json');
  t.equal(noLog.code, 3);
  t.match(noLog.doc, { ok: false, code: 'not_found', message: /There is no event log/ });
});

t.test('a usage error commander finds is usage_error, with --json only', async (t) => {
  const dir = tempDir(t);
  const missing = await gov(dir, 'quota', 'eval', '--json');
  t.equal(missing.code, 2);
  t.strictSame(missing.doc, { ok: false, code: 'usage_error', message: "required option '--groups <file>' not specified" });
  t.match(missing.stderr, /required option/, 'commander says it on stderr');

  const plain = await gov(dir, 'quota', 'eval');
  t.equal(plain.code, 2);
  t.equal(plain.stdout, '', 'without --json nothing on stdout');
  t.equal(plain.stderr, "gov: required option '--groups <file>' not specified; see --help for the usage and examples.\n", 'one sentence that says where to look');
  const unknown = await gov(dir, 'bogus');
  t.same([unknown.code, unknown.stderr], [2, "gov: unknown command 'bogus'; see --help for the usage and examples.\n"]);
  // help of a command that does not exist says so in the same sentence, at any level.
  for (const args of [['help', 'bogus'], ['events', 'help', 'bogus']]) {
    const helpOfUnknown = await gov(dir, ...args);
    t.same([helpOfUnknown.code, helpOfUnknown.stdout, helpOfUnknown.stderr], [2, '', "gov: unknown command 'bogus'; see --help for the usage and examples.\n"], `gov ${args.join(' ')}`);
  }
  let helpText = '';
  const helpIo: CliIo = { stdout: (s) => (helpText += s), stderr: () => {}, env: {}, cwd: dir, isTty: false, onStopSignal: () => {} };
  t.equal(await runCli(['help', 'events'], helpIo), 0, 'help of a command that exists is its help');
  t.match(helpText, /^Usage: gov events/);

  const mcp = await gov(dir, 'mcp', '--json');
  t.equal(mcp.code, 2);
  t.equal(mcp.stdout, '', 'gov mcp takes no --json: its stdout stays empty');

  const afterDashes = await gov(dir, 'quota', 'eval', '--', '--json');
  t.equal(afterDashes.code, 2);
  t.equal(afterDashes.stdout, '', 'a --json after -- is an argument, not the option');
});

t.test('a check that fails is a result, not an error document', async (t) => {
  const dir = tempDir(t);
  const status = await gov(dir, 'preview', 'status', '--data-dir', dir, '--json');
  t.equal(status.code, 1);
  t.match(status.doc, { running: false });
  t.notOk('ok' in status.doc);
});

t.test('a reader that closes the pipe early ends the command quietly (gov --help | head)', async (t) => {
  const child = spawn(process.execPath, [GOV_BIN, 'quota', 'eval', '--help'], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.destroy(); // the reader is gone before the first write
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  t.equal(code, 0, 'the help was asked for and given as far as anyone read');
  t.notMatch(stderr, /EPIPE|Unhandled/, 'no stack trace');
});

t.test('the file system refusing the data dir: one sentence that says what to do, exit 3, never a stack', async (t) => {
  const { mkdirSync } = await import('node:fs');
  const { fileSystemRefusal } = await import('../../src/cli/run-cli.ts');
  const dir = tempDir(t);
  // An index.sqlite that is a directory: start cannot open it, nor remove it to rebuild.
  const dataDir = join(dir, 'data');
  mkdirSync(join(dataDir, 'index.sqlite'), { recursive: true });
  const verified = await gov(dir, 'events', 'verify', '--data-dir', dataDir);
  t.notMatch(verified.stderr, /unexpected failure|\n\s+at /, 'events verify: no stack');
  const refused = await gov(dir, 'preview', 'start', '--port', '0', '--data-dir', dataDir, '--json');
  t.equal(refused.code, 3);
  t.match(refused.doc, { ok: false, code: 'file_system_refused', message: `${join(dataDir, 'index.sqlite')} is a directory where a file belongs; move it away and run the command again.` });
  t.notMatch(refused.stderr, /unexpected failure|\n\s+at /, 'no stack');

  // What each refusal says (errors as Node raises them).
  const errno = (code: string, path?: string, syscall?: string) => Object.assign(new Error(code), { code, ...(path ? { path } : {}), ...(syscall ? { syscall } : {}) });
  t.match(fileSystemRefusal(errno('ENOSPC', '/d/events.jsonl', 'write'))?.message, 'The disk holding /d/events.jsonl is full; free some space');
  t.match(fileSystemRefusal(errno('EROFS', '/d'))?.message, '/d is on a read-only file system; use a --data-dir on a writable one.');
  t.match(fileSystemRefusal(errno('EACCES', '/d', 'mkdir'))?.message, 'Permission denied for /d (mkdir)');
  t.match(fileSystemRefusal(errno('ENOTDIR', '/d/x'))?.message, 'A part of /d/x is a file where a directory belongs');
  t.equal(fileSystemRefusal(errno('ENOENT')), null, 'a missing file without a path says nothing worth a sentence');
  t.equal(fileSystemRefusal(new Error('something else')), null);
});
