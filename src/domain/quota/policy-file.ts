// POLICY.json of `gov quota eval` (docs/quota.md §6): rules, groups (rule names or inline rule
// objects, the admin API's shapes), assignments, default groups and default total, fully checked.
import { parseJsonInput } from './json-input.ts';
import { inputShape, MAX_EXACT, type InputShape } from './input-shape.ts';
import { isSubject, type Subject } from './subjects.ts';
import type { QuotaGroup, QuotaRule } from './evaluate.ts';

export type QuotaPolicy = {
  rules: QuotaRule[];
  groups: QuotaGroup[];
  /** Group names per username, as written (usernames compare case-insensitively). */
  assignments: Record<string, string[]>;
  defaultGroups: string[];
  defaultTotal: number;
};

const TOP = ['rules', 'groups', 'assignments', 'default_groups', 'default_total'];
const RULE = ['name', 'limit', 'subjects'];
const GROUP = ['name', 'rules'];

/**
 * Parses and checks POLICY.json. Any problem is an AppError `bad_input_file` naming the file, the
 * JSON pointer, the line and the reason. Decisions beyond the API (documented in the report):
 * unknown members are refused; a rule name defined twice must have the same limit and subjects; a
 * rule named by a string may be defined at the top level or inline in any group; explicit null
 * stands for an absent optional member (as the forge API accepts).
 */
export function parsePolicyFile(text: string, fileName: string): QuotaPolicy {
  const input = parseJsonInput(text, fileName);
  const s = inputShape(input);
  const top = s.object('', input.value, TOP);

  const defined = new Map<string, { rule: QuotaRule; pointer: string }>();
  const define = (rule: QuotaRule, pointer: string, duplicateIsError: boolean) => {
    const seen = defined.get(rule.name);
    if (seen === undefined) return void defined.set(rule.name, { rule, pointer });
    if (duplicateIsError) s.fail(`${pointer}/name`, `rule "${rule.name}" is defined twice (also at ${seen.pointer})`);
    if (seen.rule.limit !== rule.limit || seen.rule.subjects.join() !== rule.subjects.join()) {
      s.fail(pointer, `rule "${rule.name}" is defined differently at ${seen.pointer}; give one definition or different names`);
    }
  };

  const rules = top.rules === undefined || top.rules === null ? [] : s.array('/rules', top.rules);
  rules.forEach((raw, i) => define(readRule(s, `/rules/${i}`, raw, true), `/rules/${i}`, true));

  // Inline definitions first, so that a name may refer to a rule defined in a later group.
  const groupsRaw = top.groups === undefined || top.groups === null ? [] : s.array('/groups', top.groups);
  const groupObjects = groupsRaw.map((raw, i) => s.object(`/groups/${i}`, raw, GROUP));
  groupObjects.forEach((g, i) => {
    const list = g.rules === undefined || g.rules === null ? [] : s.array(`/groups/${i}/rules`, g.rules);
    list.forEach((r, j) => {
      if (typeof r !== 'string') define(readRule(s, `/groups/${i}/rules/${j}`, r, false), `/groups/${i}/rules/${j}`, false);
    });
  });

  const groups: QuotaGroup[] = [];
  groupObjects.forEach((g, i) => {
    const name = s.string(`/groups/${i}/name`, g.name);
    if (groups.some((x) => x.name === name)) s.fail(`/groups/${i}/name`, `group "${name}" is defined twice`);
    const list = g.rules === undefined || g.rules === null ? [] : (g.rules as unknown[]);
    const groupRules: QuotaRule[] = [];
    list.forEach((r, j) => {
      const pointer = `/groups/${i}/rules/${j}`;
      const ruleName = typeof r === 'string' ? s.string(pointer, r) : (r as { name: string }).name;
      const rule = defined.get(ruleName)?.rule;
      if (rule === undefined) s.fail(pointer, `rule "${ruleName}" is not defined (define it under "rules" or inline)`);
      // The forge answers 409/400 for a rule twice in one group; a file saying so is a mistake.
      if (groupRules.some((x) => x.name === ruleName)) s.fail(pointer, `rule "${ruleName}" is listed twice in group "${name}"`);
      groupRules.push(rule!);
    });
    groups.push({ name, rules: groupRules });
  });

  const assignments: Record<string, string[]> = {};
  const assignedUsers = new Map<string, string>();
  const assignRaw = top.assignments === undefined || top.assignments === null ? {} : s.map('/assignments', top.assignments);
  for (const [user, raw] of Object.entries(assignRaw)) {
    const pointer = s.member('/assignments', user);
    if (user === '') s.fail(pointer, 'a username must not be empty');
    const other = assignedUsers.get(user.toLowerCase());
    if (other !== undefined) s.fail(pointer, `user "${user}" is also listed as "${other}" (usernames compare case-insensitively)`);
    assignedUsers.set(user.toLowerCase(), user);
    const names = s.array(pointer, raw).map((g, j) => {
      const groupName = s.string(`${pointer}/${j}`, g);
      if (!groups.some((x) => x.name === groupName)) s.fail(`${pointer}/${j}`, `group "${groupName}" is not defined`);
      return groupName;
    });
    names.forEach((n, j) => {
      if (names.indexOf(n) !== j) s.fail(`${pointer}/${j}`, `group "${n}" is listed twice`);
    });
    assignments[user] = names;
  }

  const defaultsRaw = top.default_groups === undefined || top.default_groups === null ? [] : s.array('/default_groups', top.default_groups);
  // Default groups that do not exist are skipped at evaluation, as the forge does: not an error.
  const defaultGroups = defaultsRaw.map((g, j) => s.string(`/default_groups/${j}`, g));
  const defaultTotal = top.default_total === undefined || top.default_total === null ? -1 : s.integer('/default_total', top.default_total, -1, MAX_EXACT);
  return { rules: [...defined.values()].map((d) => d.rule), groups, assignments, defaultGroups, defaultTotal };
}

/** A rule object: {name, limit, subjects?}. Top-level rules need a limit; inline ones default to 0. */
function readRule(s: InputShape, pointer: string, raw: unknown, limitRequired: boolean): QuotaRule {
  const obj = s.object(pointer, raw, RULE);
  const name = s.string(`${pointer}/name`, obj.name);
  let limit = 0;
  if (obj.limit === undefined || obj.limit === null) {
    if (limitRequired) s.fail(`${pointer}/limit`, 'a rule needs a limit (bytes, or -1 for unlimited)');
  } else limit = s.integer(`${pointer}/limit`, obj.limit, -MAX_EXACT, MAX_EXACT);
  const subjectsRaw = obj.subjects === undefined || obj.subjects === null ? [] : s.array(`${pointer}/subjects`, obj.subjects);
  const subjects = subjectsRaw.map((v, k): Subject => {
    if (!isSubject(v)) s.fail(`${pointer}/subjects/${k}`, `unrecognised subject ${JSON.stringify(v)}`);
    return v as Subject;
  });
  return { name, limit, subjects };
}
