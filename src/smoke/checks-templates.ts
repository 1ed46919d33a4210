// Smart templates (docs/contract.md §7): the list (no template of a served route classed target),
// lookup by id and by alias, and validation of a filled payload, which computes an answer and
// writes nothing (so the operator token may call it).
import { check, happy, negative, type SmokeCheck } from './check.ts';
import { isListed, type SmokeCtx } from './context.ts';

type Template = { template_id: string; aliases: string[]; status: string; required_fields: string[]; route: { method: string; path: string } };

const LIST = 'GET /v1/templates';
const ONE = 'GET /v1/templates/{template_id}';
const VALIDATE = 'POST /v1/templates/validate';

export function templateChecks(): SmokeCheck[] {
  let templates: Template[] = [];
  const first = (ctx: SmokeCtx) => templates[0]?.template_id ?? ctx.samples.get('templates') ?? 'task.create.v1';
  /** A template with required fields, so an empty payload must fail its validation. */
  const demanding = (ctx: SmokeCtx) => templates.find((t) => t.required_fields.length > 0)?.template_id ?? first(ctx);
  return [
    happy('templates: GET /v1/templates lists the templates', LIST, async (ctx) => {
      const body = ctx.expect(await ctx.call(LIST, { scope: null }), 200);
      templates = body.templates;
      check(templates.length > 0, 'no templates');
      check(templates.some((t) => t.status === 'live'), 'no live template');
      ctx.samples.set('templates', templates[0]!.template_id);
    }, { always: true }),
    happy('templates: no starter payload or safe default claims "verified"', LIST, async (ctx) => {
      const body = ctx.expect(await ctx.call(LIST, { scope: null }), 200);
      const claiming = (body.templates as (Template & { starter_payload: unknown; safe_defaults: unknown })[])
        .filter((t) => /"verified"/.test(JSON.stringify([t.starter_payload, t.safe_defaults])))
        .map((t) => t.template_id);
      check(claiming.length === 0, `templates prefilling "verified": ${claiming.join(', ')}`);
    }),
    happy('templates: a template whose route the server lists is not target', LIST, async (ctx) => {
      const served = templates.filter((t) => t.status === 'target' && isListed(ctx.listed, `${t.route.method} ${t.route.path}`));
      check(served.length === 0, `target templates whose route is served: ${served.map((t) => t.template_id).join(', ')}`);
    }),
    happy('templates: GET /v1/templates/{id} resolves an id', ONE, async (ctx) => {
      const body = ctx.expect(await ctx.call(ONE, { scope: null, params: { template_id: first(ctx) } }), 200);
      check(body.template_id === first(ctx), `asked ${first(ctx)}, got ${body.template_id}`);
    }),
    happy('templates: GET /v1/templates/{id} resolves an alias', ONE, async (ctx) => {
      const owner = templates.find((t) => t.aliases.length > 0);
      check(owner, 'no template has an alias');
      const body = ctx.expect(await ctx.call(ONE, { scope: null, params: { template_id: owner.aliases[0]! } }), 200);
      check(body.template_id === owner.template_id, `alias ${owner.aliases[0]} resolved to ${body.template_id}, not ${owner.template_id}`);
    }),
    negative('templates: an unknown template is 404', ONE, async (ctx) => {
      ctx.expect(await ctx.call(ONE, { scope: null, params: { template_id: `no-such-template-${ctx.runId}` } }), 404);
    }),
    happy('templates: POST /v1/templates/validate answers a validation result', VALIDATE, async (ctx) => {
      const body = ctx.expect(await ctx.call(VALIDATE, { scope: null, body: { template_id: demanding(ctx), payload: {} } }), 200);
      check(body.ok === false, `an empty payload passed the validation of ${demanding(ctx)}`);
      check(Array.isArray(body.repair_prompt) && body.repair_prompt.length > 0, 'no repair prompt for an empty payload');
    }),
    happy('templates: validate computes only, so the operator token may call it', VALIDATE, async (ctx) => {
      ctx.expect(await ctx.call(VALIDATE, { as: 'operator', scope: null, body: { template_id: first(ctx), payload: {} } }), 200);
    }, { operator: true }),
    negative('templates: validate with an unknown member is 422', VALIDATE, async (ctx) => {
      ctx.expect(await ctx.call(VALIDATE, { scope: null, body: { template_id: first(ctx), payload: {}, colour: 'red' } }), 422, { code: 'validation_failed' });
    }),
    negative('templates: validate against an unknown template is 404', VALIDATE, async (ctx) => {
      ctx.expect(await ctx.call(VALIDATE, { scope: null, body: { template_id: `no-such-template-${ctx.runId}`, payload: {} } }), 404);
    }),
  ];
}
