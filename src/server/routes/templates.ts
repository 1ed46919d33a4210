// Smart templates: list, fetch by id or alias, and validate a filled payload with the same gate the
// template's write route runs (src/service/templates-service.ts).
import { findTemplate, validateFilledTemplate } from '../../service/templates-service.ts';
import { P } from '../responses.ts';
import type { Route } from '../route-spec.ts';

export const TEMPLATE_ROUTES: Route[] = [
  {
    method: 'GET', path: '/v1/templates', status: 'live', access: 'read', scoped: false,
    summary: 'List smart templates.', readme: 'the smart templates', responses: { 200: 'api/template-list.json', 401: P },
    handler: (c, deps) => c.json({ templates: deps.templates.list() }),
  },
  {
    method: 'GET', path: '/v1/templates/{template_id}', status: 'live', access: 'read', scoped: false,
    summary: 'Fetch one template by id or alias.', readme: 'by id or alias (`closeout`, `task-closeout`, …)', responses: { 200: 'api/template.json', 404: P },
    handler: (c, deps) => c.json(findTemplate(deps, c.req.param('template_id') ?? '')),
  },
  {
    method: 'POST', path: '/v1/templates/validate', status: 'live', access: 'read', scoped: false,
    summary: 'Run a template\'s gate on a filled payload (the gate its write route runs); writes nothing.',
    readme: 'a template\'s gate, the one its write route runs, writing nothing',
    request: 'api/template-validate-request.json', responses: { 200: 'api/validation-result.json', 404: P, 422: P },
    handler: (c, deps) => c.json(validateFilledTemplate(deps, c.get('body'))),
  },
];
