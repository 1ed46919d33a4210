// A write route runs its template's gate without warnings (gateWrite, templates-service.ts): it
// throws them away when the body passes, and asks again with them when it does not. So for any
// body the verdict is the one POST /v1/templates/validate gives (gateBody), and a refused body's
// validation is byte for byte the same. Checked over the templates the write routes gate, on valid
// bodies and on generated damage to them: missing fields, placeholders, wrong types, unknown
// members, safe defaults kept (which only warn).
import t from 'tap';
import fc from 'fast-check';
import { loadServiceDocuments } from '../../src/deps.ts';
import type { ServiceDeps } from '../../src/service/deps.ts';
import { gateBody, gateWrite } from '../../src/service/templates-service.ts';
import { appendShapes } from '../../scripts/bench/append-shapes.ts';

const docs = loadServiceDocuments();
const deps = docs as unknown as ServiceDeps;
const scope = { tenant_id: 'acme', workspace_id: 'platform', project_id: 'billing' };
const shapes = appendShapes(scope, {});
const bodyOf = (name: string, i: number) => JSON.parse(shapes.find((s) => s.name === name)!.request('k', i).body!) as Record<string, unknown>;

const CASES: Array<{ template: string; body: (i: number) => Record<string, unknown> }> = [
  { template: 'evidence.attach.v1', body: (i) => bodyOf('evidence', i) },
  { template: 'checkpoint.write.v1', body: (i) => bodyOf('checkpoint', i) },
  { template: 'session.bind.v1', body: () => ({ session_id: 'sess-1', principal: { type: 'service_account', id: 'sa-ci-1' }, agent: 'claude-code 2.1', transport: 'stdio' }) },
  { template: 'task.create.v1', body: (i) => ({ task_id: `task-${i}`, title: 'Rotate the exporter signing key', session_id: 'sess-1', labels: ['billing'] }) },
];

const damage = fc.oneof(
  fc.record({ op: fc.constant('drop' as const), at: fc.nat() }),
  fc.record({ op: fc.constant('set' as const), at: fc.nat(), value: fc.constantFrom<unknown>('TODO', '', '<fill me>', 'n/a', 42, null, [], {}, ['TBD'], 'A plain sentence about the exporter') }),
  fc.record({ op: fc.constant('extra' as const), at: fc.nat(), value: fc.constantFrom<unknown>('x', 1) }),
  fc.record({ op: fc.constant('defaults' as const), at: fc.nat() }),
);

function damaged(body: Record<string, unknown>, steps: Array<{ op: string; at: number; value?: unknown }>): Record<string, unknown> {
  const out = structuredClone(body);
  for (const step of steps) {
    const keys = Object.keys(out);
    const key = keys[step.at % Math.max(keys.length, 1)] ?? 'title';
    if (step.op === 'drop') delete out[key];
    else if (step.op === 'set') out[key] = step.value;
    else if (step.op === 'extra') out[`unknown_${step.at % 3}`] = step.value;
    else if (Array.isArray(out.evidence_refs)) {
      for (const ref of out.evidence_refs as Array<Record<string, unknown>>) Object.assign(ref, { confidence: 'claimed', redaction: 'none' });
    }
  }
  return out;
}

for (const c of CASES) {
  t.test(`${c.template}: a write route's gate says what validate says`, async (t) => {
    const template = deps.templates.resolve(c.template)!;
    t.ok(template, 'the template exists');
    t.ok(gateWrite(deps, template, c.body(1)).ok, 'the valid body passes');
    let refused = 0;
    let passed = 0;
    fc.assert(fc.property(fc.nat({ max: 500 }), fc.array(damage, { maxLength: 3 }), (i, steps) => {
      const body = damaged(c.body(i), steps);
      const full = gateBody(deps, template, body);
      const write = gateWrite(deps, template, body);
      if (full.ok) {
        passed++;
        return write.ok && write.blockers.length === 0;
      }
      refused++;
      return JSON.stringify(write) === JSON.stringify(full);
    }), { numRuns: 600, seed: 20261202 });
    t.ok(passed > 20 && refused > 20, `both verdicts were checked (${passed} passed, ${refused} refused)`);
  });
}
