// Task reads and discovery (docs/contract.md §3, §6): the projection, the timeline (event truth,
// paged by after_seq) and search (discovery only), each invisible from another tenant (404 for
// reads, no results for search, so existence does not leak).
import { check, happy, negative, type SmokeCheck } from './check.ts';
import { searchWord, smokeTaskId } from './checks-tasks.ts';

const TASK = 'GET /v1/tasks/{task_id}';
const TIMELINE = 'GET /v1/tasks/{task_id}/timeline';
const SEARCH = 'GET /v1/search';

export function taskReadChecks(): SmokeCheck[] {
  const needs = ['POST /v1/tasks'];
  return [
    happy('tasks: GET /v1/tasks/{id} reads the projection', TASK, async (ctx) => {
      const body = ctx.expect(await ctx.call(TASK, { params: { task_id: smokeTaskId(ctx) } }), 200);
      check(body.task_id === smokeTaskId(ctx), `task_id ${body.task_id}`);
      check(body.last_seq >= 1, `last_seq ${body.last_seq}`);
    }, { needs }),
    happy('tasks: reads accept the operator token', TASK, async (ctx) => {
      ctx.expect(await ctx.call(TASK, { as: 'operator', params: { task_id: smokeTaskId(ctx) } }), 200);
    }, { needs, operator: true }),
    negative('tasks: another tenant reading the task gets 404 (its own twin at most)', TASK, async (ctx) => {
      ctx.expect(await ctx.call(TASK, { scope: ctx.scopeC, params: { task_id: smokeTaskId(ctx) } }), 404);
    }, { needs }),
    negative('tasks: reads without scope headers are 400 scope_required', TASK, async (ctx) => {
      ctx.expect(await ctx.call(TASK, { scope: null, params: { task_id: smokeTaskId(ctx) } }), 400, { code: 'scope_required' });
    }, { needs }),
    happy('tasks: GET /v1/tasks/{id}/timeline is the ordered event truth', TIMELINE, async (ctx) => {
      const body = ctx.expect(await ctx.call(TIMELINE, { params: { task_id: smokeTaskId(ctx) } }), 200);
      const seqs = (body.events as { seq: number }[]).map((e) => e.seq);
      check(seqs.length >= 2, `${seqs.length} events`);
      check(seqs.every((s, i) => i === 0 || s > seqs[i - 1]!), `not in seq order: ${seqs.join(',')}`);
      check(body.authority === 'event_truth', `authority ${body.authority}`);
    }, { needs }),
    happy('tasks: the timeline pages by after_seq', TIMELINE, async (ctx) => {
      const first = ctx.expect(await ctx.call(TIMELINE, { params: { task_id: smokeTaskId(ctx) }, query: { limit: 1 } }), 200);
      check(first.events.length === 1 && first.next_after_seq === first.events[0].seq, `page 1: ${first.events.length} events, next_after_seq ${first.next_after_seq}`);
      const second = ctx.expect(await ctx.call(TIMELINE, { params: { task_id: smokeTaskId(ctx) }, query: { limit: 1, after_seq: first.next_after_seq } }), 200);
      check(second.events[0]?.seq > first.events[0].seq, 'page 2 does not continue after page 1');
    }, { needs }),
    negative('tasks: a timeline limit out of range is 400 invalid_query', TIMELINE, async (ctx) => {
      ctx.expect(await ctx.call(TIMELINE, { params: { task_id: smokeTaskId(ctx) }, query: { limit: 0 } }), 400, { code: 'invalid_query' });
    }, { needs }),
    negative('tasks: another tenant reading the timeline gets 404', TIMELINE, async (ctx) => {
      const other = { ...ctx.scopeA, project_id: 'proj-smoke-other' };
      ctx.expect(await ctx.call(TIMELINE, { scope: other, params: { task_id: smokeTaskId(ctx) } }), 404);
    }, { needs }),
    happy('search: GET /v1/search finds a word written to the task', SEARCH, async (ctx) => {
      const body = ctx.expect(await ctx.call(SEARCH, { query: { q: searchWord(ctx) } }), 200);
      check(body.authority === 'discovery_only', `authority ${body.authority}`);
      check((body.results as { task_id: string }[]).some((r) => r.task_id === smokeTaskId(ctx)), `no result for ${searchWord(ctx)}`);
    }, { needs }),
    negative('search: another tenant finds nothing of tenant A', SEARCH, async (ctx) => {
      const body = ctx.expect(await ctx.call(SEARCH, { scope: ctx.scopeC, query: { q: searchWord(ctx) } }), 200);
      check(body.results.length === 0, `found ${body.results.length} results across tenants`);
    }, { needs }),
    negative('search: neither q nor kind is 400 invalid_query', SEARCH, async (ctx) => {
      ctx.expect(await ctx.call(SEARCH, {}), 400, { code: 'invalid_query' });
    }),
  ];
}
