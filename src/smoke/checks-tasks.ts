// Governed task writes (docs/contract.md §6, §7): create, checkpoint and closeout, each refused
// by its template's gate (422 validation body, nothing written) or passed by it, the actor each
// event names, and the conflicts around them.
import { check, happy, negative, type SmokeCheck } from './check.ts';
import type { SmokeCtx } from './context.ts';

const CREATE = 'POST /v1/tasks';
const CHECKPOINT = 'POST /v1/tasks/{task_id}/checkpoints';
const CLOSEOUT = 'POST /v1/tasks/{task_id}/closeout';

/** Captured now, so a claim over it is fresh whatever the server's stale_after_days. */
export const smokeEvidence = (artifact: string) => ({
  artifact_id: artifact,
  uri: `https://ci.smoke.test/runs/${artifact}/log`,
  evidence_type: 'log',
  sha256: 'c'.repeat(64),
  confidence: 'verified',
  redaction: 'none',
  content_trust: 'trusted_internal',
  captured_at: `${new Date().toISOString().slice(0, 19)}Z`,
});

/** The task every task check uses; the search word makes it findable and nothing else matches it. */
export const smokeTaskId = (ctx: SmokeCtx) => `task-smoke-${ctx.runId}`;
export const searchWord = (ctx: SmokeCtx) => `smokeword${ctx.runId}`;

export function taskChecks(): SmokeCheck[] {
  const closeout = (ctx: SmokeCtx) => ({
    outcome: 'completed',
    summary: `Smoke run ${ctx.runId} exercised the task lifecycle end to end.`,
    verification: ['The smoke suite created, checkpointed and read this task through the API'],
    evidence_refs: [smokeEvidence(`smoke-${ctx.runId}`)],
    context_lines: [`Task ${smokeTaskId(ctx)} belongs to smoke run ${ctx.runId} and holds no real work`],
    future_agent_traps: ['Smoke tasks live in a throw-away tenant; never cite them as evidence of real work'],
  });
  return [
    happy('tasks: POST /v1/tasks creates a task', CREATE, async (ctx) => {
      const body = ctx.expect(await ctx.call(CREATE, { body: { task_id: smokeTaskId(ctx), title: `Smoke lifecycle ${searchWord(ctx)}`, session_id: 'sess-smoke' } }), 201);
      check(body.task.task_id === smokeTaskId(ctx) && body.task.status === 'open', `task ${body.task.task_id} is ${body.task.status}`);
      check(body.event.kind === 'task.created', `event kind ${body.event.kind}`);
      check(typeof body.event.actor?.id === 'string', 'task.created names no actor (without one in the body it names the transport\'s principal)');
      ctx.samples.set('tasks', smokeTaskId(ctx));
    }, { always: true }),
    negative('tasks: creating the same task again is 409 task_exists', CREATE, async (ctx) => {
      ctx.expect(await ctx.call(CREATE, { body: { task_id: smokeTaskId(ctx), title: 'Again', session_id: 'sess-smoke' } }), 409, { code: 'task_exists' });
    }),
    negative('tasks: create with an unknown member is 422 with the validation body', CREATE, async (ctx) => {
      const body = ctx.expect(await ctx.call(CREATE, { body: { title: 'Surplus member', session_id: 'sess-smoke', colour: 'red' } }), 422);
      check(body.ok === false && body.missing_fields?.includes('colour'), `missing_fields ${JSON.stringify(body.missing_fields)}`);
    }),
    negative('tasks: create with the title TBD is 422, as validate says', CREATE, async (ctx) => {
      const body = ctx.expect(await ctx.call(CREATE, { body: { title: 'TBD', session_id: 'sess-smoke' } }), 422);
      check(body.ok === false && body.missing_fields?.includes('title'), `missing_fields ${JSON.stringify(body.missing_fields)}`);
    }),
    negative('tasks: the same task id in another tenant is a different task', CREATE, async (ctx) => {
      const body = ctx.expect(await ctx.call(CREATE, { scope: ctx.scopeB, body: { task_id: smokeTaskId(ctx), title: 'Tenant B twin', session_id: 'sess-b' } }), 201);
      check(body.task.title === 'Tenant B twin', 'tenant B got tenant A\'s task');
    }),
    happy('tasks: POST /v1/tasks/{id}/checkpoints records progress', CHECKPOINT, async (ctx) => {
      const res = await ctx.call(CHECKPOINT, { params: { task_id: smokeTaskId(ctx) }, body: { progress: `Checkpoint of ${searchWord(ctx)}`, next_actions: ['Close the smoke task'], evidence_refs: [smokeEvidence(`smoke-${ctx.runId}`)] } });
      const body = ctx.expect(res, 201);
      check(body.event.kind === 'task.checkpoint.written', `event kind ${body.event.kind}`);
    }, { always: true }),
    negative('tasks: a checkpoint with an unknown member is 422 with the validation body', CHECKPOINT, async (ctx) => {
      const body = ctx.expect(await ctx.call(CHECKPOINT, { params: { task_id: smokeTaskId(ctx) }, body: { progress: 'x', colour: 'red' } }), 422);
      check(body.ok === false && body.missing_fields?.includes('colour'), `missing_fields ${JSON.stringify(body.missing_fields)}`);
    }),
    negative('tasks: a checkpoint with the progress TODO is 422, as validate says', CHECKPOINT, async (ctx) => {
      const body = ctx.expect(await ctx.call(CHECKPOINT, { params: { task_id: smokeTaskId(ctx) }, body: { progress: 'TODO' } }), 422);
      check(body.ok === false && body.missing_fields?.includes('progress'), `missing_fields ${JSON.stringify(body.missing_fields)}`);
    }),
    negative('tasks: a checkpoint on a task of another scope is 404', CHECKPOINT, async (ctx) => {
      const other = { ...ctx.scopeA, workspace_id: 'ws-smoke-other' };
      ctx.expect(await ctx.call(CHECKPOINT, { scope: other, params: { task_id: smokeTaskId(ctx) }, body: { progress: 'cross-scope write' } }), 404);
    }),
    negative('tasks: a closeout the gates refuse is 422 with repair prompts', CLOSEOUT, async (ctx) => {
      const { context_lines: _c, future_agent_traps: _f, ...missing } = closeout(ctx);
      const body = ctx.expect(await ctx.call(CLOSEOUT, { params: { task_id: smokeTaskId(ctx) }, body: missing }), 422);
      check(body.ok === false, 'ok is not false');
      check(body.missing_fields?.includes('context_lines') && body.missing_fields?.includes('future_agent_traps'), `missing_fields ${JSON.stringify(body.missing_fields)}`);
      check(body.repair_prompt?.length >= 2, 'fewer repair prompts than missing fields');
    }),
    happy('tasks: POST /v1/tasks/{id}/closeout closes a task that passes the gates', CLOSEOUT, async (ctx) => {
      const body = ctx.expect(await ctx.call(CLOSEOUT, { params: { task_id: smokeTaskId(ctx) }, body: closeout(ctx) }), 201);
      check(body.task.status === 'closed' && body.task.outcome === 'completed', `task is ${body.task.status}/${body.task.outcome}`);
      check(body.event.kind === 'task.closed', `event kind ${body.event.kind}`);
    }, { always: true }),
    negative('tasks: a checkpoint on a closed task is 409 task_closed', CHECKPOINT, async (ctx) => {
      ctx.expect(await ctx.call(CHECKPOINT, { params: { task_id: smokeTaskId(ctx) }, body: { progress: 'too late' } }), 409, { code: 'task_closed' });
    }),
    negative('tasks: closing a closed task is 409 task_closed', CLOSEOUT, async (ctx) => {
      ctx.expect(await ctx.call(CLOSEOUT, { params: { task_id: smokeTaskId(ctx) }, body: closeout(ctx) }), 409, { code: 'task_closed' });
    }),
  ];
}
