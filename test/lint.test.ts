// ESLint (eslint.config.js, run over the repository by `npm test`) holds the rules that used to be
// regex tests here: no console in src/ (stdout is the MCP protocol channel of `gov mcp` and the one
// --json document of every command), stdout only through the CLI io, no Hono c.var (it copies every
// request variable on each read). This proves they bite, on
// text linted as if it stood in a real file (the typed rules need a file of the TypeScript project).
import t from 'tap';
import { ESLint } from 'eslint';

const probe = [
  "import { AppError } from '../errors.ts';",
  "console.log('hello');",
  "process.stdout.write('hello');",
  "process.stderr.write('fine');",
  'Promise.resolve(1);',
  'export const f = (e: AppError) => e;',
  'const c = { var: {} }; export const v = c.var;',
  '',
].join('\n');

const eslint = new ESLint();

async function rulesBroken(filePath: string): Promise<string[]> {
  const [result] = await eslint.lintText(probe, { filePath });
  return (result?.messages ?? []).map((m) => `${m.line}: ${m.ruleId ?? m.message}`);
}

t.test("in src/, console, stdout, a floating promise, a value import of a type and Hono's c.var all fail", async (t) => {
  t.same(await rulesBroken('src/frontdoor/stdio.ts'), [
    '1: @typescript-eslint/consistent-type-imports',
    '2: no-console',
    '3: no-restricted-properties',
    '5: @typescript-eslint/no-floating-promises',
    '7: no-restricted-properties',
  ]);
});

t.test('the CLI entry point owns stdout, but not console', async (t) => {
  t.same(await rulesBroken('src/cli/main.ts'), ['1: @typescript-eslint/consistent-type-imports', '2: no-console', '5: @typescript-eslint/no-floating-promises']);
});

t.test('tests may print; the typed rules hold there too', async (t) => {
  t.same(await rulesBroken('test/schemas.test.ts'), ['1: @typescript-eslint/consistent-type-imports', '5: @typescript-eslint/no-floating-promises']);
});

t.test('in src/, a regex that backtracks or rescans super-linearly on caller text fails', async (t) => {
  const regexes = [
    // The placeholder marker that held the event loop for seconds on a 40,000-blank closeout line.
    'export const lookbehindFirst = /(?<!\\bfor\\s+)\\bexamples?\\b/iu;',
    'export const exchanging = /^https?:\\/\\/[^\\s/?#]+[^\\s]*$/;',
    'export const fine = /\\bexamples?\\b(?<!\\bfor\\s+examples?)/iu;',
    '',
  ].join('\n');
  const [result] = await eslint.lintText(regexes, { filePath: 'src/domain/placeholder-text.ts' });
  t.same((result?.messages ?? []).map((m) => `${m.line}: ${m.ruleId ?? m.message}`), ['1: regexp/no-super-linear-move', '2: regexp/no-super-linear-backtracking']);
});
