// Bundles the CLI into dist/ with esbuild (dependencies stay external), so `gov` starts without
// compiling TypeScript on every run, and writes dist/build.json: the stamp bin/gov.js reads to
// tell whether the bundle is still the sources' (see the stamp's format below).
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildConsole } from './bundle-console.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
rmSync(`${root}dist`, { recursive: true, force: true });
const started = Date.now();
const { metafile } = await build({
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
  metafile: true,
});

// The console (src/console) is a page the preview serves from dist/console, not part of the CLI.
const consoleSizes = await buildConsole();
process.stderr.write(`bundle: console ${(consoleSizes.js_gzip_bytes / 1024).toFixed(1)} KB of JavaScript gzipped\n`);

// The stamp names exactly the files esbuild read (every module reached from the entries, and
// package.json for the version), each with its size and mtime, plus one SHA-256 over their paths
// and contents. bin/gov.js stats the files (cheap) and hashes them only when a stat differs, so a
// checkout that touched files without changing them still runs the bundle.
const inputs = Object.keys(metafile.inputs).sort();
const hash = createHash('sha256');
const files = inputs.map((path) => {
  const { size, mtimeMs } = statSync(`${root}${path}`);
  const content = readFileSync(`${root}${path}`);
  hash.update(`${path}\0${content.length}\0`).update(content);
  return [path, size, mtimeMs];
});
// A file written while esbuild ran may be newer than what it bundled: then write no stamp, and
// bin/gov.js runs the sources until the next build.
const changed = files.filter(([, , mtimeMs]) => mtimeMs >= started).map(([path]) => path);
if (changed.length > 0) {
  process.stderr.write(`bundle: ${changed.join(', ')} changed while bundling; no stamp written, gov runs the sources until \`npm run build\`\n`);
  process.exit(0);
}
writeFileSync(`${root}dist/build.json`, `${JSON.stringify({ entry: 'gov.mjs', sha256: hash.digest('hex'), files })}\n`);
