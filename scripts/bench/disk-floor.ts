// The floor under every durable write: one small write + fdatasync on the bench's data disk, the
// same two system calls the event log's group commit makes per batch.
import { closeSync, fdatasyncSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { percentile } from './section.ts';

export function measureFdatasync(dir: string, count = 200): { p50Ms: number; p99Ms: number } {
  const path = join(dir, 'fdatasync-probe.bin');
  const fd = openSync(path, 'w');
  const line = Buffer.from(`${'x'.repeat(400)}\n`);
  const samples: number[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const started = performance.now();
      writeSync(fd, line, 0, line.length, i * line.length);
      fdatasyncSync(fd);
      samples.push(performance.now() - started);
    }
  } finally {
    closeSync(fd);
    rmSync(path, { force: true });
  }
  return { p50Ms: percentile(samples, 0.5), p99Ms: percentile(samples, 0.99) };
}
