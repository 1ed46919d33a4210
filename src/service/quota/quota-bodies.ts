// Request bodies of the forge quota admin routes, checked by their schemas
// (schemas/quota/*-options.json), which state the forge's conventions: explicit null means absent,
// unknown members are ignored, limits are exact. A bad shape is 400 `invalid_body` naming its JSON
// pointer. A string that is not a quota subject is not a bad shape: it is 422 with its own place in
// the order of checks (docs/quota.md §5), so the readers keep subjects as strings and
// recognisedSubjects decides them where the operation says.
import { isSubject, type Subject } from '../../domain/quota/subjects.ts';
import { AppError, type ErrorDetail } from '../../errors.ts';
import type { SchemaRegistry } from '../../schema-registry.ts';
import { schemaProblems } from './schema-check.ts';

export type RuleDefinition = { name: string; limit: number; subjects: string[] };
export type RuleEdit = { limit?: number; subjects?: string[] };
export type GroupDefinition = { name: string; rules: RuleDefinition[] };

type RuleJson = { name: string; limit?: number | null; subjects?: string[] | null };

export function invalidBody(problems: readonly ErrorDetail[]): AppError {
  const { pointer, detail } = problems[0]!;
  return new AppError('invalid_body', `The request body is not valid: ${pointer || '(root)'} ${detail}. Fix it and send it again.`, {
    details: [...problems],
  });
}

/** The body as its schema admits it, or 400 naming the first problem of shape. */
function checked<T>(registry: SchemaRegistry, schema: string, body: unknown): T {
  const { shape } = schemaProblems(registry, schema, body);
  if (shape.length > 0) throw invalidBody(shape);
  return body as T;
}

/** POST /admin/quota/rules: {name, limit, subjects?}; a missing or null limit is a bad body. */
export function readCreateRule(registry: SchemaRegistry, body: unknown): RuleDefinition {
  const b = checked<RuleJson & { limit: number }>(registry, 'quota/create-rule-options.json', body);
  return { name: b.name, limit: b.limit, subjects: b.subjects ?? [] };
}

/** PATCH /admin/quota/rules/{r}: absent or null = unchanged; [] clears the subjects. */
export function readEditRule(registry: SchemaRegistry, body: unknown): RuleEdit {
  const b = checked<Omit<RuleJson, 'name'>>(registry, 'quota/edit-rule-options.json', body);
  return { ...(b.limit == null ? {} : { limit: b.limit }), ...(b.subjects == null ? {} : { subjects: b.subjects }) };
}

/** POST /admin/quota/groups: {name, rules?}; a rule's limit is 0 when omitted; a rule name twice is 400. */
export function readCreateGroup(registry: SchemaRegistry, body: unknown): GroupDefinition {
  const b = checked<{ name: string; rules?: RuleJson[] | null }>(registry, 'quota/create-group-options.json', body);
  const rules = (b.rules ?? []).map((r): RuleDefinition => ({ name: r.name, limit: r.limit ?? 0, subjects: r.subjects ?? [] }));
  // Beyond the schema (which cannot compare a member across items): one rule name twice. The forge
  // fails it with a 500 (a unique-key clash mid-transaction); it is the caller's mistake.
  rules.forEach((r, i) => {
    if (rules.findIndex((x) => x.name === r.name) !== i) throw invalidBody([{ pointer: `/rules/${i}/name`, detail: `names rule "${r.name}" a second time` }]);
  });
  return { name: b.name, rules };
}

/** POST /admin/users/{u}/quota/groups: groups is required, not null, without duplicates. */
export function readSetUserGroups(registry: SchemaRegistry, body: unknown): string[] {
  return checked<{ groups: string[] }>(registry, 'quota/set-user-groups-options.json', body).groups;
}

/** Subjects as given, or AppError `unrecognised_subject` (422) naming the first one not recognised. */
export function recognisedSubjects(subjects: string[], pointer: string): Subject[] {
  subjects.forEach((s, i) => {
    if (!isSubject(s)) {
      throw new AppError('unrecognised_subject', `"${s}" is not a quota subject; use size:all, size:repos:all, size:git:lfs, size:assets:all and the like.`, {
        details: [{ pointer: `${pointer}/${i}`, detail: 'unrecognised subject' }],
      });
    }
  });
  return subjects as Subject[];
}
