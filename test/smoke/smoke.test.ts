// The smoke suite's parts in-process: check names, --grep selection with its set-up, the coverage
// rule, response validation against a served document, token files, the rendered report, the
// progress line (only when stderr is a terminal), and what each mode writes into a served app.
import t, { type Test } from 'tap';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { renderSmoke, smokeCommand } from '../../src/cli/commands/smoke.ts';
import type { CliIo } from '../../src/cli/io.ts';
import { testSchemas } from '../fixtures/templates.ts';
import { routeTable } from '../../src/server/create-app.ts';
import { buildOpenApi } from '../../src/server/openapi.ts';
import { createResponseValidator } from '../../src/smoke/response-validator.ts';
import type { SmokeReport, WriteReach } from '../../src/smoke/check.ts';
import { createSmokeCtx, isRunTenant } from '../../src/smoke/context.ts';
import { COVERAGE_CHECK, coverageOutcome, FORGE_SKIP, READ_ONLY_LOGGED_SKIP, READ_ONLY_SKIP, selectChecks, smokeSuite } from '../../src/smoke/runner.ts';
import { readSmokeTokenFile } from '../../src/smoke/target.ts';
import { serveApp } from '../fixtures/served-app.ts';
import { SCOPE_A, tempDir, TOKENS } from '../fixtures/test-app.ts';

const allRoutes = routeTable();
const listed = allRoutes.map((r) => ({ method: r.method, path: r.path }));
const doc = buildOpenApi(allRoutes, testSchemas());

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
    passed: 1, failed: 1, skipped: 1, run_id: '0a1b2c3d', writes: 'smoke_tenant',
    checks: [
      { name: 'a', route: 'GET /health', status: 'passed', detail: '' },
      { name: 'b', route: 'GET /health', status: 'failed', detail: 'expected 200, got 500' },
      { name: 'c', route: 'GET /x', status: 'skipped', detail: 'the server does not list GET /x' },
    ],
  });
  t.equal(text, '✓ a\n✗ b — expected 200, got 500\n- c — skipped: the server does not list GET /x\n(1 skipped)\n(writes: only in tenants smoke-0a1b2c3d…; forge quota state and data set untouched)\n1 passed, 1 failed\n');
  const withClasses = renderSmoke({ passed: 0, failed: 0, skipped: 0, run_id: '0a1b2c3d', writes: 'none', checks: [], route_classes: { live: 12, preview: 90, target: 0 } });
  t.match(withClasses, '(routes listed: 102 — 12 live, 90 preview, 0 target: every listed route is served)\n0 passed, 0 failed\n', 'the summary says how the listed routes are classed');
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

/** Runs the whole suite in-process against a served app and returns the report and the events it appended. */
async function smokeServed(t: Test, options: { readOnly?: boolean; allowForgeWrites?: boolean }) {
  const { baseUrl, tokenFile, service } = await serveApp(t);
  const forgeData = async () => (await fetch(`${baseUrl}/admin/forge/data`, { headers: { Authorization: `Bearer ${TOKENS.operator}` } })).json();
  const dataBefore = await forgeData();
  const before = service.store.tail().seq;
  const io: CliIo = { stdout: () => {}, stderr: () => {}, env: {}, cwd: process.cwd(), isTty: false, onStopSignal: () => {} };
  const result = await smokeCommand({ tokenFile, ...options }, io);
  const report = result.json as SmokeReport;
  const after = service.store.tail().seq;
  // Read from the log itself: what was appended, whatever the index says.
  const events = readFileSync(join(dirname(tokenFile), 'events.jsonl'), 'utf8').split('\n').filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { seq: number; kind: string; tenant_id: string }).filter((e) => e.seq > before);
  const failed = report.checks.filter((c) => c.status === 'failed').map((c) => `${c.name} — ${c.detail}`);
  return { report, result, failed, events, before, after, dataBefore, dataAfter: await forgeData() };
}

t.test('--read-only against a served app sends no write: not one event is appended', async (t) => {
  const run = await smokeServed(t, { readOnly: true });
  t.same(run.failed, [], 'every check that runs passes');
  t.equal(run.result.exitCode, 0);
  t.equal(run.after, run.before, 'the index seq is unchanged');
  t.equal(run.report.writes, 'none');
  t.ok(run.report.passed >= 40, `${run.report.passed} read and shape checks ran`);
  const skippedForWrites = run.report.checks.filter((c) => c.detail === READ_ONLY_SKIP);
  t.ok(skippedForWrites.length > 50, `${skippedForWrites.length} writing checks skipped, with the reason`);
  t.ok(run.report.checks.some((c) => c.name === 'reads: GET /admin/forge/data answers the data set' && c.status === 'passed'), 'shape checks run');
  // Every list read that writes nothing gets a happy-path call, though the run wrote no data.
  for (const route of ['GET /v1/tasks', 'GET /v1/team', 'GET /v1/governance/assets', 'GET /v1/approvals', 'GET /v1/reviews', 'GET /v1/incidents', 'GET /v1/events/stream', 'GET /v1/governance/dashboard', 'GET /v1/search']) {
    t.ok(run.report.checks.some((c) => c.route === route && c.status === 'passed' && !/→|another tenant|400/.test(c.name)), `${route} has a passing happy-path read`);
  }
  // A partial run never reads as full coverage: the routes it did not call are named, by reason.
  const coverage = run.report.checks.find((c) => c.name === COVERAGE_CHECK)!;
  t.equal(coverage.status, 'skipped');
  t.match(coverage.detail, /^\d+ of \d+ listed routes got no happy-path call in this run: /);
  const reasons = new Map(coverage.detail.replace(/^[^:]*: /, '').split('; ').map((part) => part.split(' — ') as [string, string]));
  t.match(reasons.get(READ_ONLY_SKIP), /POST \/v1\/events/, 'the write routes, because they write');
  t.same(reasons.get(READ_ONLY_LOGGED_SKIP)?.split(', ').sort(), ['GET /v1/access-log', 'GET /v1/exports/{kind}', 'GET /v1/governance/assets/{asset_id}/evidence', 'GET /v1/proof-packets/{packet_id}', 'GET /v1/proof-packets/{packet_id}/attestation', 'GET /v1/proof-packets/{packet_id}/redaction-manifest', 'GET /v1/receipts/{receipt_id}', 'GET /v1/sessions/{session_id}/provenance'], 'the access-logged reads, because reading them writes');
  t.equal(reasons.get(`GET /v1/tasks lists no tasks in tenant smoke-${run.report.run_id} to read (a run with writes, or --run-id of one, leaves some)`), 'GET /v1/tasks/{task_id}, GET /v1/tasks/{task_id}/timeline', 'the item reads, because no list named an item');
  t.notMatch(coverage.detail, /GET \/v1\/(tasks|team|approvals|incidents|reviews|governance\/assets)(,|$)/, 'no list read is named: each was called');
});

t.test('--read-only with the --run-id of a run with writes reads the items its lists name', async (t) => {
  const { tokenFile, service } = await serveApp(t);
  const io: CliIo = { stdout: () => {}, stderr: () => {}, env: {}, cwd: process.cwd(), isTty: false, onStopSignal: () => {} };
  const runId = '5eed0a11';
  t.equal((await smokeCommand({ tokenFile, runId }, io)).exitCode, 0, 'the run with writes passes');
  const before = service.store.tail().seq;
  const report = (await smokeCommand({ tokenFile, runId, readOnly: true }, io)).json as SmokeReport;
  t.equal(service.store.tail().seq, before, 'the read-only run appends nothing');
  t.same(report.checks.filter((c) => c.status === 'failed').map((c) => `${c.name} — ${c.detail}`), []);
  const items = ['GET /v1/tasks/{task_id}', 'GET /v1/tasks/{task_id}/timeline', 'GET /v1/governance/assets/{asset_id}', 'GET /v1/governance/assets/{asset_id}/risk', 'GET /v1/approvals/{approval_id}', 'GET /v1/incidents/{incident_id}'];
  for (const route of items) {
    t.equal(report.checks.find((c) => c.route === route && c.name.startsWith('scope reads:'))?.status, 'passed', `${route} read with an id its list named`);
  }
  t.notMatch(report.checks.find((c) => c.name === COVERAGE_CHECK)!.detail, /lists no/, 'no item read was skipped for want of an id');
});

t.test('by default against a served app: writes only in the run\'s smoke tenants, never forge state', async (t) => {
  const run = await smokeServed(t, {});
  t.same(run.failed, [], 'every check that runs passes');
  t.equal(run.report.writes, 'smoke_tenant');
  t.match(run.report.run_id, /^[0-9a-f]{8}$/);
  t.equal(run.report.route_classes?.target, 0, 'no listed route is target: every row of the contract is served');
  t.ok((run.report.route_classes?.live ?? 0) > 0 && (run.report.route_classes?.preview ?? 0) > 0);
  t.ok(run.events.length > 10, `${run.events.length} events written`);
  const foreign = run.events.filter((e) => e.tenant_id !== `smoke-${run.report.run_id}` && !e.tenant_id.startsWith(`smoke-${run.report.run_id}-`));
  t.same(foreign.map((e) => `${e.kind} in ${e.tenant_id}`), [], 'every event is in a tenant of the run');
  t.same(run.events.filter((e) => /^(forge|quota)\./.test(e.kind)).map((e) => e.kind), [], 'no forge data replacement, no quota policy write');
  t.same(run.dataAfter, run.dataBefore);
  t.ok(run.report.checks.filter((c) => c.detail === FORGE_SKIP).length > 50, 'the forge writing checks are skipped with the reason');
  const coverage = run.report.checks.find((c) => c.name === COVERAGE_CHECK)!;
  t.equal(coverage.status, 'skipped', 'the forge write routes got no happy-path call');
  t.match(coverage.detail, /PATCH \/admin\/quota\/rules\/\{quotarule\}/);
  t.notMatch(coverage.detail, /POST \/v1\/events/, 'the routes the run called are not named');
});

t.test('--allow-forge-writes: the forge checks run too, and the forge data set is restored', async (t) => {
  const run = await smokeServed(t, { allowForgeWrites: true });
  t.same(run.failed, [], 'every check passes');
  t.equal(run.report.writes, 'forge');
  t.equal(run.report.skipped, 0, 'nothing is skipped');
  t.match(run.report.checks.find((c) => c.name === COVERAGE_CHECK), { status: 'passed', detail: '' }, 'every listed route got a happy-path call');
  const kinds = new Set(run.events.map((e) => e.kind));
  t.ok(kinds.has('forge.data.replaced'), 'the forge data set was replaced');
  t.ok(kinds.has('quota.group.created'), 'quota groups were written');
  t.same(run.dataAfter, run.dataBefore, 'and restored');
});

t.test('--read-only and --allow-forge-writes together are a usage error', async (t) => {
  const io: CliIo = { stdout: () => {}, stderr: () => {}, env: {}, cwd: process.cwd(), isTty: false, onStopSignal: () => {} };
  await t.rejects(smokeCommand({ tokenFile: 'unused', readOnly: true, allowForgeWrites: true }, io), { code: 'usage_error' });
});

t.test('--run-id must be 8 lowercase hex digits, checked before anything runs', async (t) => {
  const io: CliIo = { stdout: () => {}, stderr: () => {}, env: {}, cwd: process.cwd(), isTty: false, onStopSignal: () => {} };
  for (const runId of ['C0FFEE42', 'c0ffee4', 'c0ffee42-b', '']) {
    await t.rejects(smokeCommand({ runId }, io), { code: 'usage_error', message: /--run-id must be 8 lowercase hex digits/ }, JSON.stringify(runId));
  }
});

t.test('the call helper refuses, unsent, a write beyond the run\'s reach or outside its tenants', async (t) => {
  let sent = 0;
  const server = createServer((_req, res) => {
    sent++;
    res.end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => server.close());
  const target = { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, tokens: TOKENS };
  const ctx = (reach: WriteReach) => createSmokeCtx(target, 'abcd1234', null, new Set(), reach);
  const scoped = ctx('smoke_tenant');
  await t.rejects(scoped.call('PUT /admin/forge/data', { as: 'operator', body: {} }), /refused/, 'a forge write');
  await t.rejects(scoped.call('POST /v1/tasks', { scope: SCOPE_A, body: {} }), /refused.*tenant-a/, 'a write in the user\'s tenant');
  await t.rejects(scoped.call('POST /v1/events', { body: { tenant_id: 'tenant-a' } }), /refused/, 'a body naming the user\'s tenant');
  await t.rejects(ctx('none').call('POST /v1/tasks', { body: {} }), /refused/, 'any write when read-only');
  t.equal(sent, 0, 'none of them reached the server');
  await scoped.call('POST /v1/tasks', { body: {} });
  await ctx('none').call('POST /v1/templates/validate', { body: {} });
  await ctx('none').call('GET /v1/search', {});
  t.equal(sent, 3, 'writes in the run\'s tenant, compute-only POSTs and reads are sent');
  t.ok(isRunTenant('smoke-abcd1234', 'abcd1234') && isRunTenant('smoke-abcd1234-b', 'abcd1234'));
  t.notOk(isRunTenant('smoke-abcd12345', 'abcd1234') || isRunTenant('tenant-a', 'abcd1234'));
});

t.test('smoke fails a served route or a template of a served route classed target', async (t) => {
  const io: CliIo = { stdout: () => {}, stderr: () => {}, env: {}, cwd: process.cwd(), isTty: false, onStopSignal: () => {} };
  const grep = 'classed target|is not target';
  const good = await serveApp(t);
  const passing = (await smokeCommand({ tokenFile: good.tokenFile, grep, readOnly: true }, io)).json as SmokeReport;
  t.same(passing.checks.filter((c) => /target/.test(c.name)).map((c) => c.status), ['passed', 'passed'], 'the served app classes them right');

  // A build that still calls POST /v1/signatures/verify and the session.bind.v1 template target.
  const stale = await serveApp(t, (fetch) => async (req) => {
    const res = await fetch(req);
    const path = new URL(req.url).pathname;
    if (req.method !== 'GET' || (path !== '/health' && path !== '/v1/templates')) return res;
    const body = (await res.json()) as any;
    for (const r of body.routes ?? []) if (r.path === '/v1/signatures/verify') r.status = 'target';
    for (const tpl of body.templates ?? []) if (tpl.template_id === 'session.bind.v1') tpl.status = 'target';
    return new Response(JSON.stringify(body), { status: res.status, headers: res.headers });
  });
  const failing = (await smokeCommand({ tokenFile: stale.tokenFile, grep, readOnly: true }, io)).json as SmokeReport;
  const failed = failing.checks.filter((c) => c.status === 'failed');
  t.same(failed.map((c) => c.name), [
    'public: no listed route is classed target (a served route is live or preview)',
    'templates: a template whose route the server lists is not target',
  ]);
  t.match(failed.map((c) => c.detail).join('\n'), /POST \/v1\/signatures\/verify[\s\S]*session\.bind\.v1/);
});

t.test('every check passes alone: --grep of its exact name brings the set-up it relies on', async (t) => {
  const { tokenFile } = await serveApp(t);
  const io: CliIo = { stdout: () => {}, stderr: () => {}, env: {}, cwd: process.cwd(), isTty: false, onStopSignal: () => {} };
  await t.rejects(smokeCommand({ tokenFile, grep: 'zzz-no-such-check' }, io), { code: 'usage_error', message: /No smoke check's name matches --grep zzz-no-such-check/ }, 'a pattern that names no check is a usage error, never a pass');
  // The scope reads write nothing and read what a run left: they run alone in the tenants of a
  // whole run, so their item reads have ids to read.
  const seeded = '5eed5eed';
  t.equal((await smokeCommand({ tokenFile, runId: seeded }, io)).exitCode, 0, 'the seeding run passes');
  const failures: string[] = [];
  for (const check of smokeSuite(listed, doc as any)) {
    const grep = `^${check.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`;
    const report = (await smokeCommand({ tokenFile, grep, allowForgeWrites: true, ...(check.family === 'scope reads' ? { runId: seeded } : {}) }, io)).json as SmokeReport;
    const failed = report.checks.filter((c) => c.status === 'failed');
    if (failed.length > 0 || !report.checks.some((c) => c.name === check.name && c.status === 'passed')) {
      failures.push(`${check.name}: ${failed.map((c) => `${c.name} — ${c.detail}`).join('; ') || 'not passed'}`);
    }
  }
  t.same(failures, [], 'no check depends on a check --grep leaves out');
});
