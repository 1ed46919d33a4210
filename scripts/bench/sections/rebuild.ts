// `gov store rebuild-index --json` on the 100,000-event data dir: the rate the command reports
// (its own clock, log read to committed index) and the wall time including process start.
import { GOV_BIN, runNode } from '../processes.ts';
import type { BenchContext, Row, Section } from '../section.ts';
import { largeStore } from './search.ts';

export const rebuildSection: Section = {
  name: 'rebuild',
  describe: 'gov store rebuild-index on 100,000 events',
  async run(ctx: BenchContext): Promise<Row[]> {
    const store = await largeStore(ctx);
    ctx.progress('rebuild: gov store rebuild-index --json');
    const result = await runNode([GOV_BIN, 'store', 'rebuild-index', '--data-dir', store.dataDir, '--json']);
    if (result.code !== 0) throw new Error(`rebuild-index exited with ${result.code}: ${result.stderr.slice(0, 500)}`);
    const out = JSON.parse(result.stdout) as { events: number; seconds: number; events_per_second: number };
    if (out.events !== store.events) throw new Error(`rebuild-index replayed ${out.events} events, expected ${store.events}`);
    return [
      { id: 'rebuild.rate', figure: 'index rebuild rate (command\'s own clock)', value: out.events_per_second, unit: 'events/s', target: { op: '>=', value: 50_000, text: '≥ 50,000/s' }, extra: { events: out.events, seconds: out.seconds } },
      { id: 'rebuild.wall', figure: 'rebuild-index wall time incl. process start', value: result.ms / 1000, unit: 's' },
    ];
  },
};
