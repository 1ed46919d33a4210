// `gov smoke` end to end through the real CLI: against a throw-away preview (no flags), against a
// running preview (--allow-forge-writes, --read-only), against a server with one route deliberately broken (that check fails by name,
// exit 1), a customer-only token file, --grep, --json and usage errors.
import t from 'tap';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inProcessPreview, serveApp } from '../fixtures/served-app.ts';
import { runGov } from '../fixtures/spawn-preview.ts';
import { tempDir } from '../fixtures/test-app.ts';

const CLOSING = /^(\d+) passed, (\d+) failed$/;
const lastLine = (text: string) => text.trimEnd().split('\n').pop() ?? '';
const BROKEN_CHECK = 'tasks: GET /v1/tasks/{id} reads the projection';

t.test('gov smoke with no flags runs a throw-away preview and passes', async (t) => {
  const tmp = tempDir(t, 'gov-smoke-e2e-');
  const res = await runGov(['smoke'], { env: { TMPDIR: tmp } });
  t.equal(res.code, 0, res.stdout.split('\n').filter((l) => l.startsWith('✗')).join('\n') || res.stderr);
  const closing = CLOSING.exec(lastLine(res.stdout));
  t.ok(closing, `closing line: ${lastLine(res.stdout)}`);
  t.ok(Number(closing?.[1]) > 100, `${closing?.[1]} checks passed`);
  t.equal(closing?.[2], '0');
  t.match(res.stdout, /^✓ public: GET \/health answers the sanitized status and route list$/m, 'one line per check');
  t.match(res.stdout, /^✓ coverage: every listed route has a happy-path check$/m);
  t.same(readdirSync(tmp).filter((f) => f.startsWith('gov-smoke-')), [], 'the throw-away data dir is removed');
});

t.test('against a running preview: run.json, --json, --grep, a customer-only token', async (t) => {
  const dir = tempDir(t);
  const p = await inProcessPreview(t, dir);
  const runFile = join(dir, 'run.json');

  const eventCount = async () => {
    const res = await fetch(`${p.baseUrl}/health`, { headers: { Authorization: `Bearer ${p.tokens.operator}` } });
    return ((await res.json()) as { detail: { event_count: number } }).detail.event_count;
  };
  const full = await runGov(['smoke', '--base-url', p.baseUrl, '--token-file', runFile, '--allow-forge-writes']);
  t.equal(full.code, 0, full.stdout.split('\n').filter((l) => l.startsWith('✗')).join('\n') || full.stderr);
  t.match(lastLine(full.stdout), CLOSING);
  t.notMatch(full.stdout, /skipped/, '--allow-forge-writes runs every check');

  const before = await eventCount();
  const readOnly = await runGov(['smoke', '--base-url', p.baseUrl, '--token-file', runFile, '--read-only']);
  t.equal(readOnly.code, 0, readOnly.stdout.split('\n').filter((l) => l.startsWith('✗')).join('\n') || readOnly.stderr);
  t.match(readOnly.stdout, /^\(read-only: no write was sent\)$/m);
  t.equal(await eventCount(), before, '--read-only appends no event');

  const json = await runGov(['smoke', '--base-url', p.baseUrl, '--token-file', runFile, '--json', '--grep', '^templates:']);
  t.equal(json.code, 0, json.stderr);
  const report = JSON.parse(json.stdout);
  t.same(Object.keys(report), ['passed', 'failed', 'skipped', 'checks', 'run_id', 'writes', 'route_classes']);
  t.equal(report.route_classes.target, 0, 'every route the preview lists is live or preview');
  t.equal(report.writes, 'smoke_tenant', 'by default only the run\'s own tenants are written');
  t.ok(report.checks.length >= 5, `${report.checks.length} template checks`);
  t.ok(report.checks.every((c: any) => /^templates:/.test(c.name)), '--grep selects by name');
  t.same(Object.keys(report.checks[0]), ['name', 'route', 'status', 'detail']);
  t.equal(report.passed, report.checks.filter((c: any) => c.status === 'passed').length);
  t.equal(report.failed, 0);

  const bare = join(dir, 'customer.token');
  writeFileSync(bare, `${p.tokens.customer}\n`);
  const customer = await runGov(['smoke', '--base-url', p.baseUrl, '--token-file', bare, '--json']);
  t.equal(customer.code, 0, customer.stderr);
  const partial = JSON.parse(customer.stdout);
  const operatorChecks = partial.checks.filter((c: any) => c.detail === 'needs the operator token; the token file holds only a customer token');
  t.ok(operatorChecks.length > 0 && operatorChecks.every((c: any) => c.status === 'skipped'), 'operator checks are skipped with the reason');
  t.equal(partial.skipped, partial.checks.filter((c: any) => c.status === 'skipped').length);
  t.ok(partial.passed > 50);
});

t.test('a server answering a wrong shape fails that check by name and exits 1', async (t) => {
  // The test build: GET /v1/tasks/{id} answers its projection without the required `title`.
  const { baseUrl, tokenFile } = await serveApp(t, (fetch) => async (req) => {
    const res = await fetch(req);
    if (req.method !== 'GET' || !/^\/v1\/tasks\/[^/]+$/.test(new URL(req.url).pathname) || res.status !== 200) return res;
    const { title: _title, ...body } = (await res.json()) as Record<string, unknown>;
    return new Response(JSON.stringify(body), { status: 200, headers: res.headers });
  });

  const json = await runGov(['smoke', '--base-url', baseUrl, '--token-file', tokenFile, '--json']);
  t.equal(json.code, 1, 'exit 1 on a failure');
  const report = JSON.parse(json.stdout);
  const failed = report.checks.filter((c: any) => c.status === 'failed');
  t.ok(failed.some((c: any) => c.name === BROKEN_CHECK), `${BROKEN_CHECK} failed`);
  t.match(failed.find((c: any) => c.name === BROKEN_CHECK)?.detail, /title/, 'the detail names the missing member');
  t.same([...new Set(failed.map((c: any) => c.route))], ['GET /v1/tasks/{task_id}'], 'only checks of the broken route fail');
  t.equal(report.failed, failed.length);

  const text = await runGov(['smoke', '--token-file', tokenFile, '--grep', 'reads the projection']);
  t.equal(text.code, 1);
  t.match(text.stdout, new RegExp(`^✗ ${BROKEN_CHECK.replace(/[{}]/g, '\\$&')} — .*title`, 'm'), 'the ✗ line names the check');
  t.match(lastLine(text.stdout), /^\d+ passed, 1 failed$/);
});

t.test('usage errors exit 2', async (t) => {
  const noToken = await runGov(['smoke', '--base-url', 'http://127.0.0.1:1']);
  t.equal(noToken.code, 2);
  t.match(noToken.stderr, /--token-file/);
  const badGrep = await runGov(['smoke', '--grep', '(']);
  t.equal(badGrep.code, 2);
  t.match(badGrep.stderr, /regular expression/);
  const help = await runGov(['smoke', '--help']);
  t.equal(help.code, 0);
  t.match(help.stdout, /--token-file/);
  t.match(help.stdout, /--read-only/);
  t.match(help.stdout, /--allow-forge-writes/);
  const both = await runGov(['smoke', '--token-file', 'x', '--read-only', '--allow-forge-writes']);
  t.equal(both.code, 2);
  t.match(both.stderr, /--read-only/);
  t.match(help.stdout, /Examples:/);
});
