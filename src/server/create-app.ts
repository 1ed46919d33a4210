// The root Hono app: request context and the loopback guard for everything, then every declared
// route (route-table.ts) mounted with the checks its declaration calls for, always in this order:
//   public routes: before authentication, nothing else;
//   /v1 routes:    bearer token (for every /v1 path, served or not) → [a governance route: its denials
//                  in the access log, middleware/denial-log.ts] → customer-write transport (write
//                  routes) → the index holds every acknowledged write (unless readsIndex: false) →
//                  scope headers (scoped routes) → JSON body (routes with a request) → handler;
//   forge routes:  the forge's error bodies → the index caught up → forge authentication (token,
//                  operator, quota switch, Sudo: a user of the indexed forge data) → handler (which
//                  reads its own body, after its path targets).
// onError and notFound live here only, so every failure goes through the one problem table.
import { Hono, type MiddlewareHandler } from 'hono';
import { AppError } from '../errors.ts';
import type { AppEnv } from './env.ts';
import { requireAuth, requireCustomerWrite } from './middleware/auth.ts';
import { logDenials } from './middleware/denial-log.ts';
import { requireOidc } from './middleware/oidc-auth.ts';
import { forgeAuth, type ForgeAuth } from './middleware/forge-auth.ts';
import { forgeErrors } from './middleware/forge-errors.ts';
import { loopbackGuard } from './middleware/loopback-guard.ts';
import { requestContext } from './middleware/request-context.ts';
import { jsonBody, scopeHeaders } from './middleware/request-input.ts';
import { serverErrorLine } from './error-log.ts';
import { buildOpenApi, type OpenApiDocument } from './openapi.ts';
import { problemResponse } from './problem.ts';
import { honoPath, type AppDeps, type Route, type RouteDeps } from './route-spec.ts';
import { ROUTES, routeTable } from './route-table.ts';

export type { AppDeps } from './route-spec.ts';
export { routeTable } from './route-table.ts';

/** SQLite's own word that the index file is damaged, as the app's error for it. */
function indexDamage(err: unknown): AppError | null {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !/^SQLITE_(CORRUPT|NOTADB)/.test(code)) return null;
  return new AppError('index_unavailable', 'The index file is damaged; every acknowledged event is safe in the log, from which the index is being rebuilt. Try again in a few seconds.', { cause: err });
}

export function createApp(deps: AppDeps, routes: readonly Route[] = ROUTES): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const specs = routes === ROUTES ? routeTable() : routes.map(({ handler: _handler, ...spec }) => spec);
  let openApi: OpenApiDocument | null = null;
  const routeDeps: RouteDeps = { ...deps, routes: specs, openApi: () => (openApi ??= buildOpenApi(specs, deps.registry)) };
  const cookies = { sessions: deps.consoleSessions, port: deps.port };
  const forge: ForgeAuth = {
    transportOf: deps.transportOf,
    cookies,
    quotaEnabled: () => deps.quota.config.enabled,
    user: (login) => {
      const owner = deps.quota.forge().owner(login);
      return owner?.kind === 'user' ? owner : undefined;
    },
  };
  // Every request sees every acknowledged write: it waits until the index writer has applied the
  // log's durable tail (usually it has), except the writes whose conditions the log's gate checks
  // and that read nothing from the index (docs/write-path.md).
  const settled: MiddlewareHandler<AppEnv> = async (_c, next) => {
    await deps.store.settled();
    await next();
  };
  const customerWrite = requireCustomerWrite();
  // The bearer check of a non-public route outside /v1 that is not the forge's (the console's login
  // codes under /admin): the /v1 check below does not cover it. A console cookie authenticates as it
  // does there (as the customer transport), so the route can refuse it by name.
  const bearer = requireAuth(deps.transportOf, cookies);
  const scope = scopeHeaders();
  const body = jsonBody();

  const mount = (route: Route) => {
    const chain: MiddlewareHandler<AppEnv>[] = [];
    if (route.accessLog !== undefined) chain.push(logDenials(deps, route, route.accessLog));
    const waits = route.access !== 'public' && route.readsIndex !== false;
    if (route.forge !== undefined) {
      // The forge's checks read the forge data from the index (Sudo's user), so they wait first.
      chain.push(forgeErrors(), ...(waits ? [settled] : []), forgeAuth(forge, route.forge));
    } else {
      if (route.access !== 'public' && !route.path.startsWith('/v1/')) chain.push(bearer);
      if (route.access === 'write') chain.push(customerWrite);
      if (waits) chain.push(settled);
    }
    if (route.scoped) chain.push(scope);
    if (route.request !== undefined && route.forge === undefined) chain.push(route.checkBody ? jsonBody({ registry: deps.registry, schema: route.request }) : body);
    app.on(route.method, [honoPath(route.path)], ...chain, (c) => {
      c.set('route', route);
      return route.handler(c, routeDeps);
    });
  };

  app.use('*', requestContext(deps.newRequestId, deps.access));
  // The preview answers loopback Hosts only (DNS rebinding); the hosted service sits behind a proxy
  // and its callers send bearer tokens, never ambient credentials.
  if (deps.hosted === undefined) app.use('*', loopbackGuard(deps.port));
  for (const route of routes) if (route.access === 'public') mount(route);
  app.use('/v1/*', deps.hosted === undefined ? requireAuth(deps.transportOf, cookies) : requireOidc(deps.hosted.oidc));
  for (const route of routes) if (route.access !== 'public') mount(route);

  app.notFound((c) => problemResponse(c, new AppError('route_not_found', `There is no route ${c.req.method} ${c.req.path}; GET /health lists every route.`)));
  app.onError((thrown, c) => {
    // A damaged index file found by a read: the store refuses reads while it rebuilds the index.
    const err = indexDamage(thrown) ?? thrown;
    if (err !== thrown || (err instanceof AppError && err.code === 'index_unavailable')) deps.store.markIndexCorrupt((thrown as Error).message);
    // A family's middleware (the forge's, middleware/forge-errors.ts) reads c.error after next()
    // to answer in its own shape: it must see the error answered here.
    c.error = err;
    const res = problemResponse(c, err);
    // Every 5xx is logged, an AppError whose code is in no table too (it answers a generic 500).
    if (res.status >= 500) deps.logError(serverErrorLine(c, err, res.status));
    if (c.get('requestId')) res.headers.set('X-Request-Id', c.get('requestId'));
    if (err instanceof AppError && err.code === 'index_unavailable') res.headers.set('Retry-After', '5');
    return res;
  });
  return app;
}
