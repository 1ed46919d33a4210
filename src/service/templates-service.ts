// Smart templates as the API serves them, and the one gate per template: POST /v1/templates/validate
// and every write route with a template run `gateBody` on the same body, so what validate refuses
// the route refuses (422, the validation body) and what validate passes the route takes.
import { validateTemplatePayload, type ValidationResult } from '../domain/closeout-gates.ts';
import { isRecord } from '../domain/gate-context.ts';
import type { SmartTemplate } from '../domain/templates.ts';
import { AppError } from '../errors.ts';
import type { SchemaRef, SchemaTypes } from '../schema-registry.ts';
import type { ServiceDeps } from './deps.ts';

/** A write that ran its template's gate: written, or refused with the validation body. */
export type Gated<T> = { ok: true; write: T } | { ok: false; validation: ValidationResult };

/** A route's gate: passed, with the body as its request schema types it, or refused with the validation body. */
export type Gate<T> = { ok: true; body: T } | { ok: false; validation: ValidationResult };

export function findTemplate(deps: ServiceDeps, name: string): SmartTemplate {
  const template = deps.templates.resolve(name);
  if (!template) throw new AppError('template_not_found', `No template ${JSON.stringify(name)}; GET /v1/templates lists every template id and alias.`);
  return template;
}

/** POST /v1/templates/validate: the gate of the named template over `payload`, writing nothing. */
export function validateFilledTemplate(deps: ServiceDeps, body: unknown): ValidationResult {
  deps.registry.assert('api/template-validate-request.json', body, 'validation request');
  const { template_id, payload } = body;
  return gateBody(deps, findTemplate(deps, template_id), payload);
}

/** The template's gate, request schema included: what validate answers and what a route enforces. */
export function gateBody(deps: ServiceDeps, template: SmartTemplate, body: unknown): ValidationResult {
  return validateTemplatePayload(template, body, { registry: deps.templates, validateSchema: deps.registry.validate });
}

/**
 * The gate as a write route runs it: the same verdict as `gateBody`, and for a refused body the
 * same validation body (warnings included); a body that passes is not asked for warnings, which
 * the route would throw away.
 */
export function gateWrite(deps: ServiceDeps, template: SmartTemplate, body: unknown): ValidationResult {
  const verdict = validateTemplatePayload(template, body, { registry: deps.templates, validateSchema: deps.registry.validate, warnings: false });
  return verdict.ok ? verdict : gateBody(deps, template, body);
}

/**
 * The gate of a route's own template (by canonical id), whose request schema is `schema`: a missing
 * template, or one checking another schema, is a broken installation. A body that passes has that
 * schema's type, since the gate checked it against the schema.
 */
export function gateRouteBody<R extends SchemaRef>(deps: ServiceDeps, templateId: string, schema: R, body: unknown): Gate<SchemaTypes[R]> {
  const template = deps.templates.resolve(templateId);
  if (!template) throw new Error(`the template ${templateId} is missing from fixtures/templates`);
  if (template.request_schema !== schema) throw new Error(`the template ${templateId} checks ${template.request_schema ?? 'no request schema'}, not ${schema}`);
  const validation = gateWrite(deps, template, body);
  return validation.ok ? { ok: true, body: body as SchemaTypes[R] } : { ok: false, validation };
}

/**
 * The template of a raw POST /v1/events body: the one whose route is the raw door and whose starter
 * payload writes the body's kind (evidence.attached). session.bound and extension kinds have none.
 */
export function eventTemplateOf(deps: ServiceDeps, body: unknown): SmartTemplate | undefined {
  if (!isRecord(body) || typeof body.kind !== 'string') return undefined;
  return deps.templates.list().find((t) => t.route.method === 'POST' && t.route.path === '/v1/events' && t.starter_payload.kind === body.kind);
}
