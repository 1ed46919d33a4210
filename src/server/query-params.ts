// Query parameters as the route tables declare them: the schema each one has (what /openapi.json
// lists) and the one reader that checks a request against that declaration. A parameter a route
// does not declare is ignored: it is never read.
import type { Context } from 'hono';
import { AppError, type ErrorCode, type ErrorDetail } from '../errors.ts';
import type { SchemaRegistry } from '../schema-registry.ts';

/** A base-10 integer; a strict parameter takes digits only, as the range allows. */
export type IntegerQuerySchema = { type: 'integer'; minimum: number; maximum?: number; default?: number };
/** A string; JSON Schema's lengths count code points, patterns are ECMA-262 with the u flag. */
export type StringQuerySchema = { type: 'string'; minLength?: number; maxLength?: number; pattern?: string; enum?: readonly string[] };
/** A string checked against a schema of schemas/ by its id and fragment (`common/types.json#/$defs/id`). */
export type RefQuerySchema = { $ref: string };

export type QueryParam = {
  schema: IntegerQuerySchema | StringQuerySchema | RefQuerySchema;
  description: string;
  required?: boolean;
  /**
   * Read as the forge reads a form value (Forgejo's ctx.FormString, FormTrim, FormInt): an empty
   * value is an absent one; `trim` trims it first; `int` never refuses — a value that is not an
   * integer, or is below the minimum, counts as the default, and one above the maximum as the
   * maximum (the forge's list options).
   */
  form?: 'string' | 'trim' | 'int';
  /**
   * The error for a value outside the schema, or a required one missing: by default 400
   * invalid_query with a message from the schema; the forge routes name their own codes. The
   * message is written for the caller.
   */
  refusal?: { code?: ErrorCode; message?: string | ((value: string | undefined) => string) };
};

export type QuerySpec = Readonly<Record<string, QueryParam>>;

type ValueOf<P extends QueryParam> = P['schema'] extends IntegerQuerySchema
  ? P['schema'] extends { default: number } ? number : number | undefined
  : (P['schema'] extends { enum: readonly (infer E)[] } ? E : string) | (P extends { required: true } ? never : undefined);
export type QueryValues<Q extends QuerySpec> = { -readonly [K in keyof Q]: ValueOf<Q[K]> };

/**
 * The declared parameters of the request, each checked against its declaration; every refused one
 * is a detail of the one error (the first one's code and message). `registry` checks $ref schemas.
 */
export function readQuery<Q extends QuerySpec>(c: Context, spec: Q, registry?: SchemaRegistry): QueryValues<Q> {
  const values: Record<string, string | number | undefined> = {};
  const refused: { param: QueryParam; name: string; value: string | undefined; detail: string }[] = [];
  for (const [name, param] of Object.entries(spec)) {
    let raw = c.req.query(name);
    if (param.form === 'trim' && raw !== undefined) raw = raw.trim();
    if (param.form !== undefined && raw === '') raw = undefined;
    const schema = param.schema;
    const read = raw === undefined ? absent(param) : 'type' in schema && schema.type === 'integer' ? integer(raw, schema, param.form === 'int') : string(raw, schema, registry);
    if ('refused' in read) refused.push({ param, name, value: raw, detail: read.refused });
    else values[name] = read.value;
  }
  if (refused.length > 0) {
    const details: ErrorDetail[] = refused.map((r) => ({ pointer: `/query/${r.name}`, detail: r.detail }));
    const first = refused[0]!;
    const code = first.param.refusal?.code ?? 'invalid_query';
    const message = first.param.refusal?.message ?? defaultMessage(first.name, first.param);
    throw new AppError(code, typeof message === 'string' ? message : message(first.value), { details });
  }
  return values as QueryValues<Q>;
}

type Read = { value: string | number | undefined } | { refused: string };

function absent(param: QueryParam): Read {
  if (param.required) return { refused: 'required' };
  return { value: 'type' in param.schema && param.schema.type === 'integer' ? param.schema.default : undefined };
}

function integer(raw: string, schema: IntegerQuerySchema, lenient: boolean): Read {
  const max = schema.maximum ?? Number.MAX_SAFE_INTEGER;
  if (lenient) {
    const value = /^[+-]?\d+$/.test(raw) ? Number(raw) : NaN;
    if (!(value >= schema.minimum)) return { value: schema.default };
    return { value: Math.min(value, max) };
  }
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value < schema.minimum || value > max) return { refused: `integer ${schema.minimum}–${max}` };
  return { value };
}

function string(raw: string, schema: StringQuerySchema | RefQuerySchema, registry: SchemaRegistry | undefined): Read {
  if ('$ref' in schema) {
    if (!registry) throw new Error(`The query schema ${schema.$ref} needs the schema registry.`);
    const problems = registry.validate(schema.$ref, raw);
    return problems.length === 0 ? { value: raw } : { refused: problems[0]!.detail };
  }
  const length = [...raw].length;
  if (schema.minLength !== undefined && length < schema.minLength) return { refused: `at least ${schema.minLength} characters` };
  if (schema.maxLength !== undefined && length > schema.maxLength) return { refused: `at most ${schema.maxLength} characters` };
  if (schema.pattern !== undefined) {
    // V8 keeps compiled regular expressions by source and flags, so this compiles once per pattern.
    if (!new RegExp(schema.pattern, 'u').test(raw)) return { refused: `does not match ${schema.pattern}` };
  }
  if (schema.enum !== undefined && !schema.enum.includes(raw)) return { refused: 'not one of the values listed' };
  return { value: raw };
}

function defaultMessage(name: string, param: QueryParam): string {
  const schema = param.schema;
  if ('type' in schema && schema.type === 'integer') {
    return `The query parameter ${name} must be an integer from ${schema.minimum} to ${schema.maximum ?? Number.MAX_SAFE_INTEGER}.`;
  }
  return `The query parameter ${name} is ${param.required ? 'missing or ' : ''}not valid; /openapi.json declares what it takes.`;
}
