// The TypeScript types of schemas/: every schema file becomes one named type (its $defs a type each
// where something refers to them), and `SchemaTypes` maps a schema ref ('api/task.json') to its
// type. The files are flattened into one document with local refs and stable titles first, so
// json-schema-to-typescript names each type after the file it comes from, never after a title.
import { compile, type JSONSchema } from 'json-schema-to-typescript';
import { unescapePointer } from '../../src/domain/json-pointer.ts';
import { SCHEMA_BASE } from '../../src/schema-registry.ts';

type Schema = { [key: string]: unknown };

/** Keywords whose value is one subschema, a list of them, or a map of names to them. */
const ONE = new Set(['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames', 'unevaluatedProperties', 'unevaluatedItems']);
const LIST = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
const MAP = new Set(['properties', 'patternProperties', 'dependentSchemas']);
/**
 * Gone from the flat document: every ref is local to it, the titles are the type names, and
 * conditions (if/then/else, not) only narrow what validates, which a type cannot say.
 */
const DROP = new Set(['$id', '$schema', '$defs', '$comment', 'title', 'if', 'then', 'else', 'not']);
/** Keywords that give a value its type; a subschema with none of them only adds checks (`{required: [...]}`). */
const SHAPE = new Set(['type', 'properties', 'patternProperties', 'additionalProperties', 'items', 'prefixItems', 'enum', 'const', '$ref', 'allOf', 'anyOf', 'oneOf']);
/** Keywords that describe a value without constraining it: kept beside a $ref as the member's comment. */
const ANNOTATIONS = new Set(['description', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly']);
/** Members of a file that say nothing about its root: a file with only these is a set of $defs. */
const NOT_A_SHAPE = new Set(['$id', '$schema', '$defs', '$comment', 'title', 'description']);

export type SchemaTypesSource = {
  /** The generated module, before formatting. */
  source: string;
  /** The type of each schema file that has a root shape, by ref relative to SCHEMA_BASE. */
  typeOfFile: ReadonlyMap<string, string>;
};

/** `task-create-request` → `TaskCreateRequest`. */
export function pascalCase(text: string): string {
  return text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join('');
}

/**
 * The stem of a file's type names: the file name, with the folder's prefix where a bare name would
 * be ambiguous (`quota/rule.json` → `QuotaRule`, `mcp/task_create.json` → `McpTaskCreate`).
 */
function stemOf(ref: string): string {
  const [folder, ...rest] = ref.replace(/\.json$/, '').split('/');
  const base = pascalCase(rest.join('-'));
  if (rest.length !== 1) return pascalCase(ref.replace(/\.json$/, ''));
  if (folder === 'quota') return /^(Quota|Forge)/.test(base) ? base : `Quota${base}`;
  if (folder === 'mcp') return `Mcp${base}`;
  return base;
}

/** The type of a file's root: the stem, with what it is where the stem alone would mislead. */
function fileTypeName(ref: string): string {
  const suffix = { events: 'Payload', cli: 'File', mcp: 'Args' }[ref.split('/')[0]!] ?? '';
  return stemOf(ref) + suffix;
}

/** The type of one $defs member: common/types.json's are the vocabulary (`Id`, `Actor`); others carry their file's stem. */
function defTypeName(ref: string, key: string): string {
  return ref === 'common/types.json' ? pascalCase(key) : stemOf(ref) + pascalCase(key);
}

function isShape(schema: Schema): boolean {
  return Object.keys(schema).some((key) => !NOT_A_SHAPE.has(key));
}

export async function schemaTypesSource(schemas: ReadonlyMap<string, Schema>): Promise<SchemaTypesSource> {
  const flat = flatten(schemas);
  const typeOfFile = new Map<string, string>();
  for (const [id, schema] of [...schemas].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const ref = id.slice(SCHEMA_BASE.length);
    if (isShape(schema)) typeOfFile.set(ref, flat.fileType(id));
  }
  const root: Schema = {
    title: 'SchemaTypes',
    description: "Each schema file of schemas/ that has a root shape, by its ref relative to the registry's base: `SchemaTypes['api/task.json']` is `Task`.",
    type: 'object',
    additionalProperties: false,
    required: [...typeOfFile.keys()],
    properties: Object.fromEntries([...typeOfFile].map(([ref, name]) => [ref, { $ref: `#/$defs/${name}` }])),
    $defs: flat.defs(),
  };
  const source = await compile(root as JSONSchema, 'SchemaTypes', {
    bannerComment: '',
    format: false,
    // Every object the document leaves open says so (openToJson); what remains are the checks beside
    // a $ref, which only narrow the members the target has.
    additionalProperties: false,
    unknownAny: true,
    // minItems/maxItems stay checks of the validator: a tuple type would refuse every plain array.
    ignoreMinAndMaxItems: true,
    strictIndexSignatures: false,
    unreachableDefinitions: false,
  });
  return { source, typeOfFile };
}

/**
 * One document holding every file and every $defs member that is referred to, under $defs by type
 * name, each titled with that name; refs across files become local refs, and a ref to any other
 * pointer (`api/task-create-request.json#/properties/title`) is inlined.
 */
function flatten(schemas: ReadonlyMap<string, Schema>) {
  const defs = new Map<string, Schema>();
  const names = new Map<string, string>();
  const owners = new Map<string, string>();

  const define = (key: string, name: string, make: () => Schema): string => {
    const known = names.get(key);
    if (known !== undefined) return known;
    const clash = owners.get(name);
    if (clash !== undefined) throw new Error(`${clash} and ${key} would both be the type ${name}; rename one (scripts/gen-types/schema-types.ts names them).`);
    names.set(key, name);
    owners.set(name, key);
    defs.set(name, {}); // reserved first: a schema may refer to itself
    defs.set(name, { ...make(), title: name });
    return name;
  };

  const fileType = (id: string): string => {
    const schema = documentOf(schemas, id, id);
    return define(id, fileTypeName(id.slice(SCHEMA_BASE.length)), () => convert(schema, id) as Schema);
  };

  const convert = (node: unknown, baseId: string): unknown => {
    if (typeof node === 'boolean') return node;
    if (node === null || typeof node !== 'object' || Array.isArray(node)) throw new Error(`Not a schema in ${baseId}: ${JSON.stringify(node)}`);
    const out: Schema = {};
    for (const [key, value] of Object.entries(node)) {
      if (DROP.has(key) || key === '$ref') continue;
      if (ONE.has(key)) out[key] = convert(value, baseId);
      else if (LIST.has(key)) out[key] = (value as unknown[]).map((item) => convert(item, baseId));
      else if (MAP.has(key)) out[key] = Object.fromEntries(Object.entries(value as Schema).map(([name, sub]) => [name, convert(sub, baseId)]));
      else out[key] = value; // data (enum, const, default) or a plain keyword
    }
    dropChecksOnly(out);
    const ref = (node as Schema).$ref;
    if (typeof ref !== 'string') {
      openToJson(out);
      return withTitleAsDescription(node as Schema, out);
    }
    // Beside a $ref, checks (minItems) and a repeated `type` add nothing to the type: the target is
    // the type, narrowed by any shape beside it (`properties: {type: {const: 'user'}}`). Both go
    // under allOf, annotations stay on top: json-schema-to-typescript would copy a $ref with
    // members beside it into a second type (`Actor1`).
    const target = refTarget(ref, baseId);
    const kept = Object.entries(out).filter(([key]) => key !== 'type');
    const annotations = withTitleAsDescription(node as Schema, Object.fromEntries(kept.filter(([key]) => ANNOTATIONS.has(key))));
    const shape = Object.fromEntries(kept.filter(([key]) => SHAPE.has(key)));
    const members = Object.keys(shape).length === 0 ? [target] : [target, shape];
    return Object.keys(annotations).length === 0 && members.length === 1 ? target : { ...annotations, allOf: members };
  };

  const refTarget = (ref: string, baseId: string): Schema => {
    const url = new URL(ref, baseId);
    const fragment = decodeURIComponent(url.hash.slice(1));
    url.hash = '';
    const id = url.href;
    const doc = documentOf(schemas, id, `${baseId} (its $ref ${ref})`);
    if (fragment === '') return { $ref: `#/$defs/${fileType(id)}` };
    if (!fragment.startsWith('/')) throw new Error(`${baseId} uses the anchor ref ${ref}; only JSON-pointer fragments are supported.`);
    const tokens = fragment.split('/').slice(1).map(unescapePointer);
    let target: unknown = doc;
    for (const token of tokens) {
      target = target !== null && typeof target === 'object' ? (target as Schema)[token] : undefined;
      if (target === undefined) throw new Error(`${baseId}: $ref ${ref} points at nothing.`);
    }
    if (tokens.length === 2 && tokens[0] === '$defs') {
      const sub = target;
      return { $ref: `#/$defs/${define(`${id}#${fragment}`, defTypeName(id.slice(SCHEMA_BASE.length), tokens[1]!), () => convert(sub, id) as Schema)}` };
    }
    return convert(target, id) as Schema;
  };

  return {
    fileType,
    /** Every type reached, sorted by name, so the document (and the output) never depends on walk order. */
    defs: () => Object.fromEntries([...defs].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
  };
}

/**
 * A combinator member that only adds checks has the type of the schema it sits in: under allOf it
 * is left out, and anyOf/oneOf made of nothing else say nothing about the type (json-schema-to-
 * typescript would make each an `{[k: string]: unknown}` intersected with the real type).
 */
function dropChecksOnly(schema: Schema): void {
  const checksOnly = (member: unknown) => member !== null && typeof member === 'object' && !Object.keys(member).some((key) => SHAPE.has(key));
  const all = schema.allOf as unknown[] | undefined;
  if (all !== undefined) {
    const shaped = all.filter((member) => !checksOnly(member));
    if (shaped.length > 0) schema.allOf = shaped;
    else delete schema.allOf;
  }
  for (const key of ['anyOf', 'oneOf']) {
    if ((schema[key] as unknown[] | undefined)?.every(checksOnly)) delete schema[key];
  }
}

/**
 * What a schema leaves open is JSON, not just anything: every value the registry checks is parsed
 * JSON or built to become JSON, and the domain types say so (`payload: {[key: string]: Json}`).
 * So an unconstrained value, a member an object does not close, and an array without `items` are
 * `Json` (src/domain/canonical-json.ts) rather than json-schema-to-typescript's `unknown`.
 */
function openToJson(schema: Schema): void {
  const json = { tsType: 'Json' };
  if (!Object.keys(schema).some((key) => SHAPE.has(key))) {
    schema.tsType = 'Json';
    return;
  }
  const types = typeof schema.type === 'string' ? [schema.type] : Array.isArray(schema.type) ? (schema.type as string[]) : [];
  const isObject = types.includes('object') || (types.length === 0 && schema.properties !== undefined);
  if (isObject && (schema.additionalProperties === undefined || schema.additionalProperties === true)) schema.additionalProperties = json;
  if (types.includes('array') && schema.items === undefined && schema.prefixItems === undefined) schema.items = json;
}

function documentOf(schemas: ReadonlyMap<string, Schema>, id: string, from: string): Schema {
  const doc = schemas.get(id);
  if (!doc) throw new Error(`${from} names ${id}, which is not a schema of schemas/.`);
  return doc;
}

/** A title becomes the first paragraph of the description: the types are named by file, not by title. */
function withTitleAsDescription(node: Schema, out: Schema): Schema {
  const title = typeof node.title === 'string' ? node.title : undefined;
  if (title === undefined) return out;
  const description = typeof node.description === 'string' ? `${title}\n\n${node.description}` : title;
  return { ...out, description };
}
