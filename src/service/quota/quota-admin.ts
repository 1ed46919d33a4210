// The forge quota admin operations: rules, groups, rule-in-group links and memberships. Each write
// checks in the order of docs/quota.md §5 (target → body → conflict) on the current quota state
// and appends its events as one unit that expects that state unchanged, so a failure writes nothing.
import type { QuotaGroup, QuotaRule } from '../../domain/quota/evaluate.ts';
import { quotaEvent, QUOTA_KINDS, userKey, type QuotaEventDraft } from '../../domain/quota/quota-events.ts';
import { AppError, type ErrorCode } from '../../errors.ts';
import { readCreateGroup, readCreateRule, readEditRule, readSetUserGroups, recognisedSubjects } from './quota-bodies.ts';
import type { ForgeOwnerView } from './forge-state.ts';
import type { QuotaContext } from './quota-context.ts';

const notFound = (code: ErrorCode, message: string) => new AppError(code, message);
const conflict = (code: ErrorCode, message: string) => new AppError(code, message);

export function findRule(ctx: QuotaContext, name: string): QuotaRule {
  const rule = ctx.q.rule(name);
  if (!rule) throw notFound('quota_rule_not_found', `There is no quota rule "${name}"; GET /admin/quota/rules lists them.`);
  return rule;
}

export function findGroup(ctx: QuotaContext, name: string): QuotaGroup {
  const group = ctx.q.group(name);
  if (!group) throw notFound('quota_group_not_found', `There is no quota group "${name}"; GET /admin/quota/groups lists them.`);
  return group;
}

/** A user or an organisation of the forge data (both can hold quota groups, as in the forge). */
export function findOwner(ctx: QuotaContext, login: string): ForgeOwnerView {
  const owner = ctx.forge().owner(login);
  if (!owner) throw notFound('forge_user_not_found', `There is no user "${login}" in the forge data; GET /admin/forge/data shows it.`);
  return owner;
}

export async function createRule(ctx: QuotaContext, body: unknown): Promise<QuotaRule> {
  const def = readCreateRule(ctx.deps.registry, body);
  const rule: QuotaRule = { name: def.name, limit: def.limit, subjects: recognisedSubjects(def.subjects, '/subjects') };
  return ctx.write(() => {
    if (ctx.q.rule(rule.name)) throw conflict('quota_rule_exists', `A quota rule "${rule.name}" already exists; edit it with PATCH or pick another name.`);
    return { events: [quotaEvent(QUOTA_KINDS.ruleCreated, { ...rule })], result: rule };
  });
}

export async function editRule(ctx: QuotaContext, name: string, body: unknown): Promise<QuotaRule> {
  return ctx.write(() => {
    const before = findRule(ctx, name);
    const edit = readEditRule(ctx.deps.registry, body);
    const after: QuotaRule = {
      name,
      limit: edit.limit ?? before.limit,
      subjects: edit.subjects === undefined ? before.subjects : recognisedSubjects(edit.subjects, '/subjects'),
    };
    // An edit that changes nothing records nothing.
    const changed = after.limit !== before.limit || after.subjects.join('\n') !== before.subjects.join('\n');
    return { events: changed ? [quotaEvent(QUOTA_KINDS.ruleEdited, { ...after })] : [], result: after };
  });
}

export async function deleteRule(ctx: QuotaContext, name: string): Promise<void> {
  await ctx.write(() => {
    findRule(ctx, name);
    return { events: [quotaEvent(QUOTA_KINDS.ruleDeleted, { name })], result: undefined };
  });
}

/**
 * One unit: the group, each new rule, each link. A rule that already exists is reused unchanged
 * (the request's limit and subjects for it are ignored, so are its subjects' spellings).
 */
export async function createGroup(ctx: QuotaContext, body: unknown): Promise<QuotaGroup> {
  const def = readCreateGroup(ctx.deps.registry, body);
  return ctx.write(() => {
    if (ctx.q.group(def.name)) throw conflict('quota_group_exists', `A quota group "${def.name}" already exists; pick another name or add rules to it.`);
    const events: QuotaEventDraft[] = [quotaEvent(QUOTA_KINDS.groupCreated, { name: def.name })];
    const rules: QuotaRule[] = [];
    def.rules.forEach((r, i) => {
      let rule = ctx.q.rule(r.name);
      if (!rule) {
        rule = { name: r.name, limit: r.limit, subjects: recognisedSubjects(r.subjects, `/rules/${i}/subjects`) };
        events.push(quotaEvent(QUOTA_KINDS.ruleCreated, { ...rule }));
      }
      rules.push(rule);
      events.push(quotaEvent(QUOTA_KINDS.groupRuleAdded, { group: def.name, rule: r.name }));
    });
    return { events, result: { name: def.name, rules } };
  });
}

export async function deleteGroup(ctx: QuotaContext, name: string): Promise<void> {
  await ctx.write(() => {
    findGroup(ctx, name);
    return { events: [quotaEvent(QUOTA_KINDS.groupDeleted, { name })], result: undefined };
  });
}

export async function addRuleToGroup(ctx: QuotaContext, groupName: string, ruleName: string): Promise<void> {
  await ctx.write(() => {
    findGroup(ctx, groupName);
    findRule(ctx, ruleName);
    if (ctx.q.ruleInGroup(groupName, ruleName)) throw conflict('quota_rule_in_group', `Rule "${ruleName}" is already in group "${groupName}".`);
    return { events: [quotaEvent(QUOTA_KINDS.groupRuleAdded, { group: groupName, rule: ruleName })], result: undefined };
  });
}

export async function removeRuleFromGroup(ctx: QuotaContext, groupName: string, ruleName: string): Promise<void> {
  await ctx.write(() => {
    findGroup(ctx, groupName);
    findRule(ctx, ruleName);
    if (!ctx.q.ruleInGroup(groupName, ruleName)) throw notFound('quota_rule_not_in_group', `Rule "${ruleName}" is not in group "${groupName}".`);
    return { events: [quotaEvent(QUOTA_KINDS.groupRuleRemoved, { group: groupName, rule: ruleName })], result: undefined };
  });
}

export async function addUserToGroup(ctx: QuotaContext, groupName: string, login: string): Promise<void> {
  await ctx.write(() => {
    findGroup(ctx, groupName);
    const owner = findOwner(ctx, login);
    if (ctx.q.userInGroup(groupName, userKey(owner.login))) throw conflict('quota_user_in_group', `User "${owner.login}" is already in group "${groupName}".`);
    return { events: [quotaEvent(QUOTA_KINDS.groupUserAdded, { group: groupName, user: owner.login })], result: undefined };
  });
}

export async function removeUserFromGroup(ctx: QuotaContext, groupName: string, login: string): Promise<void> {
  await ctx.write(() => {
    findGroup(ctx, groupName);
    const owner = findOwner(ctx, login);
    if (!ctx.q.userInGroup(groupName, userKey(owner.login))) throw notFound('quota_user_not_in_group', `User "${owner.login}" is not in group "${groupName}".`);
    return { events: [quotaEvent(QUOTA_KINDS.groupUserRemoved, { group: groupName, user: owner.login })], result: undefined };
  });
}

/** The user's groups become exactly the list; an unknown group is a 422 and nothing changes. */
export async function setUserGroups(ctx: QuotaContext, login: string, body: unknown): Promise<void> {
  await ctx.write(() => {
    const owner = findOwner(ctx, login);
    const groups = readSetUserGroups(ctx.deps.registry, body);
    groups.forEach((g, i) => {
      if (!ctx.q.group(g)) {
        throw new AppError('quota_group_unknown', `There is no quota group "${g}"; create it first. Nothing was changed.`, { details: [{ pointer: `/groups/${i}`, detail: 'unknown group' }] });
      }
    });
    // The same groups again (in any order, repeats included) change nothing, so nothing is recorded.
    const current = new Set(ctx.q.assignments()[userKey(owner.login)] ?? []);
    const wanted = new Set(groups);
    if (current.size === wanted.size && [...wanted].every((g) => current.has(g))) return { events: [], result: undefined };
    return { events: [quotaEvent(QUOTA_KINDS.userGroupsSet, { user: owner.login, groups })], result: undefined };
  });
}

/** Members of a group who are in the current forge data (a removed user is not listed). */
export function groupMembers(ctx: QuotaContext, groupName: string): ForgeOwnerView[] {
  findGroup(ctx, groupName);
  const forge = ctx.forge();
  return ctx.q.usersOfGroup(groupName).map((key) => forge.owner(key)).filter((o): o is ForgeOwnerView => o !== undefined);
}
