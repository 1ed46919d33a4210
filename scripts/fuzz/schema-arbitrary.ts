// JSON Schema (the subset the served document uses) → a fast-check arbitrary of values valid against
// it: $ref, allOf/anyOf/oneOf, enum/const, type, properties/required, items, lengths, patterns,
// integer bounds, date-time. Strings are drawn partly from pools of known ids and sentences, so a
// valid-shaped body names real tasks and passes length gates often enough to reach the deep paths.
import fc from 'fast-check';
import { deref, type Schema } from './openapi-model.ts';

export type Pools = {
  /** Ids the setup created (tasks, sessions, artifacts, packets, rules, users) and the run's scope. */
  ids: string[];
  /** Task-specific sentences of 20+ characters: what the closeout and checkpoint gates accept. */
  texts: string[];
};

export type GenContext = { doc: unknown; pools: Pools };

/** Past this depth of schema recursion, only required members and the fewest items are generated. */
const SHALLOW_AT = 8;
const MAX_DEPTH = 24;
const MAX_ITEMS = 3;
const MAX_STRING = 48;

const smallJson = fc.jsonValue({ maxDepth: 2 });

export function arbitraryFor(schema: Schema, ctx: GenContext, depth = 0): fc.Arbitrary<unknown> {
  if (schema === true || schema === undefined) return smallJson;
  if (schema === false || depth > MAX_DEPTH) return fc.constant(null);
  const s = merged(deref(ctx.doc, schema) as Record<string, unknown>, ctx);
  const branches = (s.anyOf ?? s.oneOf) as Schema[] | undefined;
  if (branches) {
    const { anyOf: _a, oneOf: _o, ...base } = s;
    const hasBase = Object.keys(base).some((k) => !ANNOTATIONS.has(k));
    return fc.oneof(...branches.map((b) => arbitraryFor(hasBase ? mergeSchemas([base, deref(ctx.doc, b) as object], ctx) : b, ctx, depth + 1)));
  }
  if ('const' in s) return fc.constant(s.const);
  if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]));
  const type = s.type ?? (s.properties || s.required ? 'object' : s.items ? 'array' : undefined);
  if (Array.isArray(type)) return fc.oneof(...type.map((t) => arbitraryFor({ ...s, type: t }, ctx, depth)));
  switch (type) {
    case 'object': return objectArb(s, ctx, depth);
    case 'array': return arrayArb(s, ctx, depth);
    case 'string': return stringArb(s, ctx);
    case 'integer': return integerArb(s);
    case 'number': return fc.oneof(integerArb(s), fc.double({ noNaN: true, noDefaultInfinity: true, min: num(s.minimum, -1e9), max: num(s.maximum, 1e9) }));
    case 'boolean': return fc.boolean();
    case 'null': return fc.constant(null);
    default: return smallJson;
  }
}

const ANNOTATIONS = new Set(['title', 'description', '$comment', 'default', 'examples', '$defs', 'definitions', 'if', 'then', 'else']);

/** allOf folded into one schema (properties merged, required united); if/then is ignored. */
function merged(s: Record<string, unknown>, ctx: GenContext): Record<string, unknown> {
  if (!Array.isArray(s.allOf)) return s;
  const { allOf, ...rest } = s;
  return mergeSchemas([rest, ...(allOf as Schema[]).map((x) => deref(ctx.doc, x) as object)], ctx);
}

function mergeSchemas(parts: object[], ctx: GenContext): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const raw of parts) {
    const part = merged(raw as Record<string, unknown>, ctx);
    for (const [k, v] of Object.entries(part)) {
      if (k === 'properties') out.properties = { ...(out.properties as object), ...(v as object) };
      else if (k === 'required') out.required = [...new Set([...((out.required as string[]) ?? []), ...(v as string[])])];
      else out[k] = v;
    }
  }
  return out;
}

function num(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

function objectArb(s: Record<string, unknown>, ctx: GenContext, depth: number): fc.Arbitrary<unknown> {
  const properties = (s.properties ?? {}) as Record<string, Schema>;
  const required = new Set((s.required as string[] | undefined) ?? []);
  const names = Object.keys(properties);
  if (names.length === 0 && required.size === 0) {
    // A free-form object (an event payload): small JSON members.
    return fc.dictionary(fc.stringMatching(/^[a-z_]{1,12}$/), smallJson, { maxKeys: depth < SHALLOW_AT ? 4 : 0 });
  }
  const keys = names.filter((n) => required.has(n) || depth < SHALLOW_AT);
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const name of keys) model[name] = arbitraryFor(properties[name] ?? true, ctx, depth + 1);
  for (const name of required) if (!(name in model)) model[name] = smallJson;
  return fc.record(model, { requiredKeys: [...required] });
}

function arrayArb(s: Record<string, unknown>, ctx: GenContext, depth: number): fc.Arbitrary<unknown> {
  const minLength = num(s.minItems, 0);
  const maxLength = Math.min(num(s.maxItems, Infinity), depth < SHALLOW_AT ? minLength + MAX_ITEMS : minLength);
  const items = arbitraryFor((s.items as Schema | undefined) ?? true, ctx, depth + 1);
  if (s.uniqueItems === true) return fc.uniqueArray(items, { minLength, maxLength, selector: (v) => JSON.stringify(v) });
  return fc.array(items, { minLength, maxLength });
}

function stringArb(s: Record<string, unknown>, ctx: GenContext): fc.Arbitrary<string> {
  const min = num(s.minLength, 0);
  const max = num(s.maxLength, Infinity);
  const fits = (v: string) => v.length >= min && v.length <= max;
  if (s.format === 'date-time') {
    return fc.date({ min: new Date('2020-01-01T00:00:00Z'), max: new Date('2026-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString());
  }
  let regex: RegExp | null = null;
  if (typeof s.pattern === 'string') regex = new RegExp(s.pattern, 'u');
  const matches = (v: string) => fits(v) && (regex === null || regex.test(v));
  const known = [...ctx.pools.ids, ...ctx.pools.texts].filter(matches);
  let random: fc.Arbitrary<string>;
  if (regex !== null) {
    random = fc.stringMatching(regex).filter(fits);
  } else {
    const upper = Math.min(max, min + MAX_STRING);
    random = fc.oneof(fc.string({ minLength: min, maxLength: upper }), fc.string({ unit: 'grapheme', minLength: min, maxLength: upper })).filter(fits);
  }
  return known.length > 0 ? fc.oneof({ arbitrary: fc.constantFrom(...known), weight: 2 }, { arbitrary: random, weight: 1 }) : random;
}

function integerArb(s: Record<string, unknown>): fc.Arbitrary<number> {
  const lo = Math.ceil(num(s.minimum, -1_000_000));
  const hi = Math.floor(num(s.maximum, 1_000_000));
  // fc.integer is 32-bit; the edges of wider ranges (±2^53−1 byte limits) come as constants.
  const small = fc.integer({ min: Math.max(lo, -(2 ** 31)), max: Math.min(hi, 2 ** 31 - 1) });
  return fc.oneof({ arbitrary: small, weight: 4 }, { arbitrary: fc.constantFrom(lo, hi), weight: 1 });
}
