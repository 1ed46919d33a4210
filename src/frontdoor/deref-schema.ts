// Inlines every $ref of a schema from the registry's `schemas` map into one self-contained JSON
// Schema object: MCP clients take a tool's inputSchema as it is and do not fetch other documents,
// so relative refs (../api/…, #/$defs/…) must be resolved before the tool list is served.

import { unescapePointer } from '../domain/json-pointer.ts';

type Schema = Record<string, unknown>;
type Schemas = ReadonlyMap<string, Schema>;

/** Keywords whose value is one subschema. */
const ONE = new Set(['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames', 'unevaluatedProperties', 'unevaluatedItems']);
/** Keywords whose value is a list of subschemas. */
const LIST = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
/** Keywords whose value maps names to subschemas. */
const MAP = new Set(['properties', 'patternProperties', 'dependentSchemas']);
/** Dropped once everything is inlined: nothing points at them any more. */
const DROP = new Set(['$id', '$schema', '$defs', '$comment']);
/** Annotations a referencing site may override without changing what validates. */
const ANNOTATIONS = new Set(['title', 'description', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly']);

export function derefSchema(schemas: Schemas, id: string): Schema {
  const root = schemas.get(id);
  if (!root) throw new Error(`No schema ${id} in the registry`);
  const inlined = inline(schemas, root, id, [id]);
  if (typeof inlined === 'boolean') throw new Error(`Schema ${id} is a boolean schema, not an object schema`);
  return typeof root.$schema === 'string' ? { $schema: root.$schema, ...inlined } : inlined;
}

function inline(schemas: Schemas, node: unknown, base: string, stack: string[]): Schema | boolean {
  if (typeof node === 'boolean') return node;
  if (node === null || typeof node !== 'object' || Array.isArray(node)) throw new Error(`Not a schema under ${base}: ${JSON.stringify(node)}`);
  const out: Schema = {};
  for (const [key, value] of Object.entries(node as Schema)) {
    if (key === '$ref' || DROP.has(key)) continue;
    if (ONE.has(key)) out[key] = inline(schemas, value, base, stack);
    else if (LIST.has(key)) out[key] = (value as unknown[]).map((v) => inline(schemas, v, base, stack));
    else if (MAP.has(key)) out[key] = Object.fromEntries(Object.entries(value as Schema).map(([k, v]) => [k, inline(schemas, v, base, stack)]));
    else out[key] = value; // data (enum, const, default, …) or a plain keyword: copied as it is
  }
  const ref = (node as Schema).$ref;
  if (typeof ref !== 'string') return out;
  const target = resolveRef(schemas, ref, base);
  if (stack.includes(target.key)) throw new Error(`Recursive $ref ${target.key} cannot be inlined (via ${stack.join(' → ')})`);
  const resolved = inline(schemas, target.node, target.base, [...stack, target.key]);
  if (Object.keys(out).length === 0) return resolved;
  if (typeof resolved === 'boolean') return { ...out, allOf: [resolved] };
  // In 2020-12 a $ref applies alongside its siblings: merge when they agree, else keep both as allOf.
  const clash = Object.keys(out).some((k) => k in resolved && !ANNOTATIONS.has(k) && JSON.stringify(resolved[k]) !== JSON.stringify(out[k]));
  return clash ? { ...out, allOf: [...((out.allOf as unknown[]) ?? []), resolved] } : { ...resolved, ...out };
}

function resolveRef(schemas: Schemas, ref: string, base: string): { node: unknown; base: string; key: string } {
  const url = new URL(ref, base);
  const fragment = decodeURIComponent(url.hash.slice(1));
  url.hash = '';
  const docId = url.href;
  const doc = schemas.get(docId);
  if (!doc) throw new Error(`$ref ${ref} (from ${base}) names ${docId}, which is not in the registry`);
  if (fragment !== '' && !fragment.startsWith('/')) throw new Error(`$ref ${ref}: only JSON-pointer fragments are supported`);
  let node: unknown = doc;
  for (const token of fragment.split('/').slice(1)) {
    const name = unescapePointer(token);
    node = node !== null && typeof node === 'object' ? (node as Schema)[name] : undefined;
    if (node === undefined) throw new Error(`$ref ${ref} (from ${base}) points at nothing`);
  }
  return { node, base: docId, key: `${docId}#${fragment}` };
}
