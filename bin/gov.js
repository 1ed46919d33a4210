#!/usr/bin/env node
// The `gov` binary. It runs the bundle dist/gov.mjs (made by `npm ci` and `npm run build`) while
// the build stamp says the bundle is the sources' own; otherwise, as after an edit or when no
// bundle was built, it runs the TypeScript sources directly through tsx. Both are the same code;
// the bundle only starts faster.
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

// dist/build.json (scripts/bundle.mjs) lists every file esbuild read with its size and mtime, and
// a SHA-256 of their contents. Stats are cheap (a few hundred of them, no reads), so they decide
// at every start; only when one differs (an edit, or a checkout that rewrote files) are the files
// hashed, and an unchanged hash still means the bundle is current. Mtimes alone would miss a file
// put back to an older mtime and would refuse a bundle after a mere touch.
function bundleIsCurrent() {
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(`${root}dist/build.json`, 'utf8'));
    statSync(`${root}dist/${stamp.entry}`);
    const same = stamp.files.every(([path, size, mtimeMs]) => {
      const st = statSync(`${root}${path}`);
      return st.size === size && st.mtimeMs === mtimeMs;
    });
    if (same) return true;
    const hash = createHash('sha256');
    for (const [path] of stamp.files) {
      const content = readFileSync(`${root}${path}`);
      hash.update(`${path}\0${content.length}\0`).update(content);
    }
    return hash.digest('hex') === stamp.sha256;
  } catch {
    return false; // no stamp, no bundle, or a bundled file is gone
  }
}

if (bundleIsCurrent()) {
  await import(`${root}dist/gov.mjs`);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/main.ts');
}
