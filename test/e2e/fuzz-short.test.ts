// The seeded short form of `npm run fuzz` (issue 18, "the campaign as a habit"): every operation of
// the served /openapi.json, a few cases each, against a real preview; 0 violations. And the fuzzer
// itself can fail: against a deliberately broken build it reports each broken invariant, shrunk.
import t from 'tap';
import { renderFinding } from '../../scripts/fuzz/render.ts';
import { runFuzz, type FuzzOptions } from '../../scripts/fuzz/run-fuzz.ts';
import { existingServer, ownPreview } from '../../scripts/fuzz/targets.ts';
import { serveApp } from '../fixtures/served-app.ts';

const SEED = 18;
const RUNS = 6;
const options = (extra: Partial<FuzzOptions> = {}): FuzzOptions => ({ seed: SEED, runs: RUNS, maxSeconds: 60, shrinkSeconds: 10, allowForgeWrites: false, ...extra });

// ~500 requests take ~10 s on the 2-core machine; tap's 30 s per file is too tight when the other
// test files share the cores. The run bounds itself (maxSeconds) well below this.
t.setTimeout(120_000);

t.test(`seeded fuzz run (seed ${SEED}, ${RUNS} cases per operation) against a real preview: no violation`, async (t) => {
  const target = await ownPreview();
  t.teardown(() => target.close(false));
  const doc = (await (await fetch(`${target.baseUrl}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
  const declared = Object.values(doc.paths).reduce((n, item) => n + Object.keys(item).filter((k) => k !== 'parameters').length, 0);

  const report = await runFuzz(target, options());

  t.equal(report.stoppedBecause, 'done', `stopped because: ${report.stoppedBecause}`);
  t.same(report.notRun, []);
  t.equal(report.operations.length, declared, 'every operation of /openapi.json was fuzzed');
  t.ok(report.operations.every((o) => o.cases > 0), 'each operation got cases');
  t.ok(report.requests >= declared * RUNS * 0.9, `${report.requests} requests`);
  t.ok(report.operations.some((o) => Object.keys(o.statuses).some((s) => s.startsWith('2'))) && report.operations.some((o) => Object.keys(o.statuses).some((s) => s.startsWith('4'))), 'both accepted and refused requests');
  t.same(report.findings.map((f) => f.op), [], report.findings.map((f) => renderFinding(f, report.seed, report.runs)).join('\n\n'));
});

t.test('against a broken build the fuzzer reports each violated invariant with a shrunk request', async (t) => {
  // The test build: GET /v1/keys fails with a 500, POST /v1/tasks with an Idempotency-Key answers
  // 422 after writing (the fuzzer's setup sends none), and a missing template is a bare text 404.
  const { baseUrl, tokenFile } = await serveApp(t, (fetch) => async (req) => {
    const path = new URL(req.url).pathname;
    const res = await fetch(req);
    if (req.method === 'GET' && path === '/v1/keys') return new Response('{"code":"internal_error"}', { status: 500, headers: { 'Content-Type': 'application/problem+json' } });
    if (req.method === 'POST' && path === '/v1/tasks' && req.headers.has('idempotency-key') && res.status === 201) return new Response('{"code":"validation_failed"}', { status: 422, headers: { 'Content-Type': 'application/problem+json' } });
    if (req.method === 'GET' && path.startsWith('/v1/templates/') && res.status === 404) return new Response('no such template', { status: 404 });
    return res;
  });
  const report = await runFuzz(existingServer(baseUrl, tokenFile), options({ runs: 25, only: /^(GET \/v1\/keys|POST \/v1\/tasks|GET \/v1\/templates\/\{template_id\})$/ }));

  const byOp = new Map(report.findings.map((f) => [f.op, f]));
  t.same([...byOp.keys()].sort(), ['GET /v1/keys', 'GET /v1/templates/{template_id}', 'POST /v1/tasks']);
  t.same(byOp.get('GET /v1/keys')?.violations.map((v) => v.rule), ['server_error']);
  t.equal(byOp.get('GET /v1/keys')?.status, 500);
  t.same(byOp.get('POST /v1/tasks')?.violations.map((v) => v.rule), ['wrote_on_4xx']);
  t.same(byOp.get('GET /v1/templates/{template_id}')?.violations.map((v) => v.rule), ['error_body_shape']);
  const text = renderFinding(byOp.get('POST /v1/tasks')!, report.seed, report.runs);
  t.match(text, /^\s+POST \/v1\/tasks(\?\S*)?$/m, 'the counterexample names method and path (and the query it sent, if any)');
  t.match(text, /Authorization: <customer token>/, 'tokens are named by role');
  t.notMatch(text, /customer-token-0123456789abcdef/, 'never printed');
  t.match(text, /replay: npm run fuzz -- --seed 18 --runs 25/);
});
