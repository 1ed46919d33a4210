// POLICY.json and USAGE.json of `gov quota eval`: the fixtures parse; each broken file (one field
// of a valid fixture changed) is a bad_input_file naming the file, the pointer and its line:column;
// one row per rule the files must keep, each saying whether the schema in schemas/cli states it or
// the check after the schema (a rule that compares one part of the file with another) does.
import t, { type Test } from 'tap';
import { readFileSync } from 'node:fs';
import { AppError } from '../../src/errors.ts';
import { unescapePointer } from '../../src/domain/json-pointer.ts';
import { zeroPrimitives } from '../../src/domain/quota/subjects.ts';
import { parsePolicyFile, parseUsageFile } from '../../src/service/quota/quota-files.ts';
import { testSchemas } from '../fixtures/templates.ts';

const root = new URL('../../', import.meta.url);
const text = (path: string) => readFileSync(new URL(path, root), 'utf8');
const POLICY = JSON.parse(text('fixtures/quota/policy.json')) as Record<string, any>;
const USED = JSON.parse(text('fixtures/quota/usage.json')) as Record<string, any>;
const FORGE = JSON.parse(text('fixtures/forge/default.json')) as Record<string, any>;
const registry = testSchemas();
const MAX = Number.MAX_SAFE_INTEGER;
const policyOf = (body: string, file = 'p.json') => parsePolicyFile(registry, body, file);
const usageOf = (body: string, file = 'u.json') => parseUsageFile(registry, body, file);

const WHOLE = Symbol('whole');
/** A change that replaces the whole file. */
const whole = (replacement: unknown) => () => ({ [WHOLE]: replacement });

/** A copy of `value` changed in place by `change` (or replaced by `whole`), as a file. */
const edit = <T>(value: T, change: (v: any) => unknown): string => {
  const copy = structuredClone(value);
  const result = change(copy);
  const replaced = typeof result === 'object' && result !== null && WHOLE in result ? result[WHOLE] : copy;
  return JSON.stringify(replaced, null, 2);
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

const valueAt = (value: unknown, tokens: string[]) =>
  tokens.reduce<unknown>((v, k) => (v !== null && typeof v === 'object' && Object.hasOwn(v, k) ? (v as any)[k] : undefined), value);

/**
 * What the text says at a reported line:column: a member's name, an item's first character, or
 * — for a member that is missing — the same for its nearest present parent.
 */
function expectedStart(value: unknown, pointer: string): string {
  const tokens = pointer === '' ? [] : pointer.slice(1).split('/').map(unescapePointer);
  for (let n = tokens.length; n > 0; n--) {
    const parent = valueAt(value, tokens.slice(0, n - 1));
    const key = tokens[n - 1]!;
    if (parent === null || typeof parent !== 'object' || !Object.hasOwn(parent, key)) continue;
    return Array.isArray(parent) ? JSON.stringify((parent as any)[key]).slice(0, 1) : `${JSON.stringify(key)}:`;
  }
  return JSON.stringify(value).slice(0, 1);
}

/** The file, pointer, line and column a bad file names, each checked against the text itself. */
function checkNamed(t: Test, err: AppError, file: string, body: string, pointer: string, name: string) {
  t.equal(err.code, 'bad_input_file', `${name}: code`);
  t.equal(err.details?.[0]?.pointer, pointer, `${name}: pointer`);
  const { line, column } = err.extra as { line: number; column: number };
  t.match(err.extra, { file, pointer, line: Number, column: Number }, `${name}: extra`);
  t.ok(err.message.startsWith(`${file}: ${pointer || '(root)'} (line ${line}, column ${column}): `), `${name}: message names file, pointer, line and column: ${err.message}`);
  const at = body.split('\n')[line - 1]?.slice(column - 1) ?? '';
  t.ok(at.startsWith(expectedStart(JSON.parse(body), pointer)), `${name}: line ${line} column ${column} is where ${pointer || '(root)'} is: ${at}`);
}

t.test('the policy fixture', async (t) => {
  const policy = policyOf(text('fixtures/quota/policy.json'));
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
  t.strictSame(policyOf('{}'), { rules: [], groups: [], assignments: Object.create(null) as object, defaultGroups: [], defaultTotal: -1 });
  const p = policyOf(
    JSON.stringify({ rules: null, groups: [{ name: 'g', rules: [{ name: 'r', limit: null, subjects: null }, { name: 's' }] }, { name: 'h', rules: null }], assignments: null, default_groups: null, default_total: null }),
  );
  t.strictSame(p.groups, [{ name: 'g', rules: [{ name: 'r', limit: 0, subjects: [] }, { name: 's', limit: 0, subjects: [] }] }, { name: 'h', rules: [] }]);
  const later = policyOf(JSON.stringify({ groups: [{ name: 'a', rules: ['x'] }, { name: 'b', rules: [{ name: 'x', limit: 5, subjects: ['none'] }] }] }));
  t.same(later.groups[0]!.rules, [{ name: 'x', limit: 5, subjects: ['none'] }], 'a name may refer to an inline rule of a later group');
  const same = policyOf(JSON.stringify({ rules: [{ name: 'x', limit: 5 }], groups: [{ name: 'a', rules: [{ name: 'x', limit: 5 }] }] }));
  t.equal(same.rules.length, 1, 'an identical inline repeat of a rule is the same rule');
  t.equal(policyOf(JSON.stringify({ default_total: MAX, rules: [{ name: 'x', limit: -MAX }] })).defaultTotal, MAX, 'the exact extremes');
  t.equal(policyOf(`\uFEFF${JSON.stringify({ default_total: 5 })}`).defaultTotal, 5, 'a byte-order mark is harmless');
});

type By = 'schema' | 'check';

// [rule, change, pointer, who states it: the schema, or the check after it]
const brokenPolicies: [string, (p: any) => unknown, string, By][] = [
  ['the file is an object', whole(['rules']), '', 'schema'],
  ['unknown top-level member', (p) => (p.default_group = ['basic']), '/default_group', 'schema'],
  ['rules not an array', (p) => (p.rules = {}), '/rules', 'schema'],
  ['rule not an object', (p) => (p.rules[0] = 'total-5mib'), '/rules/0', 'schema'],
  ['unknown member in a rule', (p) => (p.rules[0].limits = 5), '/rules/0/limits', 'schema'],
  ['rule without a name', (p) => delete p.rules[0].name, '/rules/0/name', 'schema'],
  ['empty rule name', (p) => (p.rules[0].name = ''), '/rules/0/name', 'schema'],
  ['rule name not a string', (p) => (p.rules[0].name = 5), '/rules/0/name', 'schema'],
  ['rule without a limit', (p) => delete p.rules[1].limit, '/rules/1/limit', 'schema'],
  ['rule limit null', (p) => (p.rules[1].limit = null), '/rules/1/limit', 'schema'],
  ['rule limit a string', (p) => (p.rules[0].limit = '5MiB'), '/rules/0/limit', 'schema'],
  ['rule limit a fraction', (p) => (p.rules[0].limit = 1.5), '/rules/0/limit', 'schema'],
  ['rule limit beyond 2^53−1', (p) => (p.rules[0].limit = 2 ** 53), '/rules/0/limit', 'schema'],
  ['rule limit below −(2^53−1)', (p) => (p.rules[0].limit = -(2 ** 53)), '/rules/0/limit', 'schema'],
  ['subjects not an array', (p) => (p.rules[1].subjects = 'size:git:lfs'), '/rules/1/subjects', 'schema'],
  ['subject not a string', (p) => (p.rules[1].subjects = [3]), '/rules/1/subjects/0', 'schema'],
  ['unrecognised subject', (p) => (p.rules[1].subjects = ['size:git:lfs', 'size:lfs']), '/rules/1/subjects/1', 'schema'],
  ['groups not an array', (p) => (p.groups = {}), '/groups', 'schema'],
  ['group not an object', (p) => (p.groups[1] = 'small'), '/groups/1', 'schema'],
  ['unknown member in a group', (p) => (p.groups[0].limit = 1), '/groups/0/limit', 'schema'],
  ['group without a name', (p) => delete p.groups[1].name, '/groups/1/name', 'schema'],
  ['empty group name', (p) => (p.groups[1].name = ''), '/groups/1/name', 'schema'],
  ['group rules not an array', (p) => (p.groups[1].rules = 'total-1mib'), '/groups/1/rules', 'schema'],
  ['group rule neither a name nor a rule', (p) => (p.groups[1].rules = [7]), '/groups/1/rules/0', 'schema'],
  ['group rule an empty name', (p) => (p.groups[1].rules = ['']), '/groups/1/rules/0', 'schema'],
  ['inline rule without a name', (p) => delete p.groups[2].rules[0].name, '/groups/2/rules/0/name', 'schema'],
  ['unknown member in an inline rule', (p) => (p.groups[2].rules[1].size = 1), '/groups/2/rules/1/size', 'schema'],
  ['inline rule limit beyond 2^53−1', (p) => (p.groups[2].rules[1].limit = 2 ** 53), '/groups/2/rules/1/limit', 'schema'],
  ['unrecognised subject in an inline rule', (p) => (p.groups[2].rules[0].subjects = ['size:everything']), '/groups/2/rules/0/subjects/0', 'schema'],
  ['assignments not an object', (p) => (p.assignments = [['bob', 'small']]), '/assignments', 'schema'],
  ['empty username', (p) => (p.assignments[''] = ['small']), '/assignments', 'schema'],
  ['assignment not a list', (p) => (p.assignments.bob = 'small'), '/assignments/bob', 'schema'],
  ['assigned group not a string', (p) => (p.assignments.bob = [1]), '/assignments/bob/0', 'schema'],
  ['assigned group an empty name', (p) => (p.assignments.bob = ['']), '/assignments/bob/0', 'schema'],
  ['group listed twice for a user', (p) => (p.assignments.bob = ['small', 'small']), '/assignments/bob/1', 'schema'],
  ['default_groups not an array', (p) => (p.default_groups = 'basic'), '/default_groups', 'schema'],
  ['default group not a string', (p) => (p.default_groups = ['basic', 7]), '/default_groups/1', 'schema'],
  ['default group an empty name', (p) => (p.default_groups = ['']), '/default_groups/0', 'schema'],
  ['default_total below -1', (p) => (p.default_total = -2), '/default_total', 'schema'],
  ['default_total a string', (p) => (p.default_total = '1GiB'), '/default_total', 'schema'],
  ['default_total a fraction', (p) => (p.default_total = 0.5), '/default_total', 'schema'],
  ['default_total beyond 2^53−1', (p) => (p.default_total = 2 ** 53), '/default_total', 'schema'],
  ['duplicate top-level rule name', (p) => p.rules.push({ name: 'lfs-1mib', limit: 1 }), '/rules/3/name', 'check'],
  ['inline rule redefining a rule differently', (p) => (p.groups[2].rules[0] = { name: 'total-5mib', limit: 1, subjects: ['size:all'] }), '/groups/2/rules/0', 'check'],
  ['rule name not defined', (p) => p.groups[0].rules.push('nowhere'), '/groups/0/rules/2', 'check'],
  ['rule twice in one group', (p) => p.groups[1].rules.push('total-1mib'), '/groups/1/rules/1', 'check'],
  ['group defined twice', (p) => p.groups.push({ name: 'small', rules: [] }), '/groups/3/name', 'check'],
  ['assignment to an undefined group', (p) => (p.assignments.dave = ['team', 'premium']), '/assignments/dave/1', 'check'],
  ['user assigned twice in other case', (p) => (p.assignments.BOB = ['team']), '/assignments/BOB', 'check'],
];

t.test('broken policy files', async (t) => {
  for (const [name, change, pointer, by] of brokenPolicies) {
    const body = edit(POLICY, change);
    checkNamed(t, failure(() => policyOf(body, 'fixtures/quota/policy.json')), 'fixtures/quota/policy.json', body, pointer, name);
    const schemaErrors = registry.validate('cli/quota-policy.json', JSON.parse(body));
    t.equal(schemaErrors.length > 0, by === 'schema', `${name}: ${by === 'schema' ? 'the schema states it' : 'checked after the schema'}`);
  }
  t.same(registry.validate('cli/quota-policy.json', POLICY), [], 'the schema accepts the fixture');
});

t.test('what a bad policy file says', async (t) => {
  const body = '{\n  "rules": [\n    {"name": "a", "limit": 1},\n    {"name": "b",\n     "limit": "x"}\n  ]\n}\n';
  const err = failure(() => policyOf(body));
  t.strictSame(err.extra, { file: 'p.json', pointer: '/rules/1/limit', line: 5, column: 6 });
  t.equal(err.message, 'p.json: /rules/1/limit (line 5, column 6): must be integer, found "x". Fix the file and run the command again.');
  const missing = failure(() => policyOf('{\n  "rules": [\n    {"name": "a",\n     "subjects": []}\n  ]\n}\n'));
  t.strictSame(missing.extra, { file: 'p.json', pointer: '/rules/0/limit', line: 3, column: 5 }, 'a missing member: the object that lacks it');
  t.match(missing.message, /required member "limit" is missing/);
  const subject = failure(() => policyOf('{"rules": [{"name": "r", "limit": 1, "subjects": ["size:lfs"]}]}'));
  t.match(subject.message, /^p\.json: \/rules\/0\/subjects\/0 \(line 1, column 51\): unrecognised subject "size:lfs"\./);
  const twice = failure(() => policyOf('{"assignments": {"bob": ["a", "b", "a"]}}'));
  t.match(twice.message, /\/assignments\/bob\/2 .*: "a" is listed twice \(also at \/assignments\/bob\/0\)/);
  const many = failure(() => policyOf('{\n"default_total": "x",\n"rules": [{"name": 1, "limit": 1}]\n}'));
  t.same(many.details?.map((d) => d.pointer), ['/default_total', '/rules/0/name'], 'every problem is listed, in the order of the file');
  t.equal((many.extra as { line: number }).line, 2, 'the first in the file is named');
});

t.test('JSON syntax errors name the file, line and column', async (t) => {
  const syntax: [string, string, number, number, RegExp][] = [
    ['trailing comma', '{\n  "rules": [],\n}\n', 3, 1, /expected a member name in double quotes, found "}"/],
    ['missing value', '{\n  "default_total": \n}', 3, 1, /expected a value, found "}"/],
    ['truncated', '{\n  "groups": [\n', 3, 1, /found the end of the file/],
    ['single quotes', "{\n\n  'rules': []\n}", 3, 3, /found "'rules'"/],
    ['garbage after the value', '{}\n{}', 2, 1, /unexpected content after the JSON value/],
    ['empty file', '', 1, 1, /expected a value, found the end of the file/],
    ['a comment', '{\n  "rules": [] // none\n}', 2, 15, /comments are not JSON/],
    ['a control character', '{"default_groups": ["a\u0001"]}', 1, 21, /control character/],
  ];
  for (const [name, body, line, column, reason] of syntax) {
    const err = failure(() => policyOf(body, 'broken.json'));
    t.equal(err.code, 'bad_input_file', name);
    t.same(err.extra, { file: 'broken.json', pointer: '', line, column }, `${name}: position`);
    t.ok(err.message.startsWith(`broken.json:${line}:${column}: not valid JSON: `), `${name}: message`);
    t.match(err.message, reason, `${name}: reason`);
  }
});

t.test('usage: a used map', async (t) => {
  const usage = usageOf(text('fixtures/quota/usage.json'));
  t.equal(usage.format, 'used_map');
  t.same([...usage.owners.keys()], ['alice', 'bob', 'acme-org']);
  t.strictSame(usage.owners.get('bob'), {
    login: 'bob',
    kind: 'owner',
    usage: { reposPublic: 524288, reposPrivate: 131072, gitLfs: 2097152, attachmentsIssues: 0, attachmentsReleases: 65536, artifacts: 0, packagesAll: 8192 },
  });
  const partial = usageOf('{"Repos": {"size": {"git": {"LFS": 5}}}, "x": {}}');
  t.strictSame(partial.owners.get('repos'), { login: 'Repos', kind: 'owner', usage: { ...zeroPrimitives(), gitLfs: 5 } }, 'absent members are 0; an owner may be named "Repos"');
  t.strictSame(partial.owners.get('x')!.usage, zeroPrimitives());
});

t.test('usage: a forge data set', async (t) => {
  const usage = usageOf(text('fixtures/forge/default.json'));
  t.equal(usage.format, 'forge_data');
  t.same([...usage.owners.keys()], ['forge-admin', 'alice', 'bob', 'carol', 'acme-org']);
  t.same(usage.owners.get('acme-org')!.kind, 'org');
  t.equal(usage.owners.get('alice')!.usage.artifacts, 4096, 'the expired artifact is not counted');
  t.equal(usageOf('{}').owners.size, 0);
  t.equal(usageOf('{"users": []}').format, 'forge_data');
  t.same(registry.validate('cli/quota-usage.json', FORGE), []);
  t.same(registry.validate('quota/forge-data.json', FORGE), []);
  t.same(registry.validate('cli/quota-usage.json', USED), []);
});

const brokenUsage: [string, object, (u: any) => unknown, string, By][] = [
  ['the file is an object', USED, whole([USED]), '', 'schema'],
  ['used: owner not an object', USED, (u) => (u.carol = 5), '/carol', 'schema'],
  ['used: empty owner name', USED, (u) => (u[''] = {}), '', 'schema'],
  ['used: unknown member of used', USED, (u) => (u.alice.sizes = {}), '/alice/sizes', 'schema'],
  ['used: size not an object', USED, (u) => (u.alice.size = 5), '/alice/size', 'schema'],
  ['used: unknown member of size', USED, (u) => (u.alice.size.wiki = 1), '/alice/size/wiki', 'schema'],
  ['used: unknown member (a typo is not a zero)', USED, (u) => (u.alice.size.repos.privat = 1), '/alice/size/repos/privat', 'schema'],
  ['used: unknown member of git', USED, (u) => (u.bob.size.git.lfs = 1), '/bob/size/git/lfs', 'schema'],
  ['used: unknown member of assets', USED, (u) => (u.bob.size.assets.wiki = 1), '/bob/size/assets/wiki', 'schema'],
  ['used: unknown member of attachments', USED, (u) => (u.bob.size.assets.attachments.comments = 1), '/bob/size/assets/attachments/comments', 'schema'],
  ['used: unknown member of packages', USED, (u) => (u.bob.size.assets.packages.npm = 1), '/bob/size/assets/packages/npm', 'schema'],
  ['used: negative size', USED, (u) => (u.bob.size.git.LFS = -1), '/bob/size/git/LFS', 'schema'],
  ['used: size beyond 2^53−1', USED, (u) => (u.bob.size.git.LFS = 2 ** 53), '/bob/size/git/LFS', 'schema'],
  ['used: size a string', USED, (u) => (u.bob.size.assets.artifacts = '1'), '/bob/size/assets/artifacts', 'schema'],
  ['used: size a fraction', USED, (u) => (u.bob.size.repos.public = 0.5), '/bob/size/repos/public', 'schema'],
  ['used: owner twice in other case', USED, (u) => (u.ALICE = {}), '/ALICE', 'check'],
  ['forge: unknown list', FORGE, (f) => (f.teams = []), '/teams', 'schema'],
  ['forge: list not an array', FORGE, (f) => (f.users = {}), '/users', 'schema'],
  ['forge: user not an object', FORGE, (f) => (f.users[1] = 'alice'), '/users/1', 'schema'],
  ['forge: user without a login', FORGE, (f) => delete f.users[1].login, '/users/1/login', 'schema'],
  ['forge: empty login', FORGE, (f) => (f.users[1].login = ''), '/users/1/login', 'schema'],
  ['forge: full name not a string', FORGE, (f) => (f.users[1].full_name = 1), '/users/1/full_name', 'schema'],
  ['forge: is_admin not boolean', FORGE, (f) => (f.users[0].is_admin = 'yes'), '/users/0/is_admin', 'schema'],
  ['forge: unknown member of a user', FORGE, (f) => (f.users[0].email = 'x'), '/users/0/email', 'schema'],
  ['forge: organisation without owners', FORGE, (f) => delete f.orgs[0].owners, '/orgs/0/owners', 'schema'],
  ['forge: organisation owner not a string', FORGE, (f) => (f.orgs[0].owners = [1]), '/orgs/0/owners/0', 'schema'],
  ['forge: repo without a name', FORGE, (f) => delete f.repos[1].name, '/repos/1/name', 'schema'],
  ['forge: repo private not boolean', FORGE, (f) => (f.repos[1].private = 1), '/repos/1/private', 'schema'],
  ['forge: repo without size', FORGE, (f) => delete f.repos[2].size, '/repos/2/size', 'schema'],
  ['forge: repo lfs_size a fraction', FORGE, (f) => (f.repos[2].lfs_size = 0.5), '/repos/2/lfs_size', 'schema'],
  ['forge: attachment kind', FORGE, (f) => (f.attachments[0].kind = 'comment'), '/attachments/0/kind', 'schema'],
  ['forge: attachment name empty', FORGE, (f) => (f.attachments[0].name = ''), '/attachments/0/name', 'schema'],
  ['forge: attachment size negative', FORGE, (f) => (f.attachments[0].size = -1), '/attachments/0/size', 'schema'],
  ['forge: artifact expired not boolean', FORGE, (f) => (f.artifacts[1].expired = 'yes'), '/artifacts/1/expired', 'schema'],
  ['forge: repo reference without owner', FORGE, (f) => (f.artifacts[0].repo = 'app'), '/artifacts/0/repo', 'schema'],
  ['forge: package without a version', FORGE, (f) => delete f.packages[0].version, '/packages/0/version', 'schema'],
  ['forge: package type empty', FORGE, (f) => (f.packages[0].type = ''), '/packages/0/type', 'schema'],
  ['forge: package repo not "owner/name"', FORGE, (f) => (f.packages[0].repo = 'app'), '/packages/0/repo', 'schema'],
  ['forge: unknown member in a package', FORGE, (f) => (f.packages[0].sha = 'x'), '/packages/0/sha', 'schema'],
  ['forge: duplicate login', FORGE, (f) => f.users.push({ login: 'ALICE' }), '/users/4/login', 'check'],
  ['forge: organisation owner unknown', FORGE, (f) => (f.orgs[0].owners = ['mallory']), '/orgs/0/owners/0', 'check'],
  ['forge: unknown owner', FORGE, (f) => (f.repos[0].owner = 'mallory'), '/repos/0/owner', 'check'],
  ['forge: duplicate repository', FORGE, (f) => f.repos.push({ owner: 'alice', name: 'App', size: 1 }), '/repos/7/name', 'check'],
  ['forge: unknown repository', FORGE, (f) => (f.attachments[3].repo = 'bob/nope'), '/attachments/3/repo', 'check'],
  ['forge: package of an unknown owner', FORGE, (f) => (f.packages[2].owner = 'mallory'), '/packages/2/owner', 'check'],
  ['forge: package linked to someone else\'s repository', FORGE, (f) => (f.packages[0].repo = 'bob/site'), '/packages/0/repo', 'check'],
];

t.test('broken usage files', async (t) => {
  for (const [name, base, change, pointer, by] of brokenUsage) {
    const body = edit(base, change);
    checkNamed(t, failure(() => usageOf(body, 'usage.json')), 'usage.json', body, pointer, name);
    t.equal(registry.validate('cli/quota-usage.json', JSON.parse(body)).length > 0, by === 'schema', `${name}: ${by === 'schema' ? 'the schema states it' : 'checked after the schema'}`);
  }
});
