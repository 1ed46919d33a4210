// Smart templates as the API serves them, and the one gate per template: POST /v1/templates/validate
// and every write route with a template run `gateBody` on the same body, so what validate refuses
// the route refuses (422, the validation body) and what validate passes the route takes.
import { validateTemplatePayload, type ValidationResult } from '../domain/closeout-gates.ts';
import { isRecord } from '../domain/gate-context.ts';
import type { SmartTemplate } from '../domain/templates.ts';
import { AppError } from '../errors.ts';
import type { ServiceDeps } from './deps.ts';

/** A write that ran its template's gate: written, or refused with the validation body. */
export type Gated<T> = { ok: true; write: T } | { ok: false; validation: ValidationResult };

export function findTemplate(deps: ServiceDeps, name: string): SmartTemplate {
  const template = deps.templates.resolve(name);
  if (!template) throw new AppError('template_not_found', `No template ${JSON.stringify(name)}; GET /v1/templates lists every template id and alias.`);
  return template;
}

/** POST /v1/templates/validate: the gate of the named template over `payload`, writing nothing. */
export function validateFilledTemplate(deps: ServiceDeps, body: unknown): ValidationResult {
  deps.registry.assert('api/template-validate-request.json', body, 'validation request');
  const { template_id, payload } = body as { template_id: string; payload: unknown };
  return gateBody(deps, findTemplate(deps, template_id), payload);
}

/** The template's gate, request schema included: what validate answers and what a route enforces. */
export function gateBody(deps: ServiceDeps, template: SmartTemplate, body: unknown): ValidationResult {
  return validateTemplatePayload(template, body, { registry: deps.templates, validateSchema: deps.registry.validate });
}

/** The gate of a route's own template (by canonical id; a missing one is a broken installation). */
export function gateRouteBody(deps: ServiceDeps, templateId: string, body: unknown): ValidationResult {
  const template = deps.templates.resolve(templateId);
  if (!template) throw new Error(`the template ${templateId} is missing from fixtures/templates`);
  return gateBody(deps, template, body);
}

/**
 * The template of a raw POST /v1/events body: the one whose route is the raw door and whose starter
 * payload writes the body's kind (evidence.attached, session.bound). Extension kinds have none.
 */
export function eventTemplateOf(deps: ServiceDeps, body: unknown): SmartTemplate | undefined {
  if (!isRecord(body) || typeof body.kind !== 'string') return undefined;
  return deps.templates.list().find((t) => t.route.method === 'POST' && t.route.path === '/v1/events' && t.starter_payload.kind === body.kind);
}
