// The dashboard section's requests (scripts/bench/sections/dashboard.ts) against a real preview
// served in-process: registrations, evaluations and incidents answer 201, the dashboard 200 with the
// counts the section checks, and the access-log jsonl export 200 with as many record lines as its
// header says. Correctness only: nothing here looks at a clock.
import t from 'tap';
import { assetId, evaluateRequest, registerAssets } from '../../scripts/bench/governance-shapes.ts';
import { httpClient } from '../../scripts/bench/http-load.ts';
import { scopeHeaders } from '../../scripts/bench/sections/appends.ts';
import { dashboardRequest, exportRequest, incidentRequest, parseJsonl, type Dashboard } from '../../scripts/bench/sections/dashboard.ts';
import { serveApp } from '../fixtures/served-app.ts';
import { TOKENS } from '../fixtures/test-app.ts';

t.test('incidents, the dashboard read and the access-log jsonl export', async (t) => {
  const { baseUrl } = await serveApp(t);
  const client = httpClient(baseUrl, 4);
  t.teardown(() => client.close());
  const headers = scopeHeaders(TOKENS.customer);
  const ids = Array.from({ length: 4 }, (_, i) => assetId('asset-bench', i));
  await registerAssets(client, headers, 'reg', ids, 2);
  for (const [i, id] of [...ids, ...ids].entries()) {
    const r = await client.send(evaluateRequest(headers, `eval-${i}`, id));
    t.equal(r.status, 201, `evaluation ${i} is 201 ${r.status === 201 ? '' : r.body.slice(0, 300)}`);
  }
  for (let i = 0; i < 3; i++) {
    const r = await client.send(incidentRequest(headers, `inc-${i}`, ids[i]!, i));
    t.equal(r.status, 201, `incident ${i} is 201 ${r.status === 201 ? '' : r.body.slice(0, 300)}`);
  }

  const reply = await client.send(dashboardRequest(headers));
  t.equal(reply.status, 200, 'the dashboard answers 200');
  const d = JSON.parse(reply.body) as Dashboard;
  t.equal(d.assets.total, 4, 'every asset counted');
  t.equal(d.incidents.total, 3, 'every incident counted');
  t.equal(d.approvals.pending, 4, 'one pending approval per asset');
  t.equal(d.approvals.by_status.superseded, 4, 'the first approvals superseded');

  const exported = await client.send(exportRequest(headers));
  t.equal(exported.status, 200, `the jsonl export answers 200 ${exported.status === 200 ? '' : exported.body.slice(0, 300)}`);
  const { header, lines } = parseJsonl(exported.body);
  t.equal(header.kind, 'access-log');
  t.equal(header.record_count, lines, 'one line per record');
  t.ok(lines >= 4 + 8 + 3, `an access entry per write (${lines})`);
});
