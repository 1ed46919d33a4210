// The console (issue 16): the JavaScript a first load fetches, gzipped (dist/console/build.json, as
// `npm run build` writes it; target under 150 KB), and the time the tasks view takes to show a
// 1,000-event timeline in Debian's Chromium, read from the page's own performance measure
// `console:timeline` (from the timeline request to its rows on screen; target under 200 ms). A
// real preview process serves dist/console; the bench signs in with a one-time login code and opens
// #/tasks/<id>?limit=1000 in a fresh load each round. Needs chromium (`apt-get install chromium`,
// or CHROMIUM_PATH); without it the section fails, naming what to install.
import { accessSync, constants, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { httpClient, runLoad } from '../http-load.ts';
import { ROOT, startPreview } from '../processes.ts';
import { median, percentile, type BenchContext, type Row, type Section } from '../section.ts';

const CHECKPOINTS = 999;
const TASK_ID = 'task-bench-console';
/** Fresh loads of the timeline measured (after one warm-up). */
const ROUNDS = 10;
/** The console's default scope (src/console/api.ts), so the page needs no scope set. */
const SCOPE = { 'X-Tenant-Id': 'acme', 'X-Workspace-Id': 'platform', 'X-Project-Id': 'billing' };
/** The same flags as the browser tests (test/fixtures/browser.ts): headless, nothing fetched from the network. */
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const CONSOLE_DIR = join(ROOT, 'dist', 'console');

type BuildModule = { buildConsole(outdir?: string): Promise<{ js_bytes: number; js_gzip_bytes: number }> };

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** dist/console as `npm run build` leaves it; rebuilt first (the same build) when missing or older than src/console. */
async function consoleBuild(ctx: BenchContext): Promise<{ js_bytes: number; js_gzip_bytes: number; rebuilt: boolean }> {
  const info = join(CONSOLE_DIR, 'build.json');
  const fresh = existsSync(info) && statSync(info).mtimeMs >= newestMtime(join(ROOT, 'src', 'console'));
  if (!fresh) {
    ctx.progress('console: dist/console is missing or older than src/console; building it (scripts/bundle-console.mjs)');
    const specifier = join(ROOT, 'scripts', 'bundle-console.mjs');
    await ((await import(specifier)) as BuildModule).buildConsole(CONSOLE_DIR);
  }
  const sizes = JSON.parse(readFileSync(info, 'utf8')) as { js_bytes: number; js_gzip_bytes: number };
  return { ...sizes, rebuilt: !fresh };
}

/** The Chromium to drive, or null (with why) when there is none. */
function chromiumPath(): { path: string; missing: string | null } {
  const path = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
  try {
    accessSync(path, constants.X_OK);
    return { path, missing: null };
  } catch {
    return { path, missing: `no Chromium at ${path}: apt-get install chromium (or set CHROMIUM_PATH)` };
  }
}

export const consoleSection: Section = {
  name: 'console',
  describe: "the console: first-load JavaScript, and a 1,000-event timeline rendered in Chromium",
  async run(ctx: BenchContext): Promise<Row[]> {
    const build = await consoleBuild(ctx);
    const sizeRow: Row = {
      id: 'console.js.gzip',
      figure: 'first-load JavaScript, gzipped',
      value: build.js_gzip_bytes / 1024,
      unit: 'KB',
      target: { op: '<', value: 150, text: '< 150 KB' },
      extra: { js_gzip_bytes: build.js_gzip_bytes, js_bytes: build.js_bytes, rebuilt: build.rebuilt ? 'yes' : 'no' },
    };
    const chrome = chromiumPath();
    if (chrome.missing !== null) {
      // The size still counts; the timeline shows as not measured (a MISS), with what to install.
      ctx.progress(`console: ${chrome.missing}; the timeline is not measured`);
      return [sizeRow, { id: 'console.timeline.p50', figure: `timeline of 1,000 events rendered: not measured (${chrome.missing})`, value: Number.NaN, unit: 'ms', target: { op: '<', value: 200, text: '< 200 ms' } }];
    }
    const executablePath = chrome.path;
    const rounds = ctx.quick ? 3 : ROUNDS;

    const dataDir = ctx.newDir('console');
    const preview = await startPreview(dataDir, join(dataDir, '..', 'console-preview.log'));
    const client = httpClient(preview.baseUrl, 16);
    const tokens = preview.tokens!;
    const write = { ...SCOPE, Authorization: `Bearer ${tokens.customer}`, 'Content-Type': 'application/json' };
    const browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS, timeout: 60_000 });
    try {
      ctx.progress(`console: a task and ${CHECKPOINTS} checkpoints`);
      const created = await client.send({ path: '/v1/tasks', headers: { ...write, 'Idempotency-Key': 'bench-console-task' }, body: JSON.stringify({ task_id: TASK_ID, title: 'Benchmark task with a long timeline', session_id: 'sess-bench-console' }) });
      if (created.status !== 201) throw new Error(`POST /v1/tasks answered ${created.status}: ${created.body.slice(0, 300)}`);
      const fill = await runLoad(client, {
        concurrency: 8,
        durationMs: 120_000,
        maxRequests: CHECKPOINTS,
        okStatus: 201,
        request: (i) => ({
          path: `/v1/tasks/${TASK_ID}/checkpoints`,
          headers: { ...write, 'Idempotency-Key': `bench-console-checkpoint-${i}` },
          body: JSON.stringify({ progress: `Step ${i}: migrated the ${i % 17}th batch of fixtures and re-ran the integration suite`, next_actions: [`open follow-up for shard ${i % 13}`] }),
        }),
      });
      if (fill.requests !== CHECKPOINTS || fill.errors > 0) throw new Error(`writing checkpoints: ${fill.requests} sent, ${fill.errors} errors; first: ${fill.firstError}`);

      // Sign in as `gov console` does: a one-time code from the operator token, opened by the browser.
      const minted = await client.send({ path: '/admin/console/login-codes', headers: { Authorization: `Bearer ${tokens.operator}`, 'Content-Type': 'application/json' }, body: '{}' });
      if (minted.status !== 201) throw new Error(`POST /admin/console/login-codes answered ${minted.status}: ${minted.body.slice(0, 300)}`);
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      await page.goto((JSON.parse(minted.body) as { url: string }).url);
      await page.waitForURL(/\/console(#.*)?$/);

      ctx.progress(`console: ${rounds + 1} fresh loads of #/tasks/${TASK_ID}?limit=1000 (the first is a warm-up)`);
      const samples: number[] = [];
      const requestSamples: number[] = [];
      let rows = 0;
      for (let round = 0; round <= rounds; round++) {
        await page.goto('about:blank');
        await page.goto(`${preview.baseUrl}/console#/tasks/${TASK_ID}?limit=1000`);
        // The measure, and the part of it the timeline request took (Resource Timing: to its last byte).
        const handle = await page.waitForFunction(
          () => {
            const entry = performance.getEntriesByName('console:timeline', 'measure')[0];
            if (entry === undefined) return null;
            const request = (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).find((r) => r.name.includes('/timeline?'));
            return { ms: entry.duration, requestMs: request === undefined ? Number.NaN : request.responseEnd - entry.startTime };
          },
          undefined,
          { timeout: 30_000 },
        );
        const { ms, requestMs } = (await handle.jsonValue()) as { ms: number; requestMs: number };
        rows = await page.getByRole('list', { name: 'Timeline' }).locator(':scope > li').count();
        if (rows !== CHECKPOINTS + 1) throw new Error(`the timeline shows ${rows} events, expected ${CHECKPOINTS + 1}`);
        if (round > 0) {
          samples.push(ms);
          requestSamples.push(requestMs);
        }
      }
      await context.close();
      return [
        sizeRow,
        {
          id: 'console.timeline.p50',
          figure: 'timeline of 1,000 events rendered (request to rows on screen), p50',
          value: median(samples),
          unit: 'ms',
          target: { op: '<', value: 200, text: '< 200 ms' },
          extra: { rounds: samples.length, rows, samples_ms: Object.fromEntries(samples.map((s, i) => [String(i + 1), Math.round(s * 10) / 10])), chromium: browser.version() },
        },
        { id: 'console.timeline.max', figure: 'timeline of 1,000 events rendered, worst of the rounds', value: percentile(samples, 1), unit: 'ms' },
        { id: 'console.timeline.request.p50', figure: '  of which the timeline request (to its last byte), p50', value: median(requestSamples), unit: 'ms' },
        { id: 'console.timeline.render.p50', figure: '  of which the page after the last byte (parse, render), p50', value: median(samples.map((s, i) => s - requestSamples[i]!)), unit: 'ms' },
      ];
    } finally {
      await browser.close();
      client.close();
      await preview.stop();
    }
  },
};
