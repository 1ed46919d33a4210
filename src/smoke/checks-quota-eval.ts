// Quota-rule evaluation cases (docs/quota.md §2, §4, §5): load the smoke forge data set and policy
// through the admin API, check /user/quota/check answers whose values are known, then put the
// server back as it was (assignments cleared, groups and rules deleted, the data set restored).
import { check, happy, negative, type SmokeCheck } from './check.ts';
import type { SmokeCtx } from './context.ts';
import { CHECK_CASES, groupAlice, groupBob, quotaNames, smokeForgeData } from './quota-fixture.ts';

const DATA = '/admin/forge/data';
const GROUPS = 'POST /admin/quota/groups';
const SET_GROUPS = 'POST /admin/users/{username}/quota/groups';
const CHECK = 'GET /user/quota/check';

/** Set-up and tear-down around the read checks of checks-quota-reads.ts. */
export function quotaEvalChecks(): { setup: SmokeCheck[]; teardown: SmokeCheck[] } {
  let original: unknown = null;
  const op = { operator: true };
  const setupStep = { operator: true, always: true };
  const setup: SmokeCheck[] = [
    happy('forge quota: GET /admin/forge/data reads the data set (kept to restore it)', `GET ${DATA}`, async (ctx) => {
      original = ctx.expect(await ctx.call(`GET ${DATA}`, { as: 'operator' }), 200);
    }, setupStep),
    negative('forge quota: a malformed data set body is 400', `PUT ${DATA}`, async (ctx) => {
      ctx.expect(await ctx.call(`PUT ${DATA}`, { as: 'operator', rawBody: '{"users": [' }), 400);
    }, op),
    negative('forge quota: a data set naming an unknown owner is 400', `PUT ${DATA}`, async (ctx) => {
      const bad = { repos: [{ owner: `smk-${ctx.runId}-nobody`, name: 'x', size: 1 }] };
      ctx.expect(await ctx.call(`PUT ${DATA}`, { as: 'operator', body: bad }), 400);
    }, op),
    happy('forge quota: PUT /admin/forge/data loads the smoke data set', `PUT ${DATA}`, async (ctx) => {
      const mine = smokeForgeData(quotaNames(ctx.runId));
      const base = (original ?? {}) as Record<string, unknown[] | undefined>;
      const merged = Object.fromEntries(Object.entries(mine).map(([k, list]) => [k, [...(base[k] ?? []), ...list]]));
      ctx.expect(await ctx.call(`PUT ${DATA}`, { as: 'operator', body: merged }), 204);
    }, { ...setupStep, needs: [`GET ${DATA}`] }),
    happy('forge quota: POST /admin/quota/groups creates the policy groups with their rules', GROUPS, async (ctx) => {
      const q = quotaNames(ctx.runId);
      for (const group of [groupAlice(q), groupBob(q)]) {
        const body = ctx.expect(await ctx.call(GROUPS, { as: 'operator', body: group }), 201);
        check(body.name === group.name && body.rules.length === 2, `group ${body.name} has ${body.rules.length} rules`);
      }
    }, setupStep),
    happy('forge quota: POST /admin/users/{u}/quota/groups assigns the groups', SET_GROUPS, async (ctx) => {
      const q = quotaNames(ctx.runId);
      for (const [user, group] of [[q.alice, q.groupAlice], [q.bob, q.groupBob]] as const) {
        ctx.expect(await ctx.call(SET_GROUPS, { as: 'operator', params: { username: user }, body: { groups: [group] } }), 204);
      }
      ctx.samples.set('users', q.alice);
    }, { ...setupStep, needs: [GROUPS] }),
    negative('forge quota: assigning an unknown group is 422 and changes nothing', SET_GROUPS, async (ctx) => {
      const q = quotaNames(ctx.runId);
      ctx.expect(await ctx.call(SET_GROUPS, { as: 'operator', params: { username: q.alice }, body: { groups: [`smk-${ctx.runId}-nope`] } }), 422);
    }, op),
    negative('forge quota: assignments without groups are 400', SET_GROUPS, async (ctx) => {
      ctx.expect(await ctx.call(SET_GROUPS, { as: 'operator', params: { username: quotaNames(ctx.runId).alice }, body: {} }), 400);
    }, op),
    negative('forge quota: assigning groups to an unknown user is 404', SET_GROUPS, async (ctx) => {
      ctx.expect(await ctx.call(SET_GROUPS, { as: 'operator', params: { username: `smk-${ctx.runId}-nobody` }, body: { groups: [] } }), 404);
    }, op),
    ...CHECK_CASES.map(([who, subject, answer, why]) =>
      happy(`quota eval: ${who} ${subject} → ${answer} (${why})`, CHECK, async (ctx: SmokeCtx) => {
        const user = quotaNames(ctx.runId)[who];
        const body = ctx.expect(await ctx.call(CHECK, { as: 'operator', sudo: user, query: { subject } }), 200);
        check(body === answer, `answered ${JSON.stringify(body)}, expected ${answer}`);
      }, { ...op, needs: [SET_GROUPS, `PUT ${DATA}`] }),
    ),
    negative('quota eval: an unrecognised subject is 422', CHECK, async (ctx) => {
      ctx.expect(await ctx.call(CHECK, { as: 'operator', sudo: quotaNames(ctx.runId).alice, query: { subject: 'size:everything' } }), 422);
    }, { ...op, needs: [`PUT ${DATA}`] }),
    negative('quota eval: a check without subject is 422', CHECK, async (ctx) => {
      ctx.expect(await ctx.call(CHECK, { as: 'operator', sudo: quotaNames(ctx.runId).alice }), 422);
    }, { ...op, needs: [`PUT ${DATA}`] }),
  ];

  const teardown: SmokeCheck[] = [
    happy('forge quota: clean up — clear the smoke users\' groups', SET_GROUPS, async (ctx) => {
      const q = quotaNames(ctx.runId);
      for (const user of [q.alice, q.bob]) ctx.expect(await ctx.call(SET_GROUPS, { as: 'operator', params: { username: user }, body: { groups: [] } }), 204);
    }, { ...setupStep, needs: [`PUT ${DATA}`] }),
    happy('forge quota: clean up — delete the smoke groups and rules', 'DELETE /admin/quota/groups/{g}', async (ctx) => {
      const q = quotaNames(ctx.runId);
      for (const group of [q.groupAlice, q.groupBob]) ctx.expect(await ctx.call('DELETE /admin/quota/groups/{g}', { as: 'operator', params: { g: group } }), 204);
      for (const rule of Object.values(q.rules)) ctx.expect(await ctx.call('DELETE /admin/quota/rules/{r}', { as: 'operator', params: { r: rule } }), 204);
    }, { ...setupStep, needs: [GROUPS, 'DELETE /admin/quota/rules/{r}'] }),
    happy('forge quota: clean up — restore the forge data set', `PUT ${DATA}`, async (ctx) => {
      check(original !== null, 'the original data set was not read, so it cannot be restored');
      ctx.expect(await ctx.call(`PUT ${DATA}`, { as: 'operator', body: original }), 204);
      const now = ctx.expect(await ctx.call(`GET ${DATA}`, { as: 'operator' }), 200);
      check(JSON.stringify(now).includes(`smk-${ctx.runId}-`) === false, 'smoke users are still in the data set');
    }, { ...setupStep, needs: [`GET ${DATA}`] }),
  ];
  return { setup, teardown };
}
