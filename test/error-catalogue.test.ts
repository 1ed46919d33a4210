// The error catalogue is the one source: the compiler refuses a code it lacks; every code is raised
// somewhere and listed in docs/errors.md with its status and exit code; the status rules of
// docs/contract.md §4 name codes of that status; and the HTTP problem, the forge body, the CLI exit
// code and the MCP advice are all read from it, checked code by code.
import t from 'tap';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exitCodeOf } from '../src/cli/exit-codes.ts';
import { ERRORS, errorSpecOf, isErrorCode, type ErrorCode, type ErrorSpec } from '../src/error-catalogue.ts';
import { AppError } from '../src/errors.ts';
import { ACCESS_POLICY, httpErrorResult, thrownErrorResult } from '../src/frontdoor/tool-result.ts';
import { problemOf } from '../src/server/problem.ts';

const root = fileURLToPath(new URL('../', import.meta.url));
const codes = Object.keys(ERRORS) as ErrorCode[];
const spec = (code: ErrorCode): ErrorSpec => ERRORS[code];

t.test('the compiler checks codes (tsc runs over test/ in npm test)', async (t) => {
  // @ts-expect-error a code that is not in the catalogue does not compile
  const unknown = new AppError('made_up_code', 'x');
  const known: AppError<'task_exists'> = new AppError('task_exists', 'x');
  // @ts-expect-error an error of one code is not an error of another
  const wrong: AppError<'task_closed'> = known;
  t.equal(unknown.code, 'made_up_code', 'at run time the code is still carried as given');
  t.equal(wrong.code, 'task_exists');
  t.ok(isErrorCode('task_exists'));
  t.notOk(isErrorCode('made_up_code'));
  t.notOk(isErrorCode('toString'), 'an Object.prototype member is not a code');
  t.equal(errorSpecOf('constructor'), undefined);
});

t.test('every entry is well formed', async (t) => {
  t.ok(codes.length > 80, `${codes.length} codes`);
  for (const code of codes) {
    t.match(code, /^[a-z][a-z0-9_]*$/, `${code} is snake_case`);
    const { http, exit, mcp } = spec(code);
    t.ok(exit === 2 || exit === 3, `${code}: exit 2 or 3`);
    if (http !== null) {
      t.ok(http[0] >= 400 && http[0] < 600 && http[0] !== 500, `${code}: a 4xx or 5xx of its own, never the generic 500`);
      t.ok(http[1].length > 0, `${code}: a title`);
    }
    if (mcp !== undefined) t.ok(mcp.length > 20, `${code}: advice that says something`);
  }
});

/** Every .ts file under dir, recursively. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    return e.isDirectory() ? sources(path) : e.name.endsWith('.ts') ? [path] : [];
  });
}

t.test('every code is raised (or answered) somewhere in src/: no dead entries', async (t) => {
  const text = sources(join(root, 'src'))
    .filter((path) => !path.endsWith('error-catalogue.ts'))
    .map((path) => readFileSync(path, 'utf8'))
    .join('\n');
  const dead = codes.filter((code) => !text.includes(`'${code}'`));
  t.same(dead, [], 'each code appears as a literal outside the catalogue');
});

t.test('docs/errors.md lists exactly the catalogue, with its statuses and exit codes', async (t) => {
  const doc = readFileSync(join(root, 'docs/errors.md'), 'utf8');
  const rows = [...doc.matchAll(/^\| `([a-z0-9_]+)` \| (\d{3}) ([^|]+?) \| ([23]) \| (yes)? *\|$/gm)];
  const listed = new Map(rows.map((m) => [m[1]!, { status: m[2]!, title: m[3]!, exit: m[4]!, mcp: m[5] === 'yes' }]));
  t.equal(listed.size, rows.length, 'no code listed twice');
  t.same(
    [...listed.keys()].filter((c) => !isErrorCode(c)),
    [],
    'no listed code is missing from the catalogue',
  );
  t.same(
    codes.filter((c) => !listed.has(c)),
    [],
    'every code is listed',
  );
  for (const code of codes) {
    const row = listed.get(code);
    if (!row) continue;
    const { http, exit, mcp } = spec(code);
    t.same(
      row,
      {
        status: String(http?.[0] ?? 500),
        title: http?.[1] ?? '(internal)',
        exit: String(exit),
        mcp: mcp !== undefined,
      },
      code,
    );
  }
});

t.test('the status rules of docs/contract.md §4 name codes of that status', async (t) => {
  const contract = readFileSync(join(root, 'docs/contract.md'), 'utf8');
  const section = /^## §4 Errors\n([\s\S]*?)^## §5/m.exec(contract)?.[1] ?? '';
  // One bullet per status, "  - **409** …", continued on indented lines.
  const bullets = [...section.matchAll(/^ {2}- \*\*(\d{3})\*\*((?:.|\n {4})*)/gm)];
  t.ok(bullets.length >= 8, 'the status bullets are found');
  let named = 0;
  for (const [, status, text] of bullets) {
    for (const [, word] of text!.matchAll(/`([a-z_]+)`/g)) {
      if (!isErrorCode(word!)) continue;
      named++;
      t.equal(ERRORS[word].http?.[0], Number(status), `${word} is a ${status}`);
    }
  }
  t.ok(named >= 15, `${named} codes named by the status rules`);
});

t.test('the HTTP problem is read from the catalogue, code by code', async (t) => {
  for (const code of codes) {
    const { http } = spec(code);
    const problem = problemOf(new AppError(code, 'what to do', { details: [{ pointer: '/x', detail: 'bad' }] }), 'req_1');
    if (http === null) {
      t.match(problem, { status: 500, code: 'internal_error', title: 'Internal error', errors: [] }, `${code}: a generic 500`);
      t.notMatch(problem.detail, 'what to do', `${code}: its message stays in the log`);
    } else {
      t.strictSame(
        problem,
        {
          type: `https://schemas.gov.local/problems/${code}`,
          title: http[1],
          status: http[0],
          detail: 'what to do',
          code,
          request_id: 'req_1',
          errors: [{ pointer: '/x', detail: 'bad' }],
        },
        code,
      );
    }
  }
  t.match(problemOf(new AppError('made_up_code' as ErrorCode, 'secret'), 'req_2'), { status: 500, code: 'internal_error' }, 'a code smuggled past the compiler');
  t.match(problemOf(new TypeError('secret'), 'req_3'), { status: 500, code: 'internal_error' });
});

t.test('the CLI exit code is read from the catalogue, code by code', async (t) => {
  for (const code of codes) t.equal(exitCodeOf(new AppError(code, 'x')), spec(code).exit, code);
  t.equal(exitCodeOf(new AppError('made_up_code' as ErrorCode, 'x')), 3);
  t.equal(exitCodeOf(new Error('x')), 3);
  t.same(
    codes.filter((c) => spec(c).exit === 2),
    ['forge_data_invalid', 'unrecognised_subject', 'usage_error', 'bad_input_file'],
    'usage and bad input only',
  );
});

t.test('the MCP advice is read from the catalogue, for a thrown error and for an API answer', async (t) => {
  for (const code of codes) {
    const { mcp } = spec(code);
    const thrown = thrownErrorResult('some_tool', new AppError(code, 'The message.'));
    const text = (thrown.content[0] as { text: string }).text;
    t.match(thrown, { isError: true, structuredContent: { error: { code, message: 'The message.' } } }, code);
    t.equal(text.split('\n\n')[0], mcp === undefined ? `some_tool failed (${code}): The message.` : `some_tool failed (${code}): The message.\n${mcp}`, `${code}: thrown`);
    if (spec(code).http === null) continue;
    const answered = httpErrorResult('some_tool', { status: spec(code).http![0], body: { code, detail: 'The detail.', errors: [] }, headers: new Headers() });
    const lines = (answered.content[0] as { text: string }).text.split('\n\n')[0]!.split('\n');
    t.same(lines.slice(1), mcp === undefined ? [] : [mcp], `${code}: answered`);
  }
  t.ok(ERRORS.api_unreachable.mcp.startsWith(`access_policy=${ACCESS_POLICY}:`), 'api_unreachable names the access policy');
});
