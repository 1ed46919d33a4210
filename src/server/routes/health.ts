// GET /health: sanitized without a token (status, mode, release label, route list); with the
// operator token it adds store detail. Never tokens, key material or paths of secrets.
import { Hono } from 'hono';
import type { ServiceDeps } from '../../service/deps.ts';
import type { AppEnv } from '../env.ts';
import type { TransportOf } from '../middleware/auth.ts';
import type { RouteSpec } from '../route-table.ts';

export const RELEASE_LABEL = 'R0.5-preview';

export function healthRoutes(deps: ServiceDeps & { transportOf: TransportOf; routes: RouteSpec[]; startedAt: Date }): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get('/health', (c) => {
    const index = deps.store.indexStatus();
    const body: Record<string, unknown> = {
      // Degraded while reads of the index are refused (writes still land in the log).
      status: index.state === 'failing' || index.state === 'unavailable' ? 'degraded' : 'ok',
      mode: 'preview',
      release_label: RELEASE_LABEL,
      routes: deps.routes.map((r) => ({ method: r.method, path: r.path, status: r.status })),
    };
    if (deps.transportOf(c.req.header('authorization')) === 'operator') {
      const tail = deps.store.tail();
      body.detail = {
        event_count: tail.seq,
        last_seq: tail.seq,
        index_seq: index.indexed_seq,
        index_state: index.state,
        ...(index.last_error === null ? {} : { index_error: index.last_error }),
        uptime_s: Math.max(0, (deps.clock().getTime() - deps.startedAt.getTime()) / 1000),
        pid: process.pid,
      };
    }
    return c.json(body);
  });
  return app;
}
