// Durable POST /v1/events against a real preview versus a no-op POST on the same framework, at
// several concurrencies, measured level by level in the same run so both see the same machine.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { httpClient, runLoad, type HttpClient, type LoadResult, type Send } from '../http-load.ts';
import { measureFdatasync } from '../disk-floor.ts';
import { cpuSeconds, startNoopServer, startPreview, type ServerProcess } from '../processes.ts';
import type { BenchContext, Row, Section } from '../section.ts';

export const BENCH_SCOPE = { tenant_id: 'bench-tenant', workspace_id: 'bench-ws', project_id: 'bench-proj' };

const LEVELS = [1, 16, 64];
const DURATION_MS = 3_000;
const MAX_REQUESTS = 30_000;
const WARMUP_REQUESTS = 200;

export function scopeHeaders(token: string | null): Record<string, string> {
  return {
    ...(token === null ? {} : { Authorization: `Bearer ${token}` }),
    'X-Tenant-Id': BENCH_SCOPE.tenant_id,
    'X-Workspace-Id': BENCH_SCOPE.workspace_id,
    'X-Project-Id': BENCH_SCOPE.project_id,
  };
}

function eventRequest(server: ServerProcess, keyPrefix: string): (i: number) => Send {
  const headers = { ...scopeHeaders(server.tokens?.customer ?? null), 'Content-Type': 'application/json' };
  return (i) => ({
    path: '/v1/events',
    headers: { ...headers, 'Idempotency-Key': `${keyPrefix}-${i}` },
    body: JSON.stringify({
      kind: 'ext.bench.note',
      ...BENCH_SCOPE,
      session_id: 'sess-bench-1',
      payload: { text: `bench note ${i}: the deployment pipeline finished the canary stage and promoted build ${i % 977}`, step: i },
    }),
  });
}

type LevelResult = LoadResult & { serverCpuUsPerRequest: number };

async function level(client: HttpClient, server: ServerProcess, concurrency: number, runId: string): Promise<LevelResult> {
  // Warm-up opens the keep-alive sockets and lets V8 optimise the hot path before the clock runs.
  await runLoad(client, { concurrency, durationMs: DURATION_MS, maxRequests: WARMUP_REQUESTS, request: eventRequest(server, `${runId}-w${concurrency}`), okStatus: 201 });
  const cpuBefore = cpuSeconds(server.pid);
  const result = await runLoad(client, { concurrency, durationMs: DURATION_MS, maxRequests: MAX_REQUESTS, request: eventRequest(server, `${runId}-c${concurrency}`), okStatus: 201 });
  const cpuAfter = cpuSeconds(server.pid);
  // The server's own CPU per request tells a CPU-bound server from one waiting on the disk or the client.
  const serverCpuUsPerRequest = cpuBefore === null || cpuAfter === null ? Number.NaN : (1e6 * (cpuAfter - cpuBefore)) / result.requests;
  return { ...result, serverCpuUsPerRequest };
}

export const appendsSection: Section = {
  name: 'appends',
  describe: 'durable POST /v1/events vs a no-op POST, concurrency 1/16/64',
  async run(ctx: BenchContext): Promise<Row[]> {
    const dataDir = ctx.newDir('appends');
    ctx.progress('appends: disk floor (write + fdatasync)');
    const disk = measureFdatasync(dataDir);
    const runId = randomBytes(6).toString('hex');
    const preview = await startPreview(dataDir, join(dataDir, '..', 'appends-preview.log'));
    const noop = await startNoopServer(join(dataDir, '..', 'appends-noop.log'));
    const durableClient = httpClient(preview.baseUrl);
    const noopClient = httpClient(noop.baseUrl);
    const rows: Row[] = [
      { id: 'appends.disk_fdatasync.p50', figure: 'disk floor: 400-byte write + fdatasync, p50', value: disk.p50Ms, unit: 'ms', extra: { p99_ms: disk.p99Ms } },
    ];
    let errors = 0;
    try {
      for (const concurrency of LEVELS) {
        ctx.progress(`appends: concurrency ${concurrency}: no-op baseline`);
        const base = await level(noopClient, noop, concurrency, runId);
        ctx.progress(`appends: concurrency ${concurrency}: durable preview`);
        const durable = await level(durableClient, preview, concurrency, runId);
        for (const r of [base, durable]) if (r.errors > 0) ctx.progress(`  ${r.errors} errors; first: ${r.firstError}`);
        errors += base.errors + durable.errors;
        const ratio = (100 * durable.perSecond) / base.perSecond;
        const c = `c${concurrency}`;
        rows.push(
          { id: `appends.${c}.baseline_rps`, figure: `no-op POST rate, concurrency ${concurrency}`, value: base.perSecond, unit: 'req/s', extra: { ...base } },
          { id: `appends.${c}.durable_rps`, figure: `durable POST /v1/events rate, concurrency ${concurrency}`, value: durable.perSecond, unit: 'req/s', extra: { ...durable } },
          {
            id: `appends.${c}.ratio`, figure: `durable / no-op, concurrency ${concurrency}`, value: ratio, unit: '%',
            ...(concurrency === 64 ? { target: { op: '>=' as const, value: 40, text: '≥ 40 %' } } : {}),
          },
          { id: `appends.${c}.p50`, figure: `durable append p50, concurrency ${concurrency}`, value: durable.p50Ms, unit: 'ms', extra: { baseline_p50_ms: base.p50Ms } },
          { id: `appends.${c}.p99`, figure: `durable append p99, concurrency ${concurrency}`, value: durable.p99Ms, unit: 'ms', target: { op: '<', value: 25, text: '< 25 ms' }, extra: { baseline_p99_ms: base.p99Ms } },
          { id: `appends.${c}.server_cpu`, figure: `preview CPU per append (no-op: ${Math.round(base.serverCpuUsPerRequest)} µs), concurrency ${concurrency}`, value: durable.serverCpuUsPerRequest, unit: 'µs', extra: { baseline_us: base.serverCpuUsPerRequest } },
        );
      }
      // Every acknowledged append must be in the log: a benchmark of lost writes is worthless.
      const health = await durableClient.send({ path: '/health', headers: { Authorization: `Bearer ${preview.tokens!.operator}` } });
      const stored = (JSON.parse(health.body) as { detail?: { event_count?: number } }).detail?.event_count ?? -1;
      rows.push({ id: 'appends.errors', figure: 'append errors (non-201 or transport)', value: errors, unit: '', target: { op: '<', value: 1, text: '0' }, extra: { events_in_log: stored } });
    } finally {
      durableClient.close();
      noopClient.close();
      await Promise.all([preview.stop(), noop.stop()]);
    }
    return rows;
  },
};
