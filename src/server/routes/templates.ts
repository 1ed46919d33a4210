// Smart templates: list, fetch by id or alias, and validate a filled payload with the same gate
// code the closeout route uses.
import { Hono } from 'hono';
import { validateTemplatePayload } from '../../domain/closeout-gates.ts';
import { AppError } from '../../errors.ts';
import type { ServiceDeps } from '../../service/deps.ts';
import type { AppEnv } from '../env.ts';
import { readJsonBody } from '../request-input.ts';

export function templateRoutes(deps: ServiceDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const find = (name: string) => {
    const template = deps.templates.resolve(name);
    if (!template) throw new AppError('template_not_found', `No template ${JSON.stringify(name)}; GET /v1/templates lists every template id and alias.`);
    return template;
  };
  app.get('/v1/templates', (c) => c.json({ templates: deps.templates.list() }));
  app.get('/v1/templates/:template_id', (c) => c.json(find(c.req.param('template_id'))));
  app.post('/v1/templates/validate', async (c) => {
    const body = await readJsonBody(c);
    deps.registry.assert('api/template-validate-request.json', body, 'validation request');
    const { template_id, payload } = body as { template_id: string; payload: unknown };
    const template = find(template_id);
    return c.json(validateTemplatePayload(template, payload, { registry: deps.templates, validateSchema: deps.registry.validate }));
  });
  return app;
}
