// Smart templates: list, fetch by id or alias, and validate a filled payload with the same gate the
// template's write route runs (src/service/templates-service.ts).
import { Hono } from 'hono';
import type { ServiceDeps } from '../../service/deps.ts';
import { findTemplate, validateFilledTemplate } from '../../service/templates-service.ts';
import type { AppEnv } from '../env.ts';
import { readJsonBody } from '../request-input.ts';

export function templateRoutes(deps: ServiceDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get('/v1/templates', (c) => c.json({ templates: deps.templates.list() }));
  app.get('/v1/templates/:template_id', (c) => c.json(findTemplate(deps, c.req.param('template_id'))));
  app.post('/v1/templates/validate', async (c) => c.json(validateFilledTemplate(deps, await readJsonBody(c))));
  return app;
}
