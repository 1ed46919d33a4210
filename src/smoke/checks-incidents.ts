// Incidents (docs/governance/incidents.md): log a serious incident (its Art. 73 clock shown), list
// and read it (ETag its version), move it to investigating by merge-patch with If-Match; and the
// refusals: a move outside the lifecycle (409 invalid_transition) and a stale If-Match (412). All in
// the run's own tenant.
import { check, happy, negative, type SmokeCheck } from './check.ts';
import type { SmokeCtx } from './context.ts';

const LOG = 'POST /v1/incidents';
const LIST = 'GET /v1/incidents';
const GET = 'GET /v1/incidents/{incident_id}';
const PATCH = 'PATCH /v1/incidents/{incident_id}';
const MERGE_PATCH = { 'Content-Type': 'application/merge-patch+json' };

const reporter = (ctx: SmokeCtx) => ({ type: 'user', id: `reporter-${ctx.runId}` });

/** The run's incident (the sample the {incident_id} placeholder takes), logged once per run. */
async function ensureIncident(ctx: SmokeCtx): Promise<string> {
  const known = ctx.samples.get('incidents');
  if (known) return known;
  const body = ctx.expect(await ctx.call(LOG, {
    body: {
      class: 'incident', title: 'Smoke: a support bot gave a harmful dosage answer', description: 'The smoke suite logs this incident itself.',
      aware_at: '2026-11-18T09:30:00Z', severity: 'sev1', harm_types: ['health_safety'], serious: { is_serious: true, basis: 'health_harm' }, actor: reporter(ctx),
    },
  }), 201);
  ctx.samples.set('incidents', body.incident.incident_id);
  return body.incident.incident_id;
}

async function current(ctx: SmokeCtx) {
  const res = await ctx.call(GET);
  return { body: ctx.expect(res, 200), etag: res.headers.get('etag') ?? '' };
}

export function incidentChecks(): SmokeCheck[] {
  return [
    happy('incidents: POST /v1/incidents logs a serious incident, open, with its Art. 73 clock (15 days)', LOG, async (ctx) => {
      await ensureIncident(ctx);
      const { body } = await current(ctx);
      check(body.status === 'open' && body.clocks[0]?.days === 15 && body.clocks[0]?.due_at === '2026-12-03T09:30:00.000Z', `status ${body.status}, clocks ${JSON.stringify(body.clocks)}`);
    }, { always: true, needs: [GET] }),
    happy('incidents: GET /v1/incidents?severity=sev1 lists it, with the non-claim', LIST, async (ctx) => {
      const id = await ensureIncident(ctx);
      const body = ctx.expect(await ctx.call(LIST, { query: { severity: 'sev1' } }), 200);
      check(body.incidents.some((i: { incident_id: string }) => i.incident_id === id) && /not legal advice/.test(body.non_claims[0]), `incidents ${body.incidents.length}`);
    }, { needs: [LOG] }),
    happy('incidents: GET /v1/incidents/{incident_id} answers ETag its version', GET, async (ctx) => {
      await ensureIncident(ctx);
      const { body, etag } = await current(ctx);
      check(etag === `"${body.version}"`, `ETag ${etag}, version ${body.version}`);
    }, { needs: [LOG] }),
    negative('incidents: open → mitigated → 409 invalid_transition', PATCH, async (ctx) => {
      await ensureIncident(ctx);
      const { body } = await current(ctx);
      if (body.status !== 'open') return;
      ctx.expect(await ctx.call(PATCH, { headers: MERGE_PATCH, body: { status: 'mitigated', immediate_mitigations: 'Disabled the dosage intent.', actor: reporter(ctx) } }), 409, { code: 'invalid_transition' });
    }, { needs: [LOG, GET] }),
    negative('incidents: a stale If-Match → 412 precondition_failed', PATCH, async (ctx) => {
      await ensureIncident(ctx);
      ctx.expect(await ctx.call(PATCH, { headers: { ...MERGE_PATCH, 'If-Match': '"0"' }, body: { note: 'Stale write', actor: reporter(ctx) } }), 412, { code: 'precondition_failed' });
    }, { needs: [LOG] }),
    happy('incidents: PATCH by merge-patch with If-Match moves it to investigating (incident.updated)', PATCH, async (ctx) => {
      await ensureIncident(ctx);
      const { body: before, etag } = await current(ctx);
      const res = await ctx.call(PATCH, { headers: { ...MERGE_PATCH, 'If-Match': etag }, body: { ...(before.status === 'open' ? { status: 'investigating' } : {}), severity: 'sev1', actor: reporter(ctx) } });
      const body = ctx.expect(res, 200);
      check(body.incident.status === 'investigating' && res.headers.get('etag') === `"${body.incident.version}"`, `status ${body.incident.status}, ETag ${res.headers.get('etag')}`);
    }, { needs: [LOG, GET] }),
  ];
}
