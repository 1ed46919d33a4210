// Task writes: create, checkpoint, closeout. A body its template's gate refuses answers 422 with the
// validation body (not a problem body), as docs/contract.md §4 and §7 say, and writes nothing.
// Checkpoint and closeout take If-Match (the task's ETag); every task write answers its new ETag.
import { Hono } from 'hono';
import type { ServiceDeps } from '../../service/deps.ts';
import { closeTask, createTask, writeCheckpoint } from '../../service/tasks-service.ts';
import type { AppEnv } from '../env.ts';
import { readJsonBody, readScope, requirePathId } from '../request-input.ts';
import { RawJson, writeContextOf, writeResponse } from '../write-context.ts';

export function taskWriteRoutes(deps: ServiceDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.post('/v1/tasks', async (c) => {
    readScope(c);
    const body = await readJsonBody(c);
    const outcome = await createTask(deps, writeContextOf(c, body), body);
    if (!outcome.ok) return c.json(outcome.validation, 422);
    const { replayed, task, event, line } = outcome.write;
    return writeResponse(c, replayed, { task, event: new RawJson(line) }, event.seq);
  });
  app.post('/v1/tasks/:task_id/checkpoints', async (c) => {
    readScope(c);
    const taskId = requirePathId(c.req.param('task_id'), 'task');
    const body = await readJsonBody(c);
    const outcome = await writeCheckpoint(deps, writeContextOf(c, body), taskId, body);
    if (!outcome.ok) return c.json(outcome.validation, 422);
    const { replayed, event, line } = outcome.write;
    return writeResponse(c, replayed, { event: new RawJson(line) }, event.seq);
  });
  app.post('/v1/tasks/:task_id/closeout', async (c) => {
    readScope(c);
    const taskId = requirePathId(c.req.param('task_id'), 'task');
    const body = await readJsonBody(c);
    const outcome = await closeTask(deps, writeContextOf(c, body), taskId, body);
    if (!outcome.ok) return c.json(outcome.validation, 422);
    const { replayed, task, event, line } = outcome.write;
    return writeResponse(c, replayed, { task, event: new RawJson(line) }, event.seq);
  });
  return app;
}
