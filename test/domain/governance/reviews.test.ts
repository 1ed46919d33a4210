// Reviews (docs/governance/approvals.md §4) on an injected clock: the derived id, the cadence by
// tier from the later of evaluation and review, triggers that bring the due date forward, the
// upcoming/due/overdue boundaries, and the completion checks.
import t from 'tap';
import { ASSET_REGISTERED, applyAssetEvent, assetRegisteredPayload, type AssetRegistration, type AssetState } from '../../../src/domain/governance/assets.ts';
import {
  checkReviewCompletion,
  incidentTrigger,
  parseReviewId,
  REVIEW_CADENCE_DAYS,
  REVIEW_COMPLETED,
  reviewId,
  reviewSchedule,
  reviewStatus,
  vendorExpiryTrigger,
  type ReviewCompleteBody,
} from '../../../src/domain/governance/reviews.ts';
import { sha256Hex } from '../../../src/domain/canonical-json.ts';
import type { StoredEvent } from '../../../src/domain/event.ts';
import { agent, day, eventMaker, evaluated, iso, user } from './fixtures.ts';

const owner = user('u_owner');
const BODY: AssetRegistration = { name: 'Bot', purpose: 'Answer tickets.', owner, deployment_context: 'Support.', models: [{ provider: 'x', name: 'm' }] };

/** An asset registered on day 0 and evaluated at `tier` on day 1, then the extra events. */
function asset(tier: string, extra: (ev: ReturnType<typeof eventMaker>, a: AssetState) => StoredEvent[] = () => []): AssetState {
  const ev = eventMaker();
  let state = applyAssetEvent(undefined, ev(ASSET_REGISTERED, assetRegisteredPayload(undefined, 'asset_bot', BODY), { at: iso(0) }));
  state = applyAssetEvent(state, ev('risk.evaluated', evaluated('asset_bot', 'rev_1', tier), { at: iso(1) }));
  for (const e of extra(ev, state!)) state = applyAssetEvent(state, e);
  return state!;
}
const completed = (ev: ReturnType<typeof eventMaker>, cycle: number, at: string, outcome = 'no_change') =>
  ev(
    REVIEW_COMPLETED,
    { review_id: reviewId('asset_bot', cycle), asset_id: 'asset_bot', cycle, tier: 'limited', due_at: iso(181), outcome, notes: 'n', next_due_at: null },
    { at },
  );

t.test('review_id: rvw_ + 16 hex of sha256(asset_id) + _ + cycle, from cycle 1', async (t) => {
  t.equal(reviewId('asset_bot', 1), `rvw_${sha256Hex('asset_bot').slice(0, 16)}_1`);
  t.equal(reviewId('asset_bot', 12), reviewId('asset_bot', 12), 'deterministic');
  t.same(parseReviewId(reviewId('asset_bot', 12)), { asset_hash: sha256Hex('asset_bot').slice(0, 16), cycle: 12 });
  for (const bad of ['rvw_abc_1', `rvw_${'0'.repeat(16)}_0`, `rvw_${'0'.repeat(16)}_01`, `rvw_${'G'.repeat(16)}_1`, 'apr_1']) t.equal(parseReviewId(bad), null, bad);
  t.ok(reviewId('a'.repeat(128), 999_999_999).length <= 128, 'always an id');
});

t.test('cadence by tier, the clock from the evaluation', async (t) => {
  t.same(REVIEW_CADENCE_DAYS, { minimal: 365, limited: 180, high: 90, prohibited: 30 });
  for (const [tier, days] of Object.entries(REVIEW_CADENCE_DAYS)) {
    const s = reviewSchedule(asset(tier), [], day(2))!;
    t.match(s, { review_id: reviewId('asset_bot', 1), cycle: 1, tier, clock_from: iso(1), due_at: iso(1 + days) }, tier);
    t.notOk('trigger' in s);
  }
});

t.test('upcoming until 14 days before due, due until due_at, overdue after', async (t) => {
  const due = iso(91);
  t.equal(reviewStatus(due, new Date(Date.parse(iso(77)) - 1)), 'upcoming');
  t.equal(reviewStatus(due, day(77)), 'due');
  t.equal(reviewStatus(due, day(91)), 'due');
  t.equal(reviewStatus(due, new Date(Date.parse(due) + 1)), 'overdue');
  t.equal(reviewSchedule(asset('high'), [], day(10))!.status, 'upcoming');
  t.equal(reviewSchedule(asset('high'), [], day(80))!.status, 'due');
  t.equal(reviewSchedule(asset('high'), [], day(92))!.status, 'overdue');
});

t.test('the clock starts at the later of the latest evaluation and the latest review; cycles count', async (t) => {
  const reviewed = asset('limited', (ev) => [completed(ev, 1, iso(100))]);
  t.match(reviewSchedule(reviewed, [], day(101)), { cycle: 2, review_id: reviewId('asset_bot', 2), clock_from: iso(100), due_at: iso(280), status: 'upcoming' });
  const reevaluated = asset('limited', (ev) => [completed(ev, 1, iso(100)), ev('risk.evaluated', evaluated('asset_bot', 'rev_2', 'high'), { at: iso(120) })]);
  t.match(reviewSchedule(reevaluated, [], day(121)), { cycle: 2, tier: 'high', clock_from: iso(120), due_at: iso(210) });
  t.equal(
    reviewSchedule(
      asset('limited', (ev) => [completed(ev, 1, iso(5), 'retire')]),
      [],
      day(6),
    ),
    undefined,
    'retired: no review',
  );
  const ev = eventMaker();
  t.equal(
    reviewSchedule(applyAssetEvent(undefined, ev(ASSET_REGISTERED, assetRegisteredPayload(undefined, 'asset_bot', BODY)))!, [], day(1)),
    undefined,
    'never evaluated: no review',
  );
});

t.test('triggers: due 14 days after the earliest since the clock started, never later than cadence', async (t) => {
  const high = asset('high');
  const sev2 = incidentTrigger('asset_bot', { incident_id: 'inc_1', severity: 'sev2', asset_ids: ['asset_bot'], at: iso(10) })!;
  t.same(sev2, { kind: 'incident', at: iso(10), ref: 'inc_1' });
  t.equal(incidentTrigger('asset_bot', { severity: 'sev3', asset_ids: ['asset_bot'], at: iso(10) }), undefined, 'sev3 does not trigger');
  t.equal(incidentTrigger('asset_bot', { severity: 'sev1', asset_ids: ['asset_other'], at: iso(10) }), undefined, 'another asset');
  t.match(reviewSchedule(high, [sev2], day(10)), { due_at: iso(24), status: 'due', trigger: sev2 }, 'due at once');
  t.match(reviewSchedule(high, [sev2], day(25)), { status: 'overdue' });
  t.match(reviewSchedule(high, [sev2], day(9)), { due_at: iso(91) }, 'a trigger after now has not happened');
  t.match(reviewSchedule(high, [{ kind: 'policy_changed', at: iso(20), ref: '1.1.0' }, sev2], day(30)), { due_at: iso(24), trigger: sev2 }, 'the earliest wins');
  t.match(reviewSchedule(high, [{ kind: 'incident', at: iso(85) }], day(86)), { due_at: iso(91) }, 'never pushed past the cadence');
  t.notOk('trigger' in reviewSchedule(high, [{ kind: 'incident', at: iso(85) }], day(86))!);
  t.match(reviewSchedule(high, [{ kind: 'incident', at: iso(0) }], day(2)), { due_at: iso(91) }, 'before the clock started: already answered');
  const vendor = vendorExpiryTrigger({ vendor_id: 'vnd_a', valid_until: iso(30) }, day(31))!;
  t.same(vendor, { kind: 'vendor_expired', at: iso(30), ref: 'vnd_a' });
  t.equal(vendorExpiryTrigger({ vendor_id: 'vnd_a', valid_until: iso(30) }, day(29)), undefined, 'not expired yet');
  t.match(reviewSchedule(high, [vendor], day(31)), { due_at: iso(44), status: 'due' });
  const changed = asset('high', (ev, a) => [ev(ASSET_REGISTERED, assetRegisteredPayload(a, 'asset_bot', { ...BODY, purpose: 'Answer and close tickets.' }), { at: iso(40) })]);
  t.match(reviewSchedule(changed, [], day(41)), { due_at: iso(54), trigger: { kind: 'asset_changed', at: iso(40), ref: 'revision 2' } }, 'a changed revision is a trigger');
  const renamed = asset('high', (ev, a) => [ev(ASSET_REGISTERED, assetRegisteredPayload(a, 'asset_bot', { ...BODY, name: 'Bot 2' }), { at: iso(40) })]);
  t.match(reviewSchedule(renamed, [], day(41)), { due_at: iso(91) }, 'a cosmetic revision is not');
  const answered = asset('high', (ev, a) => [
    ev(ASSET_REGISTERED, assetRegisteredPayload(a, 'asset_bot', { ...BODY, purpose: 'Other.' }), { at: iso(40) }),
    completed(ev, 1, iso(45)),
  ]);
  t.match(reviewSchedule(answered, [], day(46)), { cycle: 2, due_at: iso(135) }, 'a review after the change answered it');
});

t.test('completion: REV-1 the open cycle, REV-2 a user, REV-3 not the owner of a high-tier asset', async (t) => {
  const body: ReviewCompleteBody = { outcome: 'no_change', notes: 'Checked logs and incidents.', evidence_refs: ['art-1'] };
  const high = reviewSchedule(asset('high'), [], day(80))!;
  const ok = checkReviewCompletion(high, high.review_id, body, user('u_rev'), owner, day(80));
  t.same(ok, {
    ok: true,
    payload: {
      review_id: high.review_id,
      asset_id: 'asset_bot',
      cycle: 1,
      tier: 'high',
      due_at: iso(91),
      outcome: 'no_change',
      notes: body.notes,
      evidence_refs: ['art-1'],
      next_due_at: iso(170),
    },
  });
  t.match(
    checkReviewCompletion(high, reviewId('asset_bot', 2), body, user('u_rev'), owner, day(80)),
    { ok: false, status: 409, code: 'review_cycle_stale', rule: 'REV-1' },
    'a future cycle',
  );
  t.match(checkReviewCompletion(high, reviewId('asset_bot', 0), body, user('u_rev'), owner, day(80)), { ok: false, code: 'review_cycle_stale' });
  t.match(checkReviewCompletion(undefined, reviewId('asset_bot', 1), body, user('u_rev'), owner, day(80)), { ok: false, code: 'review_cycle_stale' }, 'no open review');
  const second = reviewSchedule(
    asset('high', (ev) => [completed(ev, 1, iso(50))]),
    [],
    day(51),
  )!;
  t.match(checkReviewCompletion(second, reviewId('asset_bot', 1), body, user('u_rev'), owner, day(51)), { ok: false, code: 'review_cycle_stale' }, 'a completed cycle again');
  t.match(checkReviewCompletion(high, high.review_id, body, agent('bot'), owner, day(80)), { ok: false, status: 403, code: 'actor_type_not_allowed', rule: 'REV-2' });
  t.match(checkReviewCompletion(high, high.review_id, body, owner, owner, day(80)), { ok: false, status: 403, code: 'owner_cannot_review', rule: 'REV-3' });
  t.match(checkReviewCompletion(high, reviewId('asset_bot', 2), body, agent('bot'), owner, day(80)), { code: 'review_cycle_stale' }, 'REV-1 first');
  const limited = reviewSchedule(asset('limited'), [], day(2))!;
  t.match(checkReviewCompletion(limited, limited.review_id, body, owner, owner, day(2)), { ok: true, payload: { next_due_at: iso(182) } }, 'the owner may review below high');
  const retire = checkReviewCompletion(limited, limited.review_id, { outcome: 'retire', notes: 'Switched off.' }, user('u_rev'), owner, day(2));
  t.match(retire, { ok: true, payload: { outcome: 'retire', next_due_at: null } });
  t.notOk(retire.ok && 'evidence_refs' in retire.payload);
  const triggered = reviewSchedule(asset('high'), [{ kind: 'incident', at: iso(10), ref: 'inc_1' }], day(11))!;
  t.match(checkReviewCompletion(triggered, triggered.review_id, body, user('u_rev'), owner, day(11)), {
    ok: true,
    payload: { due_at: iso(24), trigger: { kind: 'incident', ref: 'inc_1' } },
  });
});
