// The JSON Schemas of schemas/ as OpenAPI 3.1 components: one component per schema file, named
// after its $id path, with every $ref (relative file refs and #/$defs fragments alike) rewritten to
// #/components/schemas/<name> plus the fragment, so the document needs nothing outside itself.
import { SCHEMA_BASE, type SchemaRegistry } from '../schema-registry.ts';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

export const COMPONENT_PREFIX = '#/components/schemas/';

/** Keywords whose values are data, not subschemas: a `$ref` member inside them is not a reference. */
const DATA_KEYWORDS = new Set(['const', 'enum', 'examples', 'default']);

/** `https://schemas.gov.local/api/event-request.json` → `api_event_request` (the $id path, `.json` dropped). */
export function componentName(id: string): string {
  if (!id.startsWith(SCHEMA_BASE) || !id.endsWith('.json')) throw new Error(`Schema id ${id} is not under ${SCHEMA_BASE}`);
  return id.slice(SCHEMA_BASE.length, -'.json'.length).replace(/[^A-Za-z0-9.]/g, '_');
}

/** A schema $id relative to the base (`api/task.json`) or absolute → `#/components/schemas/api_task`. */
export function componentRef(ref: string): string {
  return COMPONENT_PREFIX + componentName(ref.startsWith('https://') ? ref : SCHEMA_BASE + ref);
}

/**
 * Every schema of the registry, sorted by component name. `$id` and `$schema` are dropped: inside
 * the document a nested `$id` would re-base the rewritten local refs, and the dialect is declared
 * once by the document's `jsonSchemaDialect`.
 */
export function schemaComponents(registry: SchemaRegistry): Record<string, JsonObject> {
  const out: Record<string, JsonObject> = {};
  const byName = new Map<string, string>();
  for (const [id, schema] of registry.schemas) {
    const name = componentName(id);
    const clash = byName.get(name);
    if (clash !== undefined) throw new Error(`Schemas ${clash} and ${id} both become component ${name}; rename one file.`);
    byName.set(name, id);
    const { $id: _id, $schema: _dialect, ...body } = schema as JsonObject;
    out[name] = rewriteRefs(body, id, registry) as JsonObject;
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function rewriteRefs(node: Json, baseId: string, registry: SchemaRegistry): Json {
  if (Array.isArray(node)) return node.map((item) => rewriteRefs(item, baseId, registry));
  if (node === null || typeof node !== 'object') return node;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref' && typeof value === 'string') out[key] = rewriteRef(value, baseId, registry);
    else if (DATA_KEYWORDS.has(key)) out[key] = value;
    else out[key] = rewriteRefs(value, baseId, registry);
  }
  return out;
}

/** Resolves `ref` against the schema's own $id (RFC 3986) and points it into the components. */
export function rewriteRef(ref: string, baseId: string, registry: SchemaRegistry): string {
  const hash = ref.indexOf('#');
  const file = hash < 0 ? ref : ref.slice(0, hash);
  const fragment = hash < 0 ? '' : ref.slice(hash + 1);
  const target = file === '' ? baseId : new URL(file, baseId).href;
  if (!registry.schemas.has(target)) throw new Error(`Schema ${baseId} refers to ${ref}, which is not a schema of schemas/ (${target}).`);
  if (fragment !== '' && !fragment.startsWith('/')) throw new Error(`Schema ${baseId} uses the anchor ref ${ref}; only JSON-pointer fragments can be rewritten.`);
  return COMPONENT_PREFIX + componentName(target) + fragment;
}
