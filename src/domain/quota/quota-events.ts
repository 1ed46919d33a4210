// The event kinds that record the forge quota state (rules, groups, memberships, forge data), their
// payloads, and the fixed scope they live in: quota state is instance-wide, not tenant data.
import type { Scope } from '../event.ts';
import type { ForgeData } from './usage.ts';
import type { Subject } from './subjects.ts';

/** Every quota and forge event is recorded in this one scope (ids, so the envelope accepts them). */
export const QUOTA_SCOPE: Readonly<Scope> = Object.freeze({ tenant_id: 'forge', workspace_id: 'quota', project_id: 'admin' });

export const QUOTA_KINDS = {
  ruleCreated: 'quota.rule.created',
  ruleEdited: 'quota.rule.edited',
  ruleDeleted: 'quota.rule.deleted',
  groupCreated: 'quota.group.created',
  groupDeleted: 'quota.group.deleted',
  groupRuleAdded: 'quota.group.rule_added',
  groupRuleRemoved: 'quota.group.rule_removed',
  groupUserAdded: 'quota.group.user_added',
  groupUserRemoved: 'quota.group.user_removed',
  userGroupsSet: 'quota.user.groups_set',
  forgeDataReplaced: 'forge.data.replaced',
} as const;

export type QuotaKind = (typeof QUOTA_KINDS)[keyof typeof QUOTA_KINDS];

/** Where a forge data set came from: the admin route, `--forge-data FILE`, or the bundled fixture. */
export type ForgeDataSource = 'api' | 'file' | 'fixture';

/** Payload per kind. A rule event carries the whole resulting rule, so replay needs no history. */
export type QuotaPayloads = {
  'quota.rule.created': { name: string; limit: number; subjects: Subject[] };
  'quota.rule.edited': { name: string; limit: number; subjects: Subject[] };
  'quota.rule.deleted': { name: string };
  'quota.group.created': { name: string };
  'quota.group.deleted': { name: string };
  'quota.group.rule_added': { group: string; rule: string };
  'quota.group.rule_removed': { group: string; rule: string };
  /** `user` is the login as the forge data spells it; memberships compare it case-insensitively. */
  'quota.group.user_added': { group: string; user: string };
  'quota.group.user_removed': { group: string; user: string };
  'quota.user.groups_set': { user: string; groups: string[] };
  'forge.data.replaced': { data: ForgeData; source: ForgeDataSource };
};

export type QuotaEventDraft<K extends QuotaKind = QuotaKind> = { kind: K; payload: QuotaPayloads[K] };

export function quotaEvent<K extends QuotaKind>(kind: K, payload: QuotaPayloads[K]): QuotaEventDraft<K> {
  return { kind, payload };
}

/** Usernames and logins compare case-insensitively (as Forgejo compares lower names). */
export function userKey(login: string): string {
  return login.toLowerCase();
}
