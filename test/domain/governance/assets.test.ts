// The AI use registry (docs/governance/approvals.md §2): revisions (re-post → revision + 1, the latest
// wins), which fields make a changed revision, and every derived status with in_use_allowed.
import t from 'tap';
import {
  ASSET_REGISTERED,
  applyAssetEvent,
  assetRegisteredPayload,
  assetStatus,
  assetView,
  changedFields,
  foldAsset,
  type AssetRegistration,
  type AssetState,
  type AssetStatus,
} from '../../../src/domain/governance/assets.ts';
import { APPROVAL_KINDS, approvalRequestFor } from '../../../src/domain/governance/approvals.ts';
import { reviewId } from '../../../src/domain/governance/reviews.ts';
import type { StoredEvent } from '../../../src/domain/event.ts';
import { day, eventMaker, evaluated, H1, iso, user } from './fixtures.ts';

const BODY: AssetRegistration = {
  name: 'CV screening',
  purpose: 'Rank job applications for recruiters.',
  owner: user('u_owner'),
  deployment_context: 'HR, internal tool, EU applicants.',
  models: [
    { provider: 'anthropic', name: 'claude', version: '4' },
    { provider: 'openai', name: 'gpt' },
  ],
  vendor_ids: ['vnd_a', 'vnd_b'],
  people_affected: ['job applicants'],
  regulatory_hints: ['eu-ai-act:annex-iii-4a'],
};

type Step = (ev: ReturnType<typeof eventMaker>, state: AssetState | undefined) => StoredEvent[];
const register =
  (body: Partial<AssetRegistration> = {}, at = iso(0)): Step =>
  (ev, state) => [ev(ASSET_REGISTERED, assetRegisteredPayload(state, 'asset_cv', { ...BODY, ...body }), { at })];
const evaluate =
  (id: string, tier: string, at = iso(1), policy_version = '1.0.0'): Step =>
  (ev) => {
    const request = approvalRequestFor(
      { evaluation_id: id, asset_id: 'asset_cv', tier: tier as 'high', input_sha256: H1, policy: { version: policy_version } },
      { requested_by: user('u_req'), asset_owner: BODY.owner },
      new Date(at),
    );
    const events = [ev('risk.evaluated', evaluated('asset_cv', id, tier, { approval_id: request?.approval_id ?? null, policy_version }), { at })];
    if (request) events.push(ev(APPROVAL_KINDS.requested, request, { at }));
    return events;
  };
const decide =
  (step: number, decision: string, who: string): Step =>
  (ev, state) => {
    const approval = Object.values(state!.approvals).at(-1)!;
    const bound = { evaluation_id: approval.subject.evaluation_id, input_sha256: approval.subject.input_sha256 };
    return [ev(APPROVAL_KINDS.decided, { approval_id: approval.approval_id, asset_id: 'asset_cv', step, decision, reason: 'ok', bound }, { actor: user(who), at: iso(2) })];
  };
const review =
  (cycle: number, outcome: string, at = iso(3)): Step =>
  (ev) => [
    ev(
      'review.completed',
      {
        review_id: reviewId('asset_cv', cycle),
        asset_id: 'asset_cv',
        cycle,
        tier: 'high',
        due_at: iso(90),
        outcome,
        notes: 'n',
        next_due_at: outcome === 'retire' ? null : iso(93),
      },
      { at },
    ),
  ];

function build(...steps: Step[]): { asset: AssetState; events: StoredEvent[] } {
  const ev = eventMaker();
  const events: StoredEvent[] = [];
  let asset: AssetState | undefined;
  for (const step of steps) {
    for (const e of step(ev, asset)) {
      events.push(e);
      asset = applyAssetEvent(asset, e);
    }
  }
  return { asset: asset!, events };
}

t.test('registration: revision 1, re-post → revision + 1, the latest wins', async (t) => {
  const first = assetRegisteredPayload(undefined, 'asset_cv', BODY);
  t.same(first, { asset_id: 'asset_cv', revision: 1, ...BODY });
  const { asset, events } = build(register(), register({ name: 'CV ranker' }, iso(5)));
  t.equal(asset.registration.revision, 2);
  t.equal(asset.registration.name, 'CV ranker');
  t.equal(asset.registered_at, iso(0));
  t.equal(asset.updated_at, iso(5));
  t.same(
    asset.revisions.map((r) => [r.revision, r.changed]),
    [
      [1, []],
      [2, []],
    ],
    'a new name is not a changed revision',
  );
  t.same(foldAsset(events), asset, 'a rebuild gives the same asset');
  const bare = assetRegisteredPayload(undefined, 'a2', { name: 'n', purpose: 'p', owner: user('u'), deployment_context: 'c', models: [{ provider: 'x', name: 'y' }] });
  t.same(Object.keys(bare).sort(), ['asset_id', 'deployment_context', 'models', 'name', 'owner', 'purpose', 'revision'], 'no optional member invented');
});

t.test('a changed revision: purpose, context, models, vendors (as sets); nothing else', async (t) => {
  t.same(changedFields(BODY, { ...BODY }), []);
  t.same(changedFields(BODY, { ...BODY, name: 'x', people_affected: [], regulatory_hints: ['y'], owner: user('u_other') }), [], 'name, people, hints and owner do not count');
  t.same(changedFields(BODY, { ...BODY, models: [...BODY.models].reverse(), vendor_ids: ['vnd_b', 'vnd_a'] }), [], 'order does not count');
  t.same(changedFields(BODY, { ...BODY, purpose: 'Other.' }), ['purpose']);
  t.same(changedFields(BODY, { ...BODY, deployment_context: 'Public.' }), ['deployment_context']);
  t.same(changedFields(BODY, { ...BODY, models: [{ provider: 'anthropic', name: 'claude', version: '5' }, BODY.models[1]!] }), ['models'], 'a model version');
  t.same(changedFields(BODY, { ...BODY, vendor_ids: undefined }), ['vendor_ids']);
  t.same(changedFields({ ...BODY, vendor_ids: undefined }, { ...BODY, vendor_ids: [] }), [], 'absent and empty are the same');
});

t.test('every status, derived at read time, and in_use_allowed only when approved', async (t) => {
  const cases: [string, Step[], AssetStatus, Date?][] = [
    ['never evaluated', [register()], 'registered'],
    ['minimal needs no approval', [register(), evaluate('rev_1', 'minimal')], 'approved'],
    ['limited, request open', [register(), evaluate('rev_1', 'limited')], 'pending_approval'],
    ['high, one of two steps', [register(), evaluate('rev_1', 'high'), decide(1, 'approve', 'u_rev')], 'pending_approval'],
    ['high, both steps', [register(), evaluate('rev_1', 'high'), decide(1, 'approve', 'u_rev'), decide(2, 'approve', 'u_exec')], 'approved'],
    ['limited, approved', [register(), evaluate('rev_1', 'limited'), decide(1, 'approve', 'u_rev')], 'approved'],
    ['rejected', [register(), evaluate('rev_1', 'high'), decide(1, 'reject', 'u_rev')], 'rejected'],
    ['prohibited', [register(), evaluate('rev_1', 'prohibited')], 'blocked'],
    ['prohibited, then changed', [register(), evaluate('rev_1', 'prohibited'), register({ purpose: 'Other.' })], 'blocked'],
    ['request withdrawn', [register(), evaluate('rev_1', 'limited'), decide(1, 'withdraw', 'u_req')], 'evaluation_required'],
    ['request expired', [register(), evaluate('rev_1', 'limited')], 'evaluation_required', day(20)],
    ['request due, not yet expired', [register(), evaluate('rev_1', 'limited')], 'pending_approval', day(15)],
    ['approved, then a changed revision', [register(), evaluate('rev_1', 'minimal'), register({ models: [{ provider: 'x', name: 'y' }] }, iso(4))], 'evaluation_required'],
    ['approved, then a cosmetic revision', [register(), evaluate('rev_1', 'minimal'), register({ name: 'Renamed' }, iso(4))], 'approved'],
    ['rejected, then a changed revision', [register(), evaluate('rev_1', 'high'), decide(1, 'reject', 'u_rev'), register({ purpose: 'Narrower.' })], 'evaluation_required'],
    ['changed, then evaluated again', [register(), evaluate('rev_1', 'minimal'), register({ purpose: 'Other.' }), evaluate('rev_2', 'minimal', iso(5))], 'approved'],
    ['re-evaluated while a request was open', [register(), evaluate('rev_1', 'high'), evaluate('rev_2', 'limited', iso(2))], 'pending_approval'],
    ['review asked for a re-evaluation', [register(), evaluate('rev_1', 'minimal'), review(1, 'reevaluate')], 'evaluation_required'],
    ['review said no change', [register(), evaluate('rev_1', 'minimal'), review(1, 'no_change')], 'approved'],
    ['retired by a review', [register(), evaluate('rev_1', 'minimal'), review(1, 'retire')], 'retired'],
    ['retired, then registered again', [register(), evaluate('rev_1', 'minimal'), review(1, 'retire'), register({ purpose: 'Back.' }, iso(9))], 'retired'],
  ];
  for (const [name, steps, status, now] of cases) {
    const { asset } = build(...steps);
    const view = assetView(asset, now ?? day(3));
    t.equal(view.status, status, name);
    t.equal(view.in_use_allowed, status === 'approved', `${name}: in_use_allowed`);
  }
});

t.test('a new policy version makes the evaluation stale when the caller names it', async (t) => {
  const { asset } = build(register(), evaluate('rev_1', 'minimal'));
  t.equal(assetStatus(asset, day(3)), 'approved');
  t.equal(assetStatus(asset, day(3), { policy_version: '1.0.0' }), 'approved');
  t.equal(assetStatus(asset, day(3), { policy_version: '1.1.0' }), 'evaluation_required');
});

t.test('the view: registration, trust, tier, evaluation, approval, review', async (t) => {
  const { asset } = build(register(), evaluate('rev_1', 'high'), decide(1, 'approve', 'u_rev'));
  const view = assetView(asset, day(3));
  t.match(view, {
    asset_id: 'asset_cv',
    revision: 1,
    name: 'CV screening',
    content_trust: 'customer_asserted',
    status: 'pending_approval',
    in_use_allowed: false,
    tier: 'high',
    latest_evaluation: { evaluation_id: 'rev_1', tier: 'high', input_sha256: H1, policy: { version: '1.0.0' }, evaluated_at: iso(1) },
    approval: { status: 'pending', current_step: 2 },
    last_review: null,
  });
  t.equal(assetView(build(register()).asset, day(0)).tier, null);
});

t.test('the fold selects its asset and needs a registration first', async (t) => {
  const ev = eventMaker();
  t.equal(applyAssetEvent(undefined, ev('risk.evaluated', evaluated('asset_cv', 'rev_1', 'high'))), undefined, 'an evaluation before any registration');
  const { asset } = build(register());
  t.same(applyAssetEvent(asset, ev('risk.evaluated', evaluated('asset_other', 'rev_1', 'high'))), asset, 'another asset');
  t.same(applyAssetEvent(asset, ev('task.created', { asset_id: 'asset_cv' })), asset, 'another kind');
  const malformed = applyAssetEvent(asset, ev('risk.evaluated', { asset_id: 'asset_cv', evaluation_id: 'rev_x' }))!;
  t.same(malformed.evaluations, [], 'an evaluation without a tier is not read as one');
});
