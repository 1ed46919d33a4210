// What a benchmark section is (a name and a function returning rows of figures), the rows' targets,
// and the context every section shares: the on-disk work dir, progress output, memoised fixtures.
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';

/** A figure passes when `value op target` holds; `text` is how the target reads in the table. */
export type Target = { op: '>=' | '<'; value: number; text: string };

export type Row = {
  /** Stable machine name, e.g. `appends.c64.ratio`; the JSON results are keyed by it. */
  id: string;
  figure: string;
  value: number;
  unit: string;
  target?: Target;
  /** Supporting numbers (request counts, answers by status, wall times) kept in the JSON only. */
  extra?: Record<string, number | string | Record<string, number>>;
};

export type BenchContext = {
  /** A fresh directory under the run's on-disk work dir. */
  newDir(name: string): string;
  progress(message: string): void;
  /** GOV_BENCH_QUICK=1: every duration shortened so the bench's code can be tried fast; the figures mean nothing. */
  quick: boolean;
  /** Builds a fixture once per run (e.g. the 100k-event data dir) and hands the same value to every section. */
  shared<T>(key: string, build: () => Promise<T>): Promise<T>;
};

export type Section = { name: string; describe: string; run(ctx: BenchContext): Promise<Row[]> };

export function passes(row: Row): boolean | null {
  if (!row.target) return null;
  return row.target.op === '>=' ? row.value >= row.target.value : row.value < row.target.value;
}

export function createContext(workDir: string, progress: (m: string) => void, quick = false): BenchContext {
  const memo = new Map<string, Promise<unknown>>();
  return {
    newDir: (name) => mkdtempSync(join(workDir, `${name}-`)),
    progress,
    quick,
    shared<T>(key: string, build: () => Promise<T>): Promise<T> {
      let value = memo.get(key);
      if (!value) {
        value = build();
        memo.set(key, value);
      }
      return value as Promise<T>;
    },
  };
}

/** Nearest-rank percentile of latencies in milliseconds (q in 0–1); NaN for no samples. */
export function percentile(samples: number[], q: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

export function median(samples: number[]): number {
  return percentile(samples, 0.5);
}
