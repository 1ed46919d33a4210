// npm's `prepare`, run by `npm ci` and `npm install` in this folder: builds tap's plugin set (the
// project drops @tapjs/typescript: tsx loads the tests) and the bundle. A step whose tool is absent
// is skipped, not failed: `npm ci --omit=dev` installs no tap, and gov then still runs (from the
// bundle when esbuild came along with tsx, else from the sources through tsx; see bin/gov.js).
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

function packageDir(name) {
  try {
    return dirname(require.resolve(`${name}/package.json`));
  } catch {
    return null;
  }
}

const tap = packageDir('tap');
if (tap) {
  const bin = require(join(tap, 'package.json')).bin.tap;
  execFileSync(process.execPath, [join(tap, bin), 'build'], { stdio: 'inherit' });
} else {
  process.stderr.write('prepare: tap is not installed (dev dependencies omitted): skipping `tap build`\n');
}

if (packageDir('esbuild')) {
  await import('./bundle.mjs');
} else {
  process.stderr.write('prepare: esbuild is not installed: no bundle, gov runs its sources through tsx\n');
}
