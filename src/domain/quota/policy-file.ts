// POLICY.json of `gov quota eval` (docs/quota.md §6): rules, groups (rule names or inline rule
// objects, the admin API's shapes), assignments, default groups and default total. Its shape is
// schemas/cli/quota-policy.json, checked before this module sees it; here are only the checks a
// schema cannot state, because they compare one part of the file with another.
import { escapePointer } from '../json-pointer.ts';
import type { Fail } from './json-input.ts';
import type { Subject } from './subjects.ts';
import type { QuotaGroup, QuotaRule } from './evaluate.ts';

export type QuotaPolicy = {
  rules: QuotaRule[];
  groups: QuotaGroup[];
  /** Group names per username, as written (usernames compare case-insensitively). */
  assignments: Record<string, string[]>;
  defaultGroups: string[];
  defaultTotal: number;
};

/** A rule as the file writes it: top-level rules have a limit (the schema requires it), inline ones default to 0. */
export type PolicyRuleJson = { name: string; limit?: number | null; subjects?: Subject[] | null };

/** POLICY.json as schemas/cli/quota-policy.json admits it; null stands for an absent member. */
export type PolicyJson = {
  rules?: PolicyRuleJson[] | null;
  groups?: { name: string; rules?: (string | PolicyRuleJson)[] | null }[] | null;
  assignments?: Record<string, string[]> | null;
  default_groups?: string[] | null;
  default_total?: number | null;
};

/**
 * The policy of a schema-valid POLICY.json. A rule name defined twice must have the same limit and
 * subjects; a rule named by a string may be defined at the top level or inline in any group.
 */
export function readPolicy(file: PolicyJson, failWith: Fail): QuotaPolicy {
  const fail = (pointer: string, detail: string): never => failWith({ pointer, detail });
  const defined = new Map<string, { rule: QuotaRule; pointer: string }>();
  const define = (raw: PolicyRuleJson, pointer: string, topLevel: boolean) => {
    const rule: QuotaRule = { name: raw.name, limit: raw.limit ?? 0, subjects: raw.subjects ?? [] };
    const seen = defined.get(rule.name);
    if (seen === undefined) return void defined.set(rule.name, { rule, pointer });
    if (topLevel) fail(`${pointer}/name`, `rule "${rule.name}" is defined twice (also at ${seen.pointer})`);
    if (seen.rule.limit !== rule.limit || seen.rule.subjects.join() !== rule.subjects.join()) {
      fail(pointer, `rule "${rule.name}" is defined differently at ${seen.pointer}; give one definition or different names`);
    }
  };
  (file.rules ?? []).forEach((raw, i) => define(raw, `/rules/${i}`, true));
  const groupsJson = file.groups ?? [];
  // Inline definitions first, so that a name may refer to a rule defined in a later group.
  groupsJson.forEach((g, i) =>
    (g.rules ?? []).forEach((r, j) => {
      if (typeof r !== 'string') define(r, `/groups/${i}/rules/${j}`, false);
    }),
  );

  const groups: QuotaGroup[] = [];
  groupsJson.forEach((g, i) => {
    if (groups.some((x) => x.name === g.name)) fail(`/groups/${i}/name`, `group "${g.name}" is defined twice`);
    const rules: QuotaRule[] = [];
    (g.rules ?? []).forEach((r, j) => {
      const pointer = `/groups/${i}/rules/${j}`;
      const ruleName = typeof r === 'string' ? r : r.name;
      const rule = defined.get(ruleName)?.rule;
      if (rule === undefined) return fail(pointer, `rule "${ruleName}" is not defined (define it under "rules" or inline)`);
      // The forge answers 409/400 for a rule twice in one group; a file saying so is a mistake.
      if (rules.some((x) => x.name === ruleName)) fail(pointer, `rule "${ruleName}" is listed twice in group "${g.name}"`);
      rules.push(rule);
    });
    groups.push({ name: g.name, rules });
  });

  // No prototype: a user named __proto__ or constructor is a key like any other.
  const assignments = Object.create(null) as Record<string, string[]>;
  const users = new Map<string, string>();
  for (const [user, names] of Object.entries(file.assignments ?? {})) {
    const pointer = `/assignments/${escapePointer(user)}`;
    const other = users.get(user.toLowerCase());
    if (other !== undefined) fail(pointer, `user "${user}" is also listed as "${other}" (usernames compare case-insensitively)`);
    users.set(user.toLowerCase(), user);
    names.forEach((name, j) => {
      if (!groups.some((x) => x.name === name)) fail(`${pointer}/${j}`, `group "${name}" is not defined`);
    });
    assignments[user] = names;
  }

  return {
    rules: [...defined.values()].map((d) => d.rule),
    groups,
    assignments,
    // Default groups that do not exist are skipped at evaluation, as the forge does: not an error.
    defaultGroups: file.default_groups ?? [],
    defaultTotal: file.default_total ?? -1,
  };
}
