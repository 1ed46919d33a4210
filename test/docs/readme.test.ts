// The README stays true: its first screen shows the two commands a newcomer needs, its route tables
// are generated from the route declarations, the gov quota eval sample is what
// the command prints, and what it says of --help and --json is what the commands take.
import t from 'tap';
import type { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { CliIo } from '../../src/cli/io.ts';
import { createProgram, type ProgramState } from '../../src/cli/program.ts';
import { routeTable } from '../../src/server/create-app.ts';
import { withRouteTables } from '../../scripts/readme-routes.ts';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

t.test('the first screen shows install + start and the test command', async (t) => {
  const firstScreen = readme.split('\n').slice(0, 12).join('\n');
  t.match(firstScreen, 'npm ci && npx gov preview start');
  t.match(firstScreen, 'npm test');
});

t.test('the route tables are generated from the route declarations', async (t) => {
  t.equal(readme, withRouteTables(readme), 'run npm run gen:readme after changing a route declaration');
  const rows = [...readme.matchAll(/^\| (GET|POST|PUT|PATCH|DELETE|OPTIONS) \| `([^`]+)` \| (\w+) \|/gm)].map((m) => `${m[1]} ${m[2]} ${m[3]}`);
  const served = routeTable().filter((r) => !r.path.startsWith('/api/v1/')).map((r) => `${r.method} ${r.path} ${r.status}`);
  t.same(rows.sort(), served.sort(), 'every served route once, with its class');
});

t.test('the gov quota eval sample is the command\'s real output on the fixtures', async (t) => {
  // The sample is the command line, then its stdout as shell comments ("# " + line, "#" when empty).
  const sample = /^npx gov (quota eval --groups fixtures\/quota\/\S+ .*)\n((?:#.*\n)+)/m.exec(readme);
  t.ok(sample, 'the README shows gov quota eval on the fixtures with its output');
  const args = sample![1]!.split(' ');
  const shown = sample![2]!.split('\n').slice(0, -1).map((line) => line.replace(/^# ?/, '')).join('\n');
  let stdout = '';
  const io: CliIo = {
    stdout: (text) => (stdout += text), stderr: () => {}, env: {}, cwd: fileURLToPath(new URL('../../', import.meta.url)), isTty: false, onStopSignal: () => {},
  };
  const state: ProgramState = { exitCode: 0 };
  await createProgram(io, state).parseAsync(args, { from: 'user' });
  t.equal(shown, stdout.split('\n').map((line) => line.trimEnd()).join('\n').trimEnd(), 'the README block equals the output');
  t.match(shown, /\bOVER\b/, 'the sample shows an owner over quota');
});

t.test('what the README says of --help and --json is what the commands take', async (t) => {
  let out = '';
  const io: CliIo = { stdout: (text) => (out += text), stderr: () => {}, env: {}, cwd: process.cwd(), isTty: false, onStopSignal: () => {} };
  const leaves = (cmd: Command, name: string): [string, Command][] =>
    cmd.commands.length === 0 ? [[name, cmd]] : cmd.commands.flatMap((c) => leaves(c, `${name} ${c.name()}`.trim()));
  const withoutJson: string[] = [];
  for (const [name, cmd] of leaves(createProgram(io, { exitCode: 0 }), '')) {
    out = '';
    cmd.outputHelp();
    t.match(out, /\nExamples:\n/, `gov ${name} --help shows examples`);
    if (!cmd.options.some((o) => o.long === '--json')) withoutJson.push(`gov ${name}`);
  }
  const claim = /every command but (.+?) takes `--json`/.exec(readme.replace(/\s+/g, ' '));
  t.ok(claim, 'the README names the commands without --json');
  t.same([...(claim?.[1] ?? '').matchAll(/`(gov [a-z -]+)`/g)].map((m) => m[1]), withoutJson, 'exactly those lack --json');
});
