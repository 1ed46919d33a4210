// The forge's user and organisation quota reads (docs/quota.md §5) over the smoke data set, under
// the bare paths and again under /api/v1: quota info (exact usage), the largest-first lists, the
// repositories by size, an organisation seen by its owner and refused to anyone else.
import { check, happy, negative, type SmokeCheck } from './check.ts';
import type { SmokeCtx } from './context.ts';
import { ALICE_USED, quotaNames } from './quota-fixture.ts';

export function quotaReadChecks(prefix: string): SmokeCheck[] {
  const tag = prefix === '' ? 'forge quota' : `forge quota ${prefix}`;
  const r = (method: string, path: string) => `${method} ${prefix}${path}`;
  // The smoke data set and groups are loaded once, through the bare paths (checks-quota-eval.ts).
  const extra = { operator: true, needs: ['POST /admin/users/{u}/quota/groups', 'PUT /admin/forge/data'] };
  const alice = (ctx: SmokeCtx) => quotaNames(ctx.runId).alice;
  const org = (ctx: SmokeCtx) => quotaNames(ctx.runId).org;
  const sizesDescending = (list: { size: number }[]) => list.every((x, i) => i === 0 || x.size <= list[i - 1]!.size);

  const list = (what: string, path: string, sizes: number[]) =>
    happy(`${tag}: GET ${prefix}${path} lists alice's ${what}, largest first`, r('GET', path), async (ctx) => {
      const res = await ctx.call(r('GET', path), { as: 'operator', sudo: alice(ctx) });
      const body = ctx.expect(res, 200) as { size: number }[];
      check(JSON.stringify(body.map((x) => x.size)) === JSON.stringify(sizes), `sizes ${JSON.stringify(body.map((x) => x.size))}, expected ${JSON.stringify(sizes)}`);
      check(res.headers.get('x-total-count') === String(sizes.length), `X-Total-Count ${res.headers.get('x-total-count')}`);
    }, extra);
  const orgList = (what: string) =>
    happy(`${tag}: GET ${prefix}/orgs/{org}/quota/${what} lists the organisation's ${what}`, r('GET', `/orgs/{org}/quota/${what}`), async (ctx) => {
      const body = ctx.expect(await ctx.call(r('GET', `/orgs/{org}/quota/${what}`), { as: 'operator', sudo: alice(ctx), params: { org: org(ctx) } }), 200);
      check(Array.isArray(body) && sizesDescending(body), 'not a largest-first list');
    }, extra);

  return [
    happy(`${tag}: GET ${prefix}/user/quota answers alice's exact usage and groups without names`, r('GET', '/user/quota'), async (ctx) => {
      const body = ctx.expect(await ctx.call(r('GET', '/user/quota'), { as: 'operator', sudo: alice(ctx) }), 200);
      check(JSON.stringify(body.used) === JSON.stringify(ALICE_USED), `used ${JSON.stringify(body.used)}`);
      check(body.groups.length === 1 && body.groups[0].rules.length === 2, `groups ${JSON.stringify(body.groups)}`);
      check(!JSON.stringify(body.groups).includes('"name"'), 'names are shown outside the admin view');
    }, extra),
    happy(`${tag}: GET ${prefix}/user/quota/check answers for the Sudo user`, r('GET', '/user/quota/check'), async (ctx) => {
      const body = ctx.expect(await ctx.call(r('GET', '/user/quota/check'), { as: 'operator', sudo: alice(ctx), query: { subject: 'size:git:all' } }), 200);
      check(body === true, `answered ${JSON.stringify(body)}, expected true`);
    }, extra),
    negative(`${tag}: /user/quota without Sudo is refused`, r('GET', '/user/quota'), async (ctx) => {
      const res = await ctx.call(r('GET', '/user/quota'), { as: 'operator' });
      check(res.status === 403 || res.status === 401, `answered ${res.status} without Sudo`);
    }, { operator: true }),
    happy(`${tag}: GET ${prefix}/admin/users/{u}/quota answers quota info with names`, r('GET', '/admin/users/{u}/quota'), async (ctx) => {
      const body = ctx.expect(await ctx.call(r('GET', '/admin/users/{u}/quota'), { as: 'operator', params: { u: alice(ctx) } }), 200);
      check(body.groups?.[0]?.name === quotaNames(ctx.runId).groupAlice, `groups ${JSON.stringify(body.groups)}`);
      check(JSON.stringify(body.used) === JSON.stringify(ALICE_USED), `used ${JSON.stringify(body.used)}`);
    }, extra),
    list('attachments', '/user/quota/attachments', [1024, 512]),
    list('artifacts', '/user/quota/artifacts', [300]),
    list('packages', '/user/quota/packages', [200]),
    happy(`${tag}: GET ${prefix}/user/repos?order_by=size lists alice's repositories largest first`, r('GET', '/user/repos'), async (ctx) => {
      const body = ctx.expect(await ctx.call(r('GET', '/user/repos'), { as: 'operator', sudo: alice(ctx), query: { order_by: 'size' } }), 200);
      check(JSON.stringify(body.map((x: { name: string }) => x.name)) === '["app","notes"]', `order ${JSON.stringify(body.map((x: { name: string }) => x.name))}`);
    }, extra),
    happy(`${tag}: GET ${prefix}/orgs/{org}/quota answers the organisation's usage to its owner`, r('GET', '/orgs/{org}/quota'), async (ctx) => {
      const body = ctx.expect(await ctx.call(r('GET', '/orgs/{org}/quota'), { as: 'operator', sudo: alice(ctx), params: { org: org(ctx) } }), 200);
      check(body.used?.size?.repos?.private === 4096, `used ${JSON.stringify(body.used)}`);
    }, extra),
    happy(`${tag}: GET ${prefix}/orgs/{org}/quota/check answers a boolean`, r('GET', '/orgs/{org}/quota/check'), async (ctx) => {
      const body = ctx.expect(await ctx.call(r('GET', '/orgs/{org}/quota/check'), { as: 'operator', sudo: alice(ctx), params: { org: org(ctx) }, query: { subject: 'size:wiki' } }), 200);
      check(body === true, `size:wiki answered ${JSON.stringify(body)}`);
    }, extra),
    orgList('attachments'),
    orgList('artifacts'),
    orgList('packages'),
    negative(`${tag}: an organisation's quota is 403 to a user who does not own it`, r('GET', '/orgs/{org}/quota'), async (ctx) => {
      ctx.expect(await ctx.call(r('GET', '/orgs/{org}/quota'), { as: 'operator', sudo: quotaNames(ctx.runId).bob, params: { org: org(ctx) } }), 403);
    }, extra),
    negative(`${tag}: an unknown organisation is 404`, r('GET', '/orgs/{org}/quota'), async (ctx) => {
      ctx.expect(await ctx.call(r('GET', '/orgs/{org}/quota'), { as: 'operator', sudo: alice(ctx), params: { org: `smk-${ctx.runId}-no-org` } }), 404);
    }, extra),
  ];
}
