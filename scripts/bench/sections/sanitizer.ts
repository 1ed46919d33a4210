// gov.sanitizer in-process (scripts/bench/sanitizer.ts measures it): throughput on typical 64 KiB
// documents, and the time per byte of adversarial 1 MiB inputs against 64 KiB ones, which stays
// flat when every step is linear.
import { measureSanitizer, sanitizerRows } from '../sanitizer.ts';
import type { BenchContext, Row, Section } from '../section.ts';

export const sanitizerSection: Section = {
  name: 'sanitizer',
  describe: 'gov.sanitizer: MB/s on 64 KiB documents, 1 MiB ÷ 64 KiB time per byte on adversarial input',
  run(ctx: BenchContext): Promise<Row[]> {
    ctx.progress(`sanitizer: typical documents and ${ctx.quick ? 'a quick pass over' : ''} the adversarial inputs`);
    return Promise.resolve(sanitizerRows(measureSanitizer({ quick: ctx.quick })));
  },
};
