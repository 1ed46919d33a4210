// Cold start: from spawning `gov preview start --port 0 --json` to the first 200 from GET /health,
// on the 100,000-event data dir and on an empty one (median of five each), plus the floor under it:
// bare `node` start-up and `gov --version` (the bundle, or tsx registration and the sources).
import { join } from 'node:path';
import { httpClient } from '../http-load.ts';
import { GOV_BIN, govEntry, runNode, startPreview } from '../processes.ts';
import { median, type BenchContext, type Row, type Section } from '../section.ts';
import { largeStore } from './search.ts';

const RUNS = 5;
const HEALTH_ATTEMPTS = 200;

async function timeToHealthy(dataDir: string, logPath: string): Promise<{ totalMs: number; listenMs: number }> {
  const preview = await startPreview(dataDir, logPath);
  const client = httpClient(preview.baseUrl, 1);
  try {
    for (let attempt = 0; attempt < HEALTH_ATTEMPTS; attempt++) {
      try {
        const reply = await client.send({ path: '/health' });
        if (reply.status === 200) return { totalMs: performance.now() - preview.spawnedAt, listenMs: preview.listenMs };
      } catch {
        // not accepting yet: try again shortly
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    throw new Error(`the preview on ${dataDir} never answered 200 on /health`);
  } finally {
    client.close();
    await preview.stop();
  }
}

async function repeat(times: number, run: () => Promise<number>): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < times; i++) samples.push(await run());
  return samples;
}

export const coldStartSection: Section = {
  name: 'cold-start',
  describe: 'spawn of gov preview start to the first 200 from /health',
  async run(ctx: BenchContext): Promise<Row[]> {
    const store = await largeStore(ctx);
    const rows: Row[] = [];
    const entry = govEntry();
    ctx.progress(`cold start: bin/gov.js runs the ${entry === 'bundle' ? 'bundle dist/gov.mjs' : 'sources through tsx (no fresh bundle; npm run build makes one)'}`);
    const cases = [
      { id: 'large', label: `${store.events / 1000}k-event data dir`, dir: () => store.dataDir },
      { id: 'empty', label: 'empty data dir', dir: () => ctx.newDir('cold-empty') },
    ];
    for (const c of cases) {
      ctx.progress(`cold start: ${RUNS} starts on the ${c.label}`);
      const listen: number[] = [];
      const totals = await repeat(RUNS, async () => {
        const dir = c.dir();
        const { totalMs, listenMs } = await timeToHealthy(dir, join(dir, '..', `cold-${c.id}.log`));
        listen.push(listenMs);
        return totalMs;
      });
      rows.push({
        id: `cold_start.${c.id}`, figure: `cold start to first /health 200, ${c.label}, ${entry} (median of ${RUNS})`, value: median(totals), unit: 'ms',
        target: { op: '<', value: 500, text: '< 500 ms' }, extra: { gov_entry: entry, samples_ms: totals.map((t) => t.toFixed(1)).join(' '), listen_line_median_ms: median(listen) },
      });
    }
    ctx.progress('cold start: floor (node -e 0, gov --version)');
    const bare = await repeat(RUNS, async () => (await runNode(['-e', '0'])).ms);
    const version = await repeat(RUNS, async () => (await runNode([GOV_BIN, '--version'])).ms);
    rows.push(
      { id: 'cold_start.node_floor', figure: `bare node start and exit (median of ${RUNS})`, value: median(bare), unit: 'ms' },
      { id: 'cold_start.gov_version', figure: `gov --version, ${entry} (median of ${RUNS})`, value: median(version), unit: 'ms' },
    );
    return rows;
  },
};
