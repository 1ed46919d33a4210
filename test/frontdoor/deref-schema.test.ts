// Inlining $refs for MCP input schemas: relative refs across documents, pointers into $defs,
// sibling keywords next to a $ref, data that only looks like a schema, and the refusals.
import t from 'tap';
import { derefSchema } from '../../src/frontdoor/deref-schema.ts';
import { testSchemas } from '../fixtures/templates.ts';

const B = 'https://schemas.gov.local/';
const S = 'https://json-schema.org/draft/2020-12/schema';

function registry(docs: Record<string, Record<string, unknown>>): Map<string, Record<string, unknown>> {
  return new Map(Object.entries(docs).map(([path, doc]) => [B + path, { $id: B + path, ...doc }]));
}

const common = {
  $defs: {
    id: { type: 'string', minLength: 2, description: 'an id' },
    pair: { type: 'array', items: { $ref: '#/$defs/id' } },
    'a/b': { const: 1 },
  },
};

t.test('refs resolve relative to the document that holds them and are inlined', async (t) => {
  const schemas = registry({
    'common/types.json': common,
    'mcp/tool.json': {
      $schema: S,
      type: 'object',
      properties: {
        plain: { $ref: '../common/types.json#/$defs/id' },
        annotated: { $ref: '../common/types.json#/$defs/id', description: 'overrides the annotation' },
        agreeing: { $ref: '../common/types.json#/$defs/id', type: 'string' },
        clashing: { $ref: '../common/types.json#/$defs/id', minLength: 5 },
        nested: { $ref: '../common/types.json#/$defs/pair' },
        escaped: { $ref: '../common/types.json#/$defs/a~1b' },
        data: { const: { $ref: 'not-a-ref' }, default: { $ref: 'also-data' } },
        local: { $ref: '#/$defs/mine' },
      },
      $defs: { mine: { anyOf: [{ type: 'integer' }, { $ref: '../common/types.json#/$defs/id' }] } },
    },
  });
  const id = { type: 'string', minLength: 2, description: 'an id' };
  t.same(derefSchema(schemas, `${B}mcp/tool.json`), {
    $schema: S,
    type: 'object',
    properties: {
      plain: id,
      annotated: { ...id, description: 'overrides the annotation' },
      agreeing: id,
      clashing: { minLength: 5, allOf: [id] },
      nested: { type: 'array', items: id },
      escaped: { const: 1 },
      data: { const: { $ref: 'not-a-ref' }, default: { $ref: 'also-data' } },
      local: { anyOf: [{ type: 'integer' }, id] },
    },
  });
});

t.test('refusals: missing documents, dangling pointers, recursion, anchors', async (t) => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ $ref: 'nowhere.json' }, /not in the registry/],
    [{ $ref: 'common/types.json#/$defs/nope' }, /points at nothing/],
    [{ $ref: '#/$defs/loop', $defs: { loop: { items: { $ref: '#/$defs/loop' } } } }, /Recursive \$ref/],
    [{ $ref: 'common/types.json#anchor' }, /only JSON-pointer fragments/],
  ];
  for (const [root, error] of cases) {
    const schemas = registry({ 'common/types.json': common, 'root.json': root });
    t.throws(() => derefSchema(schemas, `${B}root.json`), error, JSON.stringify(root));
  }
  t.throws(() => derefSchema(registry({}), `${B}absent.json`), /No schema/);
});

t.test('every schema of schemas/mcp inlines completely', async (t) => {
  const { schemas } = testSchemas();
  const tools = [...schemas.keys()].filter((id) => id.startsWith(`${B}mcp/`) && !id.endsWith('/tool-args.json'));
  t.equal(tools.length, 10, 'one input schema per tool');
  for (const id of tools) {
    const inlined = derefSchema(schemas, id);
    t.equal(inlined.type, 'object', id);
    t.notMatch(JSON.stringify(inlined), /"\$(ref|id|defs)"/, `${id}: self-contained`);
  }
});
