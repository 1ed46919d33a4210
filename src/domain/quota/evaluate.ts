// Quota evaluation (docs/quota.md §2): rules, groups and group lists against an owner's usage,
// overall (the specification's rule) and for one subject (Forgejo v13), as a decision value that says why.
import { AppError } from '../../errors.ts';
import { ancestorsOf, canonicalSubject, isSubject, isWikiSubject, SUBJECTS, usageOf, type Primitives, type Subject } from './subjects.ts';

export type QuotaRule = { name: string; limit: number; subjects: Subject[] };
export type QuotaGroup = { name: string; rules: QuotaRule[] };

export type RuleOutcome = { name: string; limit: number; subjects: Subject[]; sum: number; stands: boolean; relevant: boolean };
export type GroupOutcome = { name: string; stands: boolean; rules: RuleOutcome[] };
export type Deciding = { group: string; rule: string | null; sum: number; limit: number };

/**
 * quota_disabled: quota is switched off, everything stands. wiki_untracked: a wiki check, always
 * within. group_stands: a group stood (deciding = its tightest relevant rule). over_quota: no group
 * stood (deciding = the first failing relevant rule of the first group that failed).
 * no_relevant_rule: no group has a rule relevant to the subject. no_groups: the list is empty.
 */
export type DecisionReason = 'quota_disabled' | 'wiki_untracked' | 'group_stands' | 'over_quota' | 'no_relevant_rule' | 'no_groups';

export type QuotaDecision = {
  within: boolean;
  subject?: Subject;
  deciding: Deciding | null;
  groups: GroupOutcome[];
  reason: DecisionReason;
};

export type EvaluateOptions = { enabled?: boolean };

/** Rule limit meaning "unlimited". */
export const UNLIMITED = -1;

/** Forgejo's names for the group used when a user has no assigned and no existing default group. */
export const BUILTIN_DEFAULT_GROUP = 'builtin-default-group';
export const BUILTIN_DEFAULT_RULE = 'builtin-default-rule';

export type GroupListSource = 'assigned' | 'default_groups' | 'builtin_default';

export type GroupListConfig = {
  /** Assigned group names per username; usernames compare case-insensitively. */
  assignments: Readonly<Record<string, readonly string[]>>;
  /** Every existing group. */
  groups: readonly QuotaGroup[];
  defaultGroups: readonly string[];
  defaultTotal: number;
};

/**
 * The group list of a user: the existing groups assigned to them; if none, the configured default
 * groups that exist; if none of those either, the built-in group (never listed by the API).
 */
export function groupListFor(user: string, config: GroupListConfig): { source: GroupListSource; groups: QuotaGroup[] } {
  return groupListResolver(config)(user);
}

/** groupListFor for many users of one configuration: the name look-ups are built once. */
export function groupListResolver(config: GroupListConfig): (user: string) => { source: GroupListSource; groups: QuotaGroup[] } {
  const byName = new Map(config.groups.map((g) => [g.name, g]));
  const pick = (names: readonly string[]) =>
    [...new Set(names)].map((n) => byName.get(n)).filter((g): g is QuotaGroup => g !== undefined);
  const assignedByUser = new Map<string, string[]>();
  for (const [name, names] of Object.entries(config.assignments)) {
    const key = name.toLowerCase();
    assignedByUser.set(key, [...(assignedByUser.get(key) ?? []), ...names]);
  }
  const defaults = pick(config.defaultGroups);
  const builtin: QuotaGroup = {
    name: BUILTIN_DEFAULT_GROUP,
    rules: [{ name: BUILTIN_DEFAULT_RULE, limit: config.defaultTotal, subjects: ['size:all'] }],
  };
  return (user) => {
    const assigned = pick(assignedByUser.get(user.toLowerCase()) ?? []);
    if (assigned.length > 0) return { source: 'assigned', groups: assigned };
    if (defaults.length > 0) return { source: 'default_groups', groups: defaults };
    return { source: 'builtin_default', groups: [builtin] };
  };
}

/** Overall standing and the standing for each subject of one owner, sharing the rule sums. */
export function evaluateOwner(
  groupList: readonly QuotaGroup[],
  usage: Primitives,
  subjects: readonly Subject[],
  options: EvaluateOptions & { detail?: boolean } = {},
): { overall: QuotaDecision; subjects: QuotaDecision[] } {
  const standings: Standings = new Map();
  const detail = options.detail !== false;
  return {
    overall: decide(groupList, usage, undefined, options, standings, detail),
    subjects: subjects.map((s) => decide(groupList, usage, s, options, standings, detail)),
  };
}

/** Standing with no subject named (docs/quota.md §2): a group stands when all its rules stand. */
export function evaluateOverall(groupList: readonly QuotaGroup[], usage: Primitives, options: EvaluateOptions = {}): QuotaDecision {
  return decide(groupList, usage, undefined, options);
}

/**
 * Standing for one subject (Forgejo v13): a rule is relevant when it lists the subject or one of
 * its ancestors. A group stands when it has a relevant rule and every relevant rule stands. Wiki
 * checks are always within quota. `none` has no ancestors, so only rules listing `none` itself are
 * relevant to a `none` check (as in Forgejo); it adds 0 to every sum.
 */
export function evaluateSubject(groupList: readonly QuotaGroup[], usage: Primitives, subject: Subject, options: EvaluateOptions = {}): QuotaDecision {
  if (!isSubject(subject)) {
    throw new AppError('unrecognised_subject', `"${String(subject)}" is not a quota subject. Use one of the size:… subjects.`);
  }
  return decide(groupList, usage, subject, options);
}

function decide(groupList: readonly QuotaGroup[], usage: Primitives, subject: Subject | undefined, options: EvaluateOptions, standings: Standings = new Map(), detail = true): QuotaDecision {
  const relevantTo = subject === undefined ? undefined : relevantSubjects(subject);
  const outcome = (rule: QuotaRule) => ruleOutcome(rule, usage, relevantTo, standings);
  // The per-group detail is built only when asked for; the decision itself walks the rules directly.
  const groups: GroupOutcome[] = detail ? groupList.map((g) => ({ name: g.name, stands: groupStands(g, outcome, relevantTo), rules: g.rules.map(outcome) })) : [];
  const base = subject === undefined ? {} : { subject };
  if (options.enabled === false) return { within: true, ...base, deciding: null, groups, reason: 'quota_disabled' };
  if (subject !== undefined && isWikiSubject(subject)) return { within: true, ...base, deciding: null, groups, reason: 'wiki_untracked' };
  if (groupList.length === 0) return { within: false, ...base, deciding: null, groups, reason: 'no_groups' };
  const standing = groupList.find((g) => groupStands(g, outcome, relevantTo));
  if (standing) return { within: true, ...base, deciding: tightest(standing.name, standing.rules.map(outcome)), groups, reason: 'group_stands' };
  for (const g of groupList) {
    for (const rule of g.rules) {
      const r = outcome(rule);
      if (r.relevant && !r.stands) {
        return { within: false, ...base, deciding: { group: g.name, rule: r.name, sum: r.sum, limit: r.limit }, groups, reason: 'over_quota' };
      }
    }
  }
  return { within: false, ...base, deciding: null, groups, reason: 'no_relevant_rule' };
}

/**
 * Overall, every rule is relevant and an empty group stands ("all its rules stand", docs/quota.md §2).
 * For a subject, a group with no relevant rule does not stand (Forgejo: no match, no allow).
 */
function groupStands(group: QuotaGroup, outcome: (rule: QuotaRule) => RuleOutcome, relevantTo: ReadonlySet<Subject> | undefined): boolean {
  let relevant = 0;
  for (const rule of group.rules) {
    const r = outcome(rule);
    if (!r.relevant) continue;
    relevant++;
    if (!r.stands) return false;
  }
  return relevantTo === undefined || relevant > 0;
}

// The subjects whose rules govern a subject (itself and its ancestors): a fixed tree, so a table.
const relevantOf = (subject: Subject): ReadonlySet<Subject> => new Set([canonicalSubject(subject), ...ancestorsOf(subject)]);
const RELEVANT: ReadonlyMap<Subject, ReadonlySet<Subject>> = new Map(SUBJECTS.map((subject) => [subject, relevantOf(subject)]));
function relevantSubjects(subject: Subject): ReadonlySet<Subject> {
  return RELEVANT.get(subject) ?? relevantOf(subject);
}

function ruleOutcome(rule: QuotaRule, usage: Primitives, relevantTo: ReadonlySet<Subject> | undefined, standings: Standings): RuleOutcome {
  const standing = ruleStanding(rule, usage, standings);
  const relevant = relevantTo === undefined || rule.subjects.some((s) => relevantTo.has(canonicalSubject(s)));
  // An owner's outcome of a rule has only two forms (relevant or not): build each once.
  const slot = relevant ? 'relevantOutcome' : 'otherOutcome';
  return (standing[slot] ??= { name: rule.name, limit: rule.limit, subjects: rule.subjects, sum: standing.sum, stands: standing.stands, relevant });
}

/** Rule standings of one owner's usage: a rule's sum does not depend on the subject asked. */
type Standing = { sum: number; stands: boolean; relevantOutcome?: RuleOutcome; otherOutcome?: RuleOutcome };
type Standings = Map<QuotaRule, Standing>;

function ruleStanding(rule: QuotaRule, usage: Primitives, perUsage: Standings): Standing {
  let standing = perUsage.get(rule);
  if (!standing) {
    // Every subject as listed. Summed exactly: past 2^53 a Number sum could round across the limit.
    let sum = 0;
    for (const s of rule.subjects) sum += usageOf(s, usage);
    const exact = Number.isSafeInteger(sum) ? null : rule.subjects.reduce((acc, s) => acc + BigInt(usageOf(s, usage)), 0n);
    const stands = rule.limit === UNLIMITED || (exact === null ? sum < rule.limit : exact < BigInt(rule.limit));
    standing = { sum: exact === null ? sum : Number(exact), stands };
    perUsage.set(rule, standing);
  }
  return standing;
}

/** The relevant rule of a standing group with the least headroom; an unlimited rule only if all are. */
function tightest(group: string, rules: readonly RuleOutcome[]): Deciding {
  const relevant = rules.filter((r) => r.relevant);
  let best: RuleOutcome | undefined;
  for (const r of relevant) {
    if (r.limit === UNLIMITED) continue;
    if (best === undefined || r.limit - r.sum < best.limit - best.sum) best = r;
  }
  best ??= relevant[0];
  if (best === undefined) return { group, rule: null, sum: 0, limit: UNLIMITED };
  return { group, rule: best.name, sum: best.sum, limit: best.limit };
}
