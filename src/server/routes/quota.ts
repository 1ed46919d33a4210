// The forge quota routes as one Hono app, mounted by the root app: the admin, user and forge data
// routes, each under the seed's path and again under /api/v1 for Forgejo clients, with the forge's
// error bodies (middleware/forge-errors.ts).
import { Hono } from 'hono';
import type { QuotaContext } from '../../service/quota/quota-context.ts';
import type { AppEnv } from '../env.ts';
import type { TransportOf } from '../middleware/auth.ts';
import type { ForgeAuth } from '../middleware/forge-auth.ts';
import { forgeErrors } from '../middleware/forge-errors.ts';
import { FORGE_API_PREFIX, QUOTA_ROUTES } from '../quota-route-table.ts';
import { forgeDataRoutes } from './forge-data.ts';
import { quotaAdminRoutes } from './quota-admin.ts';
import { quotaUserRoutes } from './quota-user.ts';

/** The quota context is the composition root's (src/deps.ts), built with the run's quota configuration. */
export type QuotaRouteDeps = { quota: QuotaContext; transportOf: TransportOf };

export function quotaRoutes(deps: QuotaRouteDeps): Hono<AppEnv> {
  const ctx = deps.quota;
  const auth: ForgeAuth = {
    transportOf: deps.transportOf,
    quotaEnabled: () => ctx.config.enabled,
    user: (login) => {
      const owner = ctx.forge().owner(login);
      return owner?.kind === 'user' ? owner : undefined;
    },
  };
  const family = new Hono<AppEnv>();
  family.route('/', quotaAdminRoutes(ctx, auth));
  family.route('/', quotaUserRoutes(ctx, auth));
  family.route('/', forgeDataRoutes(ctx, auth));
  const app = new Hono<AppEnv>();
  // Every route of the table, under both prefixes, answers its errors in the forge's shape; the
  // middleware is on these routes only, not on a wildcard, so no governance route is touched.
  for (const r of QUOTA_ROUTES) app.on(r.method, r.path.replace(/\{([^}]+)\}/g, ':$1'), forgeErrors());
  app.route('/', family);
  app.route(FORGE_API_PREFIX, family);
  return app;
}
