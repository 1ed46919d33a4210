// The project's `no-console` rule for src/ (there is no ESLint): stdout is the MCP protocol channel
// of `gov mcp` and the --json channel of every command, so nothing in src/ may use console.*.
// Output goes through the CLI's io (stdout/stderr) or process.stderr in CLI code.
import t from 'tap';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const CONSOLE = /\bconsole\s*(\.|\[|\?\.)|\bglobalThis\s*\.\s*console\b/;

function consoleUses(text: string): number[] {
  return text.split('\n').flatMap((line, i) => (CONSOLE.test(line) ? [i + 1] : []));
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path) : [path];
  });
}

t.test('the detector flags console use and leaves look-alikes alone', async (t) => {
  for (const line of ['console.log(x)', '  console.error("x")', 'console ["log"](1)', 'const c = globalThis.console;', 'console?.warn(1)']) {
    t.same(consoleUses(line), [1], line);
  }
  for (const line of ['process.stderr.write(x)', 'io.stdout(text)', 'const myconsole = 1; myconsole.x', 'consoles.length']) {
    t.same(consoleUses(line), [], line);
  }
});

t.test('no file under src/ uses console', async (t) => {
  const files = filesUnder('src');
  t.ok(files.length > 20, `scanned ${files.length} files`);
  t.ok(files.includes(join('src', 'frontdoor', 'stdio.ts')), 'the front door is among them');
  const offenders = files.flatMap((file) => consoleUses(readFileSync(file, 'utf8')).map((line) => `${file}:${line}`));
  t.same(offenders, [], 'write through the CLI io or process.stderr instead of console');
});
