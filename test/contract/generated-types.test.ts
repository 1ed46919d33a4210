// The contract's generated types (scripts/gen-types/): the committed files are exactly what
// `npm run gen:types` writes from schemas/ and the route table today, and the generator names and
// shapes types as the registry's `assert` and the client rely on.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GEN_COMMAND, ROOT, generateContractTypes } from '../../scripts/gen-types/generate.ts';
import { schemaTypesSource } from '../../scripts/gen-types/schema-types.ts';
import { SCHEMA_BASE } from '../../src/schema-registry.ts';

function committed(path: string): string | null {
  try {
    return readFileSync(join(ROOT, path), 'utf8');
  } catch {
    return null;
  }
}

t.test('the committed generated files are what the command writes', async (t) => {
  const files = await generateContractTypes();
  t.same(
    files.map((f) => f.path),
    ['src/domain/contract/schema-types.gen.ts', 'src/client/operations.gen.ts'],
  );
  for (const file of files) {
    const current = committed(file.path);
    if (current === file.text) {
      t.pass(`${file.path} is current`);
      continue;
    }
    const lines = (current ?? '').split('\n');
    const wanted = file.text.split('\n');
    const first = wanted.findIndex((line, i) => line !== lines[i]);
    const at = first < 0 ? wanted.length : first;
    const where = current === null ? 'is missing' : `differs from line ${at + 1} (${JSON.stringify(wanted[at] ?? '')} is wanted, ${JSON.stringify(lines[at] ?? '')} is committed)`;
    t.fail(`${file.path} ${where}: schemas/ or the route table changed. Run \`${GEN_COMMAND}\` and commit the result.`);
  }
});

t.test('each file gets a type named after it; refs across files stay one named type', async (t) => {
  const schema = (path: string, body: Record<string, unknown>) =>
    [`${SCHEMA_BASE}${path}`, { $schema: 'https://json-schema.org/draft/2020-12/schema', $id: `${SCHEMA_BASE}${path}`, ...body }] as const;
  const schemas = new Map<string, Record<string, unknown>>([
    schema('common/types.json', {
      title: 'Shared',
      $defs: { id: { type: 'string' }, actor: { type: 'object', additionalProperties: false, required: ['id'], properties: { id: { $ref: '#/$defs/id' } } } },
    }),
    schema('api/thing-request.json', {
      title: 'POST /v1/things body',
      type: 'object',
      additionalProperties: false,
      required: ['who'],
      properties: {
        who: { $ref: '../common/types.json#/$defs/actor', description: 'Who asks.' },
        also: { $ref: '../common/types.json#/$defs/actor' },
        user: { type: 'object', $ref: '../common/types.json#/$defs/actor', properties: { id: { const: 'u-1' } } },
        data: { type: 'object' },
        any: {},
        how: { $ref: '../events/thing-done.json#/properties/how' },
      },
      anyOf: [{ required: ['also'] }, { required: ['data'] }],
    }),
    schema('events/thing-done.json', { type: 'object', properties: { how: { enum: ['fast', 'slow'] } } }),
    schema('quota/rule.json', { type: 'string' }),
  ]);
  const { source, typeOfFile } = await schemaTypesSource(schemas);
  t.same(
    [...typeOfFile],
    [
      ['api/thing-request.json', 'ThingRequest'],
      ['events/thing-done.json', 'ThingDonePayload'],
      ['quota/rule.json', 'QuotaRule'],
    ],
    'a file of $defs only (common/types.json) has no type of its own',
  );
  t.match(source, /export interface SchemaTypes \{\n"api\/thing-request.json": ThingRequest\n/);
  t.match(source, /\* POST \/v1\/things body\n/, 'the title is the comment, not the name');
  t.match(source, /\* Who asks\.\n \*\/\nwho: Actor\n/, 'a $ref with a description is still the one Actor');
  t.match(source, /also\?: Actor\n/);
  t.match(source, /user\?: \(Actor & \{\nid\?: "u-1"\n\}\)/, 'a shape beside a $ref narrows the one Actor');
  t.notMatch(source, /Actor1|ThingRequest1/, 'no copies of a referred type');
  t.match(source, /data\?: \{\n\[k: string\]: Json\n\}/, 'what an object leaves open is JSON');
  t.match(source, /any\?: Json\n/);
  t.match(source, /how\?: \("fast" \| "slow"\)/, 'a ref into a file other than its $defs is inlined');
  t.notMatch(source, /unknown/, 'anyOf of required lists only adds checks; no `unknown` is left');
  t.match(source, /export type Id = string/);
});

t.test('a name two schemas would share is refused, naming both', async (t) => {
  const schemas = new Map<string, Record<string, unknown>>([
    [`${SCHEMA_BASE}api/a-b.json`, { $id: `${SCHEMA_BASE}api/a-b.json`, type: 'string' }],
    [`${SCHEMA_BASE}api/a_b.json`, { $id: `${SCHEMA_BASE}api/a_b.json`, type: 'string' }],
  ]);
  await t.rejects(schemaTypesSource(schemas), /api\/a-b\.json and .*api\/a_b\.json would both be the type AB/);
});
