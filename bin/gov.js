#!/usr/bin/env node
// The `gov` binary. It runs the bundle dist/gov.mjs (made by `npm ci` and `npm run build`) while
// that bundle is newer than every file under src/; otherwise, as after an edit, it runs the
// TypeScript sources directly through tsx. Both are the same code; the bundle only starts faster.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const bundle = `${root}dist/gov.mjs`;

function newestSource(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs);
  }
  return newest;
}

if (existsSync(bundle) && statSync(bundle).mtimeMs >= newestSource(`${root}src`)) {
  await import(bundle);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/main.ts');
}
