// POST /v1/events (the adapters' raw write) and its loopback-only CORS preflight.
import { Hono } from 'hono';
import { submitRawEvent } from '../../service/events-service.ts';
import type { ServiceDeps } from '../../service/deps.ts';
import type { AppEnv } from '../env.ts';
import { isLoopbackOrigin } from '../middleware/loopback-guard.ts';
import { readJsonBody, readScope } from '../request-input.ts';
import { RawJson, writeContextOf, writeResponse } from '../write-context.ts';

export const CORS_ALLOWED_HEADERS = 'Authorization, Content-Type, Idempotency-Key, If-Match, X-Tenant-Id, X-Workspace-Id, X-Project-Id';

/** Mounted before authentication: a preflight carries no credentials. Never answers `*`. */
export function eventsPreflight(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.options('/v1/events', (c) => {
    const origin = c.req.header('origin');
    const headers: Record<string, string> = { Vary: 'Origin' };
    if (origin !== undefined && isLoopbackOrigin(origin)) {
      headers['Access-Control-Allow-Origin'] = origin;
      headers['Access-Control-Allow-Methods'] = 'POST';
      headers['Access-Control-Allow-Headers'] = CORS_ALLOWED_HEADERS;
      headers['Access-Control-Max-Age'] = '600';
    }
    return c.body(null, 204, headers);
  });
  return app;
}

export function eventRoutes(deps: ServiceDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.post('/v1/events', async (c) => {
    readScope(c); // scope errors (400) come before body errors
    const body = await readJsonBody(c);
    const ctx = writeContextOf(c, body, true);
    const outcome = await submitRawEvent(deps, ctx, body);
    // A kind with a template (evidence.attached, session.bound) that fails its gate: nothing written.
    if (!outcome.ok) return c.json(outcome.validation, 422);
    const { replayed, events, lines } = outcome.write;
    // An event written to a task is that task's new version.
    return writeResponse(c, replayed, { event: new RawJson(lines[0]!) }, events[0]!.task_id === undefined ? undefined : events[0]!.seq);
  });
  return app;
}
