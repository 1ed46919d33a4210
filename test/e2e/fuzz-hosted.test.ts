// The seeded short fuzz run against gov serve on a real PostgreSQL: every operation the hosted
// service serves, a few generated and mutated requests each, with OIDC tokens for the run's own
// tenants; no 5xx, every refusal a problem body, nothing written by a 4xx, /health up throughout.
import t from 'tap';
import { renderFinding } from '../../scripts/fuzz/render.ts';
import { runFuzz } from '../../scripts/fuzz/run-fuzz.ts';
import { hostedServer } from '../../scripts/fuzz/targets.ts';
import { envelopeProblem } from '../../src/domain/event-envelope.ts';
import { startHosted } from '../../src/hosted.ts';
import { migrateDatabase } from '../../src/store/pg/pg-log-tools.ts';
import { testIssuer } from '../fixtures/oidc.ts';
import { testDatabase } from '../fixtures/postgres.ts';

const SEED = 18;
const RUNS = 5;
t.setTimeout(150_000);

t.test(`seeded fuzz run (seed ${SEED}, ${RUNS} cases per operation) against gov serve: no violation`, async (t) => {
  const url = await testDatabase(t);
  if (url === null) return;
  await migrateDatabase(url);
  const idp = await testIssuer();
  t.teardown(() => idp.close());
  const errors: string[] = [];
  const hosted = await startHosted({ databaseUrl: url, host: '127.0.0.1', port: 0, oidc: idp.config() }, { warn: () => {}, logError: (line) => errors.push(line) });
  t.teardown(() => hosted.stop());
  const run = 'hosted';
  const tenants = [`fuzz-${run}-a`, `fuzz-${run}-b`];
  const tokens = {
    customer: await idp.mint({ gov_tenant: tenants, gov_roles: ['owner', 'admin', 'governance_reviewer', 'accountable_executive'] }),
    operator: await idp.mint({ gov_tenant: tenants, gov_roles: ['gov_operator'] }),
  };
  // The server runs in this process: its index holds every event it appended (none come from elsewhere).
  const after = hosted.deps.store.index.db.prepare<[number], { line: string }>('SELECT line FROM events WHERE seq > ? ORDER BY seq');
  const target = hostedServer(hosted.baseUrl, tokens, run, {
    serverError: (id) => errors.find((line) => id !== null && line.includes(id)) ?? null,
    eventsAfter: (seq) => after.all(seq).map(({ line }) => JSON.parse(line) as { seq: number; kind: string; payload?: { outcome?: unknown } }).map((e) => ({ seq: e.seq, kind: e.kind, outcome: e.payload?.outcome, problem: envelopeProblem(e) })),
  });
  const doc = (await (await fetch(`${hosted.baseUrl}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
  const declared = Object.values(doc.paths).reduce((n, item) => n + Object.keys(item).filter((k) => k !== 'parameters').length, 0);

  const report = await runFuzz(target, { seed: SEED, runs: RUNS, maxSeconds: 90, shrinkSeconds: 10, allowForgeWrites: false });

  t.equal(report.stoppedBecause, 'done', `stopped because: ${report.stoppedBecause}`);
  t.same(report.notRun, []);
  t.equal(report.operations.length, declared, 'every operation the hosted service serves was fuzzed');
  t.ok(report.operations.every((o) => o.cases > 0), 'each operation got cases');
  t.ok(report.requests >= declared * RUNS * 0.9, `${report.requests} requests`);
  t.ok(report.operations.some((o) => Object.keys(o.statuses).some((s) => s.startsWith('2'))), 'some requests were accepted');
  t.same(report.findings.map((f) => f.op), [], report.findings.map((f) => renderFinding(f, report.seed, report.runs)).join('\n\n'));
  t.same(errors, [], 'no 5xx was logged');
});
