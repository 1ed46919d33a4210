// The layer rules are dependency-cruiser's (.dependency-cruiser.cjs, run over src/ by `npm test`).
// This proves they bite: on a throw-away tree where each layer breaks one rule, the tool exits
// non-zero and names exactly those imports, while the imports the layers are allowed pass.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

const config = resolve('.dependency-cruiser.cjs');
const depcruise = resolve('node_modules/dependency-cruiser/bin/dependency-cruise.mjs');

type Violation = { from: string; to: string; rule: { name: string; severity: string } };

// The default output is what `npm test` runs and the only one that sets the exit status; the JSON
// report (which always exits 0) names the violations.
function depcruiseIn(cwd: string, ...args: string[]) {
  return spawnSync(process.execPath, [depcruise, 'src', 'test', '--config', config, ...args], { cwd, encoding: 'utf8' });
}

function violationsIn(cwd: string): string[] {
  const report = JSON.parse(depcruiseIn(cwd, '--output-type', 'json').stdout) as { summary: { violations: Violation[] } };
  return report.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`).sort();
}

const ok = 'export const ok = 1;\n';

t.test('a tree that keeps every rule passes', async (t) => {
  const dir = t.testdir({
    src: {
      'errors.ts': ok,
      'deps.ts': "import { s } from './store/s.ts';\nexport const d = s;\n",
      domain: {
        'a.ts': "import { ok } from '../errors.ts';\nimport { createHash } from 'node:crypto';\nexport const a = [ok, createHash];\n",
        'b.ts': "import { a } from './a.ts';\nexport const b = a;\n",
      },
      store: { 's.ts': "import { b } from '../domain/b.ts';\nimport { readFileSync } from 'node:fs';\nexport const s = [b, readFileSync];\n" },
      service: { 'x.ts': "import { s } from '../store/s.ts';\nexport const x = s;\n" },
      server: { 'h.ts': "import { x } from '../service/x.ts';\nexport const h = x;\n" },
      client: { 'c.ts': ok },
      frontdoor: { 'f.ts': "import { ok } from '../client/c.ts';\nexport const f = ok;\n" },
      cli: {
        'main.ts':
          "import { d } from '../deps.ts';\nimport { h } from '../server/h.ts';\nimport { f } from '../frontdoor/f.ts';\nimport { readFileSync } from 'node:fs';\nexport const m = [d, h, f, readFileSync];\n",
      },
    },
    test: { 'helper.ts': ok, 'x.test.ts': "import { ok } from './helper.ts';\nimport { s } from '../src/store/s.ts';\nexport const t = [ok, s];\n" },
  });
  const run = depcruiseIn(dir);
  t.equal(run.status, 0, run.stdout);
  t.match(run.stdout, /no dependency violations found \(1[0-9] modules/);
});

t.test('each layer rule fails its deliberate violation, and only those', async (t) => {
  const dir = t.testdir({
    src: {
      'errors.ts': ok,
      'deps.ts': "import { helper } from '../test/helper.ts';\nexport const d = helper;\n",
      domain: {
        'pure.ts': ok,
        'reaches-store.ts': "import { s } from '../store/s.ts';\nexport const a = s;\n",
        'reads-files.ts': "import { readFileSync } from 'node:fs';\nexport const a = readFileSync;\n",
      },
      store: { 's.ts': ok, 'reaches-service.ts': "import type { X } from '../service/x.ts';\nexport const s = (x: X) => x;\n" },
      service: { 'x.ts': 'export type X = number;\n', 'reaches-server.ts': "import { h } from '../server/h.ts';\nexport const x = h;\n" },
      server: { 'h.ts': ok },
      client: { 'reaches-store.ts': "import { s } from '../store/s.ts';\nexport const c = s;\n" },
      smoke: { 'reaches-service.ts': "import type { X } from '../service/x.ts';\nexport const k = (x: X) => x;\n" },
      frontdoor: { 'opens-files.ts': "import { readFileSync } from 'node:fs';\nimport { d } from '../deps.ts';\nexport const f = [readFileSync, d];\n" },
    },
    test: { 'helper.ts': 'export const helper = 1;\n' },
  });
  t.same(violationsIn(dir), [
    'api-only-no-local-fallback: src/frontdoor/opens-files.ts -> fs',
    'api-only-no-local-fallback: src/frontdoor/opens-files.ts -> src/deps.ts',
    'api-only: src/client/reaches-store.ts -> src/store/s.ts',
    'api-only: src/smoke/reaches-service.ts -> src/service/x.ts',
    'domain-has-no-io: src/domain/reads-files.ts -> fs',
    'domain-is-pure: src/domain/reaches-store.ts -> src/store/s.ts',
    'nothing-imports-test: src/deps.ts -> test/helper.ts',
    'service-not-server: src/service/reaches-server.ts -> src/server/h.ts',
    'store-imports-domain-only: src/store/reaches-service.ts -> src/service/x.ts',
  ]);
  t.not(depcruiseIn(dir).status, 0, 'depcruise exits non-zero, so npm test fails');
});
