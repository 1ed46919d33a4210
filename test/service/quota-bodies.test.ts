// The forge quota request bodies, read through their schemas in schemas/quota: one row per rule a
// body must keep, with the verdict (accepted, 400 invalid_body naming its pointer, or a subject the
// service refuses with 422 at its place in the order) and whether the schema states the rule or
// the one check beyond it does.
import t, { type Test } from 'tap';
import { testSchemas } from '../fixtures/templates.ts';
import { AppError } from '../../src/errors.ts';
import { readCreateGroup, readCreateRule, readEditRule, readSetUserGroups, recognisedSubjects } from '../../src/service/quota/quota-bodies.ts';
import type { SchemaRegistry } from '../../src/schema-registry.ts';

const registry = testSchemas();
const MAX = Number.MAX_SAFE_INTEGER;

type Verdict = 'ok' | 'unrecognised_subject' | `invalid_body ${string}`;

/** The reader, then the subject check the service applies to whatever subjects the body carries. */
function verdict(t: Test, read: (r: SchemaRegistry, b: unknown) => unknown, subjectsOf: (v: any) => string[][], body: unknown): Verdict {
  try {
    const value = read(registry, body);
    for (const list of subjectsOf(value)) recognisedSubjects(list, '');
    return 'ok';
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    if (err.code === 'invalid_body') {
      const pointer = err.details?.[0]?.pointer ?? '?';
      t.ok(err.message.startsWith(`The request body is not valid: ${pointer || '(root)'} `), `the message names ${pointer || '(root)'}: ${err.message}`);
      return `invalid_body ${pointer}`;
    }
    return err.code as Verdict;
  }
}

// [body, verdict, what says so: the schema, the check beyond it (one rule name twice), or the
// subject check (422)]; 'ok' rows have no rule.
type Row = [unknown, Verdict, ('schema' | 'check' | 'subjects')?];
const suites: [string, string, (r: SchemaRegistry, b: unknown) => unknown, (v: any) => string[][], Row[]][] = [
  ['create rule', 'quota/create-rule-options.json', readCreateRule, (v) => [v.subjects], [
    [{ name: 'r', limit: 1, subjects: ['size:all'] }, 'ok'],
    [{ name: 'r', limit: -1, subjects: null, extra: [1] }, 'ok'],
    [{ name: 'r', limit: MAX }, 'ok'],
    [{ name: 'r', limit: -MAX, subjects: [] }, 'ok'],
    [[{ name: 'r', limit: 1 }], 'invalid_body ', 'schema'],
    [null, 'invalid_body ', 'schema'],
    [{ limit: 1 }, 'invalid_body /name', 'schema'],
    [{ name: null, limit: 1 }, 'invalid_body /name', 'schema'],
    [{ name: '', limit: 1 }, 'invalid_body /name', 'schema'],
    [{ name: 7, limit: 1 }, 'invalid_body /name', 'schema'],
    [{ name: 'r' }, 'invalid_body /limit', 'schema'],
    [{ name: 'r', limit: null }, 'invalid_body /limit', 'schema'],
    [{ name: 'r', limit: '1' }, 'invalid_body /limit', 'schema'],
    [{ name: 'r', limit: 0.5 }, 'invalid_body /limit', 'schema'],
    [{ name: 'r', limit: MAX + 1 }, 'invalid_body /limit', 'schema'],
    [{ name: 'r', limit: -MAX - 1 }, 'invalid_body /limit', 'schema'],
    [{ name: 'r', limit: 1, subjects: 'size:all' }, 'invalid_body /subjects', 'schema'],
    [{ name: 'r', limit: 1, subjects: [2] }, 'invalid_body /subjects/0', 'schema'],
    [{ name: 'r', limit: 1, subjects: ['size:x'] }, 'unrecognised_subject', 'subjects'],
    [{ name: 'r', limit: 'x', subjects: ['size:x'] }, 'invalid_body /limit', 'schema'],
  ]],
  ['edit rule', 'quota/edit-rule-options.json', readEditRule, (v) => (v.subjects ? [v.subjects] : []), [
    [{}, 'ok'],
    [{ limit: null, subjects: null, note: 'x' }, 'ok'],
    [{ subjects: [] }, 'ok'],
    [[], 'invalid_body ', 'schema'],
    [{ limit: '1' }, 'invalid_body /limit', 'schema'],
    [{ limit: 1.5 }, 'invalid_body /limit', 'schema'],
    [{ limit: MAX + 1 }, 'invalid_body /limit', 'schema'],
    [{ subjects: {} }, 'invalid_body /subjects', 'schema'],
    [{ subjects: [null] }, 'invalid_body /subjects/0', 'schema'],
    [{ subjects: ['size:repos'] }, 'unrecognised_subject', 'subjects'],
  ]],
  ['create group', 'quota/create-group-options.json', readCreateGroup, (v) => v.rules.map((r: any) => r.subjects), [
    [{ name: 'g' }, 'ok'],
    [{ name: 'g', rules: null, other: true }, 'ok'],
    [{ name: 'g', rules: [{ name: 'a' }, { name: 'b', limit: null, subjects: null, note: 1 }] }, 'ok'],
    ['g', 'invalid_body ', 'schema'],
    [{ rules: [] }, 'invalid_body /name', 'schema'],
    [{ name: null }, 'invalid_body /name', 'schema'],
    [{ name: '' }, 'invalid_body /name', 'schema'],
    [{ name: 'g', rules: 'a' }, 'invalid_body /rules', 'schema'],
    [{ name: 'g', rules: ['a'] }, 'invalid_body /rules/0', 'schema'],
    [{ name: 'g', rules: [{ limit: 1 }] }, 'invalid_body /rules/0/name', 'schema'],
    [{ name: 'g', rules: [{ name: '' }] }, 'invalid_body /rules/0/name', 'schema'],
    [{ name: 'g', rules: [{ name: 'a', limit: MAX + 1 }] }, 'invalid_body /rules/0/limit', 'schema'],
    [{ name: 'g', rules: [{ name: 'a', limit: 0.5 }] }, 'invalid_body /rules/0/limit', 'schema'],
    [{ name: 'g', rules: [{ name: 'a', subjects: 'size:all' }] }, 'invalid_body /rules/0/subjects', 'schema'],
    [{ name: 'g', rules: [{ name: 'a', subjects: [1] }] }, 'invalid_body /rules/0/subjects/0', 'schema'],
    [{ name: 'g', rules: [{ name: 'a', subjects: ['size:git'] }] }, 'unrecognised_subject', 'subjects'],
    [{ name: 'g', rules: [{ name: 'a' }, { name: 'b' }, { name: 'a' }] }, 'invalid_body /rules/2/name', 'check'],
  ]],
  ['set user groups', 'quota/set-user-groups-options.json', readSetUserGroups, () => [], [
    [{ groups: [] }, 'ok'],
    [{ groups: ['a', 'b'], extra: 1 }, 'ok'],
    [[], 'invalid_body ', 'schema'],
    [{}, 'invalid_body /groups', 'schema'],
    [{ groups: null }, 'invalid_body /groups', 'schema'],
    [{ groups: 'a' }, 'invalid_body /groups', 'schema'],
    [{ groups: [1] }, 'invalid_body /groups/0', 'schema'],
    [{ groups: [''] }, 'invalid_body /groups/0', 'schema'],
    [{ groups: ['a', 'b', 'a'] }, 'invalid_body /groups/2', 'schema'],
  ]],
];

for (const [name, schema, read, subjectsOf, rows] of suites) {
  t.test(name, async (t) => {
    for (const [body, expected, by] of rows) {
      const label = JSON.stringify(body);
      t.equal(verdict(t, read, subjectsOf, body), expected, `${label}: verdict`);
      // The schema refuses everything but the check beyond it; a 422 subject is in its enum too.
      t.equal(registry.validate(schema, body).length === 0, by === undefined || by === 'check', `${label}: ${by ?? 'accepted'}`);
    }
  });
}

t.test('what a bad body says', async (t) => {
  const said = (read: () => unknown) => {
    try {
      read();
    } catch (err) {
      return (err as AppError).message;
    }
    return 'accepted';
  };
  t.equal(said(() => readCreateRule(registry, { name: 'r', limit: MAX + 1 })), `The request body is not valid: /limit must be <= ${MAX}, found a number beyond ±(2^53 − 1), which is not read exactly. Fix it and send it again.`);
  t.equal(said(() => readCreateRule(registry, { name: 'r' })), 'The request body is not valid: /limit required member "limit" is missing. Fix it and send it again.');
  t.equal(said(() => readSetUserGroups(registry, { groups: ['g', 'g'] })), 'The request body is not valid: /groups/1 "g" is listed twice (also at /groups/0). Fix it and send it again.');
  t.equal(said(() => readCreateGroup(registry, { name: 'g', rules: [{ name: 'a' }, { name: 'a' }] })), 'The request body is not valid: /rules/1/name names rule "a" a second time. Fix it and send it again.');
  t.equal(said(() => readEditRule(registry, { limit: 1, subjects: ['size:all', 'size:x'] })), 'accepted', 'a subject is left for the 422 check');
});

t.test('readers return the forge defaults', async (t) => {
  t.strictSame(readCreateRule(registry, { name: 'r', limit: 5, subjects: null, x: 1 }), { name: 'r', limit: 5, subjects: [] });
  t.strictSame(readEditRule(registry, { limit: null, subjects: [] }), { subjects: [] });
  t.strictSame(readEditRule(registry, { limit: 0 }), { limit: 0 });
  t.strictSame(readCreateGroup(registry, { name: 'g', rules: [{ name: 'a', limit: null }] }), { name: 'g', rules: [{ name: 'a', limit: 0, subjects: [] }] });
  t.strictSame(readSetUserGroups(registry, { groups: ['x'] }), ['x']);
});
