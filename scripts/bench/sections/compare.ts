// `npm run bench -- --only compare --against REF`: this checkout's preview against the preview of
// another commit, on the same machine in the same minutes. One run's figures here drift by a fifth
// from one few-second run to the next (the no-op baseline swung from 7,200 to 12,800/s within one
// bench run), more than most changes move them; so both builds are started alternately, round after
// round, each measured on the same shapes at concurrency 64 with its own fresh data dir, and the
// medians are compared. The other commit is exported with `git archive` into the work dir and run
// with this checkout's node_modules (its lockfile may differ: the result says which commit it was).
// Besides the append shapes, risk evaluations spread over 1,000 registered assets (three events
// per request). Each figure comes with the preview's CPU per request split by thread (the event
// loop, the index writer, the rest), so a change to one of them shows even when the rate's noise
// hides it.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { appendShapes, createTaskRequest, type ShapeName } from '../append-shapes.ts';
import { assetId, evaluationShape, registerAssets } from '../governance-shapes.ts';
import { httpClient, runLoad, type HttpClient, type Send } from '../http-load.ts';
import { cpuSeconds, ROOT, startPreview, threadCpuSeconds, type ThreadCpu } from '../processes.ts';
import { median, type BenchContext, type Row, type Section } from '../section.ts';
import { BENCH_SCOPE, scopeHeaders } from './appends.ts';

type CompareShape = ShapeName | 'evaluations';
const SHAPES: CompareShape[] = ['spread', 'hot_task', 'checkpoint', 'evaluations'];
const FULL = { rounds: 3, measureMs: 3_000, warmup: 3_000, assets: 1_000 };
const QUICK = { rounds: 1, measureMs: 300, warmup: 30, assets: 100 };

type Build = { name: string; commit: string; bin: string };
/** `threads`: µs per request by thread (NaN where /proc is missing). */
type Sample = { perSecond: number; cpuUs: number; threads: ThreadCpu };

/** The shape's requests, after what they need exists (tasks created, assets registered). */
async function prepare(client: HttpClient, headers: Record<string, string>, shapeName: CompareShape, timing: typeof FULL): Promise<(keyPrefix: string, i: number) => Send> {
  if (shapeName === 'evaluations') {
    const ids = Array.from({ length: timing.assets }, (_, n) => assetId('asset-compare', n));
    await registerAssets(client, headers, 'compare-reg', ids, 16);
    return evaluationShape('spread', headers, ids).request;
  }
  const shape = appendShapes(BENCH_SCOPE, headers).find((s) => s.name === shapeName)!;
  const made = await runLoad(client, { concurrency: 8, durationMs: 60_000, maxRequests: shape.taskIds.length, okStatus: 201, request: (i) => createTaskRequest(headers, 'compare', shape.taskIds[i]!, i) });
  if (made.ok !== shape.taskIds.length) throw new Error(`creating tasks: ${made.firstError}`);
  return shape.request;
}

/** The commit `ref` names, exported and bundled under `dir` (bin/gov.js runs its sources through tsx if the bundle cannot be built). */
function exportBuild(ref: string, dir: string): Build {
  const commit = execFileSync('git', ['-C', ROOT, 'rev-parse', '--verify', `${ref}^{commit}`], { encoding: 'utf8' }).trim();
  mkdirSync(dir, { recursive: true });
  const archive = spawnSync('git', ['-C', ROOT, 'archive', '--format=tar', commit], { maxBuffer: 1 << 30 });
  if (archive.status !== 0) throw new Error(`git archive ${commit} failed: ${archive.stderr.toString()}`);
  execFileSync('tar', ['-x', '-C', dir], { input: archive.stdout });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  spawnSync(process.execPath, ['scripts/bundle.mjs'], { cwd: dir, stdio: 'ignore' });
  return { name: ref, commit, bin: join(dir, 'bin', 'gov.js') };
}

/** One build, one shape: a fresh preview, the shape's tasks or assets, a warm-up, then `measureMs` at concurrency 64. */
async function measure(ctx: BenchContext, build: Build, shapeName: CompareShape, timing: typeof FULL, round: number): Promise<Sample> {
  const dataDir = ctx.newDir(`compare-${shapeName}`);
  const preview = await startPreview(dataDir, join(dataDir, '..', `compare-${round}.log`), build.bin);
  const client = httpClient(preview.baseUrl);
  try {
    const headers = scopeHeaders(preview.tokens!.customer);
    const request = await prepare(client, headers, shapeName, timing);
    await runLoad(client, { concurrency: 64, durationMs: 10_000, maxRequests: timing.warmup, okStatus: 201, request: (i) => request('w', i) });
    const before = cpuSeconds(preview.pid);
    const threadsBefore = threadCpuSeconds(preview.pid);
    const r = await runLoad(client, { concurrency: 64, durationMs: timing.measureMs, maxRequests: 1_000_000, okStatus: 201, request: (i) => request('m', i) });
    const after = cpuSeconds(preview.pid);
    const threadsAfter = threadCpuSeconds(preview.pid);
    if (r.errors > 0) throw new Error(`${build.name}, ${shapeName}: ${r.errors} errors; first: ${r.firstError}`);
    const perRequest = (key: keyof ThreadCpu) => (threadsBefore === null || threadsAfter === null ? Number.NaN : (1e6 * (threadsAfter[key] - threadsBefore[key])) / r.requests);
    return {
      perSecond: r.perSecond,
      cpuUs: before === null || after === null ? Number.NaN : (1e6 * (after - before)) / r.requests,
      threads: { main: perRequest('main'), index: perRequest('index'), other: perRequest('other') },
    };
  } finally {
    client.close();
    await preview.stop();
  }
}

export function compareSection(against: string | null): Section {
  return {
    name: 'compare',
    describe: `this checkout vs ${against ?? '(give --against REF)'}, alternated builds, appends and risk evaluations at c64 (medians)`,
    async run(ctx: BenchContext): Promise<Row[]> {
      if (against === null) throw new Error('the compare section needs --against REF (a commit, branch or tag to measure this checkout against)');
      const timing = ctx.quick ? QUICK : FULL;
      ctx.progress(`compare: exporting and bundling ${against}`);
      const other = exportBuild(against, join(ctx.newDir('compare-build'), 'tree'));
      const self: Build = { name: 'this checkout', commit: 'working tree', bin: join(ROOT, 'bin', 'gov.js') };
      const samples = new Map<string, Sample[]>();
      for (let round = 0; round < timing.rounds; round++) {
        for (const shape of SHAPES) {
          // Alternate which build goes first, so neither always meets the machine a few seconds later.
          const order = round % 2 === 0 ? [other, self] : [self, other];
          for (const build of order) {
            ctx.progress(`compare: round ${round + 1}/${timing.rounds}, ${shape}, ${build.name}`);
            const key = `${shape}/${build === self ? 'self' : 'other'}`;
            samples.set(key, [...(samples.get(key) ?? []), await measure(ctx, build, shape, timing, round)]);
          }
        }
      }
      const rows: Row[] = [];
      for (const shape of SHAPES) {
        const rate = (who: string) => median(samples.get(`${shape}/${who}`)!.map((s) => s.perSecond));
        const cpu = (who: string) => median(samples.get(`${shape}/${who}`)!.map((s) => s.cpuUs));
        const thread = (who: string, key: keyof ThreadCpu) => median(samples.get(`${shape}/${who}`)!.map((s) => s.threads[key]));
        const split = (who: string) => `${Math.round(thread(who, 'main'))} / ${Math.round(thread(who, 'index'))} / ${Math.round(thread(who, 'other'))}`;
        const per = shape === 'evaluations' ? 'evaluation' : 'append';
        const extra = { against: other.commit, rounds: timing.rounds };
        rows.push(
          { id: `compare.${shape}.other_rps`, figure: `${shape}, c64: ${against} durable rate`, value: rate('other'), unit: 'req/s', extra },
          { id: `compare.${shape}.self_rps`, figure: `${shape}, c64: this checkout's durable rate`, value: rate('self'), unit: 'req/s', extra },
          { id: `compare.${shape}.speedup`, figure: `${shape}, c64: this checkout / ${against}`, value: (100 * rate('self')) / rate('other'), unit: '%', extra },
          { id: `compare.${shape}.cpu`, figure: `${shape}, c64: preview CPU per ${per}, this checkout (${against}: ${Math.round(cpu('other'))} µs)`, value: cpu('self'), unit: 'µs', extra },
          {
            id: `compare.${shape}.cpu_by_thread`, figure: `${shape}, c64: µs per ${per} by thread, event loop / index writer / rest: this checkout ${split('self')} (${against}: ${split('other')})`,
            value: thread('self', 'index'), unit: 'µs',
            extra: { ...extra, self: { main: thread('self', 'main'), index: thread('self', 'index'), other: thread('self', 'other') }, other: { main: thread('other', 'main'), index: thread('other', 'index'), other: thread('other', 'other') } },
          },
        );
      }
      return rows;
    },
  };
}
