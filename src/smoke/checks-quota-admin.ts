// The forge quota admin routes (docs/quota.md §5), one full round under the given prefix ('' or
// /api/v1): rules and groups created, read, edited, linked to a user and a rule, unlinked and
// deleted again. Forge bodies ignore unknown members, so that is asserted instead of a 422.
import { check, happy, negative, type SmokeCheck } from './check.ts';
import type { SmokeCtx } from './context.ts';
import { quotaNames } from './quota-fixture.ts';

export function quotaAdminChecks(prefix: string): SmokeCheck[] {
  const tag = prefix === '' ? 'forge quota' : `forge quota ${prefix}`;
  const r = (method: string, path: string) => `${method} ${prefix}${path}`;
  const side = prefix === '' ? 'a' : 'b';
  const names = (ctx: SmokeCtx) => ({ rule: `smk-${ctx.runId}-${side}-rule`, inGroup: `smk-${ctx.runId}-${side}-rule2`, group: `smk-${ctx.runId}-${side}-group`, user: quotaNames(ctx.runId).carol });
  // The round creates, reads back and deletes its own rules and groups: every step, reads included,
  // belongs to a forge write.
  const op = { operator: true, writes: 'forge', round: true } as const;
  type Step = {
    route: string;
    status: number;
    params?: (ctx: SmokeCtx) => Record<string, string>;
    body?: (ctx: SmokeCtx) => unknown;
    then?: (body: any, ctx: SmokeCtx) => void;
    kind?: 'happy' | 'negative';
  };
  /** One operator call on the route under the prefix, its status, then an optional look at the body. */
  const step = (name: string, s: Step) => {
    const route = r(s.route.split(' ')[0]!, s.route.split(' ')[1]!);
    return (s.kind === 'negative' ? negative : happy)(`${tag}: ${name}`, route, async (ctx) => {
      const body = s.body?.(ctx);
      const res = await ctx.call(route, { as: 'operator', params: s.params?.(ctx) ?? {}, ...(body !== undefined ? { body } : {}) });
      s.then?.(ctx.expect(res, s.status), ctx);
    }, op);
  };

  const rule = (ctx: SmokeCtx) => ({ r: names(ctx).rule });
  const group = (ctx: SmokeCtx) => ({ g: names(ctx).group });
  const member = (ctx: SmokeCtx) => ({ g: names(ctx).group, u: names(ctx).user });
  const linked = (ctx: SmokeCtx) => ({ g: names(ctx).group, r: names(ctx).rule });
  const user = (ctx: SmokeCtx) => ({ u: names(ctx).user });

  return [
    step('POST /admin/quota/rules creates a rule and ignores unknown members', {
      route: 'POST /admin/quota/rules', status: 201,
      body: (ctx) => ({ name: names(ctx).rule, limit: 1024, subjects: ['size:repos:all'], colour: 'ignored by forge convention' }),
      then: (b, ctx) => check(b.name === names(ctx).rule && b.limit === 1024 && b.colour === undefined, `rule ${JSON.stringify(b)}`),
    }),
    step('creating the same rule again is 409', { route: 'POST /admin/quota/rules', status: 409, kind: 'negative', body: (ctx) => ({ name: names(ctx).rule, limit: 1 }) }),
    step('a rule with an unrecognised subject is 422', { route: 'POST /admin/quota/rules', status: 422, kind: 'negative', body: (ctx) => ({ name: `${names(ctx).rule}-x`, limit: 1, subjects: ['size:everything'] }) }),
    step('a rule without a limit is 400', { route: 'POST /admin/quota/rules', status: 400, kind: 'negative', body: (ctx) => ({ name: `${names(ctx).rule}-y` }) }),
    negative(`${tag}: a malformed rule body is 400`, r('POST', '/admin/quota/rules'), async (ctx) => {
      ctx.expect(await ctx.call(r('POST', '/admin/quota/rules'), { as: 'operator', rawBody: '{"name": ' }), 400);
    }, op),
    step('GET /admin/quota/rules lists the rule', {
      route: 'GET /admin/quota/rules', status: 200,
      then: (b, ctx) => check(b.some((x: { name: string }) => x.name === names(ctx).rule), 'the new rule is not listed'),
    }),
    step('GET /admin/quota/rules/{r} reads the rule', { route: 'GET /admin/quota/rules/{r}', status: 200, params: rule }),
    step('PATCH /admin/quota/rules/{r} edits the limit and keeps the subjects', {
      route: 'PATCH /admin/quota/rules/{r}', status: 200, params: rule,
      body: () => ({ limit: 2048, subjects: null, colour: 'ignored' }),
      then: (b) => check(b.limit === 2048 && JSON.stringify(b.subjects) === '["size:repos:all"]', `rule ${JSON.stringify(b)}`),
    }),
    negative(`${tag}: a malformed rule edit is 400`, r('PATCH', '/admin/quota/rules/{r}'), async (ctx) => {
      ctx.expect(await ctx.call(r('PATCH', '/admin/quota/rules/{r}'), { as: 'operator', params: rule(ctx), rawBody: '{"limit": ' }), 400);
    }, op),
    step('POST /admin/quota/groups creates a group with a new rule', {
      route: 'POST /admin/quota/groups', status: 201,
      body: (ctx) => ({ name: names(ctx).group, rules: [{ name: names(ctx).inGroup, limit: 10, subjects: ['size:git:lfs'] }], colour: 'ignored' }),
      then: (b, ctx) => check(b.name === names(ctx).group && b.rules.length === 1, `group ${JSON.stringify(b)}`),
    }),
    step('creating the same group again is 409', { route: 'POST /admin/quota/groups', status: 409, kind: 'negative', body: (ctx) => ({ name: names(ctx).group }) }),
    step('GET /admin/quota/groups lists the group', {
      route: 'GET /admin/quota/groups', status: 200,
      then: (b, ctx) => check(b.some((g: { name: string }) => g.name === names(ctx).group), 'the new group is not listed'),
    }),
    step('GET /admin/quota/groups/{g} reads the group', { route: 'GET /admin/quota/groups/{g}', status: 200, params: group }),
    step('PUT /admin/quota/groups/{g}/rules/{r} adds a rule', { route: 'PUT /admin/quota/groups/{g}/rules/{r}', status: 204, params: linked }),
    step('adding the same rule again is 409', { route: 'PUT /admin/quota/groups/{g}/rules/{r}', status: 409, kind: 'negative', params: linked }),
    step('PUT /admin/quota/groups/{g}/users/{u} adds a user', { route: 'PUT /admin/quota/groups/{g}/users/{u}', status: 204, params: member }),
    step('GET /admin/quota/groups/{g}/users lists the user', {
      route: 'GET /admin/quota/groups/{g}/users', status: 200, params: group,
      then: (b, ctx) => check(b.some((u: { login: string }) => u.login.toLowerCase() === names(ctx).user.toLowerCase()), `users ${JSON.stringify(b.map((u: { login: string }) => u.login))}`),
    }),
    step('DELETE /admin/quota/groups/{g}/users/{u} removes the user', { route: 'DELETE /admin/quota/groups/{g}/users/{u}', status: 204, params: member }),
    step('removing a user not in the group is 404', { route: 'DELETE /admin/quota/groups/{g}/users/{u}', status: 404, kind: 'negative', params: member }),
    step('POST /admin/users/{u}/quota/groups sets the user\'s groups to exactly the list', {
      route: 'POST /admin/users/{u}/quota/groups', status: 204, params: user, body: (ctx) => ({ groups: [names(ctx).group] }),
    }),
    step('GET /admin/users/{u}/quota names the user\'s groups', {
      route: 'GET /admin/users/{u}/quota', status: 200, params: user,
      then: (b, ctx) => check(JSON.stringify(b.groups.map((g: { name: string }) => g.name)) === JSON.stringify([names(ctx).group]), `groups ${JSON.stringify(b.groups)}`),
    }),
    step('an empty list clears the user\'s groups', { route: 'POST /admin/users/{u}/quota/groups', status: 204, params: user, body: () => ({ groups: [] }) }),
    step('DELETE /admin/quota/groups/{g}/rules/{r} removes the rule', { route: 'DELETE /admin/quota/groups/{g}/rules/{r}', status: 204, params: linked }),
    step('DELETE /admin/quota/groups/{g} deletes the group', { route: 'DELETE /admin/quota/groups/{g}', status: 204, params: group }),
    step('a deleted group is 404', { route: 'GET /admin/quota/groups/{g}', status: 404, kind: 'negative', params: group }),
    step('the group\'s rule outlives it', { route: 'GET /admin/quota/rules/{r}', status: 200, params: (ctx) => ({ r: names(ctx).inGroup }) }),
    step('DELETE /admin/quota/rules/{r} deletes a rule', { route: 'DELETE /admin/quota/rules/{r}', status: 204, params: rule }),
    step('deleting the group\'s former rule too', { route: 'DELETE /admin/quota/rules/{r}', status: 204, params: (ctx) => ({ r: names(ctx).inGroup }) }),
    step('a deleted rule is 404', { route: 'GET /admin/quota/rules/{r}', status: 404, kind: 'negative', params: rule }),
    happy(`${tag}: GET ${prefix}/admin/forge/data reads the data set`, r('GET', '/admin/forge/data'), async (ctx) => {
      const body = ctx.expect(await ctx.call(r('GET', '/admin/forge/data'), { as: 'operator' }), 200);
      check(body.users?.some((u: { login: string }) => u.login === names(ctx).user), 'the smoke users are not in the data set');
    }, { ...op, needs: ['PUT /admin/forge/data'] }),
    happy(`${tag}: PUT ${prefix}/admin/forge/data replaces the data set`, r('PUT', '/admin/forge/data'), async (ctx) => {
      const current = ctx.expect(await ctx.call(r('GET', '/admin/forge/data'), { as: 'operator' }), 200);
      ctx.expect(await ctx.call(r('PUT', '/admin/forge/data'), { as: 'operator', body: current }), 204);
    }, { ...op, needs: ['PUT /admin/forge/data', r('GET', '/admin/forge/data')] }),
  ];
}
