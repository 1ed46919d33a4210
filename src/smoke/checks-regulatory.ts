// Regulatory posture (docs/governance/regulatory.md): the profiles; the run's posture for NYC Local
// Law 144 untouched; each refusal of the PATCH (met without evidence, a short justification, a stale
// If-Match); items moved to in_progress, met and not_applicable; the summary's percentages; and the
// met item's evidence verified once a governance reviewer accepted it. All in the run's own tenant.
import { check, happy, negative, type SmokeCheck } from './check.ts';
import { ensureReviewer } from './checks-governance.ts';
import { smokeEvidence } from './checks-tasks.ts';
import type { SmokeCtx } from './context.ts';

const PROFILES = 'GET /v1/regulatory/profiles';
const POSTURE = 'GET /v1/regulatory/posture';
const PATCH = 'PATCH /v1/regulatory/frameworks/{profile_id}/requirements/{requirement_id}';
const REVIEW = 'POST /v1/evidence/{artifact_id}/review';
const EVIDENCE_ROUTES = ['POST /v1/tasks', 'POST /v1/tasks/{task_id}/checkpoints'];
/** The smallest shipped profile: five requirements, so the percentages are easy to state. */
const PROFILE = 'nyc-ll144';
const AUDIT = 'bias-audit';
const SUMMARY = 'audit-summary';
const W = { writes: 'smoke_tenant' as const };

const artifact = (ctx: SmokeCtx) => `reg-audit-${ctx.runId}`;
const owner = (ctx: SmokeCtx) => ({ type: 'user', id: `compliance-${ctx.runId}` });

/** The run's evidence for the posture checks: one task whose checkpoint cites the audit artifact. Once per run. */
async function ensureEvidence(ctx: SmokeCtx): Promise<string> {
  const id = artifact(ctx);
  if (ctx.samples.has('regulatory-evidence')) return id;
  const taskId = `task-regulatory-${ctx.runId}`;
  ctx.expect(await ctx.call('POST /v1/tasks', { body: { task_id: taskId, title: 'Smoke: the bias audit report of the CV screener', session_id: 'sess-smoke' } }), 201);
  ctx.expect(await ctx.call('POST /v1/tasks/{task_id}/checkpoints', { params: { task_id: taskId }, body: { progress: 'Attached the bias audit report', next_actions: ['Cite it in the posture'], evidence_refs: [smokeEvidence(id)] } }), 201);
  ctx.samples.set('regulatory-evidence', id);
  return id;
}

const patch = (ctx: SmokeCtx, requirement: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  ctx.call(PATCH, { params: { profile_id: PROFILE, requirement_id: requirement }, headers, body: { actor: owner(ctx), ...body } });

async function posture(ctx: SmokeCtx) {
  return ctx.expect(await ctx.call(POSTURE, { query: { profile_id: PROFILE } }), 200);
}

const itemOf = (body: { items: { requirement_id: string }[] }, local: string) => body.items.find((i) => i.requirement_id === `${PROFILE}:${local}`) as Record<string, any> | undefined;

export function regulatoryChecks(): SmokeCheck[] {
  return [
    happy('regulatory: GET /v1/regulatory/profiles lists the profiles with their requirements', PROFILES, async (ctx) => {
      const body = ctx.expect(await ctx.call(PROFILES), 200);
      const ids = body.profiles.map((p: { profile_id: string }) => p.profile_id);
      check(ids.includes(PROFILE), `profiles ${ids.join(', ')}`);
      check(body.profiles.every((p: { requirements: unknown[]; source: { url?: string } }) => p.requirements.length > 0 && typeof p.source.url === 'string'), 'a profile without requirements or a source');
    }),
    happy('regulatory: GET /v1/regulatory/posture lists every requirement, untouched ones not_started', POSTURE, async (ctx) => {
      // Scope C is never written: its posture is the untouched one, whatever else the run did.
      const body = ctx.expect(await ctx.call(POSTURE, { scope: ctx.scopeC, query: { profile_id: PROFILE } }), 200);
      check(body.items.length === body.summary.requirements && body.items.every((i: { status: string }) => i.status === 'not_started'), `statuses ${body.items.map((i: { status: string }) => i.status).join(', ')}`);
      check(body.summary.met_pct === 0 && body.non_claims.length > 0, `met_pct ${body.summary.met_pct}`);
    }),
    negative('regulatory: met without evidence → 422 evidence_required', PATCH, async (ctx) => {
      ctx.expect(await patch(ctx, AUDIT, { status: 'met' }), 422, { code: 'evidence_required' });
    }),
    negative('regulatory: not_applicable with a 19-character justification → 422 justification_required', PATCH, async (ctx) => {
      ctx.expect(await patch(ctx, SUMMARY, { status: 'not_applicable', justification: 'x'.repeat(19) }), 422, { code: 'justification_required' });
    }),
    happy('regulatory: PATCH an item to in_progress citing pooled evidence (ETag its version)', PATCH, async (ctx) => {
      const evidence = await ensureEvidence(ctx);
      const res = await patch(ctx, AUDIT, { status: 'in_progress', owner: owner(ctx), evidence_refs: [evidence] });
      const body = ctx.expect(res, 200);
      check(body.item.status === 'in_progress' && res.headers.get('etag') === `"${body.item.version}"`, `item ${body.item.status}, ETag ${res.headers.get('etag')}`);
    }, { always: true, needs: EVIDENCE_ROUTES }),
    negative('regulatory: a stale If-Match → 412 precondition_failed', PATCH, async (ctx) => {
      ctx.expect(await patch(ctx, AUDIT, { note: 'Stale write' }, { 'If-Match': '"0"' }), 412, { code: 'precondition_failed' });
    }, { needs: EVIDENCE_ROUTES }),
    happy('regulatory: PATCH the item to met with If-Match; the evidence stands as claimed', PATCH, async (ctx) => {
      await ensureEvidence(ctx);
      const etag = `"${itemOf(await posture(ctx), AUDIT)?.version ?? 0}"`;
      const body = ctx.expect(await patch(ctx, AUDIT, { status: 'met' }, { 'If-Match': etag }), 200);
      check(body.item.status === 'met' && body.item.evidence_confidence === 'claimed', `item ${body.item.status}, evidence ${body.item.evidence_confidence}`);
    }, { always: true, needs: EVIDENCE_ROUTES }),
    happy('regulatory: PATCH an item to not_applicable with a 20-character justification', PATCH, async (ctx) => {
      const body = ctx.expect(await patch(ctx, SUMMARY, { status: 'not_applicable', justification: 'No hiring in NYC now' }), 200);
      check(body.item.status === 'not_applicable' && body.item.justification === 'No hiring in NYC now', `item ${body.item.status}`);
    }, { always: true }),
    happy('regulatory: GET /v1/regulatory/posture: met 25 %, verified 0 % before any review', POSTURE, async (ctx) => {
      const { summary } = await posture(ctx);
      check(summary.counts.met === 1 && summary.counts.not_applicable === 1 && summary.met_pct === 25 && summary.verified_pct === 0, `summary ${JSON.stringify(summary.counts)} met ${summary.met_pct} verified ${summary.verified_pct}`);
    }, { ...W, needs: EVIDENCE_ROUTES }),
    happy('regulatory: once a reviewer accepts the evidence the met item is verified (100 %)', POSTURE, async (ctx) => {
      const evidence = await ensureEvidence(ctx);
      const reviewer = await ensureReviewer(ctx);
      ctx.expect(await ctx.call(REVIEW, { params: { artifact_id: evidence }, body: { decision: 'accept', content_trust: 'trusted_internal', reason: 'The smoke suite wrote this evidence itself', actor: reviewer } }), 201);
      const body = await posture(ctx);
      const item = itemOf(body, AUDIT);
      check(item?.evidence_confidence === 'verified' && body.summary.verified_pct === 100, `evidence ${item?.evidence_confidence}: ${item?.evidence_reason}; verified ${body.summary.verified_pct}`);
    }, { ...W, needs: [...EVIDENCE_ROUTES, REVIEW, 'POST /v1/team/owner', 'POST /v1/team/invites', 'POST /v1/team/invites/{invite_id}/accept'] }),
  ];
}
