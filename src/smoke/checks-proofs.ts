// Claim boundaries, Proof Packets, receipts, attestations, verification and keys (docs/contract.md
// §8, §9), over the smoke task and its evidence, plus the cross-scope confusion guard and
// the as_of rules: instants in any RFC 3339 spelling, never the future, reproducible packets.
import { formatDateTime, parseDateTime } from '../domain/date-time.ts';
import { check, happy, negative, type SmokeCheck } from './check.ts';
import { ensureReviewer } from './checks-governance.ts';
import { smokeTaskId } from './checks-tasks.ts';
import type { SmokeCtx } from './context.ts';

const EVALUATE = 'POST /v1/claim-boundaries/evaluate';
const REVIEW = 'POST /v1/evidence/{artifact_id}/review';
const PACKETS = 'POST /v1/proof-packets';
const PACKET = 'GET /v1/proof-packets/{packet_id}';
const STATUS = 'POST /v1/proof-packets/{packet_id}/status';
const MANIFEST = 'GET /v1/proof-packets/{packet_id}/redaction-manifest';
const ATTESTATION = 'GET /v1/proof-packets/{packet_id}/attestation';
const RECEIPT = 'GET /v1/receipts/{receipt_id}';
const VERIFY = 'POST /v1/signatures/verify';
const KEYS = 'GET /v1/keys';
const TIMELINE = 'GET /v1/tasks/{task_id}/timeline';
/** Later than any server's clock. */
const FUTURE = '9999-12-31T23:59:59.999Z';

type TimelineEvent = { event_id: string; recorded_at: string };

/** The smoke task's events (a handful: one page), each with its recorded_at as an instant. */
async function smokeTimeline(ctx: SmokeCtx): Promise<(TimelineEvent & { at: number })[]> {
  const body = ctx.expect(await ctx.call(TIMELINE, { params: { task_id: smokeTaskId(ctx) }, query: { limit: 1000 } }), 200);
  return (body.events as TimelineEvent[]).map((e) => ({ ...e, at: parseDateTime(e.recorded_at, 'recorded_at') }));
}

/** `ms` spelled at -12:00 with nine fraction digits and a lowercase t: the same instant. */
function spelledAtMinus12(ms: number): string {
  const local = formatDateTime(ms - 12 * 3_600_000);
  return `${local.slice(0, 10)}t${local.slice(11, 23)}000000-12:00`;
}

export function proofChecks(): SmokeCheck[] {
  let packet: Record<string, any> | null = null;
  const needs = ['POST /v1/tasks', 'POST /v1/tasks/{task_id}/checkpoints'];
  const afterPacket = [...needs, PACKETS];
  const claims = (ctx: SmokeCtx) => [
    { claim: 'The smoke checkpoint was written through the API.', evidence: [`smoke-${ctx.runId}`] },
    { claim: 'We make no statement about production systems.', kind: 'non_claim' },
  ];
  const otherWorkspace = (ctx: SmokeCtx) => ({ ...ctx.scopeA, workspace_id: 'ws-smoke-other' });
  return [
    negative('proofs: evidence the caller only asserted is claimed, not verified', EVALUATE, async (ctx) => {
      const body = ctx.expect(await ctx.call(EVALUATE, { body: { task_ids: [smokeTaskId(ctx)], claims: claims(ctx) } }), 200);
      const first = (body.results as { confidence: string; reason: string }[])[0]!;
      check(first.confidence === 'claimed' && first.reason.includes('capped until sanitized or reviewed'), `confidence ${first.confidence}: ${first.reason}`);
    }, { needs }),
    happy('proofs: POST /v1/evidence/{id}/review — a governance reviewer accepts the smoke evidence', REVIEW, async (ctx) => {
      const reviewer = await ensureReviewer(ctx);
      const body = ctx.expect(await ctx.call(REVIEW, { params: { artifact_id: `smoke-${ctx.runId}` }, body: { decision: 'accept', content_trust: 'trusted_internal', reason: 'The smoke suite wrote this evidence itself', actor: reviewer } }), 201);
      check(body.task_ids.includes(smokeTaskId(ctx)) && body.events.length === body.task_ids.length, `reviewed in ${JSON.stringify(body.task_ids)}`);
    }, { always: true, needs: [...needs, 'POST /v1/team/owner', 'POST /v1/team/invites', 'POST /v1/team/invites/{invite_id}/accept'] }),
    happy('proofs: POST /v1/claim-boundaries/evaluate classifies claims', EVALUATE, async (ctx) => {
      const body = ctx.expect(await ctx.call(EVALUATE, { body: { task_ids: [smokeTaskId(ctx)], claims: claims(ctx) } }), 200);
      const got = (body.results as { confidence: string }[]).map((r) => r.confidence);
      check(got[0] === 'verified' && got[1] === 'not_claimed', `confidences ${got.join(', ')}, expected verified, not_claimed (once reviewed)`);
      check(body.engine_version === 'cb-2', `engine ${body.engine_version}`);
    }, { needs }),
    negative('proofs: claim evaluation with an unknown member is 422', EVALUATE, async (ctx) => {
      ctx.expect(await ctx.call(EVALUATE, { body: { task_ids: [smokeTaskId(ctx)], claims: claims(ctx), colour: 'red' } }), 422, { code: 'validation_failed' });
    }),
    negative('proofs: claims about a task of another workspace are 404 not_found_in_scope', EVALUATE, async (ctx) => {
      const res = await ctx.call(EVALUATE, { scope: otherWorkspace(ctx), body: { task_ids: [smokeTaskId(ctx)], claims: claims(ctx) } });
      ctx.expect(res, 404, { code: 'not_found_in_scope' });
    }, { needs }),
    happy('proofs: POST /v1/proof-packets assembles a signed and receipted packet', PACKETS, async (ctx) => {
      const body = ctx.expect(await ctx.call(PACKETS, { body: { task_ids: [smokeTaskId(ctx)], integrity_class: 'signed_and_receipted', claims: claims(ctx) } }), 201);
      check(typeof body.receipt_id === 'string', 'no receipt_id');
      packet = body;
      ctx.samples.set('proof-packets', body.packet_id);
      ctx.samples.set('receipts', body.receipt_id);
    }, { needs, always: true }),
    negative('proofs: a packet request with an unknown member is 422 with the validation body', PACKETS, async (ctx) => {
      const body = ctx.expect(await ctx.call(PACKETS, { body: { task_ids: [smokeTaskId(ctx)], colour: 'red' } }), 422);
      check(body.ok === false && body.template_id === 'proof_packet.assemble.v1', `a validation body of proof_packet.assemble.v1, got ${JSON.stringify(body).slice(0, 200)}`);
    }),
    negative('proofs: a packet naming a task of another workspace is 404 not_found_in_scope', PACKETS, async (ctx) => {
      ctx.expect(await ctx.call(PACKETS, { scope: otherWorkspace(ctx), body: { task_ids: [smokeTaskId(ctx)] } }), 404, { code: 'not_found_in_scope' });
    }, { needs }),
    happy('proofs: GET /v1/proof-packets/{id} answers the packet as assembled', PACKET, async (ctx) => {
      const body = ctx.expect(await ctx.call(PACKET), 200);
      check(body.packet_id === packet?.packet_id, `packet_id ${body.packet_id}`);
      check(body.integrity?.packet_sha256 === packet?.integrity?.packet_sha256, 'packet_sha256 differs from the assembled one');
    }, { needs: afterPacket }),
    negative('proofs: another workspace reading the packet gets 404', PACKET, async (ctx) => {
      ctx.expect(await ctx.call(PACKET, { scope: otherWorkspace(ctx) }), 404);
    }, { needs: afterPacket }),
    happy('proofs: POST /v1/proof-packets/{id}/status moves a packet draft → final, re-issued under the same id', STATUS, async (ctx) => {
      // A packet of its own (another non-claim, another id), so the smoke packet stays as assembled.
      const draft = ctx.expect(await ctx.call(PACKETS, { body: { task_ids: [smokeTaskId(ctx)], integrity_class: 'signed', non_claims: [`Smoke status packet ${ctx.runId}.`] } }), 201);
      const issue = ctx.expect(await ctx.call(STATUS, { params: { packet_id: draft.packet_id }, body: { status: 'final' } }), 201);
      check(issue.packet_id === draft.packet_id && issue.packet_status === 'final', `re-issue ${issue.packet_id} ${issue.packet_status}`);
      check(issue.integrity.packet_sha256 !== draft.integrity.packet_sha256, 'the re-issue kept the old packet_sha256');
      const stored = ctx.expect(await ctx.call(PACKET, { params: { packet_id: draft.packet_id } }), 200);
      check(stored.integrity.packet_sha256 === issue.integrity.packet_sha256, 'GET /v1/proof-packets/{id} does not answer the latest issue');
      const back = await ctx.call(STATUS, { params: { packet_id: draft.packet_id }, body: { status: 'draft' } });
      ctx.expect(back, 409, { code: 'invalid_transition' });
    }, { needs: [...needs, PACKET] }),
    negative('proofs: revoking a packet without a reason is 422', STATUS, async (ctx) => {
      ctx.expect(await ctx.call(STATUS, { body: { status: 'revoked' } }), 422, { code: 'validation_failed' });
    }, { needs: afterPacket }),
    happy('proofs: GET /v1/proof-packets/{id}/redaction-manifest answers the manifest', MANIFEST, async (ctx) => {
      ctx.expect(await ctx.call(MANIFEST), 200);
    }, { needs: afterPacket }),
    happy('proofs: GET /v1/proof-packets/{id}/attestation answers a DSSE envelope', ATTESTATION, async (ctx) => {
      const body = ctx.expect(await ctx.call(ATTESTATION), 200);
      check(body.payloadType === 'application/vnd.in-toto+json', `payloadType ${body.payloadType}`);
    }, { needs: afterPacket }),
    happy('proofs: GET /v1/receipts/{id} answers the receipt', RECEIPT, async (ctx) => {
      const body = ctx.expect(await ctx.call(RECEIPT), 200);
      check(body.receipt_id === packet?.receipt_id, `receipt_id ${body.receipt_id}`);
    }, { needs: afterPacket }),
    negative('proofs: another tenant reading the receipt gets 404', RECEIPT, async (ctx) => {
      ctx.expect(await ctx.call(RECEIPT, { scope: ctx.scopeB }), 404);
    }, { needs: afterPacket }),
    happy('proofs: POST /v1/signatures/verify verifies the packet', VERIFY, async (ctx) => {
      const body = ctx.expect(await ctx.call(VERIFY, { body: { packet } }), 200);
      check(body.ok === true, `not ok: ${JSON.stringify(body.checks)}`);
    }, { needs: afterPacket }),
    happy('proofs: verification computes only, so the operator token may call it', VERIFY, async (ctx) => {
      ctx.expect(await ctx.call(VERIFY, { as: 'operator', body: { packet } }), 200);
    }, { needs: afterPacket, operator: true }),
    negative('proofs: verification with an unknown member is 422', VERIFY, async (ctx) => {
      ctx.expect(await ctx.call(VERIFY, { body: { packet, colour: 'red' } }), 422, { code: 'validation_failed' });
    }, { needs: afterPacket }),
    happy('proofs: as_of spelled at -12:00 is the instant it names, written back in UTC milliseconds', PACKETS, async (ctx) => {
      const events = await smokeTimeline(ctx);
      const last = events[events.length - 1]!;
      const body = ctx.expect(await ctx.call(PACKETS, { body: { task_ids: [smokeTaskId(ctx)], as_of: spelledAtMinus12(last.at) } }), 201);
      check(body.assembled_at === formatDateTime(last.at), `assembled_at ${body.assembled_at}, expected ${formatDateTime(last.at)}`);
      check(body.event_range.last_event_id === last.event_id, `last_event_id ${body.event_range.last_event_id}, expected ${last.event_id}`);
    }, { needs: [...needs, TIMELINE] }),
    happy('proofs: a second-precision as_of between millisecond events is compared as an instant', PACKETS, async (ctx) => {
      // "…:07Z" sorts after "…:07.598Z" as a string; as an instant it is before it.
      const events = await smokeTimeline(ctx);
      const asOf = `${events[events.length - 1]!.recorded_at.slice(0, 19)}Z`;
      const covered = events.filter((e) => e.at <= parseDateTime(asOf));
      const res = await ctx.call(PACKETS, { body: { task_ids: [smokeTaskId(ctx)], as_of: asOf } });
      if (covered.length === 0) return void ctx.expect(res, 422, { code: 'empty_snapshot' });
      const body = ctx.expect(res, 201);
      check(body.event_range.event_count === covered.length, `event_count ${body.event_range.event_count}, expected ${covered.length} (events up to ${asOf})`);
    }, { needs: [...needs, TIMELINE] }),
    negative('proofs: a packet as_of later than the server clock is 422 as_of_in_future', PACKETS, async (ctx) => {
      ctx.expect(await ctx.call(PACKETS, { body: { task_ids: [smokeTaskId(ctx)], as_of: FUTURE } }), 422, { code: 'as_of_in_future' });
    }, { needs }),
    negative('proofs: a claim evaluation as_of later than the server clock is 422 as_of_in_future', EVALUATE, async (ctx) => {
      ctx.expect(await ctx.call(EVALUATE, { body: { task_ids: [smokeTaskId(ctx)], as_of: FUTURE, claims: claims(ctx) } }), 422, { code: 'as_of_in_future' });
    }, { needs }),
    negative('proofs: a claim evaluation as_of before the task\'s first event is 422 empty_snapshot', EVALUATE, async (ctx) => {
      const first = (await smokeTimeline(ctx))[0]!;
      ctx.expect(await ctx.call(EVALUATE, { body: { task_ids: [smokeTaskId(ctx)], as_of: formatDateTime(first.at - 1), claims: claims(ctx) } }), 422, { code: 'empty_snapshot' });
    }, { needs: [...needs, TIMELINE] }),
    happy('proofs: the same request with the same past as_of is byte-identical, whatever was written between', PACKETS, async (ctx) => {
      const events = await smokeTimeline(ctx);
      const body = { task_ids: [smokeTaskId(ctx)], as_of: formatDateTime(events[events.length - 1]!.at), claims: claims(ctx) };
      const first = ctx.expect(await ctx.call(PACKETS, { body }), 201);
      // Writes after as_of: the first assembly's own access.logged, a claim evaluation, an assembly at now.
      ctx.expect(await ctx.call(EVALUATE, { body: { task_ids: [smokeTaskId(ctx)], claims: claims(ctx) } }), 200);
      ctx.expect(await ctx.call(PACKETS, { body: { task_ids: [smokeTaskId(ctx)] } }), 201);
      for (const round of ['second', 'third']) {
        const again = ctx.expect(await ctx.call(PACKETS, { body }), 201);
        check(again.packet_id === first.packet_id, `${round} assembly: packet_id ${again.packet_id}, first ${first.packet_id}`);
        check(again.integrity.packet_sha256 === first.integrity.packet_sha256, `${round} assembly: another packet_sha256 under the same request`);
        check(JSON.stringify(again) === JSON.stringify(first), `${round} assembly: not byte-identical to the first`);
      }
      const stored = ctx.expect(await ctx.call(PACKET, { params: { packet_id: first.packet_id } }), 200);
      check(JSON.stringify(stored) === JSON.stringify(first), 'GET /v1/proof-packets/{id} answers other bytes than the assembly');
    }, { needs: [...needs, TIMELINE, EVALUATE, PACKET] }),
    happy('proofs: GET /v1/keys answers the public keys and no secret', KEYS, async (ctx) => {
      const res = await ctx.call(KEYS, { scope: null });
      const body = ctx.expect(res, 200);
      check(body.keys.length > 0, 'no keys');
      check(!/PRIVATE KEY|secret/i.test(JSON.stringify(body)), 'the keys answer carries secret material');
    }),
  ];
}
