// Task reads: the projection and the timeline (event truth, cursor paging by after_seq).
import { Hono } from 'hono';
import { AppError } from '../../errors.ts';
import type { ServiceDeps } from '../../service/deps.ts';
import { findTask } from '../../service/write-checks.ts';
import type { AppEnv } from '../env.ts';
import { readScope, requirePathId } from '../request-input.ts';

export function taskReadRoutes(deps: ServiceDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get('/v1/tasks/:task_id', (c) => {
    const scope = readScope(c);
    const task = findTask(deps, scope, requirePathId(c.req.param('task_id'), 'task'));
    return c.json(task);
  });
  app.get('/v1/tasks/:task_id/timeline', (c) => {
    const scope = readScope(c);
    const taskId = requirePathId(c.req.param('task_id'), 'task');
    const afterSeq = intParam(c.req.query('after_seq'), 'after_seq', 0, Number.MAX_SAFE_INTEGER, 0);
    const limit = intParam(c.req.query('limit'), 'limit', 1, 1000, 100);
    findTask(deps, scope, taskId);
    // One row more than asked tells whether another page exists.
    const events = deps.queries.timeline(scope, taskId, afterSeq, limit + 1);
    const page = events.slice(0, limit);
    return c.json({
      task_id: taskId,
      scope,
      events: page,
      next_after_seq: events.length > limit ? page[page.length - 1]!.seq : null,
      authority: 'event_truth',
    });
  });
  return app;
}

export function intParam(raw: string | undefined, name: string, min: number, max: number, fallback: number): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new AppError('invalid_query', `The query parameter ${name} must be an integer from ${min} to ${max}.`, { details: [{ pointer: `/query/${name}`, detail: `integer ${min}–${max}` }] });
  }
  return value;
}
