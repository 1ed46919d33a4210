// The forge quota admin routes (docs/quota.md §5): rules, groups, rule-in-group links, group
// members, a user's groups and a user's quota info. Operator token only. A route that takes a body
// checks its path targets first and reads the body after, so the statuses come in the table's order.
import { Hono, type Context } from 'hono';
import {
  addRuleToGroup, addUserToGroup, createGroup, createRule, deleteGroup, deleteRule, editRule, findGroup, findOwner, findRule,
  groupMembers, removeRuleFromGroup, removeUserFromGroup, setUserGroups,
} from '../../service/quota/quota-admin.ts';
import type { QuotaContext } from '../../service/quota/quota-context.ts';
import { groupJson, ruleJson, userJson } from '../../service/quota/forge-views.ts';
import { quotaInfo } from '../../service/quota/quota-usage.ts';
import type { AppEnv } from '../env.ts';
import { forgeRoute, type ForgeAuth } from '../middleware/forge-auth.ts';
import { readJsonBody } from '../request-input.ts';

export function quotaAdminRoutes(ctx: QuotaContext, auth: ForgeAuth): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const admin = (handler: Parameters<typeof forgeRoute>[2]) => forgeRoute(auth, { access: 'admin', quota: true }, handler);
  const base = (url: string) => new URL(url).origin;
  const p = (c: Context, name: string) => c.req.param(name) ?? '';

  app.get('/admin/quota/rules', admin((c) => c.json(ctx.q.rules().map((r) => ruleJson(r, true)))));
  app.post('/admin/quota/rules', admin(async (c) => c.json(ruleJson(await createRule(ctx, await readJsonBody(c)), true), 201)));
  app.get('/admin/quota/rules/:quotarule', admin((c) => c.json(ruleJson(findRule(ctx, p(c, 'quotarule')), true))));
  app.patch('/admin/quota/rules/:quotarule', admin(async (c) => {
    const name = p(c, 'quotarule');
    findRule(ctx, name);
    return c.json(ruleJson(await editRule(ctx, name, await readJsonBody(c)), true));
  }));
  app.delete('/admin/quota/rules/:quotarule', admin(async (c) => {
    await deleteRule(ctx, p(c, 'quotarule'));
    return c.body(null, 204);
  }));

  app.get('/admin/quota/groups', admin((c) => c.json(ctx.q.groups().map((g) => groupJson(g, true)))));
  app.post('/admin/quota/groups', admin(async (c) => c.json(groupJson(await createGroup(ctx, await readJsonBody(c)), true), 201)));
  app.get('/admin/quota/groups/:quotagroup', admin((c) => c.json(groupJson(findGroup(ctx, p(c, 'quotagroup')), true))));
  app.delete('/admin/quota/groups/:quotagroup', admin(async (c) => {
    await deleteGroup(ctx, p(c, 'quotagroup'));
    return c.body(null, 204);
  }));

  app.get('/admin/quota/groups/:quotagroup/users', admin((c) => {
    const members = groupMembers(ctx, p(c, 'quotagroup'));
    const loadedAt = ctx.forge().loadedAt;
    return c.json(members.map((m) => userJson(m, base(c.req.url), loadedAt)));
  }));
  app.put('/admin/quota/groups/:quotagroup/users/:username', admin(async (c) => {
    await addUserToGroup(ctx, p(c, 'quotagroup'), p(c, 'username'));
    return c.body(null, 204);
  }));
  app.delete('/admin/quota/groups/:quotagroup/users/:username', admin(async (c) => {
    await removeUserFromGroup(ctx, p(c, 'quotagroup'), p(c, 'username'));
    return c.body(null, 204);
  }));
  app.put('/admin/quota/groups/:quotagroup/rules/:quotarule', admin(async (c) => {
    await addRuleToGroup(ctx, p(c, 'quotagroup'), p(c, 'quotarule'));
    return c.body(null, 204);
  }));
  app.delete('/admin/quota/groups/:quotagroup/rules/:quotarule', admin(async (c) => {
    await removeRuleFromGroup(ctx, p(c, 'quotagroup'), p(c, 'quotarule'));
    return c.body(null, 204);
  }));

  app.post('/admin/users/:username/quota/groups', admin(async (c) => {
    const login = p(c, 'username');
    findOwner(ctx, login);
    await setUserGroups(ctx, login, await readJsonBody(c));
    return c.body(null, 204);
  }));
  app.get('/admin/users/:username/quota', admin((c) => c.json(quotaInfo(ctx, findOwner(ctx, p(c, 'username')), true))));
  return app;
}
