// `gov store rebuild-index --json` on the 100,000-event data dir: the rate the command reports
// (its own clock, log read to committed index) and the wall time including process start.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GOV_BIN, runNode } from '../processes.ts';
import type { BenchContext, Row, Section } from '../section.ts';
import { largeStore } from './search.ts';

export const rebuildSection: Section = {
  name: 'rebuild',
  describe: 'gov store rebuild-index on 100,000 events',
  async run(ctx: BenchContext): Promise<Row[]> {
    const store = await largeStore(ctx);
    // The previews started on this dir may have added events of their own; the log says how many there are.
    const logged = countLines(join(store.dataDir, 'events.jsonl'));
    ctx.progress('rebuild: gov store rebuild-index --json');
    const result = await runNode([GOV_BIN, 'store', 'rebuild-index', '--data-dir', store.dataDir, '--json']);
    if (result.code !== 0) throw new Error(`rebuild-index exited with ${result.code}: ${result.stderr.slice(0, 500)}`);
    const out = JSON.parse(result.stdout) as { events: number; seconds: number; events_per_second: number };
    if (out.events !== logged) throw new Error(`rebuild-index replayed ${out.events} events; the log holds ${logged}`);
    return [
      { id: 'rebuild.rate', figure: 'index rebuild rate (command\'s own clock)', value: out.events_per_second, unit: 'events/s', target: { op: '>=', value: 50_000, text: '≥ 50,000/s' }, extra: { events: out.events, seconds: out.seconds } },
      { id: 'rebuild.wall', figure: 'rebuild-index wall time incl. process start', value: result.ms / 1000, unit: 's' },
    ];
  },
};

function countLines(path: string): number {
  const buf = readFileSync(path);
  let n = 0;
  for (let i = buf.indexOf(0x0a); i !== -1; i = buf.indexOf(0x0a, i + 1)) n++;
  return n;
}
