// Every schema of schemas/ is a valid JSON Schema 2020-12 document (the start-up registry skips
// this check for speed), and every one of them compiles under strict mode.
import t from 'tap';
import { fileURLToPath } from 'node:url';
import { loadSchemaRegistry } from '../src/schema-registry.ts';

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
