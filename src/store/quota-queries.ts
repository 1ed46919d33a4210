// Read-side queries over the quota tables of the index: rules, groups with their rules, memberships
// and the current forge data set. Listings follow the seq of the event that created each row. Built
// on the store's index, they follow it to a rebuilt file (index-handle.ts).
import type Database from 'better-sqlite3';
import type { QuotaGroup, QuotaRule } from '../domain/quota/evaluate.ts';
import type { Subject } from '../domain/quota/subjects.ts';
import type { ForgeData } from '../domain/quota/usage.ts';
import { preparedOn } from './index-handle.ts';

export type QuotaQueries = ReturnType<typeof createQuotaQueries>;

export type StoredForgeData = { data: ForgeData; seq: number; recordedAt: string };

type RuleRow = { name: string; rule_limit: number; subjects: string };

export function createQuotaQueries(db: Database.Database) {
  const statements = preparedOn(db, (db) => {
    const rules = db.prepare<[], RuleRow>('SELECT name, rule_limit, subjects FROM quota_rules ORDER BY seq, name');
    const rule = db.prepare<[string], RuleRow>('SELECT name, rule_limit, subjects FROM quota_rules WHERE name = ?');
    const groups = db.prepare<[], { name: string }>('SELECT name FROM quota_groups ORDER BY seq, name');
    const group = db.prepare<[string], { name: string }>('SELECT name FROM quota_groups WHERE name = ?');
    const rulesOfGroup = db.prepare<[string], RuleRow>(
      `SELECT r.name, r.rule_limit, r.subjects FROM quota_group_rules gr JOIN quota_rules r ON r.name = gr.rule_name
        WHERE gr.group_name = ? ORDER BY gr.seq, r.name`,
    );
    const link = db.prepare<[string, string], { seq: number }>('SELECT seq FROM quota_group_rules WHERE group_name = ? AND rule_name = ?');
    const member = db.prepare<[string, string], { seq: number }>('SELECT seq FROM quota_group_users WHERE group_name = ? AND user_key = ?');
    const usersOfGroup = db.prepare<[string], { user_key: string }>('SELECT user_key FROM quota_group_users WHERE group_name = ? ORDER BY seq, user_key');
    const memberships = db.prepare<[], { user_key: string; group_name: string }>(
      `SELECT gu.user_key, gu.group_name FROM quota_group_users gu JOIN quota_groups g ON g.name = gu.group_name
        ORDER BY gu.user_key, g.seq`,
    );
    const forge = db.prepare<[], { data: string; seq: number; recorded_at: string }>('SELECT data, seq, recorded_at FROM forge_data WHERE id = 1');
    return { rules, rule, groups, group, rulesOfGroup, link, member, usersOfGroup, memberships, forge };
  });

  const toRule = (row: RuleRow): QuotaRule => ({ name: row.name, limit: row.rule_limit, subjects: JSON.parse(row.subjects) as Subject[] });
  const withRules = (name: string): QuotaGroup => ({ name, rules: statements().rulesOfGroup.all(name).map(toRule) });
  // The data set is parsed once per forge.data.replaced, not once per request.
  let cached: StoredForgeData | null = null;

  return {
    rules: (): QuotaRule[] => statements().rules.all().map(toRule),
    rule(name: string): QuotaRule | undefined {
      const row = statements().rule.get(name);
      return row ? toRule(row) : undefined;
    },
    groups: (): QuotaGroup[] => statements().groups.all().map((g) => withRules(g.name)),
    group(name: string): QuotaGroup | undefined {
      return statements().group.get(name) ? withRules(name) : undefined;
    },
    ruleInGroup: (groupName: string, ruleName: string): boolean => statements().link.get(groupName, ruleName) !== undefined,
    userInGroup: (groupName: string, key: string): boolean => statements().member.get(groupName, key) !== undefined,
    /** Lower-cased logins of the group's members, in the order they joined. */
    usersOfGroup: (groupName: string): string[] => statements().usersOfGroup.all(groupName).map((r) => r.user_key),
    /** Group names per lower-cased login, each list in group creation order. */
    assignments(): Record<string, string[]> {
      // No prototype: a login such as constructor or __proto__ is a key like any other.
      const out = Object.create(null) as Record<string, string[]>;
      for (const row of statements().memberships.all()) (out[row.user_key] ??= []).push(row.group_name);
      return out;
    },
    forgeData(): StoredForgeData | null {
      const row = statements().forge.get();
      if (!row) return null;
      if (cached?.seq !== row.seq) cached = { data: JSON.parse(row.data) as ForgeData, seq: row.seq, recordedAt: row.recorded_at };
      return cached;
    },
  };
}
