// One Ajv (JSON Schema 2020-12) instance holding every schema of schemas/ by its $id, built once at
// start-up. Validation failures become AppErrors with JSON-pointer details, never Ajv's own objects.
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SchemaTypes } from './domain/contract/schema-types.gen.ts';
import { isDateTime } from './domain/date-time.ts';
import { AppError, type ErrorCode, type ErrorDetail } from './errors.ts';
import { escapePointer } from './domain/json-pointer.ts';

export const SCHEMA_BASE = 'https://schemas.gov.local/';

export type { SchemaTypes };

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
  const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true, validateSchema: options.checkMetaSchema === true });
  const addFormats = addFormatsModule as unknown as (a: Ajv2020) => void;
  addFormats(ajv);
  // ajv-formats' date-time also admits a space for T and +0530 or +05 offsets, which RFC 3339 does
  // not: the format is exactly what src/domain/date-time.ts parses, so every accepted date-time
  // (an as_of, a stored captured_at) reads back as an instant.
  ajv.addFormat('date-time', { type: 'string', validate: isDateTime });
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
    return fn(value) ? [] : toDetails(fn.errors ?? []);
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

function toDetails(errors: ErrorObject[]): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  const seen = new Set<string>();
  for (const e of errors) {
    let pointer = e.instancePath;
    let detail: string;
    if (e.keyword === 'additionalProperties') {
      const name = String((e.params as { additionalProperty: string }).additionalProperty);
      pointer = `${pointer}/${escapePointer(name)}`;
      detail = `unknown member "${name}" is not allowed`;
    } else if (e.keyword === 'required') {
      const name = String((e.params as { missingProperty: string }).missingProperty);
      pointer = `${pointer}/${escapePointer(name)}`;
      detail = `required member "${name}" is missing`;
    } else {
      detail = e.message ?? e.keyword;
    }
    const key = `${pointer}|${detail}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push({ pointer, detail });
    }
  }
  return out;
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
