// One Ajv (JSON Schema 2020-12) instance holding every schema of schemas/ by its $id, built once at
// start-up. Validation failures become AppErrors with JSON-pointer details, never Ajv's own objects.
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SchemaTypes } from './domain/contract/schema-types.gen.ts';
import { canonicalJson } from './domain/canonical-json.ts';
import { isDateTime } from './domain/date-time.ts';
import { AppError, type ErrorCode, type ErrorDetail } from './errors.ts';
import { escapePointer, unescapePointer } from './domain/json-pointer.ts';
import { MEMBER_NOT_ALLOWED } from './domain/repair-prompts.ts';

export const SCHEMA_BASE = 'https://schemas.gov.local/';

export type { SchemaTypes };

/** How many of a value's schema errors are described; the rest are counted in one last detail. */
export const MAX_SCHEMA_ERRORS = 100;

/** A schema file with a generated type (src/domain/contract/schema-types.gen.ts), by its $id relative to SCHEMA_BASE. */
export type SchemaRef = keyof SchemaTypes;

export type SchemaRegistry = {
  /** Every loaded schema, keyed by $id. */
  readonly schemas: ReadonlyMap<string, Record<string, unknown>>;
  /** Validates `value` against the schema named by `ref` (a $id, relative to SCHEMA_BASE, or with a fragment). */
  validate(ref: string, value: unknown): ErrorDetail[];
  /**
   * Like validate, but throws AppError(code) (default `validation_failed`) on failure; after it,
   * `value` has the schema's generated type.
   */
  assert<R extends SchemaRef>(ref: R, value: unknown, what: string, code?: ErrorCode): asserts value is SchemaTypes[R];
  /** A ref only known at run time (an event kind's payload schema): checked, but no type follows. A literal ref must be a SchemaRef. */
  assert<R extends string>(ref: string extends R ? R : never, value: unknown, what: string, code?: ErrorCode): void;
  has(ref: string): boolean;
};

export function loadSchemaRegistry(dir: string, options: { checkMetaSchema?: boolean } = {}): SchemaRegistry {
  // Checking every schema against the 2020-12 meta-schema costs most of start-up; a test does it
  // once (checkMetaSchema), and strict mode still refuses unknown keywords when a schema compiles.
  // verbose: a failure carries the schema that failed, so a conditional's refusal can say which
  // member and which condition (toDetails); it adds nothing to a value that passes.
  const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true, verbose: true, validateSchema: options.checkMetaSchema === true });
  const addFormats = addFormatsModule as unknown as (a: Ajv2020) => void;
  addFormats(ajv);
  // ajv-formats' date-time also admits a space for T and +0530 or +05 offsets, which RFC 3339 does
  // not: the format is exactly what src/domain/date-time.ts parses, so every accepted date-time
  // (an as_of, a stored captured_at) reads back as an instant.
  ajv.addFormat('date-time', { type: 'string', validate: isDateTime });
  // Ajv's own uniqueItems compares every pair of items unless their schema names a scalar type
  // (ids by $ref do not): a 1 MiB body of 40,000 ids held the event loop ~9 s. This one is linear.
  ajv.removeKeyword('uniqueItems');
  ajv.addKeyword({ keyword: 'uniqueItems', type: 'array', schemaType: 'boolean', errors: true, validate: distinctItems });
  const schemas = new Map<string, Record<string, unknown>>();
  for (const file of listJsonFiles(dir)) {
    const schema = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    const id = schema.$id;
    if (typeof id !== 'string' || !id.startsWith(SCHEMA_BASE)) {
      throw new Error(`Schema ${file} has no $id under ${SCHEMA_BASE}`);
    }
    schemas.set(id, schema);
    ajv.addSchema(schema);
  }
  // A $ref between our files ("../common/types.json#/$defs/date_time"), for describing what a
  // refused alternative takes; a ref within one file has no base here, and is not resolved.
  const resolveRef = (ref: string): unknown => {
    const [file = '', fragment = ''] = ref.split('#');
    const doc = file === '' ? undefined : schemas.get(SCHEMA_BASE + file.replace(/^(\.\.?\/)+/, ''));
    return doc === undefined ? undefined : fragment.split('/').slice(1).map(unescapePointer).reduce<unknown>((at, token) => (at as Record<string, unknown> | undefined)?.[token], doc);
  };
  const compiled = new Map<string, ValidateFunction>();
  const resolve = (ref: string) => (ref.startsWith('https://') ? ref : SCHEMA_BASE + ref);
  const getValidator = (ref: string): ValidateFunction => {
    const full = resolve(ref);
    let fn = compiled.get(full);
    if (!fn) {
      fn = ajv.getSchema(full);
      if (!fn) throw new Error(`No schema ${full}`);
      compiled.set(full, fn);
    }
    return fn;
  };
  const validate = (ref: string, value: unknown): ErrorDetail[] => {
    const fn = getValidator(ref);
    if (fn(value)) return [];
    const errors = fn.errors ?? [];
    if (errors.length <= MAX_SCHEMA_ERRORS) return toDetails(errors, resolveRef);
    // A body of thousands of bad items (1 MiB holds ~40,000): say the first ones, and how many more.
    const more = errors.length - MAX_SCHEMA_ERRORS;
    return [...toDetails(errors.slice(0, MAX_SCHEMA_ERRORS), resolveRef), { pointer: '', detail: `and ${more.toLocaleString('en-US')} more ${more === 1 ? 'problem' : 'problems'} the schema found; fix the ones listed and send it again to see the rest` }];
  };
  return {
    schemas,
    validate,
    has: (ref) => ajv.getSchema(resolve(ref)) !== undefined,
    assert(ref: string, value: unknown, what: string, code: ErrorCode = 'validation_failed') {
      const details = validate(ref, value);
      if (details.length > 0) {
        const first = details[0]!;
        throw new AppError(code, `The ${what} is not valid: ${first.pointer || '(root)'} ${first.detail}. Fix the listed members and send it again.`, { details });
      }
    },
  };
}

/**
 * `uniqueItems` in one pass: each item's canonical form (RFC 8785: member order does not matter, as
 * for JSON Schema's equality) in a map. The error says what Ajv's did: the first pair found.
 */
function distinctItems(this: unknown, unique: boolean, data: unknown[]): boolean {
  distinctItems.errors = undefined;
  if (!unique) return true;
  const seen = new Map<string, number>();
  for (let at = 0; at < data.length; at++) {
    const item = data[at];
    const key = typeof item === 'string' ? `s${item}` : `j${itemKey(item)}`;
    const earlier = seen.get(key);
    if (earlier !== undefined) {
      distinctItems.errors = [{ keyword: 'uniqueItems', message: `must NOT have duplicate items (items ## ${earlier} and ${at} are identical)`, params: { i: at, j: earlier } }];
      return false;
    }
    seen.set(key, at);
  }
  return true;
}
distinctItems.errors = undefined as Array<Partial<ErrorObject>> | undefined;

function itemKey(item: unknown): string {
  try {
    return canonicalJson(item);
  } catch {
    return JSON.stringify(item) ?? 'undefined'; // no canonical form (a number JSON cannot hold): compared as written
  }
}

/**
 * Ajv's errors as JSON-pointer details, each saying what is allowed where the schema says it (an
 * enum's values, a const's value). A conditional (if/then/else) fails as its branch's own
 * errors plus a wrapper that only says which branch ('must match "else" schema'): the wrapper
 * goes, and each of the branch's errors names the condition (`when status is "revoked"`, `unless
 * decision is "accept"`) where the `if` is a member's value; a member a branch forbids (`not:
 * {required}`) is named at its own pointer rather than as "must NOT be valid" at the object.
 */
function toDetails(errors: ErrorObject[], resolveRef: (ref: string) => unknown): ErrorDetail[] {
  const conditions = new Map<string, string>();
  for (const e of errors) {
    if (e.keyword !== 'if') continue;
    const branch = (e.params as { failingKeyword: string }).failingKeyword;
    const condition = describeCondition((e.parentSchema as { if?: unknown } | undefined)?.if);
    if (condition !== null) conditions.set(`${e.schemaPath.slice(0, -'/if'.length)}/${branch}/`, `${branch === 'then' ? 'when' : 'unless'} ${condition}`);
  }
  const conditionOf = (e: ErrorObject): string | undefined => {
    for (const [prefix, text] of conditions) if (e.schemaPath.startsWith(prefix)) return text;
    return undefined;
  };
  // An anyOf/oneOf whose alternatives each failed at the value itself says what the alternatives take
  // ("must be a date-time string or null"), in place of one line per alternative and "must match a
  // schema in anyOf"; alternatives that each require one member say "needs at least one of …".
  const merged = new Map<ErrorObject, string>();
  const consumed = new Set<ErrorObject>();
  errors.forEach((e, at) => {
    if ((e.keyword !== 'anyOf' && e.keyword !== 'oneOf') || !Array.isArray(e.schema)) return;
    const alternatives = e.schema as unknown[];
    const single = alternatives.map((a) => requiredOnly(a));
    if (single.every((names) => names.length === 1)) {
      merged.set(e, `needs at least one of the members ${single.map((names) => JSON.stringify(names[0])).join(', ')}`);
      for (const other of errors) if (other.schemaPath.startsWith(`${e.schemaPath}/`)) consumed.add(other);
      return;
    }
    if (e.keyword !== 'anyOf') return;
    // The alternatives' errors come right before it, at its value or inside it; a $ref's errors name
    // the referenced schema's path, so the walk stops at the anyOf's sibling keywords instead.
    const parent = e.schemaPath.slice(0, -'/anyOf'.length);
    const sibling = (other: ErrorObject) => other.schemaPath.startsWith(`${parent}/`) && !other.schemaPath.startsWith(`${e.schemaPath}/`);
    let from = at;
    while (from > 0 && within(errors[from - 1]!.instancePath, e.instancePath) && !sibling(errors[from - 1]!) && !consumed.has(errors[from - 1]!)) from--;
    const inner = errors.slice(from, at);
    if (inner.length === 0) return;
    const atValue = (other: ErrorObject) => other.instancePath === e.instancePath && VALUE_KEYWORDS.has(other.keyword);
    const described = alternatives.map((a) => describeAlternative(a, resolveRef));
    if (inner.some((other) => other.instancePath === e.instancePath && SIZE_KEYWORDS.has(other.keyword))) {
      // The value has an alternative's type and is too long, short, large or small for it ("must
      // NOT have more than 4000 characters"): that says what to fix, "a string or null" would not.
      consumed.add(e);
      for (const other of inner) if (!SIZE_KEYWORDS.has(other.keyword)) consumed.add(other);
    } else if (inner.every(atValue) && described.every((d): d is string => d !== null)) {
      // Every alternative refused the value as such: say what each takes.
      merged.set(e, `must be ${described.join(' or ')}`);
      for (const other of inner) consumed.add(other);
    } else if (inner.some((other) => !atValue(other))) {
      // The value has an alternative's shape and fails inside it: those errors say what to fix; the
      // other alternatives' type refusals and the wrapper would only add noise.
      consumed.add(e);
      for (const other of inner) if (other.instancePath === e.instancePath && other.keyword === 'type') consumed.add(other);
    }
  });
  const out: ErrorDetail[] = [];
  const seen = new Set<string>();
  const add = (pointer: string, detail: string, e: ErrorObject) => {
    const condition = conditionOf(e);
    const text = condition === undefined ? detail : `${detail} ${condition}`;
    const key = `${pointer}|${text}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push({ pointer, detail: text });
    }
  };
  for (const e of errors) {
    if (consumed.has(e)) continue;
    if (e.keyword === 'if') {
      // The wrapper only says which branch failed; that branch's own errors say what (with the condition).
      const branch = `${e.schemaPath.slice(0, -'/if'.length)}/${(e.params as { failingKeyword: string }).failingKeyword}/`;
      if (errors.some((other) => other.schemaPath.startsWith(branch))) continue;
    }
    const merge = merged.get(e);
    if (merge !== undefined) {
      add(e.instancePath, merge, e);
    } else if (e.keyword === 'additionalProperties' || e.keyword === 'unevaluatedProperties') {
      // unevaluatedProperties: a member no part of an allOf (a merge-patch's changes) names.
      const params = e.params as { additionalProperty?: string; unevaluatedProperty?: string };
      const name = String(params.additionalProperty ?? params.unevaluatedProperty);
      add(`${e.instancePath}/${escapePointer(name)}`, MEMBER_NOT_ALLOWED.unknown(name), e);
    } else if (e.keyword === 'required') {
      const name = String((e.params as { missingProperty: string }).missingProperty);
      add(`${e.instancePath}/${escapePointer(name)}`, `required member "${name}" is missing`, e);
    } else if (e.keyword === 'not' && requiredOnly(e.schema).length > 0) {
      const present = requiredOnly(e.schema).filter((name) => e.data !== null && typeof e.data === 'object' && Object.hasOwn(e.data, name));
      for (const name of present) add(`${e.instancePath}/${escapePointer(name)}`, MEMBER_NOT_ALLOWED.excluded(name), e);
    } else if (e.keyword === 'not' && excludedValues(e.schema) !== undefined) {
      add(e.instancePath, `must not be one of ${listed(excludedValues(e.schema)!)}`, e);
    } else if (e.keyword === 'enum' && Array.isArray(e.schema)) {
      add(e.instancePath, `must be one of ${listed(e.schema)}`, e);
    } else if (e.keyword === 'const') {
      add(e.instancePath, `must be ${JSON.stringify(e.schema)}`, e);
    } else {
      add(e.instancePath, e.message ?? e.keyword, e);
    }
  }
  return out;
}

/** What refuses a value of the right type for its size: the alternative it fails is the one it meant. */
const SIZE_KEYWORDS = new Set(['minLength', 'maxLength', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum']);

/** What refuses a value as such (its type, format or value), rather than something inside it. */
const VALUE_KEYWORDS = new Set(['type', 'format', 'const', 'enum', 'pattern', 'minLength', 'maxLength', 'minimum', 'maximum']);

const ARTICLE: Record<string, string> = { string: 'a string', number: 'a number', integer: 'an integer', boolean: 'true or false', object: 'an object', array: 'a list', null: 'null' };

/**
 * What one alternative of an anyOf takes, from its schema (a $ref between our files followed): a
 * const, an enum's values, or a plain type with its format ("a date-time string"); a $ref to
 * anything richer by the definition's name ("an actor"); null when it cannot be said briefly.
 */
function describeAlternative(schema: unknown, resolveRef: (ref: string) => unknown): string | null {
  if (schema === null || typeof schema !== 'object') return null;
  const s = schema as { type?: unknown; format?: unknown; enum?: unknown; const?: unknown; $ref?: unknown };
  const keys = Object.keys(s).filter((k) => k !== 'description' && k !== 'title');
  if (keys.length === 1 && typeof s.$ref === 'string') {
    const plain = describeAlternative(resolveRef(s.$ref), () => undefined);
    if (plain !== null) return plain;
    const name = (s.$ref.split('/').pop() ?? '').replace(/[_-]+/g, ' ');
    return name === '' ? null : `${/^[aeiou]/i.test(name) ? 'an' : 'a'} ${name}`;
  }
  if (keys.length === 1 && s.const !== undefined) return JSON.stringify(s.const);
  if (keys.length === 1 && Array.isArray(s.enum)) return `one of ${listed(s.enum)}`;
  if (typeof s.type === 'string' && keys.every((k) => ['type', 'format', 'minLength', 'maxLength', 'pattern'].includes(k))) {
    return typeof s.format === 'string' ? `a ${s.format} string` : (ARTICLE[s.type] ?? null);
  }
  return null;
}

/** Whether JSON pointer `pointer` is `base` or inside it. */
function within(pointer: string, base: string): boolean {
  return pointer === base || pointer.startsWith(`${base}/`);
}

/** Allowed values as a refusal names them: all of a short list, the first dozen of a long one. */
function listed(values: readonly unknown[]): string {
  const shown = values.slice(0, 12).map((v) => JSON.stringify(v)).join(', ');
  return values.length > 12 ? `${shown}, … (${values.length} in all)` : shown;
}

/** `"status" is "revoked"` for an if-schema that tests one member's value (const or enum), else null. */
function describeCondition(schema: unknown): string | null {
  const properties = (schema as { properties?: Record<string, { const?: unknown; enum?: unknown[] }> } | undefined)?.properties;
  const entries = properties === undefined ? [] : Object.entries(properties);
  if (entries.length !== 1) return null;
  const [name, test] = entries[0]!;
  if (test.const !== undefined) return `${name} is ${JSON.stringify(test.const)}`;
  if (Array.isArray(test.enum)) return `${name} is one of ${listed(test.enum)}`;
  return null;
}

/** The members a schema that is only {required: […]} names: a `not` of it forbids them, an anyOf of such asks for one. */
function requiredOnly(schema: unknown): string[] {
  const required = (schema as { required?: unknown } | undefined)?.required;
  return schema !== null && typeof schema === 'object' && Object.keys(schema).length === 1 && Array.isArray(required) ? required.map(String) : [];
}

/** The values a `not: {enum: […]}` refuses, else undefined (Ajv would only say "must NOT be valid"). */
function excludedValues(schema: unknown): unknown[] | undefined {
  const values = (schema as { enum?: unknown } | undefined)?.enum;
  return schema !== null && typeof schema === 'object' && Object.keys(schema).length === 1 && Array.isArray(values) ? values : undefined;
}

function listJsonFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listJsonFiles(path));
    else if (entry.name.endsWith('.json')) out.push(path);
  }
  return out.sort();
}
