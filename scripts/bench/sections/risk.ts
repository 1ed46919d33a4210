// POST /v1/risk/evaluations through a real preview: each evaluation of a registered asset appends
// risk.evaluated + approval.requested + access.logged in one unit, under the version of the asset's
// stream it read. Two shapes at concurrency 16 and 64, each paired with a no-op POST of the very
// same requests in the same run: evaluations spread over many assets (what an integrator's
// adapter sends), and every evaluation of one hot asset, where concurrent evaluations contend on
// its stream: each supersedes the previous one, and a write whose asset moved on is decided again
// by the log's writer (docs/write-path.md); only where that cannot be done, the slow way (up to 8
// tries, then 409 write_conflict, which the client sends again; the row counts them). Assets are
// registered before anything is timed; the hot asset is a fresh one per level.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { assetId, evaluateRequest, evaluationShape, registerAssets, type EvaluationShape, type EvaluationShapeName } from '../governance-shapes.ts';
import { httpClient, runLoad, type HttpClient, type LoadResult, type Send } from '../http-load.ts';
import { cpuSeconds, startNoopServer, startPreview, type ServerProcess } from '../processes.ts';
import type { BenchContext, Row, Section, Target } from '../section.ts';
import { scopeHeaders, settledEventCount } from './appends.ts';

const LEVELS = [16, 64];
const TARGET: Target = { op: '>=', value: 40, text: '≥ 40 %' };
/** Events one evaluation appends (its approval is needed: tier high) and one registration appends. */
const EVENTS_PER_EVALUATION = 3;
const EVENTS_PER_REGISTRATION = 2;

// Full: 2 shapes × 2 levels × (no-op + durable) × 3 s ≈ 24 s, plus registering 1,000 assets and
// warm-ups: under a minute. A level stops at its duration; maxRequests only bounds it.
const FULL = { assets: 1_000, levelMs: 3_000, warmup: 200, maxRequests: 60_000 };
const QUICK = { assets: 200, levelMs: 400, warmup: 30, maxRequests: 10_000 };
type Timing = typeof FULL;

type LevelResult = LoadResult & { okPerSecond: number; serverCpuUsPerOk: number };

/**
 * Warm-up (unmeasured: opens the sockets, lets V8 optimise), then the timed run. Counts the
 * preview's 201s into `acknowledged`, and answers other than `allowed` statuses into `unexpected`
 * (a 409 is allowed only as a hot asset's write_conflict).
 */
async function level(client: HttpClient, server: ServerProcess, concurrency: number, request: (keyPrefix: string, i: number) => Send, keyPrefix: string, timing: Timing, allowed: string[], t: Tally): Promise<LevelResult> {
  const warm = await runLoad(client, { concurrency, durationMs: timing.levelMs, maxRequests: timing.warmup, request: (i) => request(`${keyPrefix}w`, i), okStatus: 201 });
  const cpuBefore = cpuSeconds(server.pid);
  const r = await runLoad(client, { concurrency, durationMs: timing.levelMs, maxRequests: timing.maxRequests, request: (i) => request(keyPrefix, i), okStatus: 201 });
  const cpuAfter = cpuSeconds(server.pid);
  for (const x of [warm, r]) {
    if (server.name === 'preview') t.acknowledged += x.ok;
    const unexpected = Object.entries(x.byStatus).filter(([status]) => !allowed.includes(status)).reduce((n, [, count]) => n + count, 0);
    // Every 409 answer names its code; the first one says whether it was the write conflict.
    const wrong409 = (x.byStatus['409'] ?? 0) > 0 && !(x.firstError ?? '').includes('write_conflict') ? x.byStatus['409']! : 0;
    if (unexpected + wrong409 > 0) {
      t.unexpected += unexpected + wrong409;
      t.firstUnexpected ??= x.firstError;
    }
  }
  const serverCpuUsPerOk = cpuBefore === null || cpuAfter === null ? Number.NaN : (1e6 * (cpuAfter - cpuBefore)) / r.ok;
  return { ...r, okPerSecond: r.ok / r.seconds, serverCpuUsPerOk };
}

type Tally = { acknowledged: number; unexpected: number; firstUnexpected?: string };

function rowsOf(shape: EvaluationShapeName, concurrency: number, base: LevelResult, durable: LevelResult, hotEvaluations: number): Row[] {
  const id = `risk.${shape}.c${concurrency}`;
  const name = `${shape}, c${concurrency}`;
  const { firstError, ...numbers } = durable;
  const conflicts = durable.byStatus['409'] ?? 0;
  const rows: Row[] = [
    { id: `${id}.rps`, figure: `${name}: evaluations answered 201 per second`, value: durable.okPerSecond, unit: 'req/s', extra: { ...numbers, ...(firstError === undefined ? {} : { first_error: firstError }) } },
    {
      id: `${id}.ratio`, figure: `${name}: 201 rate / no-op rate (no-op ${Math.round(base.perSecond).toLocaleString('en-US')}/s)`, value: (100 * durable.okPerSecond) / base.perSecond, unit: '%',
      target: TARGET, extra: { baseline_per_second: base.perSecond, baseline_requests: base.requests, baseline_p50_ms: base.p50Ms },
    },
    { id: `${id}.p50`, figure: `${name}: p50 (no-op ${base.p50Ms.toFixed(2)} ms)`, value: durable.p50Ms, unit: 'ms', extra: { baseline_p50_ms: base.p50Ms } },
    // No target: a closed loop's p99 is mostly queueing at these levels (Little's law).
    { id: `${id}.p99`, figure: `${name}: p99`, value: durable.p99Ms, unit: 'ms', extra: { baseline_p99_ms: base.p99Ms } },
    { id: `${id}.server_cpu`, figure: `${name}: preview CPU per 201 (no-op ${Math.round((base.serverCpuUsPerOk))} µs per request)`, value: durable.serverCpuUsPerOk, unit: 'µs' },
  ];
  if (shape === 'hot_asset') {
    rows.push({
      id: `${id}.conflicts`, figure: `${name}: answers that were 409 write_conflict after 8 tries`, value: (100 * conflicts) / durable.requests, unit: '%',
      extra: { conflicts, requests: durable.requests, evaluations_of_the_asset_at_the_end: hotEvaluations },
    });
  }
  return rows;
}

export const riskSection: Section = {
  name: 'risk',
  describe: 'POST /v1/risk/evaluations (3 events per unit), spread over many assets and into one hot asset, vs a no-op POST',
  async run(ctx: BenchContext): Promise<Row[]> {
    const timing = ctx.quick ? QUICK : FULL;
    const dataDir = ctx.newDir('risk');
    const runId = randomBytes(6).toString('hex');
    const preview = await startPreview(dataDir, join(dataDir, '..', 'risk-preview.log'));
    const noop = await startNoopServer(join(dataDir, '..', 'risk-noop.log'));
    const durableClient = httpClient(preview.baseUrl);
    const noopClient = httpClient(noop.baseUrl);
    // The preview's headers go to the no-op server too: the baseline receives byte-identical requests.
    const headers = scopeHeaders(preview.tokens!.customer);
    const spreadIds = Array.from({ length: timing.assets }, (_, n) => assetId('asset-bench', n));
    const hotIds = new Map(LEVELS.map((c) => [c, `asset-bench-hot-c${c}`]));
    const t: Tally = { acknowledged: 0, unexpected: 0 };
    const hotEvaluations = new Map<number, number>();
    try {
      ctx.progress(`risk: registering ${spreadIds.length.toLocaleString('en-US')} assets${ctx.quick ? ' (quick mode; the full run registers 1,000)' : ''} and ${hotIds.size} hot ones`);
      const registered = await registerAssets(durableClient, headers, `${runId}-reg`, [...spreadIds, ...hotIds.values()], 16);

      // The answers are what the figures assume: tier high, an approval requested, the previous
      // evaluation superseded.
      const first = await durableClient.send(evaluateRequest(headers, `${runId}-check-1`, spreadIds[0]!));
      const second = await durableClient.send(evaluateRequest(headers, `${runId}-check-2`, spreadIds[0]!));
      const parse = (r: { status: number; body: string }) => {
        if (r.status !== 201) throw new Error(`POST /v1/risk/evaluations answered ${r.status}: ${r.body.slice(0, 300)}`);
        return (JSON.parse(r.body) as { evaluation: { evaluation_id: string; tier: string; approval_id: string | null; supersedes: string | null } }).evaluation;
      };
      const [e1, e2] = [parse(first), parse(second)];
      if (e1.tier !== 'high' || e1.approval_id === null || e2.supersedes !== e1.evaluation_id) throw new Error(`unexpected evaluations: ${JSON.stringify([e1, e2])}`);
      t.acknowledged += 2;

      const results = new Map<string, { base: LevelResult; durable: LevelResult }>();
      for (const concurrency of LEVELS) {
        const shapes: EvaluationShape[] = [evaluationShape('spread', headers, spreadIds), evaluationShape('hot_asset', headers, [hotIds.get(concurrency)!])];
        for (const shape of shapes) {
          ctx.progress(`risk: ${shape.describe}, concurrency ${concurrency}: no-op baseline, then durable preview`);
          // Key prefixes of one length: the baseline's requests are the durable ones byte for byte.
          const prefix = `${runId}-${shape.name}-c${concurrency}`;
          const base = await level(noopClient, noop, concurrency, shape.request, `${prefix}-n`, timing, ['201'], t);
          const acknowledgedBefore = t.acknowledged;
          const durable = await level(durableClient, preview, concurrency, shape.request, `${prefix}-d`, timing, shape.name === 'hot_asset' ? ['201', '409'] : ['201'], t);
          if (shape.name === 'hot_asset') hotEvaluations.set(concurrency, t.acknowledged - acknowledgedBefore);
          for (const r of [base, durable]) if (r.errors > 0) ctx.progress(`  ${r.errors} non-201 answers (${JSON.stringify(r.byStatus)}); first: ${r.firstError?.slice(0, 200)}`);
          results.set(`${shape.name}.c${concurrency}`, { base, durable });
        }
      }
      const rows: Row[] = [];
      for (const shape of ['spread', 'hot_asset'] as const) {
        for (const c of LEVELS) {
          const { base, durable } = results.get(`${shape}.c${c}`)!;
          rows.push(...rowsOf(shape, c, base, durable, hotEvaluations.get(c) ?? 0));
        }
      }

      // Every 201 must have its three events in the log (a 201 for a lost write is the worst error).
      const stored = await settledEventCount(durableClient, preview.tokens!.operator);
      const expected = registered.ok * EVENTS_PER_REGISTRATION + t.acknowledged * EVENTS_PER_EVALUATION;
      const lost = Math.max(0, expected - stored);
      rows.push({
        id: 'risk.errors', figure: 'evaluation errors (not 201 or a hot asset\'s 409 write_conflict, or a 201 whose events are not in the log)', value: t.unexpected + lost, unit: '',
        target: { op: '<', value: 1, text: '0' },
        extra: { events_in_log: stored, events_expected: expected, evaluations_acknowledged: t.acknowledged, lost, ...(t.firstUnexpected === undefined ? {} : { first_unexpected: t.firstUnexpected }) },
      });
      return rows;
    } finally {
      durableClient.close();
      noopClient.close();
      await Promise.all([preview.stop(), noop.stop()]);
    }
  },
};
