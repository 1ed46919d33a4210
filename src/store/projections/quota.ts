// The forge quota projection: rules, groups, rule-in-group links, memberships and the current forge
// data set, folded from the quota.* and forge.* events. It reads nothing but the event itself, so a
// rebuild from the log gives the same rows.
import type Database from 'better-sqlite3';
import { canonicalJson, type Json } from '../../domain/canonical-json.ts';
import { QUOTA_KINDS, userKey, type QuotaPayloads } from '../../domain/quota/quota-events.ts';
import type { StoredEvent } from '../../domain/event.ts';
import type { Apply } from './core.ts';

type P<K extends keyof QuotaPayloads> = QuotaPayloads[K];

export function quotaProjection(db: Database.Database): Apply {
  const putRule = db.prepare('INSERT INTO quota_rules (name, rule_limit, subjects, seq) VALUES (?, ?, ?, ?)');
  // An edit keeps the rule's place (its creation seq) in listings.
  const editRule = db.prepare('UPDATE quota_rules SET rule_limit = ?, subjects = ? WHERE name = ?');
  const deleteRule = db.prepare('DELETE FROM quota_rules WHERE name = ?');
  const unlinkRule = db.prepare('DELETE FROM quota_group_rules WHERE rule_name = ?');
  const putGroup = db.prepare('INSERT INTO quota_groups (name, seq) VALUES (?, ?)');
  const deleteGroup = db.prepare('DELETE FROM quota_groups WHERE name = ?');
  const unlinkGroupRules = db.prepare('DELETE FROM quota_group_rules WHERE group_name = ?');
  const unlinkGroupUsers = db.prepare('DELETE FROM quota_group_users WHERE group_name = ?');
  const link = db.prepare('INSERT OR IGNORE INTO quota_group_rules (group_name, rule_name, seq) VALUES (?, ?, ?)');
  const unlink = db.prepare('DELETE FROM quota_group_rules WHERE group_name = ? AND rule_name = ?');
  const addUser = db.prepare('INSERT OR IGNORE INTO quota_group_users (group_name, user_key, seq) VALUES (?, ?, ?)');
  const removeUser = db.prepare('DELETE FROM quota_group_users WHERE group_name = ? AND user_key = ?');
  const clearUser = db.prepare('DELETE FROM quota_group_users WHERE user_key = ?');
  const putForge = db.prepare('INSERT OR REPLACE INTO forge_data (id, data, seq, recorded_at) VALUES (1, ?, ?, ?)');

  return (event: StoredEvent) => {
    const payload = event.payload as unknown;
    switch (event.kind) {
      case QUOTA_KINDS.ruleCreated: {
        const p = payload as P<'quota.rule.created'>;
        putRule.run(p.name, p.limit, JSON.stringify(p.subjects), event.seq);
        break;
      }
      case QUOTA_KINDS.ruleEdited: {
        const p = payload as P<'quota.rule.edited'>;
        editRule.run(p.limit, JSON.stringify(p.subjects), p.name);
        break;
      }
      case QUOTA_KINDS.ruleDeleted: {
        const p = payload as P<'quota.rule.deleted'>;
        unlinkRule.run(p.name);
        deleteRule.run(p.name);
        break;
      }
      case QUOTA_KINDS.groupCreated:
        putGroup.run((payload as P<'quota.group.created'>).name, event.seq);
        break;
      case QUOTA_KINDS.groupDeleted: {
        const { name } = payload as P<'quota.group.deleted'>;
        unlinkGroupRules.run(name);
        unlinkGroupUsers.run(name);
        deleteGroup.run(name);
        break;
      }
      case QUOTA_KINDS.groupRuleAdded: {
        const p = payload as P<'quota.group.rule_added'>;
        link.run(p.group, p.rule, event.seq);
        break;
      }
      case QUOTA_KINDS.groupRuleRemoved: {
        const p = payload as P<'quota.group.rule_removed'>;
        unlink.run(p.group, p.rule);
        break;
      }
      case QUOTA_KINDS.groupUserAdded: {
        const p = payload as P<'quota.group.user_added'>;
        addUser.run(p.group, userKey(p.user), event.seq);
        break;
      }
      case QUOTA_KINDS.groupUserRemoved: {
        const p = payload as P<'quota.group.user_removed'>;
        removeUser.run(p.group, userKey(p.user));
        break;
      }
      case QUOTA_KINDS.userGroupsSet: {
        const p = payload as P<'quota.user.groups_set'>;
        clearUser.run(userKey(p.user));
        for (const group of p.groups) addUser.run(group, userKey(p.user), event.seq);
        break;
      }
      case QUOTA_KINDS.forgeDataReplaced: {
        const p = payload as P<'forge.data.replaced'>;
        // Canonical JSON: the live event keeps the sender's member order, a replayed one is sorted.
        putForge.run(canonicalJson(p.data as unknown as Json), event.seq, event.recorded_at);
        break;
      }
      default:
        break;
    }
  };
}
