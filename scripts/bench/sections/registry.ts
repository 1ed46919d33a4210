// GET /v1/governance/assets over 10,000 assets registered in one scope through the real route (at
// concurrency 64, before anything is timed), one in ten of them evaluated tier high (their status
// pending_approval). Sequential reads of: the first page (default limit 50); the first page of
// ?tier=high (one asset in ten matches, so the query steps over nine for each it answers); a page
// deep in the cursor order (after the 9,000th asset); and ?tier=prohibited, which no asset has, so
// the whole scope is scanned to answer an empty page (as a "do we have any?" check reads it).
// Then one evaluated asset's risk history, which must not grow with the scope's other evaluations.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { assetId, evaluateRequest, listRequest, registerAssets, type AssetPage, type ListQuery } from '../governance-shapes.ts';
import { httpClient, runLoad, timeSequential, type HttpClient } from '../http-load.ts';
import { startNoopServer, startPreview } from '../processes.ts';
import type { BenchContext, Row, Section } from '../section.ts';
import { scopeHeaders, settledEventCount } from './appends.ts';

const FULL = { assets: 10_000, reads: 300, warmup: 30 };
const QUICK = { assets: 1_000, reads: 30, warmup: 5 };
/** Every EVALUATED_EVERY-th asset is evaluated tier high. */
const EVALUATED_EVERY = 10;
const DEFAULT_LIMIT = 50;

/** Every page of a query, following next_cursor (outside the timed part): the ids it lists, in order. */
async function walk(client: HttpClient, headers: Record<string, string>, query: ListQuery): Promise<AssetPage['assets']> {
  const out: AssetPage['assets'] = [];
  let cursor: string | null = null;
  do {
    const reply = await client.send(listRequest(headers, { ...query, limit: 200, ...(cursor === null ? {} : { cursor }) }));
    if (reply.status !== 200) throw new Error(`GET /v1/governance/assets answered ${reply.status}: ${reply.body.slice(0, 300)}`);
    const page = JSON.parse(reply.body) as AssetPage;
    out.push(...page.assets);
    cursor = page.next_cursor;
  } while (cursor !== null);
  return out;
}

export const registrySection: Section = {
  name: 'registry',
  describe: 'GET /v1/governance/assets over 10,000 assets in one scope (1,000 of them tier high)',
  async run(ctx: BenchContext): Promise<Row[]> {
    const timing = ctx.quick ? QUICK : FULL;
    const n = timing.assets;
    const size = `${n.toLocaleString('en-US')} assets${ctx.quick ? ' (quick mode: the reads below see these, not 10,000)' : ''}`;
    const dataDir = ctx.newDir('registry');
    const runId = randomBytes(6).toString('hex');
    const preview = await startPreview(dataDir, join(dataDir, '..', 'registry-preview.log'));
    const noop = await startNoopServer(join(dataDir, '..', 'registry-noop.log'));
    const client = httpClient(preview.baseUrl);
    const noopClient = httpClient(noop.baseUrl, 1);
    const headers = scopeHeaders(preview.tokens!.customer);
    try {
      const ids = Array.from({ length: n }, (_, i) => assetId('asset-bench', i));
      ctx.progress(`registry: registering ${size} at concurrency 64`);
      const registered = await registerAssets(client, headers, `${runId}-reg`, ids, 64);
      const high = ids.filter((_, i) => i % EVALUATED_EVERY === 3);
      ctx.progress(`registry: evaluating ${high.length.toLocaleString('en-US')} of them (tier high)`);
      const evaluated = await runLoad(client, { concurrency: 32, durationMs: 30 * 60_000, maxRequests: high.length, okStatus: 201, request: (i) => evaluateRequest(headers, `${runId}-eval-${i}`, high[i]!) });
      if (evaluated.ok !== high.length) throw new Error(`evaluating ${high.length} assets: ${evaluated.ok} answered 201; first error: ${evaluated.firstError}`);
      await settledEventCount(client, preview.tokens!.operator);

      // What the timed reads answer is checked first, by walking every page (not timed).
      const all = await walk(client, headers, {});
      const tiered = await walk(client, headers, { tier: 'high' });
      if (all.length !== n || all.some((a, i) => a.asset_id !== ids[i])) throw new Error(`the registry lists ${all.length} assets, expected ${n} in asset_id order`);
      if (tiered.length !== high.length || tiered.some((a) => a.tier !== 'high' || a.status !== 'pending_approval')) throw new Error(`?tier=high lists ${tiered.length} assets, expected ${high.length} pending approval`);

      const deepAfter = ids[Math.floor(n * 0.9) - 1]!;
      const reads: Array<{ key: string; what: string; query: ListQuery; expect: number }> = [
        { key: 'first', what: 'first page (default limit 50)', query: {}, expect: DEFAULT_LIMIT },
        { key: 'tier_high', what: '?tier=high, first page (1 asset in 10 matches)', query: { tier: 'high' }, expect: DEFAULT_LIMIT },
        { key: 'deep', what: `page after the ${Math.floor(n * 0.9).toLocaleString('en-US')}th asset (?cursor=)`, query: { cursor: deepAfter }, expect: DEFAULT_LIMIT },
        { key: 'no_match', what: '?tier=prohibited, none match (scans the scope)', query: { tier: 'prohibited' }, expect: 0 },
      ];
      ctx.progress(`registry: ${timing.reads} sequential reads of each of ${reads.length} pages`);
      const noopRead = await timeSequential(noopClient, timing.reads, () => ({ path: '/health', headers }));
      const rows: Row[] = [
        { id: 'registry.register.rps', figure: `registering ${size} at c64 (set-up, no target)`, value: registered.perSecond, unit: 'req/s', extra: { requests: registered.requests, p50_ms: registered.p50Ms, p99_ms: registered.p99Ms } },
      ];
      for (const read of reads) {
        const request = () => listRequest(headers, read.query);
        const count = (JSON.parse((await client.send(request())).body) as AssetPage).assets.length;
        if (count !== read.expect) throw new Error(`${request().path} listed ${count} assets, expected ${read.expect}`);
        await timeSequential(client, timing.warmup, request);
        const r = await timeSequential(client, timing.reads, request);
        rows.push(
          {
            id: `registry.${read.key}.p50`, figure: `${read.what}: p50 (no-op GET ${noopRead.p50Ms.toFixed(2)} ms)`, value: r.p50Ms, unit: 'ms',
            target: { op: '<', value: 5, text: '< 5 ms' }, extra: { body_bytes: r.bytes, reads: timing.reads, path: request().path, baseline_p50_ms: noopRead.p50Ms },
          },
          { id: `registry.${read.key}.p99`, figure: `${read.what}: p99`, value: r.p99Ms, unit: 'ms', extra: { baseline_p99_ms: noopRead.p99Ms } },
        );
      }
      // One evaluated asset's risk history (GET …/risk): read from the asset's own rows, so it does
      // not grow with the registry's other evaluations.
      const riskOf = high[Math.floor(high.length / 2)]!;
      const riskRequest = () => ({ path: `/v1/governance/assets/${riskOf}/risk`, headers });
      const risk = JSON.parse((await client.send(riskRequest())).body) as { history?: unknown[] };
      if (risk.history?.length !== 1) throw new Error(`${riskRequest().path} lists ${risk.history?.length ?? 'no'} evaluations, expected 1`);
      await timeSequential(client, timing.warmup, riskRequest);
      const r = await timeSequential(client, timing.reads, riskRequest);
      const what = `GET …/risk of one evaluated asset (${high.length.toLocaleString('en-US')} evaluations in the scope)`;
      rows.push(
        {
          id: 'registry.risk_history.p50', figure: `${what}: p50 (no-op GET ${noopRead.p50Ms.toFixed(2)} ms)`, value: r.p50Ms, unit: 'ms',
          target: { op: '<', value: 5, text: '< 5 ms' }, extra: { body_bytes: r.bytes, reads: timing.reads, path: riskRequest().path, baseline_p50_ms: noopRead.p50Ms },
        },
        { id: 'registry.risk_history.p99', figure: `${what}: p99`, value: r.p99Ms, unit: 'ms', extra: { baseline_p99_ms: noopRead.p99Ms } },
      );
      return rows;
    } finally {
      client.close();
      noopClient.close();
      await Promise.all([preview.stop(), noop.stop()]);
    }
  },
};
