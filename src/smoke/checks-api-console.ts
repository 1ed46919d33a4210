// The API the console reads (and integrators with it): the scope's task list, newest first and
// paged by cursor, and the scope's events as Server-Sent Events. Both run in the tasks family,
// after the smoke task is written; the stream is followed with the client's own helper until the
// smoke task's events arrive, then closed.
import type { StreamedEvent } from '../client/event-stream.ts';
import { check, fail, happy, negative, type SmokeCheck } from './check.ts';
import { smokeTaskId } from './checks-tasks.ts';
import { openSmokeStream, STREAM, STREAM_WAIT_MS } from './smoke-stream.ts';

const LIST = 'GET /v1/tasks';

export function apiConsoleChecks(): SmokeCheck[] {
  const needs = ['POST /v1/tasks'];
  return [
    happy('tasks: GET /v1/tasks lists the scope\'s tasks, the smoke task among them', LIST, async (ctx) => {
      const body = ctx.expect(await ctx.call(LIST, { query: { limit: 100 } }), 200);
      const mine = (body.tasks as { task_id: string; last_seq: number }[]).find((task) => task.task_id === smokeTaskId(ctx));
      check(mine !== undefined, `${smokeTaskId(ctx)} is not listed`);
      // Its shape is the document's (ctx.expect); the list is not compared with GET /v1/tasks/{task_id}
      // here, so that a fault in that route fails that route's checks only.
      check(Number.isInteger(mine.last_seq) && mine.last_seq > 0, `the listed task's last_seq is ${mine.last_seq}`);
    }, { needs }),
    happy('tasks: GET /v1/tasks pages by cursor', LIST, async (ctx) => {
      const first = ctx.expect(await ctx.call(LIST, { query: { limit: 1 } }), 200);
      check(first.tasks.length === 1, `page 1 holds ${first.tasks.length} tasks`);
      if (first.next_cursor === null) return;
      const second = ctx.expect(await ctx.call(LIST, { query: { limit: 1, cursor: first.next_cursor } }), 200);
      check(second.tasks[0]?.task_id !== first.tasks[0].task_id, 'page 2 repeats page 1');
    }, { needs }),
    negative('tasks: another tenant lists none of tenant A\'s tasks', LIST, async (ctx) => {
      const body = ctx.expect(await ctx.call(LIST, { scope: ctx.scopeC }), 200);
      check(body.tasks.length === 0 && body.next_cursor === null, `tenant C lists ${body.tasks.length} tasks`);
    }, { needs }),
    negative('tasks: a task list status outside open|closed is 400 invalid_query', LIST, async (ctx) => {
      ctx.expect(await ctx.call(LIST, { query: { status: 'done' } }), 400, { code: 'invalid_query' });
    }),
    happy('events: GET /v1/events/stream delivers the scope\'s events as Server-Sent Events', STREAM, async (ctx) => {
      const got: StreamedEvent[] = [];
      const { end, contentType, error } = await openSmokeStream(ctx, {
        onEvent: (event, stop) => {
          got.push(event);
          if (event.event.task_id === smokeTaskId(ctx) && event.kind === 'task.checkpoint.written') stop();
        },
      });
      if (error !== null) fail(`the stream failed: ${(error as Error)?.message ?? String(error)}`);
      if (end.reason === 'refused') fail(`${STREAM} answered ${end.status}`);
      check((contentType ?? '').split(';')[0] === 'text/event-stream', `Content-Type is ${contentType}`);
      const mine = got.filter((e) => e.event.task_id === smokeTaskId(ctx));
      check(mine[0]?.kind === 'task.created', `the stream did not deliver ${smokeTaskId(ctx)}'s task.created within ${STREAM_WAIT_MS / 1000} s`);
      check(mine.some((e) => e.kind === 'task.checkpoint.written'), `the stream did not deliver ${smokeTaskId(ctx)}'s checkpoint`);
      check(got.every((e, i) => i === 0 || e.seq > got[i - 1]!.seq), 'events out of seq order');
      check(got.every((e) => e.event.tenant_id === ctx.scopeA.tenant_id && e.seq === e.event.seq && e.kind === e.event.kind), 'an event of another scope, or an id/event field that differs from the event');
    }, { needs: [...needs, 'POST /v1/tasks/{task_id}/checkpoints'] }),
    negative('events: a Last-Event-ID that is no seq is 400 bad_request', STREAM, async (ctx) => {
      ctx.expect(await ctx.call(STREAM, { headers: { 'Last-Event-ID': 'not-a-seq' } }), 400, { code: 'bad_request' });
    }),
    negative('events: an after_seq below 0 is 400 invalid_query', STREAM, async (ctx) => {
      ctx.expect(await ctx.call(STREAM, { query: { after_seq: -1 } }), 400, { code: 'invalid_query' });
    }),
  ];
}
