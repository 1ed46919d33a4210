// GET /v1/search over a 100,000-event data dir: a term present in nine rows of ten and a rare one
// (100 rows), p50/p99 of sequential queries on an otherwise idle preview. The 100k data dir is a
// shared fixture: the rebuild and cold-start sections use the same one.
import { join } from 'node:path';
import { httpClient, timeSequential } from '../http-load.ts';
import { startPreview } from '../processes.ts';
import { COMMON_TERM, RARE_TERM, seedStore } from '../seed-store.ts';
import type { BenchContext, Row, Section } from '../section.ts';
import { scopeHeaders } from './appends.ts';

export const LARGE_STORE_EVENTS = 100_000;
const QUERIES = 100;

export type LargeStore = { dataDir: string; events: number; seedSeconds: number };

export function largeStore(ctx: BenchContext): Promise<LargeStore> {
  return ctx.shared('store-100k', async () => {
    const dataDir = ctx.newDir('store-100k');
    ctx.progress(`writing ${LARGE_STORE_EVENTS} events through the store API into ${dataDir}`);
    const { seconds } = await seedStore(dataDir, LARGE_STORE_EVENTS, ctx.progress);
    return { dataDir, events: LARGE_STORE_EVENTS, seedSeconds: seconds };
  });
}

export const searchSection: Section = {
  name: 'search',
  describe: 'GET /v1/search over 100,000 events (common and rare term)',
  async run(ctx: BenchContext): Promise<Row[]> {
    const store = await largeStore(ctx);
    const preview = await startPreview(store.dataDir, join(store.dataDir, '..', 'search-preview.log'));
    const client = httpClient(preview.baseUrl, 1);
    const headers = scopeHeaders(preview.tokens!.customer);
    try {
      const rows: Row[] = [
        { id: 'search.seed_rate', figure: 'in-process store.append, 5,000-event batches', value: store.events / store.seedSeconds, unit: 'events/s', extra: { events: store.events, seconds: store.seedSeconds } },
      ];
      for (const [name, term] of [['common', COMMON_TERM], ['rare', RARE_TERM]] as const) {
        ctx.progress(`search: ${QUERIES} queries for the ${name} term "${term}"`);
        const query = () => ({ path: `/v1/search?q=${term}`, headers });
        await timeSequential(client, 10, query); // warm-up
        const timed = await timeSequential(client, QUERIES, query);
        const hits = (JSON.parse((await client.send(query())).body) as { results: unknown[] }).results.length;
        if (hits === 0) throw new Error(`the search for ${term} found nothing; the fixture is wrong`);
        rows.push(
          { id: `search.${name}.p50`, figure: `search ${name} term over 100k events, p50`, value: timed.p50Ms, unit: 'ms', target: { op: '<', value: 15, text: '< 15 ms' }, extra: { results: hits, body_bytes: timed.bytes } },
          { id: `search.${name}.p99`, figure: `search ${name} term over 100k events, p99`, value: timed.p99Ms, unit: 'ms' },
        );
      }
      return rows;
    } finally {
      client.close();
      await preview.stop();
    }
  },
};
