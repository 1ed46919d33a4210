// Request bodies of the forge quota admin routes, read with the forge's conventions: explicit null
// means absent, unknown members are ignored, a bad shape is 400 (invalid_body). Subject strings are
// kept as strings here, because an unrecognised subject is a 422 with its own place in the order.
import { MAX_EXACT } from '../../domain/quota/input-shape.ts';
import { isSubject, type Subject } from '../../domain/quota/subjects.ts';
import { AppError } from '../../errors.ts';

export type RuleDefinition = { name: string; limit: number; subjects: string[] };
export type RuleEdit = { limit?: number; subjects?: string[] };
export type GroupDefinition = { name: string; rules: RuleDefinition[] };

export function invalidBody(pointer: string, detail: string): AppError {
  return new AppError('invalid_body', `The request body is not valid: ${pointer || '(root)'} ${detail}. Fix it and send it again.`, {
    details: [{ pointer, detail }],
  });
}

const absent = (v: unknown) => v === undefined || v === null;

function object(value: unknown, pointer: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalidBody(pointer, 'must be a JSON object');
  return value as Record<string, unknown>;
}

function name(value: unknown, pointer: string): string {
  if (absent(value)) throw invalidBody(pointer, 'is required');
  if (typeof value !== 'string' || value === '') throw invalidBody(pointer, 'must be a non-empty string');
  return value;
}

/** A 64-bit limit that JSON numbers carry exactly: an integer within ±(2^53−1), never rounded. */
function limit(value: unknown, pointer: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) throw invalidBody(pointer, 'must be an integer number of bytes (-1 for unlimited)');
  if (Math.abs(value) > MAX_EXACT) throw invalidBody(pointer, `must be within ±${MAX_EXACT} (2^53−1) so that it is exact`);
  return value;
}

function strings(value: unknown, pointer: string): string[] {
  if (!Array.isArray(value)) throw invalidBody(pointer, 'must be an array of strings');
  value.forEach((v, i) => {
    if (typeof v !== 'string') throw invalidBody(`${pointer}/${i}`, 'must be a string');
  });
  return value as string[];
}

/** POST /admin/quota/rules: {name, limit, subjects?}; a missing or null limit is a bad body. */
export function readCreateRule(body: unknown): RuleDefinition {
  const b = object(body, '');
  const n = name(b.name, '/name');
  if (absent(b.limit)) throw invalidBody('/limit', 'is required (bytes, or -1 for unlimited)');
  return { name: n, limit: limit(b.limit, '/limit'), subjects: absent(b.subjects) ? [] : strings(b.subjects, '/subjects') };
}

/** PATCH /admin/quota/rules/{r}: absent or null = unchanged; [] clears the subjects. */
export function readEditRule(body: unknown): RuleEdit {
  const b = object(body, '');
  const edit: RuleEdit = {};
  if (!absent(b.limit)) edit.limit = limit(b.limit, '/limit');
  if (!absent(b.subjects)) edit.subjects = strings(b.subjects, '/subjects');
  return edit;
}

/** POST /admin/quota/groups: {name, rules?}; a rule's limit is 0 when omitted; a rule name twice is 400. */
export function readCreateGroup(body: unknown): GroupDefinition {
  const b = object(body, '');
  const groupName = name(b.name, '/name');
  if (absent(b.rules)) return { name: groupName, rules: [] };
  if (!Array.isArray(b.rules)) throw invalidBody('/rules', 'must be an array of rule definitions');
  const seen = new Set<string>();
  const rules = b.rules.map((raw, i): RuleDefinition => {
    const r = object(raw, `/rules/${i}`);
    const ruleName = name(r.name, `/rules/${i}/name`);
    // The forge fails this with a 500 (a unique-key clash mid-transaction); it is the caller's mistake.
    if (seen.has(ruleName)) throw invalidBody(`/rules/${i}/name`, `names rule "${ruleName}" a second time`);
    seen.add(ruleName);
    return {
      name: ruleName,
      limit: absent(r.limit) ? 0 : limit(r.limit, `/rules/${i}/limit`),
      subjects: absent(r.subjects) ? [] : strings(r.subjects, `/rules/${i}/subjects`),
    };
  });
  return { name: groupName, rules };
}

/** POST /admin/users/{u}/quota/groups: groups is required, not null, without duplicates. */
export function readSetUserGroups(body: unknown): string[] {
  const b = object(body, '');
  if (absent(b.groups)) throw invalidBody('/groups', 'is required ([] removes the user from every group)');
  const groups = strings(b.groups, '/groups');
  groups.forEach((g, i) => {
    if (g === '') throw invalidBody(`/groups/${i}`, 'must be a non-empty string');
    if (groups.indexOf(g) !== i) throw invalidBody(`/groups/${i}`, `names group "${g}" a second time`);
  });
  return groups;
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
