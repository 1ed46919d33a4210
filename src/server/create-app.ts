// The root Hono app: request context, loopback guard, public routes, authentication, transport
// rules, then one module per resource. onError and notFound live here only, so every failure goes
// through the one problem table.
import { Hono } from 'hono';
import { AppError } from '../errors.ts';
import type { ServiceDeps } from '../service/deps.ts';
import type { QuotaContext } from '../service/quota/quota-context.ts';
import type { AppEnv } from './env.ts';
import { requireAuth, requireCustomerWrite, type TransportOf } from './middleware/auth.ts';
import { loopbackGuard } from './middleware/loopback-guard.ts';
import { requestContext } from './middleware/request-context.ts';
import { serverErrorLine } from './error-log.ts';
import { problemResponse } from './problem.ts';
import { QUOTA_ROUTES } from './quota-route-table.ts';
import { GOVERNANCE_ROUTES, type RouteSpec } from './route-table.ts';
import { eventRoutes, eventsPreflight } from './routes/events.ts';
import { healthRoutes } from './routes/health.ts';
import { openApiRoutes } from './routes/openapi.ts';
import { proofRoutes } from './routes/proofs.ts';
import { quotaRoutes } from './routes/quota.ts';
import { searchRoutes } from './routes/search.ts';
import { taskReadRoutes } from './routes/tasks-read.ts';
import { taskWriteRoutes } from './routes/tasks.ts';
import { templateRoutes } from './routes/templates.ts';

export type AppDeps = ServiceDeps & {
  /** The run's token check (its tokens hashed once). */
  transportOf: TransportOf;
  /** The forge quota engine's context, with the run's quota configuration. */
  quota: QuotaContext;
  /** The port the server listens on (the Host check needs it; known once listening). */
  port: () => number;
  startedAt: Date;
  newRequestId: () => string;
  access: (line: string) => void;
  /** Where the one structured line of each 5xx goes (stderr in the preview). */
  logError: (line: string) => void;
};

/** SQLite's own word that the index file is damaged, as the app's error for it. */
function indexDamage(err: unknown): AppError | null {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !/^SQLITE_(CORRUPT|NOTADB)/.test(code)) return null;
  return new AppError('index_unavailable', 'The index file is damaged; every acknowledged event is safe in the log. Restart the preview to rebuild the index.', { cause: err });
}

/** A route table path as a pattern: {name} matches one path segment. */
function pathPattern(path: string): RegExp {
  return new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}$`);
}

export function routeTable(): RouteSpec[] {
  return [...GOVERNANCE_ROUTES, ...QUOTA_ROUTES];
}

export function createApp(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const routes = routeTable();

  app.use('*', requestContext(deps.newRequestId, deps.access));
  app.use('*', loopbackGuard(deps.port));
  app.route('/', healthRoutes({ ...deps, routes }));
  app.route('/', openApiRoutes({ ...deps, routes }));
  app.route('/', eventsPreflight());

  app.use('/v1/*', requireAuth(deps.transportOf));
  // POSTs the route table marks as reads (they compute an answer and write nothing) are not
  // customer writes, so either token may call them.
  const readOnlyPosts = routes.filter((r) => r.method === 'POST' && r.access === 'read').map((r) => r.path);
  app.on(['POST', 'PUT', 'PATCH', 'DELETE'], '/v1/*', requireCustomerWrite(readOnlyPosts));
  // Every request sees every acknowledged write: it waits until the index writer has applied the
  // log's durable tail (usually it has), except the writes whose conditions the log's gate checks
  // and that read nothing from the index (docs/write-path.md).
  const gateOnly = routes.filter((r) => r.readsIndex === false).map((r) => ({ method: r.method, path: pathPattern(r.path) }));
  app.use('*', async (c, next) => {
    if (!gateOnly.some((r) => r.method === c.req.method && r.path.test(c.req.path))) await deps.store.settled();
    await next();
  });

  app.route('/', templateRoutes(deps));
  app.route('/', eventRoutes(deps));
  app.route('/', taskWriteRoutes(deps));
  app.route('/', taskReadRoutes(deps));
  app.route('/', searchRoutes(deps));
  app.route('/', proofRoutes(deps));
  app.route('/', quotaRoutes(deps));

  app.notFound((c) => problemResponse(c, new AppError('route_not_found', `There is no route ${c.req.method} ${c.req.path}; GET /health lists every route.`)));
  app.onError((thrown, c) => {
    // A damaged index file found by a read: refuse reads until a restart rebuilds it.
    const err = indexDamage(thrown) ?? thrown;
    if (err !== thrown || (err instanceof AppError && err.code === 'index_unavailable')) deps.store.markIndexCorrupt((thrown as Error).message);
    // A family's middleware (the forge's, middleware/forge-errors.ts) reads c.error after next()
    // to answer in its own shape: it must see the error answered here.
    c.error = err;
    const res = problemResponse(c, err);
    // Every 5xx is logged, an AppError whose code is in no table too (it answers a generic 500).
    if (res.status >= 500) deps.logError(serverErrorLine(c, err, res.status));
    if (c.get('requestId')) res.headers.set('X-Request-Id', c.get('requestId'));
    return res;
  });
  return app;
}
