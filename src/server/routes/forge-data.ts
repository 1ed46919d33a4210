// PUT and GET /admin/forge/data: the operator replaces the preview's whole forge data set (one
// forge.data.replaced event; a reference to an unknown owner or repository is a 400 naming it) and
// reads it back. Not a quota route: it stays available while quota is switched off.
import { Hono } from 'hono';
import { replaceForgeData } from '../../service/quota/forge-data.ts';
import type { QuotaContext } from '../../service/quota/quota-context.ts';
import type { AppEnv } from '../env.ts';
import { forgeRoute, type ForgeAuth } from '../middleware/forge-auth.ts';
import { readJsonBody } from '../request-input.ts';

export function forgeDataRoutes(ctx: QuotaContext, auth: ForgeAuth): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const admin = { access: 'admin', quota: false } as const;
  app.put('/admin/forge/data', forgeRoute(auth, admin, async (c) => {
    await replaceForgeData(ctx, await readJsonBody(c), 'api');
    return c.body(null, 204);
  }));
  app.get('/admin/forge/data', forgeRoute(auth, admin, (c) => c.json(ctx.forge().data)));
  return app;
}
