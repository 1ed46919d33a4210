// GET /health: sanitized without a token (status, mode, release label, route list); with the
// operator token it adds store detail. Never tokens, key material or paths of secrets.
// GET /openapi.json: the OpenAPI 3.1 document built from the same declarations and from schemas/.
// Both are public (docs/contract.md §2).
import type { Context } from 'hono';
import type { AppEnv } from '../env.ts';
import type { Route, RouteDeps } from '../route-spec.ts';
import { RELEASE_LABEL, VERSION } from '../../version.ts';

export const PUBLIC_ROUTES: Route[] = [
  {
    method: 'GET', path: '/health', status: 'live', access: 'public', scoped: false,
    summary: 'Sanitized health; detail with the operator token.', readme: 'sanitized without a token; detail with the operator token',
    responses: { 200: 'api/health.json' },
    handler: async (c, deps) => {
      const index = deps.store.indexStatus();
      const body: Record<string, unknown> = {
        // Degraded while reads of the index are refused (writes still land in the log).
        status: index.state === 'failing' || index.state === 'unavailable' ? 'degraded' : 'ok',
        mode: deps.hosted === undefined ? 'preview' : 'hosted',
        release_label: RELEASE_LABEL,
        routes: deps.routes.map((r) => ({ method: r.method, path: r.path, status: r.status })),
      };
      if (await isOperator(c, deps)) {
        const tail = deps.store.tail();
        body.detail = {
          event_count: tail.seq,
          last_seq: tail.seq,
          index_seq: index.indexed_seq,
          index_state: index.state,
          ...(index.last_error === null ? {} : { index_error: index.last_error }),
          uptime_s: Math.max(0, (deps.clock().getTime() - deps.startedAt.getTime()) / 1000),
          pid: process.pid,
          data_dir: deps.store.dataDir,
          version: VERSION,
        };
      }
      return c.json(body);
    },
  },
  {
    method: 'GET', path: '/openapi.json', status: 'preview', access: 'public', scoped: false,
    summary: 'This OpenAPI 3.1 document, generated from the route declarations and schemas/.',
    readme: 'OpenAPI 3.1 of every route, generated from `schemas/` and the route declarations; no token',
    responses: { 200: 'api/openapi.json' },
    handler: (c, deps) => c.json(deps.openApi()),
  },
];

/** The detail is for operators: the preview's operator token or console session, a hosted token with the operator role. */
async function isOperator(c: Context<AppEnv>, deps: RouteDeps): Promise<boolean> {
  if (deps.hosted !== undefined) {
    if (c.req.header('authorization') === undefined) return false;
    return deps.hosted.oidc.verify(c.req.header('authorization')).then((v) => v.operator, () => false);
  }
  return deps.transportOf(c.req.header('authorization')) === 'operator' || deps.consoleSessions.fromRequest(c) !== null;
}
