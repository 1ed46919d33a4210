// `gov quota eval` logic on the fixtures (default groups, an assigned user, one owner over quota,
// others within), configuration precedence, rendering, exit codes, and broken input files.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { AppError } from '../../src/errors.ts';
import { assertPlainJson } from '../../src/domain/canonical-json.ts';
import { quotaEvalExitCode, renderQuotaEval, runQuotaEval, type QuotaEvalOptions } from '../../src/cli/commands/quota-eval.ts';
import { testSchemas } from '../fixtures/templates.ts';

const root = new URL('../../', import.meta.url);
const files: Record<string, string> = {
  'policy.json': readFileSync(new URL('fixtures/quota/policy.json', root), 'utf8'),
  'usage.json': readFileSync(new URL('fixtures/quota/usage.json', root), 'utf8'),
  'forge.json': readFileSync(new URL('fixtures/forge/default.json', root), 'utf8'),
  'app.ini': readFileSync(new URL('fixtures/quota/app.ini', root), 'utf8'),
  'disabled.ini': '[quota]\nENABLED = false\n',
};
const readFile = (extra: Record<string, string> = {}) => (path: string) => {
  const all = { ...files, ...extra };
  if (!(path in all)) throw Object.assign(new Error(`ENOENT: no such file, open '${path}'`), { code: 'ENOENT' });
  return all[path]!;
};
const run = (opts: Partial<QuotaEvalOptions>, extra?: Record<string, string>) =>
  runQuotaEval({ groups: 'policy.json', usage: 'usage.json', ...opts }, readFile(extra), testSchemas());
const standings = (r: ReturnType<typeof run>) => Object.fromEntries(r.owners.map((o) => [o.owner, [o.group_source, o.group_list.join(','), o.within]]));

t.test('the fixtures: default groups, assignments, one owner over quota', async (t) => {
  const r = run({ appIni: 'app.ini' });
  t.strictSame(r.config, { enabled: true, default_groups: ['basic', 'missing-group'], default_total: 1073741824, source: 'app_ini' });
  t.strictSame(standings(r), {
    'acme-org': ['assigned', 'team', true],
    alice: ['default_groups', 'basic', true],
    bob: ['assigned', 'small', false],
    dave: ['assigned', 'team', true],
  });
  t.strictSame(r.warnings, ['default group "missing-group" does not exist; it is skipped']);
  t.equal(r.subject, null);
  const bob = r.owners.find((o) => o.owner === 'bob')!;
  t.strictSame(bob.overall.deciding, { group: 'small', rule: 'total-1mib', sum: 2826240, limit: 1048576 });
  t.equal(bob.subjects.length, 13, 'every seed subject');
  t.strictSame(bob.subjects.find((d) => d.subject === 'size:wiki')!.within, true, 'wiki always within');
  t.strictSame(bob.used.size.git, { LFS: 2097152 });
  const dave = r.owners.find((o) => o.owner === 'dave')!;
  t.equal(dave.in_usage, false, 'named only in assignments: zero usage');
  t.equal(r.within, false);
  t.equal(quotaEvalExitCode(r), 1);
  t.doesNotThrow(() => assertPlainJson(r), '--json prints the result as it is');
});

t.test('the forge data set as usage', async (t) => {
  const r = run({ usage: 'forge.json' });
  t.strictSame(standings(r), {
    'acme-org': ['assigned', 'team', true],
    alice: ['default_groups', 'basic', true],
    bob: ['assigned', 'small', false],
    carol: ['default_groups', 'basic', true],
    dave: ['assigned', 'team', true],
    'forge-admin': ['default_groups', 'basic', true],
  });
  t.same(r.owners.map((o) => o.kind), ['org', 'user', 'user', 'user', 'user', 'user']);
  t.equal(r.owners.find((o) => o.owner === 'alice')!.subjects[0]!.deciding!.sum, 1317376, 'size:all of alice, expired artifact excluded');
});

t.test('--user and --subject', async (t) => {
  const cases: [Partial<QuotaEvalOptions>, string[], 0 | 1][] = [
    [{ user: 'alice' }, ['alice'], 0],
    [{ user: 'BOB' }, ['bob'], 1],
    // Overall is evaluated with --subject too, and bob is over it: wiki holds, the owner does not.
    [{ user: 'bob', subject: 'size:wiki' }, ['bob'], 1],
    [{ user: 'alice', subject: 'size:wiki' }, ['alice'], 0],
    [{ subject: 'size:wiki' }, ['acme-org', 'alice', 'bob', 'dave'], 1],
    [{ user: 'bob', subject: 'size:git:lfs' }, ['bob'], 1],
    [{ user: 'alice', subject: 'size:assets:wiki' }, ['alice'], 0],
  ];
  for (const [opts, owners, code] of cases) {
    const r = run(opts);
    t.same(r.owners.map((o) => o.owner), owners, JSON.stringify(opts));
    t.equal(quotaEvalExitCode(r), code, `${JSON.stringify(opts)}: exit`);
    if (opts.subject !== undefined) t.same(r.owners[0]!.subjects.map((d) => d.subject), [opts.subject]);
  }
  const bobWiki = run({ user: 'bob', subject: 'size:wiki' }).owners[0]!;
  t.same([bobWiki.overall.within, bobWiki.subjects[0]!.within, bobWiki.within], [false, true, false], 'the owner holds only when overall and the subject both hold');
  const unknown = run({ user: 'erin' });
  t.same([unknown.owners[0]!.owner, unknown.owners[0]!.in_usage, unknown.owners[0]!.group_source], ['erin', false, 'default_groups']);
  t.match(unknown.warnings.at(-1), /erin/);
  t.throws(() => run({ subject: 'size:repos' }), { code: 'unrecognised_subject' });
});

t.test('configuration: policy, then app.ini, then --default-groups', async (t) => {
  t.same(run({}).config, { enabled: true, default_groups: ['basic', 'missing-group'], default_total: 1073741824, source: 'policy' });
  const small = run({ defaultGroups: ['small', ' '] });
  t.same(small.config.default_groups, ['small']);
  t.same(standings(small).alice, ['default_groups', 'small', false], 'alice (2.3 MiB) is over the small group');
  const builtin = run({ defaultGroups: ['missing-group'] });
  t.same(standings(builtin).alice, ['builtin_default', 'builtin-default-group', true], 'built-in default_total 1 GiB');
  const disabled = run({ appIni: 'disabled.ini' });
  t.same(disabled.config, { enabled: false, default_groups: [], default_total: -1, source: 'app_ini' });
  t.equal(quotaEvalExitCode(disabled), 0, 'quota disabled: everything stands');
  t.equal(disabled.owners.find((o) => o.owner === 'bob')!.overall.reason, 'quota_disabled');
  t.match(disabled.warnings.join('\n'), /not enabled/);
  const both = run({ appIni: 'app.ini', defaultGroups: ['team'] });
  t.same([both.config.default_groups, both.config.default_total], [['team'], 1073741824]);
});

t.test('rendering: an aligned table per owner with human sizes', async (t) => {
  t.equal(
    renderQuotaEval(run({ user: 'bob', subject: 'size:git:lfs' })),
    [
      'Quota enabled (policy file); default groups: basic, missing-group; default total: 1.0 GiB',
      '1 owner(s) evaluated, 1 not within quota.',
      'warning: default group "missing-group" does not exist; it is skipped',
      '',
      'bob (owner): NOT WITHIN QUOTA — groups: small [assigned]',
      '  SUBJECT       STANDING  GROUP  RULE            SUM    LIMIT  HUMAN              NOTE',
      '  (overall)     OVER      small  total-1mib  2826240  1048576  2.7 MiB / 1.0 MiB',
      '  size:git:lfs  OVER      small  total-1mib  2826240  1048576  2.7 MiB / 1.0 MiB',
      '',
    ].join('\n'),
  );
  const text = renderQuotaEval(run({ user: 'alice', subject: 'size:wiki', appIni: 'app.ini' }));
  t.match(text, /alice \(owner\): within quota — groups: basic \[default groups\]/);
  t.match(text, /size:wiki\s+within\s+-\s+-\s+-\s+-\s+-\s+wiki is not tracked/);
});

const broken: [string, Partial<QuotaEvalOptions>, Record<string, string>, string, string][] = [
  ['policy is not JSON', { groups: 'bad.json' }, { 'bad.json': '{\n  "rules": [\n' }, 'bad.json', 'bad.json:3:1: not valid JSON'],
  ['policy with an unrecognised subject', { groups: 'bad.json' }, { 'bad.json': '{"rules": [{"name": "r", "limit": 1, "subjects": ["size:lfs"]}]}' }, 'bad.json', 'bad.json: /rules/0/subjects/0 (line 1, column 51): unrecognised subject "size:lfs"'],
  ['policy assigning an undefined group', { groups: 'bad.json' }, { 'bad.json': '{"assignments": {"bob": ["vip"]}}' }, 'bad.json', '/assignments/bob/0'],
  ['usage with a typo', { usage: 'bad.json' }, { 'bad.json': '{"bob": {"size": {"git": {"lfs": 1}}}}' }, 'bad.json', 'bad.json: /bob/size/git/lfs (line 1, column 27): unknown member "lfs"'],
  ['forge data with an unknown repository', { usage: 'bad.json' }, { 'bad.json': '{"users": [{"login": "a"}], "artifacts": [{"repo": "a/x", "name": "n", "size": 1}]}' }, 'bad.json', '/artifacts/0/repo'],
  ['app.ini with a broken line', { appIni: 'bad.ini' }, { 'bad.ini': '[quota]\nENABLED\n' }, 'bad.ini', 'bad.ini:2:'],
  ['missing policy file', { groups: 'nowhere.json' }, {}, 'nowhere.json', 'ENOENT'],
];

t.test('broken files are bad_input_file naming the file and the path', async (t) => {
  for (const [name, opts, extra, file, mention] of broken) {
    try {
      run(opts, extra);
      t.fail(`${name}: accepted`);
    } catch (err) {
      t.ok(err instanceof AppError, name);
      const e = err as AppError;
      t.equal(e.code, 'bad_input_file', `${name}: code`);
      t.ok(e.message.startsWith(file), `${name}: names the file first`);
      t.match(e.message, mention, `${name}: names ${mention}`);
      t.equal((e.extra as { file?: string }).file, file, `${name}: extra.file`);
    }
  }
});

t.test('users named __proto__ and constructor keep their assignments', async (t) => {
  // As text: an object literal's __proto__ would set its prototype, not a member.
  const policy = '{"rules": [{"name": "r", "limit": 3, "subjects": ["size:all"]}], "groups": [{"name": "g", "rules": ["r"]}], "assignments": {"__proto__": ["g"], "constructor": ["g"]}}';
  const usage = '{"__proto__": {"size": {"repos": {"public": 5}}}, "constructor": {"size": {"repos": {"public": 2}}}}';
  const r = runQuotaEval({ groups: 'p.json', usage: 'u.json' }, readFile({ 'p.json': policy, 'u.json': usage }), testSchemas());
  t.strictSame(r.owners.map((o) => [o.owner, o.group_source, o.group_list.join(','), o.within]), [['__proto__', 'assigned', 'g', false], ['constructor', 'assigned', 'g', true]], '__proto__ is over its 3 bytes in g; constructor within');
  t.equal(quotaEvalExitCode(r), 1);
});
