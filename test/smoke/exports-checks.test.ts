// The smoke checks of the access log and the exports pass against a served preview that mounts
// those routes, every response validated against the server's own /openapi.json.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { exportChecks } from '../../src/smoke/checks-exports.ts';
import { createSmokeCtx } from '../../src/smoke/context.ts';
import { createResponseValidator } from '../../src/smoke/response-validator.ts';
import { servedWithExports } from '../fixtures/exports-app.ts';

t.test('every exports check passes; the happy ones cover both routes', async (t) => {
  const served = await servedWithExports(t);
  const run = JSON.parse(readFileSync(served.tokenFile, 'utf8')) as { tokens: { customer: string; operator: string } };
  const doc = await (await fetch(`${served.baseUrl}/openapi.json`)).json();
  const ctx = createSmokeCtx({ baseUrl: served.baseUrl, tokens: run.tokens }, 'exp1', createResponseValidator(doc), new Set(['GET /v1/access-log', 'GET /v1/exports/{}']));
  const checks = exportChecks();
  for (const check of checks) {
    const outcome = await check.run(ctx).then(() => 'passed', (err: Error) => `failed: ${err.message}`);
    t.equal(outcome, 'passed', check.name);
  }
  t.same([...new Set(checks.filter((c) => c.kind === 'happy').map((c) => c.route))].sort(), ['GET /v1/access-log', 'GET /v1/exports/{kind}']);
});
