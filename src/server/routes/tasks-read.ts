// Task reads: the projection and the timeline (event truth, cursor paging by after_seq).
import { Hono } from 'hono';
import type { ServiceDeps } from '../../service/deps.ts';
import { findTask } from '../../service/write-checks.ts';
import type { AppEnv } from '../env.ts';
import { readQuery } from '../query-params.ts';
import { readScope, requirePathId } from '../request-input.ts';
import { TIMELINE_QUERY } from '../route-table.ts';
import { etagOf } from '../write-context.ts';

export function taskReadRoutes(deps: ServiceDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get('/v1/tasks/:task_id', (c) => {
    const scope = readScope(c);
    const task = findTask(deps, scope, requirePathId(c.req.param('task_id'), 'task'));
    // The task's version (the seq of its last event) is what a conditional write's If-Match names.
    c.header('ETag', etagOf(task.last_seq));
    return c.json(task);
  });
  app.get('/v1/tasks/:task_id/timeline', (c) => {
    const scope = readScope(c);
    const taskId = requirePathId(c.req.param('task_id'), 'task');
    const { after_seq: afterSeq, limit } = readQuery(c, TIMELINE_QUERY);
    findTask(deps, scope, taskId);
    // One row more than asked tells whether another page exists.
    const rows = deps.queries.timelineLines(scope, taskId, afterSeq, limit + 1);
    const page = rows.slice(0, limit);
    const next = rows.length > limit ? page[page.length - 1]!.seq : null;
    // The stored lines are already canonical JSON: they are embedded as they are, not parsed and
    // encoded again (a 1,000-event page would spend most of its time doing that).
    const head = JSON.stringify({ task_id: taskId, scope }).slice(0, -1);
    const text = `${head},"events":[${page.map((r) => r.line).join(',')}],"next_after_seq":${next},"authority":"event_truth"}`;
    return c.body(text, 200, { 'Content-Type': 'application/json' });
  });
  return app;
}
