// Reading a 1,000-event task timeline: one task created through POST /v1/tasks and 999 checkpoints
// through the real routes, then sequential reads of the whole timeline (one page of 1,000) and of
// the default first page (100 events).
import { join } from 'node:path';
import { httpClient, runLoad, timeSequential } from '../http-load.ts';
import { startPreview } from '../processes.ts';
import type { BenchContext, Row, Section } from '../section.ts';
import { scopeHeaders } from './appends.ts';

const CHECKPOINTS = 999;
const READS = 200;
const TASK_ID = 'task-bench-timeline';

export const timelineSection: Section = {
  name: 'timeline',
  describe: 'GET /v1/tasks/{id}/timeline of a 1,000-event task',
  async run(ctx: BenchContext): Promise<Row[]> {
    const dataDir = ctx.newDir('timeline');
    const preview = await startPreview(dataDir, join(dataDir, '..', 'timeline-preview.log'));
    const client = httpClient(preview.baseUrl, 16);
    const headers = scopeHeaders(preview.tokens!.customer);
    const write = { ...headers, 'Content-Type': 'application/json' };
    try {
      ctx.progress(`timeline: creating a task and ${CHECKPOINTS} checkpoints`);
      const created = await client.send({
        path: '/v1/tasks',
        headers: { ...write, 'Idempotency-Key': 'bench-task-create' },
        body: JSON.stringify({ task_id: TASK_ID, title: 'Benchmark task with a long timeline', session_id: 'sess-bench-1', labels: ['bench'] }),
      });
      if (created.status !== 201) throw new Error(`POST /v1/tasks answered ${created.status}: ${created.body.slice(0, 300)}`);
      const fill = await runLoad(client, {
        concurrency: 8,
        durationMs: 120_000,
        maxRequests: CHECKPOINTS,
        okStatus: 201,
        request: (i) => ({
          path: `/v1/tasks/${TASK_ID}/checkpoints`,
          headers: { ...write, 'Idempotency-Key': `bench-checkpoint-${i}` },
          body: JSON.stringify({
            progress: `Step ${i}: migrated the ${i % 17}th batch of fixtures and re-ran the integration suite`,
            next_actions: ['review the canary metrics', `open follow-up for shard ${i % 13}`],
            context_lines: [`build ${1000 + i} passed`],
          }),
        }),
      });
      if (fill.requests !== CHECKPOINTS || fill.errors > 0) throw new Error(`writing checkpoints: ${fill.requests} sent, ${fill.errors} errors; first: ${fill.firstError}`);

      ctx.progress(`timeline: ${READS} reads of all 1,000 events, ${READS} reads of the default page`);
      const full = () => ({ path: `/v1/tasks/${TASK_ID}/timeline?limit=1000`, headers });
      const page = () => ({ path: `/v1/tasks/${TASK_ID}/timeline`, headers });
      await timeSequential(client, 20, full); // warm-up
      const all = await timeSequential(client, READS, full);
      const first = await timeSequential(client, READS, page);
      const count = (JSON.parse((await client.send(full())).body) as { events: unknown[] }).events.length;
      if (count !== CHECKPOINTS + 1) throw new Error(`the timeline returned ${count} events, expected ${CHECKPOINTS + 1}`);
      return [
        { id: 'timeline.full.p50', figure: 'timeline read, all 1,000 events, p50', value: all.p50Ms, unit: 'ms', target: { op: '<', value: 5, text: '< 5 ms' }, extra: { body_bytes: all.bytes, checkpoint_write_rps: fill.perSecond } },
        { id: 'timeline.full.p99', figure: 'timeline read, all 1,000 events, p99', value: all.p99Ms, unit: 'ms' },
        { id: 'timeline.page.p50', figure: 'timeline read, default page (100), p50', value: first.p50Ms, unit: 'ms', target: { op: '<', value: 5, text: '< 5 ms' }, extra: { body_bytes: first.bytes } },
        { id: 'timeline.page.p99', figure: 'timeline read, default page (100), p99', value: first.p99Ms, unit: 'ms' },
      ];
    } finally {
      client.close();
      await preview.stop();
    }
  },
};
