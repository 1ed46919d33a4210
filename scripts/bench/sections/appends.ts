// Durable writes of the shapes integrators send (append-shapes.ts) to a real preview, each level
// paired with a no-op POST of the very same requests in the same run so both see the same machine,
// then an open-loop run at a fixed arrival rate, the fair judge of latency (see runOpenLoop).
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { appendShapes, createTaskRequest, type Shape, type ShapeName } from '../append-shapes.ts';
import { measureFdatasync } from '../disk-floor.ts';
import { httpClient, runLoad, runOpenLoop, type HttpClient, type LoadResult, type OpenLoopResult, type Send } from '../http-load.ts';
import { cpuSeconds, startNoopServer, startPreview, type ServerProcess } from '../processes.ts';
import type { BenchContext, Row, Section } from '../section.ts';

export const BENCH_SCOPE = { tenant_id: 'bench-tenant', workspace_id: 'bench-ws', project_id: 'bench-proj' };

export function scopeHeaders(token: string | null): Record<string, string> {
  return {
    ...(token === null ? {} : { Authorization: `Bearer ${token}` }),
    'X-Tenant-Id': BENCH_SCOPE.tenant_id,
    'X-Workspace-Id': BENCH_SCOPE.workspace_id,
    'X-Project-Id': BENCH_SCOPE.project_id,
  };
}

const LEVELS = [1, 16, 64];
const OPEN_LOOP_SHAPES: ShapeName[] = ['spread', 'hot_task'];
const OPEN_LOOP_RATE = 2_000;
const OPEN_LOOP_CONNECTIONS = 64;

// Each level alternates no-op and durable runs `rounds` times (`rounds64` at concurrency 64, whose
// ratios carry the targets) and keeps the round with the median ratio; the ratio's row also names
// the lowest and highest round. This machine's speed drifts by a fifth from one few-second run to
// the next, more than most changes move a figure, so one round could pass or miss a target by
// chance. Full: 5 shapes × (3 + 3 + 5 rounds) × (no-op + durable) × 1 s ≈ 110 s, plus two 5 s open
// loops, warm-ups and set-up: about 2.5 minutes in all. A run stops at its duration; maxRequests
// only bounds it.
const FULL = { rounds: 3, rounds64: 5, levelMs: 1_000, warmup: 200, maxRequests: 60_000, openLoopMs: 5_000, drainMs: 3_000 };
const QUICK = { rounds: 1, rounds64: 1, levelMs: 400, warmup: 30, maxRequests: 10_000, openLoopMs: 1_000, drainMs: 1_000 };
type Timing = typeof FULL;

type LevelResult = LoadResult & { serverCpuUsPerRequest: number };

/** Errors and 201s over the whole section, warm-ups included: every acknowledged write is checked against the log. */
type Tally = { errors: number; acknowledged: number };

function tally(t: Tally, r: LoadResult, durable: boolean): void {
  t.errors += r.errors;
  if (durable) t.acknowledged += r.ok;
}

async function level(client: HttpClient, server: ServerProcess, concurrency: number, request: (keyPrefix: string, i: number) => Send, keyPrefix: string, timing: Timing, t: Tally): Promise<LevelResult> {
  const durable = server.name === 'preview';
  // Warm-up opens the keep-alive sockets and lets V8 optimise the hot path before the clock runs.
  tally(t, await runLoad(client, { concurrency, durationMs: timing.levelMs, maxRequests: timing.warmup, request: (i) => request(`${keyPrefix}w`, i), okStatus: 201 }), durable);
  const cpuBefore = cpuSeconds(server.pid);
  const result = await runLoad(client, { concurrency, durationMs: timing.levelMs, maxRequests: timing.maxRequests, request: (i) => request(keyPrefix, i), okStatus: 201 });
  const cpuAfter = cpuSeconds(server.pid);
  tally(t, result, durable);
  // The server's own CPU per request tells a CPU-bound server from one waiting on the disk or the client.
  const serverCpuUsPerRequest = cpuBefore === null || cpuAfter === null ? Number.NaN : (1e6 * (cpuAfter - cpuBefore)) / result.requests;
  return { ...result, serverCpuUsPerRequest };
}

type Round = { base: LevelResult; durable: LevelResult };
/** A level's rounds: the one whose durable / no-op ratio is the median, and every round's ratio (%, lowest first). */
type Level = Round & { ratios: number[] };

/** The round whose durable / no-op ratio is the median (its pair of runs, measured seconds apart). */
function medianRound(rounds: Round[]): Level {
  const ratio = (r: Round) => (100 * r.durable.perSecond) / r.base.perSecond;
  const sorted = [...rounds].sort((a, b) => ratio(a) - ratio(b));
  return { ...sorted[Math.floor(sorted.length / 2)]!, ratios: sorted.map(ratio) };
}

async function createTasks(client: HttpClient, shapes: Shape[], headers: Record<string, string>, runId: string): Promise<number> {
  const all = shapes.flatMap((s) => s.taskIds);
  const made = await runLoad(client, { concurrency: 8, durationMs: 60_000, maxRequests: all.length, okStatus: 201, request: (i) => createTaskRequest(headers, `${runId}-task`, all[i]!, i) });
  if (made.ok !== all.length) throw new Error(`creating ${all.length} tasks: ${made.ok} created; first error: ${made.firstError}`);
  return made.ok;
}

/** 64 fresh single-socket connections, each opened by one (unmeasured) request before the schedule starts. */
async function openLoop(baseUrl: string, request: (keyPrefix: string, i: number) => Send, keyPrefix: string, timing: Timing, t: Tally): Promise<OpenLoopResult> {
  const connections = Array.from({ length: OPEN_LOOP_CONNECTIONS }, () => httpClient(baseUrl, 1));
  try {
    const warm = await Promise.all(connections.map((c, n) => c.send(request(`${keyPrefix}w`, n))));
    const bad = warm.find((r) => r.status !== 201);
    if (bad) throw new Error(`open-loop warm-up answered ${bad.status}: ${bad.body.slice(0, 300)}`);
    t.acknowledged += warm.length;
    const r = await runOpenLoop(connections, { ratePerSecond: OPEN_LOOP_RATE, durationMs: timing.openLoopMs, maxRequests: (OPEN_LOOP_RATE * timing.openLoopMs) / 1000, drainMs: timing.drainMs, request: (i) => request(keyPrefix, i), okStatus: 201 });
    // Unanswered requests are a latency failure (in the open-loop rows), not a wrong answer.
    t.errors += r.errors - r.unfinished;
    t.acknowledged += r.ok;
    return r;
  } finally {
    for (const c of connections) c.close();
  }
}

/**
 * The log's event count once it stops growing: requests an open loop aborted may still be in the
 * server's hands. Bounded: gives up waiting after 10 s and reports what it has.
 */
export async function settledEventCount(client: HttpClient, operatorToken: string): Promise<number> {
  const read = async () => {
    const health = await client.send({ path: '/health', headers: { Authorization: `Bearer ${operatorToken}` } });
    return (JSON.parse(health.body) as { detail?: { event_count?: number } }).detail?.event_count ?? -1;
  };
  let last = await read();
  for (const giveUp = performance.now() + 10_000; performance.now() < giveUp;) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const now = await read();
    if (now === last) break;
    last = now;
  }
  return last;
}

function levelRows(shape: ShapeName, concurrency: number, { base, durable, ratios }: Level): Row[] {
  const id = `appends.${shape}.c${concurrency}`;
  const name = `${shape}, c${concurrency}`;
  const ratio = (100 * durable.perSecond) / base.perSecond;
  const spread = ratios.length > 1 ? `; ${ratios.length} rounds ${ratios[0]!.toFixed(1)}–${ratios[ratios.length - 1]!.toFixed(1)} %` : '';
  return [
    { id: `${id}.rps`, figure: `${name}: durable rate`, value: durable.perSecond, unit: 'req/s', extra: { ...durable } },
    {
      id: `${id}.ratio`, figure: `${name}: durable / no-op rate (no-op ${Math.round(base.perSecond).toLocaleString('en-US')}/s${spread})`, value: ratio, unit: '%', extra: { ...base, round_ratios: ratios.map((r) => r.toFixed(1)).join(' ') },
      ...(concurrency === 64 ? { target: { op: '>=' as const, value: 50, text: '≥ 50 %' } } : {}),
    },
    { id: `${id}.p50`, figure: `${name}: durable p50`, value: durable.p50Ms, unit: 'ms', extra: { baseline_p50_ms: base.p50Ms } },
    // No target: a closed loop's p99 at c64 is mostly queueing (Little's law); the open loop judges latency.
    { id: `${id}.p99`, figure: `${name}: durable p99`, value: durable.p99Ms, unit: 'ms', extra: { baseline_p99_ms: base.p99Ms } },
    { id: `${id}.server_cpu`, figure: `${name}: preview CPU per request (no-op ${Math.round(base.serverCpuUsPerRequest)} µs)`, value: durable.serverCpuUsPerRequest, unit: 'µs', extra: { baseline_us: base.serverCpuUsPerRequest } },
  ];
}

function openLoopRows(shape: ShapeName, r: OpenLoopResult): Row[] {
  const id = `appends.open_loop.${shape}`;
  const name = `open loop ${OPEN_LOOP_RATE.toLocaleString('en-US')}/s, ${shape}`;
  const { firstError, ...numbers } = r;
  return [
    { id: `${id}.rps`, figure: `${name}: achieved rate`, value: r.perSecond, unit: 'req/s', extra: { ...numbers, ...(firstError === undefined ? {} : { first_error: firstError }) } },
    { id: `${id}.p50`, figure: `${name}: p50 from due time`, value: r.p50Ms, unit: 'ms' },
    { id: `${id}.p99`, figure: `${name}: p99 from due time`, value: r.p99Ms, unit: 'ms', target: { op: '<', value: 25, text: '< 25 ms' }, extra: { max_ms: r.maxMs, send_lag_p99_ms: r.sendLagP99Ms } },
    { id: `${id}.errors`, figure: `${name}: errors (incl. unanswered)`, value: r.errors, unit: '', extra: { unfinished: r.unfinished } },
  ];
}

export const appendsSection: Section = {
  name: 'appends',
  describe: 'five write shapes vs a no-op POST of the same requests (the median of alternated rounds); open loop',
  async run(ctx: BenchContext): Promise<Row[]> {
    const timing = ctx.quick ? QUICK : FULL;
    const dataDir = ctx.newDir('appends');
    ctx.progress('appends: disk floor (write + fdatasync)');
    const disk = measureFdatasync(dataDir);
    const runId = randomBytes(6).toString('hex');
    const preview = await startPreview(dataDir, join(dataDir, '..', 'appends-preview.log'));
    const noop = await startNoopServer(join(dataDir, '..', 'appends-noop.log'));
    const durableClient = httpClient(preview.baseUrl);
    const noopClient = httpClient(noop.baseUrl);
    // The preview's headers go to the no-op server too: the baseline receives byte-identical requests.
    const headers = scopeHeaders(preview.tokens!.customer);
    const shapes = appendShapes(BENCH_SCOPE, headers);
    const rows: Row[] = [
      { id: 'appends.disk_fdatasync.p50', figure: 'disk floor: 400-byte write + fdatasync, p50', value: disk.p50Ms, unit: 'ms', extra: { p99_ms: disk.p99Ms } },
    ];
    const t: Tally = { errors: 0, acknowledged: 0 };
    try {
      ctx.progress(`appends: creating ${shapes.reduce((n, s) => n + s.taskIds.length, 0)} tasks`);
      t.acknowledged += await createTasks(durableClient, shapes, headers, runId);
      // Level by level, every shape in turn: the shapes compared at c64 (hot task vs spread) run
      // seconds apart, on a log of about the same size.
      const results = new Map<string, Level>();
      for (const concurrency of LEVELS) {
        const roundCount = concurrency === 64 ? timing.rounds64 : timing.rounds;
        for (const shape of shapes) {
          ctx.progress(`appends: ${shape.name}, concurrency ${concurrency}: no-op baseline, then durable preview (${roundCount} round${roundCount === 1 ? '' : 's'})`);
          // Key prefixes of one length: the baseline's requests are the durable ones byte for byte.
          const prefix = `${runId}-${shape.name}-c${concurrency}`;
          const rounds: Round[] = [];
          for (let round = 0; round < roundCount; round++) {
            const base = await level(noopClient, noop, concurrency, shape.request, `${prefix}-n${round}`, timing, t);
            const durable = await level(durableClient, preview, concurrency, shape.request, `${prefix}-d${round}`, timing, t);
            for (const r of [base, durable]) if (r.errors > 0) ctx.progress(`  ${r.errors} errors; first: ${r.firstError}`);
            rounds.push({ base, durable });
          }
          results.set(`${shape.name}.c${concurrency}`, medianRound(rounds));
        }
      }
      const at = (shape: ShapeName, c: number) => results.get(`${shape}.c${c}`)!;
      for (const shape of shapes) for (const c of LEVELS) rows.push(...levelRows(shape.name, c, at(shape.name, c)));
      // Each shape's rate as a share of its own no-op, measured seconds before it: the two shapes
      // run a minute apart, and the machine's speed drifts by more than the target's 10 % in that
      // time (the no-op's own rate moved by 12 % between them in one run). The raw rates go beside it.
      const hot = at('hot_task', 64);
      const spread = at('spread', 64);
      const share = (l: Level) => l.durable.perSecond / l.base.perSecond;
      rows.push({
        id: 'appends.hot_vs_spread.c64',
        figure: `hot task vs spread at c64: durable / no-op rate (durable ${Math.round(hot.durable.perSecond).toLocaleString('en-US')} vs ${Math.round(spread.durable.perSecond).toLocaleString('en-US')}/s)`,
        value: (100 * share(hot)) / share(spread), unit: '%',
        target: { op: '>=', value: 90, text: '≥ 90 %' },
        extra: { hot_per_second: hot.durable.perSecond, spread_per_second: spread.durable.perSecond, raw_rate_ratio: (100 * hot.durable.perSecond) / spread.durable.perSecond },
      });

      for (const name of OPEN_LOOP_SHAPES) {
        const shape = shapes.find((s) => s.name === name)!;
        ctx.progress(`appends: open loop, ${name}: ${OPEN_LOOP_RATE}/s for ${timing.openLoopMs} ms over ${OPEN_LOOP_CONNECTIONS} connections`);
        const r = await openLoop(preview.baseUrl, shape.request, `${runId}-${name}-open`, timing, t);
        if (r.errors > 0) ctx.progress(`  ${r.errors} errors (${r.unfinished} unanswered); first: ${r.firstError}`);
        rows.push(...openLoopRows(name, r));
        // Let aborted requests still in the server's hands finish before the next measurement.
        await settledEventCount(durableClient, preview.tokens!.operator);
      }

      // Every acknowledged write must be in the log (a 201 for a lost write is the worst error):
      // the log holds at least as many events as there were 201s.
      const stored = await settledEventCount(durableClient, preview.tokens!.operator);
      const lost = Math.max(0, t.acknowledged - stored);
      rows.push({
        id: 'appends.errors', figure: 'append errors (non-201, transport, or a 201 whose event is not in the log)', value: t.errors + lost, unit: '',
        target: { op: '<', value: 1, text: '0' }, extra: { events_in_log: stored, acknowledged: t.acknowledged, lost },
      });
    } finally {
      durableClient.close();
      noopClient.close();
      await Promise.all([preview.stop(), noop.stop()]);
    }
    return rows;
  },
};
