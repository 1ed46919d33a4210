// GET /v1/governance/dashboard and GET /v1/exports/access-log?format=jsonl through a real preview,
// over one scope built through the API before anything is timed: 10,000 assets registered at
// concurrency 64, every asset evaluated tier high twice (each evaluation appends risk.evaluated +
// approval.requested + access.logged; the second supersedes the first and its approval), and 3,000
// incidents (sev3, one asset each). That is ~53,000 asset, approval and incident events (~86,000
// events with their access.logged entries). Sequential dashboard reads are timed on it. Then more
// evaluations take the scope past 100,000 events and the access-log kind (the kind with the most
// records: one per write) is exported as jsonl: records per second of the whole answer, and the
// preview's peak RSS during the export (VmHWM after resetting it through /proc/<pid>/clear_refs,
// with VmRSS sampled as well), against its RSS just before. The export is measured at both sizes,
// so the growth of the peak with the export's size shows whether memory is constant.
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { assetId, evaluateRequest, registerAssets } from '../governance-shapes.ts';
import { httpClient, runLoad, timeSequential, type HttpClient, type Send } from '../http-load.ts';
import { startPreview } from '../processes.ts';
import { median, type BenchContext, type Row, type Section } from '../section.ts';
import { scopeHeaders, settledEventCount } from './appends.ts';

const FULL = { assets: 10_000, evaluationsPerAsset: 2, incidents: 3_000, exportEvents: 100_000, reads: 200, warmup: 20, exports: 3 };
const QUICK = { assets: 1_000, evaluationsPerAsset: 2, incidents: 300, exportEvents: 10_000, reads: 30, warmup: 5, exports: 2 };
const REPORTER = { type: 'user', id: 'reporter-bench-1' } as const;
/** Events each write appends: its own and its access.logged entry (an evaluation: two and one). */
const EVENTS = { registration: 2, evaluation: 3, incident: 2 };

/** POST /v1/incidents: an open sev3 incident naming one asset. Answers 201. */
export function incidentRequest(headers: Record<string, string>, key: string, asset: string, n: number): Send {
  return {
    path: '/v1/incidents',
    headers: { ...headers, 'Content-Type': 'application/json', 'Idempotency-Key': key },
    body: JSON.stringify({
      class: n % 4 === 0 ? 'hazard' : 'incident',
      title: `Bench incident ${n} on ${asset}`,
      description: `The assistant ${asset} returned an answer a reviewer flagged (bench incident ${n}).`,
      aware_at: new Date(Date.UTC(2026, 0, 1) + n * 60_000).toISOString().replace('.000Z', 'Z'),
      severity: 'sev3',
      asset_ids: [asset],
      actor: REPORTER,
    }),
  };
}

/** GET /v1/governance/dashboard. Answers 200. */
export function dashboardRequest(headers: Record<string, string>): Send {
  return { path: '/v1/governance/dashboard', headers };
}

/** GET /v1/exports/{kind}?format=jsonl. Answers 200: a header line, then one line per record. */
export function exportRequest(headers: Record<string, string>, kind = 'access-log'): Send {
  return { path: `/v1/exports/${kind}?format=jsonl`, headers };
}

export type Dashboard = { as_of_seq: number; assets: { total: number }; approvals: { pending: number; by_status: Record<string, number> }; incidents: { total: number; open: number } };
export type JsonlHeader = { kind: string; record_count: number; last_seq: number };

/** The header line of a jsonl export and its number of record lines. */
export function parseJsonl(body: string): { header: JsonlHeader; lines: number } {
  const lines = body.split('\n').filter((l) => l.length > 0);
  return { header: JSON.parse(lines[0]!) as JsonlHeader, lines: lines.length - 1 };
}

function procStatusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : Number.NaN;
}

/** Resets the process's peak RSS (VmHWM) to its current RSS; false where the kernel refuses. */
function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

type ExportRun = { records: number; bytes: number; seconds: number; recordsPerSecond: number; rssBeforeMb: number; peakMb: number; sampledPeakMb: number; hwmReset: boolean; scopeEvents: number };

/** `count` timed jsonl exports after one warm-up; the median time and the highest peak RSS. */
async function timeExports(client: HttpClient, headers: Record<string, string>, pid: number, count: number, scopeEvents: number): Promise<ExportRun> {
  const once = async () => {
    const before = procStatusKb(pid, 'VmRSS');
    const hwmReset = resetPeak(pid);
    let sampled = before;
    const sampler = setInterval(() => (sampled = Math.max(sampled, procStatusKb(pid, 'VmRSS'))), 5);
    try {
      const reply = await client.send(exportRequest(headers));
      if (reply.status !== 200) throw new Error(`GET ${exportRequest(headers).path} answered ${reply.status}: ${reply.body.slice(0, 300)}`);
      const { header, lines } = parseJsonl(reply.body);
      if (header.kind !== 'access-log' || header.record_count !== lines) throw new Error(`the export's header says ${header.record_count} ${header.kind} records; ${lines} lines followed`);
      sampled = Math.max(sampled, procStatusKb(pid, 'VmRSS'));
      const peak = hwmReset ? procStatusKb(pid, 'VmHWM') : sampled;
      return { records: lines, bytes: Buffer.byteLength(reply.body), seconds: reply.ms / 1000, before, peak: Math.max(peak, sampled), sampled, hwmReset };
    } finally {
      clearInterval(sampler);
    }
  };
  await once();
  const runs = [];
  for (let i = 0; i < count; i++) runs.push(await once());
  const seconds = median(runs.map((r) => r.seconds));
  const last = runs[runs.length - 1]!;
  const mb = (kb: number) => kb / 1024;
  return {
    records: last.records, bytes: last.bytes, seconds, recordsPerSecond: last.records / seconds,
    rssBeforeMb: mb(Math.min(...runs.map((r) => r.before))), peakMb: mb(Math.max(...runs.map((r) => r.peak))), sampledPeakMb: mb(Math.max(...runs.map((r) => r.sampled))),
    hwmReset: runs.every((r) => r.hwmReset), scopeEvents,
  };
}

/** Sends every request at `concurrency`; throws unless each answered 201. */
async function writeAll(client: HttpClient, what: string, count: number, concurrency: number, request: (i: number) => Send): Promise<void> {
  const r = await runLoad(client, { concurrency, durationMs: 30 * 60_000, maxRequests: count, okStatus: 201, request });
  if (r.ok !== count) throw new Error(`${what}: ${r.ok} of ${count} answered 201 (${JSON.stringify(r.byStatus)}); first error: ${r.firstError}`);
}

export const dashboardSection: Section = {
  name: 'dashboard',
  describe: 'GET /v1/governance/dashboard over 10,000 assets and ~53,000 governance events; GET /v1/exports/access-log?format=jsonl over a 100,000-event scope',
  async run(ctx: BenchContext): Promise<Row[]> {
    const timing = ctx.quick ? QUICK : FULL;
    const n = timing.assets;
    const quickNote = ctx.quick ? ' (quick mode: not the full run\'s 10,000 assets / 100,000 events)' : '';
    const dataDir = ctx.newDir('dashboard');
    const runId = randomBytes(6).toString('hex');
    const preview = await startPreview(dataDir, join(dataDir, '..', 'dashboard-preview.log'));
    const client = httpClient(preview.baseUrl);
    const headers = scopeHeaders(preview.tokens!.customer);
    let evaluations = 0;
    const evaluate = async (count: number) => {
      const from = evaluations;
      await writeAll(client, `evaluating ${count} times`, count, 32, (i) => evaluateRequest(headers, `${runId}-eval-${from + i}`, assetId('asset-bench', (from + i) % n)));
      evaluations += count;
    };
    try {
      const ids = Array.from({ length: n }, (_, i) => assetId('asset-bench', i));
      ctx.progress(`dashboard: registering ${n.toLocaleString('en-US')} assets at c64${quickNote}`);
      await registerAssets(client, headers, `${runId}-reg`, ids, 64);
      ctx.progress(`dashboard: ${(n * timing.evaluationsPerAsset).toLocaleString('en-US')} evaluations (tier high), then ${timing.incidents.toLocaleString('en-US')} incidents`);
      await evaluate(n * timing.evaluationsPerAsset);
      await writeAll(client, 'logging incidents', timing.incidents, 32, (i) => incidentRequest(headers, `${runId}-inc-${i}`, ids[(i * 7) % n]!, i));
      const stored = await settledEventCount(client, preview.tokens!.operator);
      const evaluatedBeforeReads = evaluations;
      const governanceEvents = n + 2 * evaluations + timing.incidents;

      // What the timed reads answer is checked first.
      const first = await client.send(dashboardRequest(headers));
      if (first.status !== 200) throw new Error(`GET /v1/governance/dashboard answered ${first.status}: ${first.body.slice(0, 300)}`);
      const d = JSON.parse(first.body) as Dashboard;
      if (d.assets.total !== n || d.incidents.total !== timing.incidents || d.approvals.pending !== n || d.approvals.by_status.superseded !== evaluations - n) {
        throw new Error(`unexpected dashboard: assets ${d.assets.total}, incidents ${d.incidents.total}, approvals ${JSON.stringify(d.approvals.by_status)}`);
      }
      ctx.progress(`dashboard: ${timing.reads} sequential reads over ${stored.toLocaleString('en-US')} events (${governanceEvents.toLocaleString('en-US')} asset/approval/incident events)`);
      await timeSequential(client, timing.warmup, () => dashboardRequest(headers));
      const reads = await timeSequential(client, timing.reads, () => dashboardRequest(headers));
      const health = await timeSequential(client, timing.reads, () => ({ path: '/health', headers }));

      ctx.progress(`dashboard: exporting the access log (jsonl) at ${stored.toLocaleString('en-US')} events`);
      const smaller = await timeExports(client, headers, preview.pid, timing.exports, stored);
      const more = Math.max(0, Math.ceil((timing.exportEvents - stored) / EVENTS.evaluation));
      ctx.progress(`dashboard: ${more.toLocaleString('en-US')} more evaluations to pass ${timing.exportEvents.toLocaleString('en-US')} events, then the export again`);
      await evaluate(more);
      const total = await settledEventCount(client, preview.tokens!.operator);
      const big = await timeExports(client, headers, preview.pid, timing.exports, total);

      const scope = `${n.toLocaleString('en-US')} assets, ${governanceEvents.toLocaleString('en-US')} asset/approval/incident events (${stored.toLocaleString('en-US')} with access entries)${quickNote}`;
      const exportScope = (r: ExportRun) => `${r.records.toLocaleString('en-US')} records of a ${r.scopeEvents.toLocaleString('en-US')}-event scope${quickNote}`;
      const exportExtra = (r: ExportRun) => ({ records: r.records, bytes: r.bytes, seconds: r.seconds, scope_events: r.scopeEvents, scope_events_per_second: r.scopeEvents / r.seconds, rss_before_mb: r.rssBeforeMb, peak_mb: r.peakMb, sampled_peak_mb: r.sampledPeakMb, peak_from: r.hwmReset ? 'VmHWM after clear_refs' : 'sampled VmRSS' });
      return [
        {
          id: 'dashboard.read.p50', figure: `GET /v1/governance/dashboard, ${scope}: p50 (GET /health ${health.p50Ms.toFixed(2)} ms)`, value: reads.p50Ms, unit: 'ms',
          target: { op: '<', value: 20, text: '< 20 ms' }, extra: { reads: timing.reads, body_bytes: reads.bytes, events: stored, governance_events: governanceEvents, evaluations: evaluatedBeforeReads, incidents: timing.incidents, baseline_p50_ms: health.p50Ms },
        },
        { id: 'dashboard.read.p99', figure: 'the same: p99', value: reads.p99Ms, unit: 'ms', extra: { baseline_p99_ms: health.p99Ms } },
        { id: 'dashboard.export.small.rate', figure: `GET /v1/exports/access-log?format=jsonl, ${exportScope(smaller)}: records/s`, value: smaller.recordsPerSecond, unit: 'records/s', extra: exportExtra(smaller) },
        { id: 'dashboard.export.small.peak_rss', figure: `the same: preview peak RSS during the export (${smaller.rssBeforeMb.toFixed(0)} MB before; ${(smaller.bytes / 1e6).toFixed(1)} MB answer)`, value: smaller.peakMb, unit: 'MB' },
        { id: 'dashboard.export.rate', figure: `GET /v1/exports/access-log?format=jsonl, ${exportScope(big)}: records/s`, value: big.recordsPerSecond, unit: 'records/s', extra: exportExtra(big) },
        // Issue 15's figure counts the scope's events the export reads through, not the records it writes.
        { id: 'dashboard.export.events_rate', figure: `the same: scope events/s (${big.scopeEvents.toLocaleString('en-US')} events in ${big.seconds.toFixed(2)} s)`, value: big.scopeEvents / big.seconds, unit: 'events/s', target: { op: '>=', value: 50_000, text: '≥ 50,000/s' } },
        { id: 'dashboard.export.peak_rss', figure: `the same: preview peak RSS during the export (${big.rssBeforeMb.toFixed(0)} MB before; ${(big.bytes / 1e6).toFixed(1)} MB answer)`, value: big.peakMb, unit: 'MB' },
        {
          id: 'dashboard.export.rss_growth', figure: 'peak RSS above the RSS before the export, smaller / larger export (constant memory: no growth with size)', value: big.peakMb - big.rssBeforeMb, unit: 'MB',
          extra: { smaller_growth_mb: smaller.peakMb - smaller.rssBeforeMb, larger_growth_mb: big.peakMb - big.rssBeforeMb, smaller_records: smaller.records, larger_records: big.records },
        },
      ];
    } finally {
      client.close();
      await preview.stop();
    }
  },
};
