// The adapters' raw write, POST /v1/events (docs/contract.md §5): a write, its idempotent replay,
// and the refusals — missing or reused key, reserved and unknown kinds, unknown members, a body
// scope that differs from the headers, operator transport, wrong content type.
import { check, happy, negative, type SmokeCheck } from './check.ts';
import type { SmokeCtx } from './context.ts';

const EVENTS = 'POST /v1/events';

export function eventChecks(): SmokeCheck[] {
  const note = (ctx: SmokeCtx, text: string, extra: Record<string, unknown> = {}) => ({
    kind: 'ext.smoke.note',
    ...ctx.scopeA,
    payload: { text },
    ...extra,
  });
  const key = (ctx: SmokeCtx, name: string) => `smoke-${ctx.runId}-${name}`;
  let eventId = '';
  return [
    happy('events: POST /v1/events appends an adapter event', EVENTS, async (ctx) => {
      const res = await ctx.call(EVENTS, { body: note(ctx, 'smoke note one'), idempotencyKey: key(ctx, 'one') });
      const body = ctx.expect(res, 201);
      check(body.event.kind === 'ext.smoke.note', `kind ${body.event.kind}`);
      check(body.event.transport === 'customer', `transport ${body.event.transport}`);
      check(body.event.idempotency_key === key(ctx, 'one'), `idempotency_key ${body.event.idempotency_key}`);
      check(body.event.tenant_id === ctx.scopeA.tenant_id, 'the event is not in the caller scope');
      eventId = body.event.event_id;
    }, { always: true }),
    happy('events: the same key and body replay the original (200, Idempotent-Replayed)', EVENTS, async (ctx) => {
      const res = await ctx.call(EVENTS, { body: note(ctx, 'smoke note one'), idempotencyKey: key(ctx, 'one') });
      const body = ctx.expect(res, 200);
      check(res.headers.get('idempotent-replayed') === 'true', 'no Idempotent-Replayed: true header');
      check(body.event.event_id === eventId, `replayed ${body.event.event_id}, the original was ${eventId}`);
    }),
    negative('events: the same key with another body is 422 idempotency_key_reused', EVENTS, async (ctx) => {
      const res = await ctx.call(EVENTS, { body: note(ctx, 'a different note'), idempotencyKey: key(ctx, 'one') });
      ctx.expect(res, 422, { code: 'idempotency_key_reused' });
    }),
    negative('events: a write without Idempotency-Key is 400', EVENTS, async (ctx) => {
      ctx.expect(await ctx.call(EVENTS, { body: note(ctx, 'no key') }), 400, { code: 'idempotency_key_required' });
    }),
    negative('events: a reserved kind is 422 reserved_event_kind', EVENTS, async (ctx) => {
      const res = await ctx.call(EVENTS, { body: note(ctx, 'reserved', { kind: 'task.created' }), idempotencyKey: key(ctx, 'reserved') });
      ctx.expect(res, 422, { code: 'reserved_event_kind' });
    }),
    negative('events: an unknown kind is 422 unknown_event_kind', EVENTS, async (ctx) => {
      const res = await ctx.call(EVENTS, { body: note(ctx, 'unknown', { kind: 'smoke.made_up' }), idempotencyKey: key(ctx, 'unknown-kind') });
      ctx.expect(res, 422, { code: 'unknown_event_kind' });
    }),
    negative('events: an unknown member is 422', EVENTS, async (ctx) => {
      const res = await ctx.call(EVENTS, { body: note(ctx, 'surplus', { colour: 'red' }), idempotencyKey: key(ctx, 'surplus') });
      ctx.expect(res, 422, { code: 'validation_failed' });
    }),
    negative('events: a body scope that differs from the headers is 403 scope_mismatch', EVENTS, async (ctx) => {
      const res = await ctx.call(EVENTS, { body: note(ctx, 'other tenant', { tenant_id: ctx.scopeB.tenant_id }), idempotencyKey: key(ctx, 'mismatch') });
      ctx.expect(res, 403, { code: 'scope_mismatch' });
    }),
    negative('events: a body that is not application/json is 415', EVENTS, async (ctx) => {
      const res = await ctx.call(EVENTS, { body: note(ctx, 'plain'), idempotencyKey: key(ctx, 'plain'), headers: { 'Content-Type': 'text/plain' } });
      ctx.expect(res, 415, { code: 'unsupported_media_type' });
    }),
    negative('events: another tenant does not see the event in search', 'GET /v1/search', async (ctx) => {
      const body = ctx.expect(await ctx.call('GET /v1/search', { scope: ctx.scopeB, query: { kind: 'ext.smoke.note' } }), 200);
      check(body.results.length === 0, `tenant B found ${body.results.length} of tenant A's events`);
    }, { needs: [EVENTS] }),
  ];
}
