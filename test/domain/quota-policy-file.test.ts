// POLICY.json and USAGE.json of `gov quota eval`: the fixtures parse; each broken file (one field
// of a valid fixture changed) is a bad_input_file naming file, pointer and line; and the JSON
// Schemas in schemas/cli agree with the parsers on every structural case.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { AppError } from '../../src/errors.ts';
import { loadSchemaRegistry } from '../../src/schema-registry.ts';
import { parsePolicyFile } from '../../src/domain/quota/policy-file.ts';
import { parseUsageFile } from '../../src/domain/quota/usage-file.ts';
import { zeroPrimitives } from '../../src/domain/quota/subjects.ts';

const root = new URL('../../', import.meta.url);
const text = (path: string) => readFileSync(new URL(path, root), 'utf8');
const POLICY = JSON.parse(text('fixtures/quota/policy.json')) as Record<string, any>;
const USED = JSON.parse(text('fixtures/quota/usage.json')) as Record<string, any>;
const FORGE = JSON.parse(text('fixtures/forge/default.json')) as Record<string, any>;
const registry = loadSchemaRegistry(fileURLToPath(new URL('schemas', root)));

const edit = <T>(value: T, change: (v: any) => void): string => {
  const copy = structuredClone(value);
  change(copy);
  return JSON.stringify(copy, null, 2);
};

function failure(run: () => unknown): AppError {
  try {
    run();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('accepted');
}

t.test('the policy fixture', async (t) => {
  const policy = parsePolicyFile(text('fixtures/quota/policy.json'), 'policy.json');
  t.same(policy.groups.map((g) => [g.name, g.rules.map((r) => r.name)]), [
    ['basic', ['total-5mib', 'lfs-1mib']],
    ['small', ['total-1mib']],
    ['team', ['team-total', 'team-artifacts']],
  ]);
  t.same(policy.rules.map((r) => r.name), ['total-5mib', 'lfs-1mib', 'total-1mib', 'team-total', 'team-artifacts']);
  t.same(policy.assignments, { bob: ['small'], 'acme-org': ['team'], dave: ['team'] });
  t.same(policy.defaultGroups, ['basic', 'missing-group']);
  t.equal(policy.defaultTotal, 1073741824);
  t.same(policy.groups[2]!.rules[1], { name: 'team-artifacts', limit: 1073741824, subjects: ['size:assets:artifacts', 'size:assets:packages:all'] });
});

t.test('policy: absent and null members take their defaults', async (t) => {
  t.strictSame(parsePolicyFile('{}', 'p.json'), { rules: [], groups: [], assignments: {}, defaultGroups: [], defaultTotal: -1 });
  const p = parsePolicyFile(
    JSON.stringify({ rules: null, groups: [{ name: 'g', rules: [{ name: 'r', limit: null, subjects: null }, { name: 's' }] }, { name: 'h', rules: null }], assignments: null, default_groups: null, default_total: null }),
    'p.json',
  );
  t.strictSame(p.groups, [{ name: 'g', rules: [{ name: 'r', limit: 0, subjects: [] }, { name: 's', limit: 0, subjects: [] }] }, { name: 'h', rules: [] }]);
  const later = parsePolicyFile(JSON.stringify({ groups: [{ name: 'a', rules: ['x'] }, { name: 'b', rules: [{ name: 'x', limit: 5, subjects: ['none'] }] }] }), 'p.json');
  t.same(later.groups[0]!.rules, [{ name: 'x', limit: 5, subjects: ['none'] }], 'a name may refer to an inline rule of a later group');
  const same = parsePolicyFile(JSON.stringify({ rules: [{ name: 'x', limit: 5 }], groups: [{ name: 'a', rules: [{ name: 'x', limit: 5 }] }] }), 'p.json');
  t.equal(same.rules.length, 1, 'an identical inline repeat of a rule is the same rule');
});

// [name, change, pointer, schema agrees (structural) or not (semantic, beyond the schema)]
const brokenPolicies: [string, (p: any) => void, string, boolean][] = [
  ['unknown top-level member', (p) => (p.default_group = ['basic']), '/default_group', true],
  ['rules not an array', (p) => (p.rules = {}), '/rules', true],
  ['rule without a limit', (p) => delete p.rules[1].limit, '/rules/1/limit', true],
  ['rule limit a string', (p) => (p.rules[0].limit = '5MiB'), '/rules/0/limit', true],
  ['rule limit a fraction', (p) => (p.rules[0].limit = 1.5), '/rules/0/limit', true],
  ['rule limit beyond 2^53−1', (p) => (p.rules[0].limit = 2 ** 53), '/rules/0/limit', true],
  ['rule limit below −(2^53−1)', (p) => (p.rules[0].limit = -(2 ** 53)), '/rules/0/limit', true],
  ['unrecognised subject', (p) => (p.rules[1].subjects = ['size:git:lfs', 'size:lfs']), '/rules/1/subjects/1', true],
  ['unknown member in a rule', (p) => (p.rules[0].limits = 5), '/rules/0/limits', true],
  ['empty rule name', (p) => (p.rules[0].name = ''), '/rules/0/name', true],
  ['group without a name', (p) => delete p.groups[1].name, '/groups/1/name', true],
  ['unrecognised subject in an inline rule', (p) => (p.groups[2].rules[0].subjects = ['size:everything']), '/groups/2/rules/0/subjects/0', true],
  ['default_total below -1', (p) => (p.default_total = -2), '/default_total', true],
  ['default_total a string', (p) => (p.default_total = '1GiB'), '/default_total', true],
  ['assignment not a list', (p) => (p.assignments.bob = 'small'), '/assignments/bob', true],
  ['group listed twice for a user', (p) => (p.assignments.bob = ['small', 'small']), '/assignments/bob/1', true],
  ['default group not a string', (p) => (p.default_groups = ['basic', 7]), '/default_groups/1', true],
  ['duplicate top-level rule name', (p) => p.rules.push({ name: 'lfs-1mib', limit: 1 }), '/rules/3/name', false],
  ['inline rule redefining a rule differently', (p) => (p.groups[2].rules[0] = { name: 'total-5mib', limit: 1, subjects: ['size:all'] }), '/groups/2/rules/0', false],
  ['rule name not defined', (p) => p.groups[0].rules.push('nowhere'), '/groups/0/rules/2', false],
  ['rule twice in one group', (p) => p.groups[1].rules.push('total-1mib'), '/groups/1/rules/1', false],
  ['group defined twice', (p) => p.groups.push({ name: 'small', rules: [] }), '/groups/3/name', false],
  ['assignment to an undefined group', (p) => (p.assignments.dave = ['team', 'premium']), '/assignments/dave/1', false],
  ['user assigned twice in other case', (p) => (p.assignments.BOB = ['team']), '/assignments/BOB', false],
];

t.test('broken policy files', async (t) => {
  for (const [name, change, pointer, structural] of brokenPolicies) {
    const body = edit(POLICY, change);
    const err = failure(() => parsePolicyFile(body, 'fixtures/quota/policy.json'));
    t.equal(err.code, 'bad_input_file', `${name}: code`);
    t.equal(err.details?.[0]?.pointer, pointer, `${name}: pointer`);
    const line = (err.extra as { line?: number }).line;
    t.type(line, 'number', `${name}: line known`);
    t.ok(err.message.startsWith(`fixtures/quota/policy.json: ${pointer} (line ${line}): `), `${name}: message names file, pointer and line`);
    const schemaErrors = registry.validate('cli/quota-policy.json', JSON.parse(body));
    t.equal(schemaErrors.length > 0, structural, `${name}: the schema ${structural ? 'refuses' : 'leaves it to the parser'}`);
  }
  t.same(registry.validate('cli/quota-policy.json', POLICY), [], 'the schema accepts the fixture');
});

t.test('the line of a problem is the line of the member in the file', async (t) => {
  const body = '{\n  "rules": [\n    {"name": "a", "limit": 1},\n    {"name": "b",\n     "limit": "x"}\n  ]\n}\n';
  const err = failure(() => parsePolicyFile(body, 'p.json'));
  t.same(err.extra, { file: 'p.json', pointer: '/rules/1/limit', line: 5 });
});

t.test('JSON syntax errors name the file, line and column', async (t) => {
  const syntax: [string, string, number, number][] = [
    ['trailing comma', '{\n  "rules": [],\n}\n', 3, 1],
    ['missing value', '{\n  "default_total": \n}', 3, 1],
    ['truncated', '{\n  "groups": [\n', 3, 1],
    ['single quotes', "{\n\n  'rules': []\n}", 3, 3],
    ['garbage after the value', '{}\n{}', 2, 1],
    ['empty file', '', 1, 1],
  ];
  for (const [name, body, line, column] of syntax) {
    const err = failure(() => parsePolicyFile(body, 'broken.json'));
    t.equal(err.code, 'bad_input_file', name);
    t.same(err.extra, { file: 'broken.json', pointer: '', line, column }, `${name}: position`);
    t.ok(err.message.startsWith(`broken.json:${line}:${column}: not valid JSON: `), `${name}: message`);
  }
});

t.test('usage: a used map', async (t) => {
  const usage = parseUsageFile(text('fixtures/quota/usage.json'), 'usage.json');
  t.equal(usage.format, 'used_map');
  t.same([...usage.owners.keys()], ['alice', 'bob', 'acme-org']);
  t.strictSame(usage.owners.get('bob'), {
    login: 'bob',
    kind: 'owner',
    usage: { reposPublic: 524288, reposPrivate: 131072, gitLfs: 2097152, attachmentsIssues: 0, attachmentsReleases: 65536, artifacts: 0, packagesAll: 8192 },
  });
  const partial = parseUsageFile('{"Repos": {"size": {"git": {"LFS": 5}}}, "x": {}}', 'u.json');
  t.strictSame(partial.owners.get('repos'), { login: 'Repos', kind: 'owner', usage: { ...zeroPrimitives(), gitLfs: 5 } }, 'absent members are 0; an owner may be named "Repos"');
  t.strictSame(partial.owners.get('x')!.usage, zeroPrimitives());
});

t.test('usage: a forge data set', async (t) => {
  const usage = parseUsageFile(text('fixtures/forge/default.json'), 'default.json');
  t.equal(usage.format, 'forge_data');
  t.same([...usage.owners.keys()], ['forge-admin', 'alice', 'bob', 'carol', 'acme-org']);
  t.same(usage.owners.get('acme-org')!.kind, 'org');
  t.equal(usage.owners.get('alice')!.usage.artifacts, 4096, 'the expired artifact is not counted');
  t.equal(parseUsageFile('{}', 'u.json').owners.size, 0);
  t.same(registry.validate('cli/quota-usage.json', FORGE), []);
  t.same(registry.validate('quota/forge-data.json', FORGE), []);
  t.same(registry.validate('cli/quota-usage.json', USED), []);
});

const brokenUsage: [string, object, (u: any) => void, string, boolean][] = [
  ['used: unknown member (a typo is not a zero)', USED, (u) => (u.alice.size.repos.privat = 1), '/alice/size/repos/privat', true],
  ['used: negative size', USED, (u) => (u.bob.size.git.LFS = -1), '/bob/size/git/LFS', true],
  ['used: size beyond 2^53−1', USED, (u) => (u.bob.size.git.LFS = 2 ** 53), '/bob/size/git/LFS', true],
  ['used: size a string', USED, (u) => (u.bob.size.assets.artifacts = '1'), '/bob/size/assets/artifacts', true],
  ['used: owner not an object', USED, (u) => (u.carol = 5), '/carol', true],
  ['used: owner twice in other case', USED, (u) => (u.ALICE = {}), '/ALICE', false],
  ['forge: unknown list', FORGE, (f) => (f.teams = []), '/teams', true],
  ['forge: repo without size', FORGE, (f) => delete f.repos[2].size, '/repos/2/size', true],
  ['forge: attachment kind', FORGE, (f) => (f.attachments[0].kind = 'comment'), '/attachments/0/kind', true],
  ['forge: artifact expired not boolean', FORGE, (f) => (f.artifacts[1].expired = 'yes'), '/artifacts/1/expired', true],
  ['forge: repo reference without owner', FORGE, (f) => (f.artifacts[0].repo = 'app'), '/artifacts/0/repo', true],
  ['forge: unknown member in a package', FORGE, (f) => (f.packages[0].sha = 'x'), '/packages/0/sha', true],
  ['forge: unknown repository', FORGE, (f) => (f.attachments[3].repo = 'bob/nope'), '/attachments/3/repo', false],
  ['forge: unknown owner', FORGE, (f) => (f.repos[0].owner = 'mallory'), '/repos/0/owner', false],
];

t.test('broken usage files', async (t) => {
  for (const [name, base, change, pointer, structural] of brokenUsage) {
    const body = edit(base, change);
    const err = failure(() => parseUsageFile(body, 'usage.json'));
    t.equal(err.code, 'bad_input_file', `${name}: code`);
    t.equal(err.details?.[0]?.pointer, pointer, `${name}: pointer`);
    const line = (err.extra as { line?: number }).line;
    t.type(line, 'number', `${name}: line known`);
    t.ok(err.message.startsWith(`usage.json: ${pointer} (line ${line}): `), `${name}: message names file, pointer and line`);
    t.equal(registry.validate('cli/quota-usage.json', JSON.parse(body)).length > 0, structural, `${name}: schema agrees`);
  }
  const err = failure(() => parseUsageFile('[]', 'usage.json'));
  t.same([err.code, err.details?.[0]?.pointer], ['bad_input_file', '']);
});
