// Every schema of schemas/ is a valid JSON Schema 2020-12 document (the start-up registry skips
// this check for speed), and every one of them compiles under strict mode.
import t from 'tap';
import { fileURLToPath } from 'node:url';
import { loadSchemaRegistry, MAX_SCHEMA_ERRORS } from '../src/schema-registry.ts';

const dir = fileURLToPath(new URL('../schemas', import.meta.url));

t.test('every schema passes the meta-schema and compiles strictly', async (t) => {
  const registry = loadSchemaRegistry(dir, { checkMetaSchema: true });
  t.ok(registry.schemas.size > 50, `${registry.schemas.size} schemas loaded`);
  for (const id of registry.schemas.keys()) {
    t.doesNotThrow(() => registry.validate(id, {}), `${id} compiles`);
  }
});

t.test('a schema that breaks the meta-schema is refused when checked', async (t) => {
  const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const bad = mkdtempSync(`${tmpdir()}/gov-schema-`);
  t.teardown(() => rmSync(bad, { recursive: true, force: true }));
  writeFileSync(`${bad}/bad.json`, JSON.stringify({ $id: 'https://schemas.gov.local/bad.json', type: 'objekt' }));
  t.throws(() => loadSchemaRegistry(bad, { checkMetaSchema: true }));
});

t.test('a refusal says what is allowed: enum values, a const, and which condition of an if/then/else', async (t) => {
  const registry = loadSchemaRegistry(dir);
  const review = (body: unknown) => registry.validate('api/evidence-review-request.json', body);
  // Ajv alone said `(root) must NOT be valid` and `must match "else" schema` for the first of these.
  t.same(review({ decision: 'reject', content_trust: 'trusted_internal', reason: 'Read run 3' }), [
    { pointer: '/content_trust', detail: 'member "content_trust" is not allowed unless decision is "accept"' },
  ]);
  t.same(review({ decision: 'accept', reason: 'Read run 3' }), [{ pointer: '/content_trust', detail: 'required member "content_trust" is missing when decision is "accept"' }]);
  t.same(review({ decision: 'maybe', reason: 'Read run 3' }), [{ pointer: '/decision', detail: 'must be one of "accept", "reject"' }]);
  t.same(review({ decision: 'accept', content_trust: 'trusted_internal', reason: 'Read run 3' }), [], 'a valid body has no details');
  t.same(registry.validate('api/packet-status-request.json', { status: 'revoked' }), [{ pointer: '/reason', detail: 'required member "reason" is missing when status is "revoked"' }]);
  // Without the member the condition names, the condition does not hold: no branch speaks.
  t.same(registry.validate('api/packet-status-request.json', {}), [{ pointer: '/status', detail: 'required member "status" is missing' }]);
  t.same(review({ reason: 'Read run 3' }), [{ pointer: '/decision', detail: 'required member "decision" is missing' }]);
  // A long enum is cut after a dozen values, with the count.
  const big = registry.validate('api/incident-create-request.json', { class: 'incident', title: 'T', description: 'D', aware_at: '2026-12-01T10:00:00Z', severity: 'sev1', harm_types: ['bad'] });
  t.match(big, [{ pointer: '/harm_types/0', detail: /^must be one of "health_safety", .*"privacy"$/ }]);
  // An anyOf says what its alternatives take, or, when the value has one alternative's shape, what
  // fails inside it; alternatives that each require a member ask for at least one of them.
  const incident = { class: 'incident', title: 'T', description: 'D', aware_at: '2026-12-01T10:00:00Z', severity: 'sev1' };
  t.same(registry.validate('api/incident-create-request.json', { ...incident, occurred_at: 'yesterday' }), [{ pointer: '/occurred_at', detail: 'must be a date-time string or null' }]);
  t.same(registry.validate('api/posture-patch-request.json', { owner: 5 }), [{ pointer: '/owner', detail: 'must be an actor or null' }]);
  t.same(registry.validate('api/posture-patch-request.json', { owner: { type: 'user' } }), [{ pointer: '/owner/id', detail: 'required member "id" is missing' }]);
  t.same(registry.validate('api/incident-patch-request.json', { resolution: { root_cause: 5 } }), [{ pointer: '/resolution/root_cause', detail: 'must be a string or null' }]);
  // A value of an alternative's type that is too long for it hears that, not what the alternatives take.
  t.same(registry.validate('api/posture-patch-request.json', { note: 'n'.repeat(2001) }), [{ pointer: '/note', detail: 'must NOT have more than 2000 characters' }]);
  t.same(registry.validate('api/posture-patch-request.json', { foo: 1 }), [
    { pointer: '', detail: 'needs at least one of the members "status", "owner", "evidence_refs", "note", "justification"' },
    { pointer: '/foo', detail: 'unknown member "foo" is not allowed' },
  ]);
  // Through the route: the problem's first detail is in its message.
  t.throws(() => registry.assert('api/evidence-review-request.json', { decision: 'reject', content_trust: 'untrusted_external', reason: 'x' }, 'body'), {
    message: 'The body is not valid: /content_trust member "content_trust" is not allowed unless decision is "accept". Fix the listed members and send it again.',
  });
});

t.test('uniqueItems finds the first repeated item, objects equal whatever their member order', async (t) => {
  const registry = loadSchemaRegistry(dir);
  const incident = { class: 'incident', title: 'T', description: 'D', aware_at: '2026-12-01T10:00:00Z', severity: 'sev1' };
  t.same(registry.validate('api/incident-create-request.json', { ...incident, asset_ids: ['aa', 'bb', 'cc', 'bb', 'aa'] }), [
    { pointer: '/asset_ids', detail: 'must NOT have duplicate items (items ## 1 and 3 are identical)' },
  ]);
  const tag = (id: string) => ({ framework: 'owasp-llm', version: '2025', id });
  t.same(registry.validate('api/incident-create-request.json', { ...incident, tags: [tag('LLM01'), tag('LLM02'), { id: 'LLM01', version: '2025', framework: 'owasp-llm' }] }), [
    { pointer: '/tags', detail: 'must NOT have duplicate items (items ## 0 and 2 are identical)' },
  ]);
  t.same(registry.validate('api/incident-create-request.json', { ...incident, tags: [tag('LLM01'), tag('LLM02')], asset_ids: ['aa', 'bb'] }), [], 'distinct items pass');
  // 40,000 distinct ids, far past maxItems (50): refused for their number, not compared pairwise.
  const many = Array.from({ length: 40_000 }, (_, i) => `asset-${i}`);
  t.same(registry.validate('api/incident-create-request.json', { ...incident, asset_ids: many }), [{ pointer: '/asset_ids', detail: 'must NOT have more than 50 items' }]);
});

t.test('thousands of bad items are described up to a bound, and the rest counted', async (t) => {
  const registry = loadSchemaRegistry(dir);
  const incident = { class: 'incident', title: 'T', description: 'D', aware_at: '2026-12-01T10:00:00Z', severity: 'sev1' };
  // A 1 MiB body holds ~22,000 of these tags, each with a framework the pattern refuses.
  const tags = Array.from({ length: 22_000 }, (_, i) => ({ framework: 'F', version: '1', id: `x${i}` }));
  const details = registry.validate('api/incident-create-request.json', { ...incident, tags });
  t.equal(details.length, MAX_SCHEMA_ERRORS + 1, 'MAX_SCHEMA_ERRORS described, then one that counts the rest');
  t.same(details[0], { pointer: '/tags', detail: 'must NOT have more than 50 items' });
  t.match(details[1], { pointer: '/tags/0/framework', detail: /^must match pattern/ });
  t.same(details.at(-1), { pointer: '', detail: 'and 21,901 more problems the schema found; fix the ones listed and send it again to see the rest' });
});

t.test('a member a merge-patch cannot change is named at its own pointer', async (t) => {
  const registry = loadSchemaRegistry(dir);
  // unevaluatedProperties (the patch's members come from an allOf): Ajv said "(root) must NOT have unevaluated properties".
  t.same(registry.validate('api/incident-patch-request.json', { aware_at: '2026-01-01T00:00:00Z' }), [{ pointer: '/aware_at', detail: 'unknown member "aware_at" is not allowed' }]);
  t.same(registry.validate('api/incident-patch-request.json', { severity: 'sev2', bogus: 1 }), [{ pointer: '/bogus', detail: 'unknown member "bogus" is not allowed' }]);
});
