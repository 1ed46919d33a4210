// Quota evaluation (QUOTA.md sections 1–2), table-driven: composite usage, strict limits, limit 0
// and -1, relevance through ancestors, wiki, group lists of a user, repeated subjects, decisions.
import t from 'tap';
import {
  BUILTIN_DEFAULT_GROUP,
  BUILTIN_DEFAULT_RULE,
  evaluateOverall,
  evaluateOwner,
  evaluateSubject,
  groupListFor,
  type QuotaDecision,
  type QuotaGroup,
  type QuotaRule,
} from '../../src/domain/quota/evaluate.ts';
import { ancestorsOf, isSubject, SUBJECTS, usageOf, zeroPrimitives, type Primitives, type Subject } from '../../src/domain/quota/subjects.ts';

const PRIMES: Primitives = {
  reposPublic: 2,
  reposPrivate: 3,
  gitLfs: 7,
  attachmentsIssues: 11,
  attachmentsReleases: 13,
  artifacts: 17,
  packagesAll: 19,
};
const used = (p: Partial<Primitives>): Primitives => ({ ...zeroPrimitives(), ...p });
const rule = (name: string, limit: number, ...subjects: Subject[]): QuotaRule => ({ name, limit, subjects });
const group = (name: string, ...rules: QuotaRule[]): QuotaGroup => ({ name, rules });

t.test('usage of every subject from primitives 2, 3, 7, 11, 13, 17, 19', async (t) => {
  const expected: Record<Subject, number> = {
    'size:all': 72,
    'size:repos:all': 5,
    'size:repos:public': 2,
    'size:repos:private': 3,
    'size:git:all': 12,
    'size:git:lfs': 7,
    'size:assets:all': 60,
    'size:assets:attachments:all': 24,
    'size:assets:attachments:issues': 11,
    'size:assets:attachments:releases': 13,
    'size:assets:artifacts': 17,
    'size:assets:packages:all': 19,
    'size:wiki': 0,
    'size:assets:wiki': 0,
    none: 0,
  };
  t.same(Object.keys(expected).sort(), [...SUBJECTS].sort());
  for (const s of SUBJECTS) t.equal(usageOf(s, PRIMES), expected[s], s);
});

t.test('accepted subjects and the ancestor tree', async (t) => {
  const accepted: [unknown, boolean][] = [
    ['size:all', true],
    ['size:wiki', true],
    ['size:assets:wiki', true],
    ['none', true],
    ['size:repos', false],
    ['SIZE:ALL', false],
    ['size:all ', false],
    ['', false],
    [null, false],
    [1, false],
  ];
  for (const [value, ok] of accepted) t.equal(isSubject(value), ok, JSON.stringify(value));
  const tree: [Subject, Subject[]][] = [
    ['size:all', []],
    ['size:git:all', ['size:all']],
    ['size:repos:all', ['size:git:all', 'size:all']],
    ['size:repos:public', ['size:repos:all', 'size:git:all', 'size:all']],
    ['size:repos:private', ['size:repos:all', 'size:git:all', 'size:all']],
    ['size:git:lfs', ['size:git:all', 'size:all']],
    ['size:assets:all', ['size:all']],
    ['size:assets:attachments:all', ['size:assets:all', 'size:all']],
    ['size:assets:attachments:issues', ['size:assets:attachments:all', 'size:assets:all', 'size:all']],
    ['size:assets:attachments:releases', ['size:assets:attachments:all', 'size:assets:all', 'size:all']],
    ['size:assets:artifacts', ['size:assets:all', 'size:all']],
    ['size:assets:packages:all', ['size:assets:all', 'size:all']],
    ['size:wiki', ['size:assets:all', 'size:all']],
    ['size:assets:wiki', ['size:assets:all', 'size:all']],
    ['none', []],
  ];
  for (const [s, ancestors] of tree) t.same(ancestorsOf(s), ancestors, s);
});

type Case = {
  name: string;
  groups: QuotaGroup[];
  usage: Primitives;
  subject?: Subject;
  within: boolean;
  deciding: { group: string; rule: string | null; sum: number; limit: number } | null;
  reason: string;
};

const cases: Case[] = [
  {
    name: 'strict limit: 1024 used against limit 1024 is over',
    groups: [group('g', rule('r', 1024, 'size:repos:public'))],
    usage: used({ reposPublic: 1024 }),
    subject: 'size:repos:public',
    within: false,
    deciding: { group: 'g', rule: 'r', sum: 1024, limit: 1024 },
    reason: 'over_quota',
  },
  {
    name: 'strict limit: 1023 used against limit 1024 stands',
    groups: [group('g', rule('r', 1024, 'size:repos:public'))],
    usage: used({ reposPublic: 1023 }),
    subject: 'size:repos:public',
    within: true,
    deciding: { group: 'g', rule: 'r', sum: 1023, limit: 1024 },
    reason: 'group_stands',
  },
  {
    name: 'strict limit overall',
    groups: [group('g', rule('r', 1024, 'size:all'))],
    usage: used({ gitLfs: 1024 }),
    within: false,
    deciding: { group: 'g', rule: 'r', sum: 1024, limit: 1024 },
    reason: 'over_quota',
  },
  {
    name: 'limit 0 with zero usage is over (subject)',
    groups: [group('g', rule('zero', 0, 'size:git:lfs'))],
    usage: zeroPrimitives(),
    subject: 'size:git:lfs',
    within: false,
    deciding: { group: 'g', rule: 'zero', sum: 0, limit: 0 },
    reason: 'over_quota',
  },
  {
    name: 'limit 0 with zero usage is over (overall)',
    groups: [group('g', rule('zero', 0, 'size:all'))],
    usage: zeroPrimitives(),
    within: false,
    deciding: { group: 'g', rule: 'zero', sum: 0, limit: 0 },
    reason: 'over_quota',
  },
  {
    name: 'a negative limit other than -1 never stands',
    groups: [group('g', rule('neg', -5, 'size:all'))],
    usage: zeroPrimitives(),
    subject: 'size:all',
    within: false,
    deciding: { group: 'g', rule: 'neg', sum: 0, limit: -5 },
    reason: 'over_quota',
  },
  {
    name: '-1 always stands for a relevant subject, whatever the usage',
    groups: [group('g', rule('unlimited', -1, 'size:all'))],
    usage: used({ reposPrivate: Number.MAX_SAFE_INTEGER }),
    subject: 'size:repos:private',
    within: true,
    deciding: { group: 'g', rule: 'unlimited', sum: Number.MAX_SAFE_INTEGER, limit: -1 },
    reason: 'group_stands',
  },
  {
    name: '-1 always stands overall',
    groups: [group('g', rule('unlimited', -1, 'size:all', 'size:all'))],
    usage: PRIMES,
    within: true,
    deciding: { group: 'g', rule: 'unlimited', sum: 144, limit: -1 },
    reason: 'group_stands',
  },
  {
    name: 'a -1 rule on size:git:lfs does not let size:repos:all through',
    groups: [group('g', rule('lfs-unlimited', -1, 'size:git:lfs'), rule('repos', 4, 'size:repos:all'))],
    usage: PRIMES,
    subject: 'size:repos:all',
    within: false,
    deciding: { group: 'g', rule: 'repos', sum: 5, limit: 4 },
    reason: 'over_quota',
  },
  {
    name: 'a -1 rule on size:git:lfs alone is not relevant to size:repos:all',
    groups: [group('g', rule('lfs-unlimited', -1, 'size:git:lfs'))],
    usage: zeroPrimitives(),
    subject: 'size:repos:all',
    within: false,
    deciding: null,
    reason: 'no_relevant_rule',
  },
  {
    name: 'a size:all rule governs size:repos:public (within)',
    groups: [group('g', rule('all', 100, 'size:all'))],
    usage: PRIMES,
    subject: 'size:repos:public',
    within: true,
    deciding: { group: 'g', rule: 'all', sum: 72, limit: 100 },
    reason: 'group_stands',
  },
  {
    name: 'a size:all rule governs size:repos:public (over, though public alone is small)',
    groups: [group('g', rule('all', 72, 'size:all'))],
    usage: PRIMES,
    subject: 'size:repos:public',
    within: false,
    deciding: { group: 'g', rule: 'all', sum: 72, limit: 72 },
    reason: 'over_quota',
  },
  {
    name: 'a size:repos:all rule does not govern size:all',
    groups: [group('g', rule('repos', 1_000_000, 'size:repos:all'))],
    usage: PRIMES,
    subject: 'size:all',
    within: false,
    deciding: null,
    reason: 'no_relevant_rule',
  },
  {
    name: 'no relevant rule anywhere: not within quota for that subject',
    groups: [group('a', rule('lfs', 1000, 'size:git:lfs')), group('b', rule('pkgs', 1000, 'size:assets:packages:all'))],
    usage: zeroPrimitives(),
    subject: 'size:assets:artifacts',
    within: false,
    deciding: null,
    reason: 'no_relevant_rule',
  },
  {
    name: 'only relevant rules count for a subject: a failing lfs rule does not block repos',
    groups: [group('g', rule('lfs', 0, 'size:git:lfs'), rule('all', 1000, 'size:all'))],
    usage: PRIMES,
    subject: 'size:repos:public',
    within: true,
    deciding: { group: 'g', rule: 'all', sum: 72, limit: 1000 },
    reason: 'group_stands',
  },
  {
    name: 'overall, every rule of the group must stand',
    groups: [group('g', rule('lfs', 0, 'size:git:lfs'), rule('all', 1000, 'size:all'))],
    usage: PRIMES,
    within: false,
    deciding: { group: 'g', rule: 'lfs', sum: 7, limit: 0 },
    reason: 'over_quota',
  },
  {
    name: 'a group list stands when any group stands; deciding is that group',
    groups: [group('tight', rule('t', 10, 'size:all')), group('loose', rule('l', 100, 'size:all'))],
    usage: PRIMES,
    within: true,
    deciding: { group: 'loose', rule: 'l', sum: 72, limit: 100 },
    reason: 'group_stands',
  },
  {
    name: 'no group stands: deciding is the first failing rule of the first group',
    groups: [group('a', rule('a1', 1000, 'size:all'), rule('a2', 5, 'size:repos:all')), group('b', rule('b1', 10, 'size:all'))],
    usage: PRIMES,
    within: false,
    deciding: { group: 'a', rule: 'a2', sum: 5, limit: 5 },
    reason: 'over_quota',
  },
  {
    name: 'a standing group is decided by its rule with the least headroom',
    groups: [group('g', rule('wide', 1000, 'size:all'), rule('narrow', 6, 'size:repos:all'), rule('free', -1, 'size:all'))],
    usage: PRIMES,
    within: true,
    deciding: { group: 'g', rule: 'narrow', sum: 5, limit: 6 },
    reason: 'group_stands',
  },
  {
    name: 'repeated subjects are counted each time (72 × 2 = 144 ≥ 100)',
    groups: [group('g', rule('twice', 100, 'size:all', 'size:all'))],
    usage: PRIMES,
    within: false,
    deciding: { group: 'g', rule: 'twice', sum: 144, limit: 100 },
    reason: 'over_quota',
  },
  {
    name: 'overlapping subjects are counted each time (all + repos:all = 77)',
    groups: [group('g', rule('overlap', 77, 'size:all', 'size:repos:all'))],
    usage: PRIMES,
    subject: 'size:repos:public',
    within: false,
    deciding: { group: 'g', rule: 'overlap', sum: 77, limit: 77 },
    reason: 'over_quota',
  },
  {
    name: 'size:wiki is always within quota, even under a limit-0 size:all rule',
    groups: [group('g', rule('zero', 0, 'size:all'))],
    usage: PRIMES,
    subject: 'size:wiki',
    within: true,
    deciding: null,
    reason: 'wiki_untracked',
  },
  {
    name: 'size:assets:wiki is always within quota, even under a limit-0 wiki rule',
    groups: [group('g', rule('zero', 0, 'size:assets:wiki'))],
    usage: zeroPrimitives(),
    subject: 'size:assets:wiki',
    within: true,
    deciding: null,
    reason: 'wiki_untracked',
  },
  {
    name: 'size:wiki is within quota even without any relevant rule',
    groups: [group('g', rule('lfs', 10, 'size:git:lfs'))],
    usage: zeroPrimitives(),
    subject: 'size:wiki',
    within: true,
    deciding: null,
    reason: 'wiki_untracked',
  },
  {
    name: 'none adds nothing to a sum',
    groups: [group('g', rule('r', 6, 'size:repos:all', 'none', 'size:wiki'))],
    usage: PRIMES,
    subject: 'size:repos:public',
    within: true,
    deciding: { group: 'g', rule: 'r', sum: 5, limit: 6 },
    reason: 'group_stands',
  },
  {
    name: 'a none check is governed only by rules that list none',
    groups: [group('g', rule('all', 1000, 'size:all'))],
    usage: zeroPrimitives(),
    subject: 'none',
    within: false,
    deciding: null,
    reason: 'no_relevant_rule',
  },
  {
    name: 'a rule listing none stands for a none check below its limit',
    groups: [group('g', rule('nothing', 1, 'none'))],
    usage: PRIMES,
    subject: 'none',
    within: true,
    deciding: { group: 'g', rule: 'nothing', sum: 0, limit: 1 },
    reason: 'group_stands',
  },
  {
    name: 'overall, a group without rules stands (all of its rules stand)',
    groups: [group('empty')],
    usage: PRIMES,
    within: true,
    deciding: { group: 'empty', rule: null, sum: 0, limit: -1 },
    reason: 'group_stands',
  },
  {
    name: 'for a subject, a group without rules does not stand',
    groups: [group('empty')],
    usage: PRIMES,
    subject: 'size:all',
    within: false,
    deciding: null,
    reason: 'no_relevant_rule',
  },
  {
    name: 'an empty group list stands for nothing',
    groups: [],
    usage: zeroPrimitives(),
    within: false,
    deciding: null,
    reason: 'no_groups',
  },
];

t.test('rule, group and group list standing', async (t) => {
  for (const c of cases) {
    const d = c.subject === undefined ? evaluateOverall(c.groups, c.usage) : evaluateSubject(c.groups, c.usage, c.subject);
    t.same({ within: d.within, deciding: d.deciding, reason: d.reason, subject: d.subject }, { within: c.within, deciding: c.deciding, reason: c.reason, subject: c.subject }, c.name);
  }
});

t.test('a decision explains every group and rule', async (t) => {
  const groups = [group('g', rule('lfs', -1, 'size:git:lfs'), rule('repos', 4, 'size:repos:all')), group('h')];
  t.strictSame(evaluateSubject(groups, PRIMES, 'size:repos:public'), {
    within: false,
    subject: 'size:repos:public',
    deciding: { group: 'g', rule: 'repos', sum: 5, limit: 4 },
    groups: [
      {
        name: 'g',
        stands: false,
        rules: [
          { name: 'lfs', limit: -1, subjects: ['size:git:lfs'], sum: 7, stands: true, relevant: false },
          { name: 'repos', limit: 4, subjects: ['size:repos:all'], sum: 5, stands: false, relevant: true },
        ],
      },
      { name: 'h', stands: false, rules: [] },
    ],
    reason: 'over_quota',
  });
  t.notOk('subject' in evaluateOverall(groups, PRIMES), 'no subject member overall');
});

t.test('quota disabled: everything stands, the groups are still explained', async (t) => {
  const groups = [group('g', rule('zero', 0, 'size:all'))];
  for (const d of [evaluateOverall(groups, PRIMES, { enabled: false }), evaluateSubject(groups, PRIMES, 'size:git:lfs', { enabled: false }), evaluateSubject([], PRIMES, 'size:all', { enabled: false })]) {
    t.equal(d.within, true);
    t.equal(d.reason, 'quota_disabled');
    t.equal(d.deciding, null);
  }
  t.equal(evaluateOverall(groups, PRIMES, { enabled: false }).groups[0]!.stands, false);
  t.equal(evaluateOverall(groups, PRIMES, { enabled: true }).within, false);
});

t.test('sums compare exactly beyond 2^53', async (t) => {
  const big = used({ reposPublic: Number.MAX_SAFE_INTEGER });
  // 2 × (2^53 − 1) is not below the largest limit; float rounding must not make it look equal.
  const d = evaluateSubject([group('g', rule('r', Number.MAX_SAFE_INTEGER, 'size:all', 'size:all'))], big, 'size:all');
  t.equal(d.within, false);
});

t.test('an unrecognised subject is refused', async (t) => {
  t.throws(() => evaluateSubject([], PRIMES, 'size:everything' as Subject), { code: 'unrecognised_subject' });
});

t.test('group list of a user', async (t) => {
  const groups = [group('basic', rule('b', 10, 'size:all')), group('team', rule('t', 100, 'size:all')), group('extra', rule('e', 5, 'size:git:lfs'))];
  const config = { assignments: { Bob: ['team'], carol: [], dave: ['gone'] }, groups, defaultGroups: ['basic', 'missing'], defaultTotal: 1234 };
  const listCases: [string, Partial<typeof config>, string, string[]][] = [
    ['default groups ignored once a user has an assigned group', {}, 'bob', ['team']],
    ['assigned usernames compare case-insensitively', {}, 'BOB', ['team']],
    ['no assignment: the existing default groups', {}, 'alice', ['basic']],
    ['an empty assignment is no assignment', {}, 'carol', ['basic']],
    ['assigned groups that do not exist are skipped', {}, 'dave', ['basic']],
    ['missing default group names are skipped, order kept', { defaultGroups: ['missing', 'extra', 'basic', 'extra'] }, 'alice', ['extra', 'basic']],
  ];
  for (const [name, override, user, expected] of listCases) {
    const list = groupListFor(user, { ...config, ...override });
    t.same(list.groups.map((g) => g.name), expected, name);
    t.equal(list.source, user.toLowerCase() === 'bob' ? 'assigned' : 'default_groups', `${name}: source`);
  }
  t.same(groupListFor('bob', config).groups[0], groups[1], 'the group itself, with its rules');

  const builtin = groupListFor('alice', { ...config, defaultGroups: ['missing'] });
  t.strictSame(builtin, {
    source: 'builtin_default',
    groups: [{ name: BUILTIN_DEFAULT_GROUP, rules: [{ name: BUILTIN_DEFAULT_RULE, limit: 1234, subjects: ['size:all'] }] }],
  });
  t.equal(evaluateSubject(builtin.groups, used({ gitLfs: 1233 }), 'size:git:lfs').within, true, 'built-in default_total stands below');
  t.equal(evaluateSubject(builtin.groups, used({ gitLfs: 1234 }), 'size:git:lfs').within, false, 'built-in default_total is strict');
  const unlimited = groupListFor('alice', { ...config, defaultGroups: [], defaultTotal: -1 });
  t.equal(evaluateOverall(unlimited.groups, used({ reposPublic: Number.MAX_SAFE_INTEGER })).within, true, 'built-in -1 is unlimited');
  t.same(groupListFor('nobody', { assignments: {}, groups: [], defaultGroups: [], defaultTotal: -1 }).source, 'builtin_default');
});

t.test('evaluateOwner without detail decides exactly as with it, and as evaluateSubject', async (t) => {
  const rules = [
    { name: 'all-10k', limit: 10_000, subjects: ['size:all'] as Subject[] },
    { name: 'lfs-1k', limit: 1_000, subjects: ['size:git:lfs'] as Subject[] },
    { name: 'repos-unlimited', limit: -1, subjects: ['size:repos:all'] as Subject[] },
    { name: 'assets-zero', limit: 0, subjects: ['size:assets:artifacts', 'size:assets:packages:all'] as Subject[] },
  ];
  const lists = [
    [],
    [{ name: 'a', rules: [rules[0]!, rules[1]!] }],
    [{ name: 'a', rules: [rules[3]!] }, { name: 'b', rules: [rules[2]!, rules[1]!] }],
    [{ name: 'empty', rules: [] }, { name: 'c', rules: rules }],
  ];
  const usages = [used({}), used({ reposPublic: 5_000, gitLfs: 999 }), used({ reposPrivate: 20_000, gitLfs: 1_000, artifacts: 1 })];
  const subjects = SUBJECTS.filter((s) => s !== 'none');
  for (const list of lists) {
    for (const usage of usages) {
      const detailed = evaluateOwner(list, usage, subjects);
      const lean = evaluateOwner(list, usage, subjects, { detail: false });
      const strip = ({ groups: _g, ...rest }: QuotaDecision) => rest;
      t.same(strip(lean.overall), strip(detailed.overall));
      t.same(lean.subjects.map(strip), detailed.subjects.map(strip));
      t.same(detailed.subjects, subjects.map((s) => evaluateSubject(list, usage, s)), 'one owner at a time gives the same decisions');
      t.same(lean.overall.groups, [], 'no per-group detail was built');
    }
  }
});
