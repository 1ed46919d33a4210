// The smoke suite's parts in-process: check names, --grep selection with its set-up, the coverage
// rule, response validation against a served document, token files, the rendered report and the
// progress line (only when stderr is a terminal).
import t from 'tap';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderSmoke, smokeCommand } from '../../src/cli/commands/smoke.ts';
import type { CliIo } from '../../src/cli/io.ts';
import { schemaRegistry } from '../../src/deps.ts';
import { routeTable } from '../../src/server/create-app.ts';
import { buildOpenApi } from '../../src/server/openapi.ts';
import { createResponseValidator } from '../../src/smoke/response-validator.ts';
import { coverageOutcome, selectChecks, smokeSuite } from '../../src/smoke/runner.ts';
import { readSmokeTokenFile } from '../../src/smoke/target.ts';
import { serveApp } from '../fixtures/served-app.ts';
import { tempDir, TOKENS } from '../fixtures/test-app.ts';

const allRoutes = routeTable();
const listed = allRoutes.map((r) => ({ method: r.method, path: r.path }));
const doc = buildOpenApi(allRoutes, schemaRegistry());

t.test('every check has a unique name and a route of the contract', async (t) => {
  const suite = smokeSuite(listed, doc as any);
  const names = suite.map((c) => c.name);
  t.same(names.filter((n, i) => names.indexOf(n) !== i), [], 'no duplicate names');
  const keys = new Set(listed.map((r) => `${r.method} ${r.path}`.replace(/\{[^}]*\}/g, '{}')));
  t.same(suite.filter((c) => !keys.has(c.route.replace(/\{[^}]*\}/g, '{}'))).map((c) => c.name), [], 'every check names a listed route');
  t.equal(coverageOutcome(suite, listed).status, 'passed', 'every route (quota routes included) has a happy-path check');
});

t.test('--grep selects by name and keeps the set-up of the selected families', async (t) => {
  const suite = smokeSuite(listed, doc as any);
  const picked = selectChecks(suite, /reads the projection/i).map((c) => c.name);
  t.ok(picked.includes('tasks: GET /v1/tasks/{id} reads the projection'));
  t.ok(picked.includes('tasks: POST /v1/tasks creates a task'), 'the task it reads is created first');
  t.notOk(picked.some((n) => n.startsWith('templates:') || n.startsWith('forge quota')), 'other families stay out');
  const quota = selectChecks(suite, /^quota eval: alice size:all/).map((c) => c.name);
  t.ok(quota.indexOf('forge quota: PUT /admin/forge/data loads the smoke data set') < quota.indexOf('quota eval: alice size:all → false (no rule lists all, so none is relevant)'));
  t.ok(quota.includes('forge quota: clean up — restore the forge data set'), 'clean-up runs too');
  t.same(selectChecks(suite, undefined), suite);
});

t.test('coverage fails naming a listed route without a happy-path check', async (t) => {
  const outcome = coverageOutcome(smokeSuite(listed, doc as any), [...listed, { method: 'GET', path: '/v1/unheard-of/{id}' }]);
  t.equal(outcome.status, 'failed');
  t.match(outcome.detail, 'GET /v1/unheard-of/{id}');
});

t.test('response validation uses the served document', async (t) => {
  const v = createResponseValidator(structuredClone(doc) as any);
  const task = { task_id: 'task-1', title: 'T', status: 'open', session_ids: [], created_at: '2026-01-01T00:00:00Z', last_seq: 1 };
  t.same(v.validate('GET /v1/tasks/{x}', 200, 'application/json', task), [], 'placeholder names do not matter');
  const { title: _t, ...untitled } = task;
  t.match(v.validate('GET /v1/tasks/{task_id}', 200, 'application/json', untitled), [/required member "title"/]);
  t.match(v.validate('GET /v1/tasks/{task_id}', 200, 'application/json', { ...task, colour: 1 }), [/unknown member "colour"/]);
  t.match(v.validate('GET /v1/tasks/{task_id}', 200, 'text/html', task), [/answered text\/html/]);
  t.match(v.validate('GET /v1/tasks/{task_id}', 418, 'application/json', task), [/no 418 response/]);
  t.same(v.validate('GET /v1/tasks/{task_id}', 404, 'application/problem+json', { type: 't', title: 'T', status: 404, detail: 'd', code: 'not_found', request_id: 'r', errors: [] }), []);
  t.same(v.validate('DELETE /admin/quota/rules/{r}', 204, '', null), [], 'a 204 without body');
  t.match(v.validate('DELETE /admin/quota/rules/{r}', 204, 'application/json', { x: 1 }), [/lists no body/]);
  t.ok(v.operation('POST /api/v1/admin/quota/rules'), 'forge routes under /api/v1 are found');
  t.equal(v.operation('GET /nowhere'), undefined);
});

t.test('token files: a run.json gives both tokens, a bare token only the customer one', async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, 'run.json'), JSON.stringify({ base_url: 'http://127.0.0.1:9', tokens: TOKENS }));
  writeFileSync(join(dir, 'bare'), `${TOKENS.customer}\n`);
  t.same(readSmokeTokenFile(join(dir, 'run.json')), { target: { tokens: TOKENS }, baseUrl: 'http://127.0.0.1:9' });
  t.same(readSmokeTokenFile(join(dir, 'bare')), { target: { tokens: { customer: TOKENS.customer, operator: null } }, baseUrl: null });
  t.throws(() => readSmokeTokenFile(join(dir, 'missing')), { code: 'bad_input_file' });
});

t.test('the rendered report: one line per check and exactly "N passed, N failed" last', async (t) => {
  const text = renderSmoke({
    passed: 1, failed: 1, skipped: 1,
    checks: [
      { name: 'a', route: 'GET /health', status: 'passed', detail: '' },
      { name: 'b', route: 'GET /health', status: 'failed', detail: 'expected 200, got 500' },
      { name: 'c', route: 'GET /x', status: 'skipped', detail: 'the server does not list GET /x' },
    ],
  });
  t.equal(text, '✓ a\n✗ b — expected 200, got 500\n- c — skipped: the server does not list GET /x\n(1 skipped)\n1 passed, 1 failed\n');
});


t.test('a progress line on stderr only when stderr is a terminal', async (t) => {
  const { tokenFile } = await serveApp(t);
  for (const isTty of [true, false]) {
    let stderr = '';
    const io: CliIo = { stdout: () => {}, stderr: (s) => (stderr += s), env: {}, cwd: process.cwd(), isTty, onStopSignal: () => {} };
    const result = await smokeCommand({ tokenFile, grep: '^templates:' }, io);
    t.equal(result.exitCode, 0, result.exitCode === 0 ? 'the selected checks pass' : renderSmoke(result.json as any));
    if (isTty) {
      t.match(stderr, /\r\x1b\[K\[1\/\d+\] templates: /, 'progress with a count and the check name');
      t.ok(stderr.endsWith('\r\x1b[K'), 'the progress line is cleared at the end');
    } else {
      t.equal(stderr, '', 'nothing on stderr when it is not a terminal');
    }
  }
});
