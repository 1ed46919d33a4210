// The quota inputs — the forge admin bodies, the forge data set, POLICY.json and USAGE.json of
// `gov quota eval` — are checked by their JSON Schemas (schemas/quota, schemas/cli), the one
// statement of their shape. This module turns the registry's problems into the ones worth telling
// a person, and reads an input file so that each problem names the file, pointer and line:column.
import { isSubject } from '../../domain/quota/subjects.ts';
import { parseJsonInput, type JsonInput } from '../../domain/quota/json-input.ts';
import { unescapePointer } from '../../domain/json-pointer.ts';
import type { ErrorDetail } from '../../errors.ts';
import type { SchemaRegistry } from '../../schema-registry.ts';

export type SchemaProblems = {
  /** Everything wrong with the shape, the most telling first. */
  shape: ErrorDetail[];
  /**
   * Strings in a `subjects` list that are not quota subjects. The forge answers these 422, after the
   * 400 of a bad shape and, for a group, after the 409 of a name taken (docs/quota.md §5), so they
   * are kept apart.
   */
  subjects: ErrorDetail[];
};

// Ajv's words for a failed combinator: every such failure comes with the failures of the branches
// themselves, at the same place or deeper, which say what is wrong.
const COMBINATOR = /^must match (a schema in anyOf|exactly one schema in oneOf|"then" schema|"else" schema)$/;
const DUPLICATE = /^must NOT have duplicate items \(items ## (\d+) and (\d+) are identical\)$/;
const SUBJECT_ITEM = /\/subjects\/\d+$/;

/** `value` against the schema `ref` (a $id relative to schemas.gov.local). */
export function schemaProblems(registry: SchemaRegistry, ref: string, value: unknown): SchemaProblems {
  const all = registry.validate(ref, value);
  // How many problems, combinators aside, lie at each pointer or below it.
  const covered = new Map<string, number>();
  for (const { pointer, detail } of all) {
    if (COMBINATOR.test(detail)) continue;
    for (let p = pointer; ; p = p.slice(0, p.lastIndexOf('/'))) {
      covered.set(p, (covered.get(p) ?? 0) + 1);
      if (p === '') break;
    }
  }
  const out: SchemaProblems = { shape: [], subjects: [] };
  for (const problem of all) {
    if (COMBINATOR.test(problem.detail)) continue;
    if (problem.detail === 'property name must be valid') {
      // propertyNames: Ajv says first what is wrong with a name, at the object's pointer, then this.
      const previous = out.shape.at(-1);
      if (previous?.pointer === problem.pointer) previous.detail = `a member name ${previous.detail}`;
      else out.shape.push(problem);
      continue;
    }
    // A nullable member is `anyOf: [X, {type: null}]`: that it is not null either adds nothing.
    if (problem.detail === 'must be null' && covered.get(problem.pointer)! > 1) continue;
    const here = valueAt(value, problem.pointer);
    if (SUBJECT_ITEM.test(problem.pointer) && typeof here === 'string' && !isSubject(here)) {
      out.subjects.push({ pointer: problem.pointer, detail: `unrecognised subject ${JSON.stringify(here)}` });
      continue;
    }
    const duplicate = DUPLICATE.exec(problem.detail);
    if (duplicate !== null) {
      // uniqueItems names the list and two indexes; the later occurrence is the one to remove.
      const [earlier, later] = [Number(duplicate[1]), Number(duplicate[2])].sort((a, b) => a - b);
      const item = `${problem.pointer}/${later}`;
      out.shape.push({ pointer: item, detail: `${JSON.stringify(valueAt(value, item))} is listed twice (also at ${problem.pointer}/${earlier})` });
      continue;
    }
    out.shape.push({ pointer: problem.pointer, detail: withValue(problem.detail, here) });
  }
  return out;
}

/** "must be integer" → "must be integer, found 1.5": what the file or body says, when it is short. */
function withValue(detail: string, value: unknown): string {
  if (detail.startsWith('unknown member') || detail.startsWith('required member')) return detail;
  if (value === undefined || (typeof value === 'object' && value !== null)) return detail;
  // A number JSON parsing could not hold exactly (past ±(2^53 − 1), or beyond any double) has no
  // text of the sender's to quote: its rounded double, or null for Infinity, would be a number never sent.
  if (typeof value === 'number' && (!Number.isFinite(value) || (Number.isInteger(value) && !Number.isSafeInteger(value)))) {
    return `${detail}, found a number beyond ±(2^53 − 1), which is not read exactly`;
  }
  const text = JSON.stringify(value);
  return text.length > 60 ? detail : `${detail}, found ${text}`;
}

function valueAt(root: unknown, pointer: string): unknown {
  let value = root;
  for (const token of pointer === '' ? [] : pointer.slice(1).split('/').map(unescapePointer)) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, token)) return undefined;
    value = (value as Record<string, unknown>)[token];
  }
  return value;
}

/**
 * An input file parsed and checked against the schema `ref`. Any problem is AppError
 * `bad_input_file` naming the file, the pointer and line:column of the first problem in the file,
 * and listing every problem; checks beyond the schema go through the returned input's `fail`.
 */
export function checkedInput(registry: SchemaRegistry, ref: string, text: string, fileName: string): JsonInput {
  const input = parseJsonInput(text, fileName);
  const { shape, subjects } = schemaProblems(registry, ref, input.value);
  const problems = [...shape, ...subjects];
  if (problems.length > 0) {
    // In a file, the first problem is the first one a reader meets going down the file.
    const place = (p: ErrorDetail) => input.positionOf(p.pointer) ?? { line: 0, column: 0 };
    const ordered = problems
      .map((p, i) => ({ p, i, at: place(p) }))
      .sort((a, b) => a.at.line - b.at.line || a.at.column - b.at.column || a.i - b.i)
      .map(({ p }) => p);
    input.fail(ordered);
  }
  return input;
}
