// Builds the console (src/console, a Preact page) into dist/console/: index.html, and under assets/
// one minified ES module and one stylesheet, for the preview to serve at /console. Writes
// dist/console/build.json with the script's size raw and gzipped (issue budget: under 150 KB
// gzipped). Run by scripts/bundle.mjs (npm run build, npm ci's prepare) or alone:
// `node scripts/bundle-console.mjs [OUTDIR]`.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Builds the console into outdir (default dist/console) and answers its sizes. */
export async function buildConsole(outdir = join(root, 'dist', 'console')) {
  const assets = join(outdir, 'assets');
  mkdirSync(assets, { recursive: true });
  await build({
    absWorkingDir: root,
    entryPoints: { console: 'src/console/main.tsx' },
    outdir: assets,
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    sourcemap: 'linked',
    legalComments: 'none',
    logLevel: 'warning',
  });
  await build({ absWorkingDir: root, entryPoints: ['src/console/console.css'], outdir: assets, bundle: true, minify: true, logLevel: 'warning' });
  copyFileSync(join(root, 'src/console/index.html'), join(outdir, 'index.html'));
  const js = readFileSync(join(assets, 'console.js'));
  const sizes = { js_bytes: js.length, js_gzip_bytes: gzipSync(js, { level: 9 }).length };
  writeFileSync(join(outdir, 'build.json'), `${JSON.stringify(sizes)}\n`);
  return sizes;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const sizes = await buildConsole(process.argv[2] ? resolve(process.argv[2]) : undefined);
  process.stderr.write(`console: ${(sizes.js_gzip_bytes / 1024).toFixed(1)} KB of JavaScript gzipped (${(sizes.js_bytes / 1024).toFixed(1)} KB raw)\n`);
}
