// gov smoke --read-only against gov serve on a real PostgreSQL: the suite's reads, shapes and
// refusals (401 token_invalid for a token the service cannot verify) hold for the hosted service,
// with an OIDC token minted for the run's own smoke-<run id> tenants. The write checks walk
// multi-person flows with asserted actors, which the hosted service refuses by design (a body may
// not name another actor than the token's subject), so they run against the preview only. Also:
// /health lists the hosted routes with their classes, the seed's live routes live.
import t from 'tap';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hostedRoutes, startHosted } from '../../src/hosted.ts';
import { migrateDatabase } from '../../src/store/pg/pg-log-tools.ts';
import { testIssuer } from '../fixtures/oidc.ts';
import { testDatabase } from '../fixtures/postgres.ts';
import { tempDir } from '../fixtures/test-app.ts';

const GOV = join(import.meta.dirname, '..', '..', 'bin', 'gov.js');

t.test('gov smoke --read-only passes against gov serve', async (t) => {
  const url = await testDatabase(t);
  if (url === null) return;
  await migrateDatabase(url);
  const idp = await testIssuer();
  t.teardown(() => idp.close());
  const hosted = await startHosted({ databaseUrl: url, host: '127.0.0.1', port: 0, oidc: idp.config() }, { warn: () => {} });
  t.teardown(() => hosted.stop());
  const runId = 'c0ffee42';
  const token = await idp.mint({ gov_tenant: [`smoke-${runId}`, `smoke-${runId}-b`, `smoke-${runId}-c`], gov_roles: ['owner'] });
  const tokenFile = join(tempDir(t), 'token');
  writeFileSync(tokenFile, token);
  // Not execFileSync: the server answers from this very process.
  const out = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, [GOV, 'smoke', '--base-url', hosted.baseUrl, '--token-file', tokenFile, '--run-id', runId, '--read-only', '--json'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : 1, stdout, stderr });
    });
  });
  const report = JSON.parse(out.stdout) as { passed: number; failed: number; writes: string; checks: Array<{ name: string; status: string; detail: string }> };
  t.same(report.checks.filter((c) => c.status === 'failed').map((c) => `${c.name}: ${c.detail}`), [], 'no smoke check fails');
  t.equal(out.code, 0, 'gov smoke exits 0');
  t.equal(report.writes, 'none');
  t.ok(report.passed > 100, `${report.passed} checks passed`);
  t.ok(report.checks.some((c) => c.status === 'passed' && /a token the server never issued/.test(c.name)), 'the refusal of an unverifiable token is checked');
  // The reads that write nothing get a happy-path call though the run writes no data.
  for (const route of ['GET /v1/tasks', 'GET /v1/team', 'GET /v1/approvals', 'GET /v1/governance/assets', 'GET /v1/incidents', 'GET /v1/reviews', 'GET /v1/events/stream']) {
    t.ok(report.checks.some((c) => c.name.startsWith('scope reads:') && c.name.includes(`${route} `) && c.status === 'passed'), `${route} is read`);
  }
  const coverage = report.checks.find((c) => c.name.startsWith('coverage:'))!;
  t.match(coverage.detail, /reading this route appends an access\.logged entry[^;]*GET \/v1\/access-log/, 'the access log, whose reading is logged, is named with that reason');

  // Route classes: what the hosted service lists is the preview's declarations minus the console
  // and the forge, each with its class; the seed's live routes are live.
  const health = (await (await fetch(`${hosted.baseUrl}/health`)).json()) as { mode: string; routes: Array<{ method: string; path: string; status: string }> };
  t.equal(health.mode, 'hosted');
  const declared = hostedRoutes().map((r) => `${r.method} ${r.path} ${r.status}`).sort();
  t.same(health.routes.map((r) => `${r.method} ${r.path} ${r.status}`).sort(), declared, '/health lists every hosted route with its declared class');
  for (const live of ['POST /v1/events', 'POST /v1/tasks', 'POST /v1/tasks/{task_id}/checkpoints', 'POST /v1/tasks/{task_id}/closeout', 'GET /v1/tasks/{task_id}/timeline', 'GET /v1/search', 'GET /health']) {
    t.ok(health.routes.some((r) => `${r.method} ${r.path}` === live && r.status === 'live'), `${live} is live`);
  }
  t.notOk(health.routes.some((r) => r.path.startsWith('/console') || r.path.startsWith('/admin/') || r.path.startsWith('/api/')), 'no console or forge route');
});
