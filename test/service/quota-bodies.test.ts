// The forge quota request bodies: the readers' verdict (accepted, 400 invalid_body, or a subject to
// refuse with 422) against the published schemas of schemas/quota, case by case, so the documented
// contract and the code cannot drift apart unnoticed.
import t from 'tap';
import { testSchemas } from '../fixtures/templates.ts';
import { AppError } from '../../src/errors.ts';
import { readCreateGroup, readCreateRule, readEditRule, readSetUserGroups, recognisedSubjects } from '../../src/service/quota/quota-bodies.ts';

const registry = testSchemas();
const MAX = Number.MAX_SAFE_INTEGER;

type Verdict = 'ok' | 'invalid_body' | 'unrecognised_subject';

/** The reader, then the subject check the service applies to whatever subjects the body carries. */
function verdict(read: (b: unknown) => unknown, subjectsOf: (v: any) => string[][], body: unknown): Verdict {
  try {
    const value = read(body);
    for (const list of subjectsOf(value)) recognisedSubjects(list, '');
    return 'ok';
  } catch (err) {
    if (err instanceof AppError) return err.code as Verdict;
    throw err;
  }
}

// [body, reader verdict, schema valid?] — the schema cannot say "required here, optional inline" or
// "no rule name twice", so those rows disagree on purpose and say why.
const suites: [string, string, (b: unknown) => unknown, (v: any) => string[][], [unknown, Verdict, boolean, string?][]][] = [
  ['create rule', 'quota/create-rule-options.json', readCreateRule, (v) => [v.subjects], [
    [{ name: 'r', limit: 1, subjects: ['size:all'] }, 'ok', true],
    [{ name: 'r', limit: -1, subjects: null, extra: [1] }, 'ok', true],
    [{ name: 'r', limit: MAX }, 'ok', true],
    [{ name: 'r', limit: MAX + 1 }, 'invalid_body', false],
    [{ name: 'r', limit: -MAX - 1 }, 'invalid_body', false],
    [{ name: 'r', limit: 0.5 }, 'invalid_body', false],
    [{ name: '', limit: 1 }, 'invalid_body', false],
    [{ limit: 1 }, 'invalid_body', false],
    [{ name: 'r', limit: 1, subjects: [2] }, 'invalid_body', false],
    [{ name: 'r', limit: 1, subjects: ['size:x'] }, 'unrecognised_subject', false],
    [{ name: 'r' }, 'invalid_body', true, 'the route requires limit; the schema is shared with inline rules where it is optional'],
    [{ name: 'r', limit: null }, 'invalid_body', true, 'same'],
  ]],
  ['edit rule', 'quota/edit-rule-options.json', readEditRule, (v) => (v.subjects ? [v.subjects] : []), [
    [{}, 'ok', true],
    [{ limit: null, subjects: null, note: 'x' }, 'ok', true],
    [{ subjects: [] }, 'ok', true],
    [{ limit: '1' }, 'invalid_body', false],
    [{ limit: MAX + 1 }, 'invalid_body', false],
    [{ subjects: ['size:repos'] }, 'unrecognised_subject', false],
    [[], 'invalid_body', false],
  ]],
  ['create group', 'quota/create-group-options.json', readCreateGroup, (v) => v.rules.map((r: any) => r.subjects), [
    [{ name: 'g' }, 'ok', true],
    [{ name: 'g', rules: null, other: true }, 'ok', true],
    [{ name: 'g', rules: [{ name: 'a' }, { name: 'b', limit: null, subjects: null }] }, 'ok', true],
    [{ name: 'g', rules: [{ name: 'a', limit: MAX + 1 }] }, 'invalid_body', false],
    [{ name: 'g', rules: [{ limit: 1 }] }, 'invalid_body', false],
    [{ name: 'g', rules: 'a' }, 'invalid_body', false],
    [{ rules: [] }, 'invalid_body', false],
    [{ name: 'g', rules: [{ name: 'a', subjects: ['size:git'] }] }, 'unrecognised_subject', false],
    [{ name: 'g', rules: [{ name: 'a' }, { name: 'a' }] }, 'invalid_body', true, 'a rule named twice is refused (the forge fails with a 500)'],
  ]],
  ['set user groups', 'quota/set-user-groups-options.json', readSetUserGroups, () => [], [
    [{ groups: [] }, 'ok', true],
    [{ groups: ['a', 'b'], extra: 1 }, 'ok', true],
    [{ groups: ['a', 'a'] }, 'invalid_body', false],
    [{ groups: null }, 'invalid_body', false],
    [{}, 'invalid_body', false],
    [{ groups: [''] }, 'invalid_body', false],
    [{ groups: 'a' }, 'invalid_body', false],
  ]],
];

for (const [name, schema, read, subjectsOf, cases] of suites) {
  t.test(name, async (t) => {
    for (const [body, expected, schemaValid, why] of cases) {
      const label = JSON.stringify(body);
      t.equal(verdict(read, subjectsOf, body), expected, `${label}: reader`);
      t.equal(registry.validate(schema, body).length === 0, schemaValid, `${label}: schema${why ? ` (${why})` : ''}`);
      if (why === undefined) t.equal(expected === 'ok', schemaValid, `${label}: reader and schema agree`);
    }
  });
}

t.test('readers return the forge defaults', async (t) => {
  t.strictSame(readCreateRule({ name: 'r', limit: 5, subjects: null }), { name: 'r', limit: 5, subjects: [] });
  t.strictSame(readEditRule({ limit: null, subjects: [] }), { subjects: [] });
  t.strictSame(readCreateGroup({ name: 'g', rules: [{ name: 'a', limit: null }] }), { name: 'g', rules: [{ name: 'a', limit: 0, subjects: [] }] });
  t.strictSame(readSetUserGroups({ groups: ['x'] }), ['x']);
});
