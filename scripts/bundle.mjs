// Bundles the CLI into dist/ with esbuild (dependencies stay external), so `gov` starts without
// compiling TypeScript on every run. bin/gov.js uses the bundle only while it is newer than src/.
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
rmSync(`${root}dist`, { recursive: true, force: true });
await build({
  absWorkingDir: root,
  // The index writer runs in a worker thread: its module is an entry of its own.
  entryPoints: { gov: 'src/cli/main.ts', 'index-worker': 'src/store/index-worker.ts' },
  outdir: 'dist',
  outExtension: { '.js': '.mjs' },
  bundle: true,
  splitting: true, // commands load lazily: one chunk each
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  sourcemap: 'linked',
  logLevel: 'warning',
});
