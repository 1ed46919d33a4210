// The bench's governance requests (scripts/bench/governance-shapes.ts) against a real preview served
// in-process and against the bench's no-op baseline process: every request the risk and registry
// sections time must answer what those sections count (201, a hot asset's 201 or 409
// write_conflict, 200 with the expected page). Correctness only: nothing here looks at a clock.
import t from 'tap';
import { assetId, evaluationShape, listRequest, registerAssets, type AssetPage, type ListQuery } from '../../scripts/bench/governance-shapes.ts';
import { httpClient, runLoad } from '../../scripts/bench/http-load.ts';
import { startNoopServer } from '../../scripts/bench/processes.ts';
import { scopeHeaders } from '../../scripts/bench/sections/appends.ts';
import { serveApp } from '../fixtures/served-app.ts';
import { tempDir, TOKENS } from '../fixtures/test-app.ts';

t.test('registrations, spread and hot-asset evaluations, and the four list reads', async (t) => {
  const { baseUrl } = await serveApp(t);
  const client = httpClient(baseUrl, 8);
  t.teardown(() => client.close());
  const headers = scopeHeaders(TOKENS.customer);
  const ids = Array.from({ length: 12 }, (_, i) => assetId('asset-bench', i));
  const hot = 'asset-bench-hot-c16';
  const registered = await registerAssets(client, headers, 'reg', [...ids, hot], 4);
  t.same(registered.byStatus, { 201: 13 }, 'every registration is 201');

  const spread = await runLoad(client, { concurrency: 4, durationMs: 60_000, maxRequests: 24, okStatus: 201, request: (i) => evaluationShape('spread', headers, ids.slice(0, 6)).request('spread', i) });
  t.same(spread.byStatus, { 201: 24 }, `every spread evaluation is 201 ${spread.firstError ?? ''}`);

  const hotRun = await runLoad(client, { concurrency: 8, durationMs: 60_000, maxRequests: 16, okStatus: 201, request: (i) => evaluationShape('hot_asset', headers, [hot]).request('hot', i) });
  t.ok(hotRun.ok > 0, 'some evaluations of the hot asset are written');
  t.same(Object.keys(hotRun.byStatus).filter((s) => s !== '201' && s !== '409'), [], `only 201 or 409: ${JSON.stringify(hotRun.byStatus)}`);
  if (hotRun.errors > 0) t.match(hotRun.firstError, /write_conflict/);

  const page = async (query: ListQuery) => {
    const reply = await client.send(listRequest(headers, query));
    t.equal(reply.status, 200, `GET ${listRequest(headers, query).path}: ${reply.status === 200 ? '' : reply.body.slice(0, 300)}`);
    return JSON.parse(reply.body) as AssetPage;
  };
  t.equal((await page({})).assets.length, 13, 'the first page lists every asset (fewer than 50)');
  const high = await page({ tier: 'high' });
  t.same(high.assets.map((a) => a.asset_id).sort(), [...ids.slice(0, 6), hot].sort(), '?tier=high lists the evaluated assets');
  t.ok(high.assets.every((a) => a.status === 'pending_approval'), 'each waits for its approval');
  t.same((await page({ cursor: ids[9]! })).assets.map((a) => a.asset_id), [ids[10], ids[11], hot], 'a cursor page lists what follows it');
  t.same((await page({ tier: 'prohibited' })).assets, [], 'no asset is tier prohibited');
});

t.test('the no-op baseline answers the same evaluation requests 201', async (t) => {
  const noop = await startNoopServer(`${tempDir(t)}/noop.log`);
  t.teardown(() => noop.stop());
  const client = httpClient(noop.baseUrl, 4);
  t.teardown(() => client.close());
  const headers = scopeHeaders(TOKENS.customer);
  const r = await runLoad(client, { concurrency: 4, durationMs: 60_000, maxRequests: 8, okStatus: 201, request: (i) => evaluationShape('spread', headers, [assetId('asset-bench', 0)]).request('n', i) });
  t.same(r.byStatus, { 201: 8 }, `every request is 201 ${r.firstError ?? ''}`);
  t.equal((await client.send({ path: '/health', headers })).status, 200, 'the read baseline answers 200');
});
