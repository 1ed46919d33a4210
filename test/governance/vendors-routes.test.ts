// Vendors through the routes: the questionnaire, an assessment with its derived maturity and
// validity, refusals, expiry on an injected clock, the warning a risk evaluation carries when its
// vendor_maturity input is above what the asset's vendors derive, and the review an expired
// assessment brings forward.
import t from 'tap';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { canonicalJson } from '../../src/domain/canonical-json.ts';
import type { StoredEvent } from '../../src/domain/event.ts';
import { assertSchema, SCOPE_A, SCOPE_B, testApp } from '../fixtures/test-app.ts';
import { straddle, versionsOf } from '../fixtures/straddle.ts';
import { assetStream, vendorStream } from '../../src/domain/streams.ts';
import { BEST_VENDOR_ANSWERS } from '../fixtures/governance.ts';

const DAY = 86_400_000;
/** Every question at its best answer (0 points): maturity 4. */
const BEST = BEST_VENDOR_ANSWERS;

async function app(t: Parameters<typeof testApp>[0]) {
  let now = Date.parse('2026-11-01T10:00:00.000Z');
  const a = await testApp(t, { clock: () => new Date((now += 1000)) });
  const events = (): StoredEvent[] => readFileSync(join(a.dataDir, 'events.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as StoredEvent);
  return { ...a, events, jump: (ms: number) => void (now += ms) };
}

t.test('the questionnaire, an assessment, its derived maturity and validity', async (t) => {
  const { call, events, jump } = await app(t);
  const unscoped = await call('/v1/vendors/questions', { scope: null });
  t.same([unscoped.status, unscoped.json.code], [400, 'scope_required'], 'under /v1 the scope headers are required (CONTRACT §3)');
  const q = await call('/v1/vendors/questions');
  t.equal(q.status, 200);
  assertSchema(t, 'api/vendor-questions-response.json', q.json);
  t.same([q.json.questionnaire_id, q.json.version, q.json.questions.length], ['gov.vendor.questions.v1', '1.0.0', 16]);
  t.same(q.json.sections_required_by_tier.minimal, ['VQ-01', 'VQ-02', 'VQ-06', 'VQ-11', 'VQ-12'], 'DOMAIN §3.2: what a minimal-tier asset\'s vendor answers');
  const { sha256, sections_required_by_tier: _s, ...document } = q.json;
  t.equal(sha256, `sha256:${createHash('sha256').update(canonicalJson(document)).digest('hex')}`, 'the pin recomputes from the answer less its last two members');
  const best = await call('/v1/vendors', { body: { vendor_id: 'acme-ai', name: 'Acme AI', answers: BEST } });
  t.equal(best.status, 201, best.text);
  assertSchema(t, 'api/vendor-write-response.json', best.json);
  t.same([best.json.vendor.points, best.json.vendor.vendor_maturity, best.json.vendor.open_findings], [0, 4, []]);
  t.equal(Date.parse(best.json.vendor.valid_until) - Date.parse(best.json.vendor.assessed_at), 365 * DAY, 'valid 365 days without findings');
  const assessed = events().filter((e) => e.kind === 'vendor.assessed');
  t.equal(assessed.length, 1);
  t.equal(assessed[0]!.payload.vendor_id, 'acme-ai');
  // A critical question at its poor answer caps the maturity at 1 and makes a finding: 180 days.
  const poor = await call('/v1/vendors', { body: { vendor_id: 'acme-ai', name: 'Acme AI', answers: BEST.map((a) => (a.question_id === 'VQ-02' ? { ...a, value: 'yes' } : a)) } });
  t.same([poor.json.vendor.vendor_maturity, poor.json.vendor.open_findings.map((f: { question_id: string }) => f.question_id), poor.json.vendor.assessments], [1, ['VQ-02'], 2]);
  t.equal(Date.parse(poor.json.vendor.valid_until) - Date.parse(poor.json.vendor.assessed_at), 180 * DAY, 'valid 180 days with an open finding');
  const read = await call('/v1/vendors/acme-ai');
  assertSchema(t, 'api/vendor.json', read.json);
  t.same([read.json.vendor_maturity, read.json.expired], [1, false]);
  jump(181 * DAY);
  t.equal((await call('/v1/vendors/acme-ai')).json.expired, true, 'expired after valid_until, read on the clock');
  for (const [name, body] of [
    ['an unknown question', { name: 'X', answers: [{ question_id: 'VQ-99', value: 'yes' }] }],
    ['a value its question does not take', { name: 'X', answers: [{ question_id: 'VQ-01', value: 'maybe' }] }],
    ['evidence the scope does not have', { name: 'X', answers: [{ question_id: 'VQ-01', value: 'listed_with_versions', evidence_refs: ['nope'] }] }],
  ] as const) {
    const before = events().length;
    const r = await call('/v1/vendors', { body });
    t.equal(r.status, 422, name);
    t.equal(events().length, before, `${name}: nothing written`);
  }
  t.equal((await call('/v1/vendors/acme-ai', { scope: SCOPE_B })).status, 404, 'another tenant does not see it');
});

t.test('a body that is not an assessment is refused whole before anything reads it: 422, nothing written', async (t) => {
  const { call, events } = await app(t);
  const deep = `${'['.repeat(64)}${']'.repeat(64)}`;
  for (const [name, body, pointer] of [
    // Found by `npm run fuzz` (seed 1139964879): these answered 500, and the bad actor was written into the log.
    ['an array', [1], ''],
    ['64 levels of arrays', deep, ''],
    ['asset ids that are not ids', { name: 'X', answers: BEST, assessed_for_asset_ids: [{ a: 1 }] }, '/assessed_for_asset_ids'],
    ['evidence refs that are not ids', { name: 'X', answers: [{ question_id: 'VQ-01', value: 'listed_with_versions', evidence_refs: [{ a: 1 }] }] }, '/answers/0/evidence_refs'],
    ['answers that are not a list', { name: 'X', answers: 'all good' }, '/answers'],
    ['a vendor_id that is not an id', { vendor_id: 5, name: 'X', answers: BEST }, '/vendor_id'],
    ['an actor that is not an actor', { name: 'X', answers: BEST, actor: 'x' }, '/actor'],
  ] as const) {
    const before = events().length;
    const r = await call('/v1/vendors', { body: body as never });
    t.equal(r.status, 422, `${name}: ${r.text.slice(0, 200)}`);
    t.equal(r.json.code, 'validation_failed', name);
    t.ok((r.json.errors as Array<{ pointer: string }>).some((e) => e.pointer === pointer), `${name}: the refusal points at ${pointer || 'the root'}`);
    t.equal(events().length, before, `${name}: nothing written`);
  }
  // The same body with a proper actor is assessed, and the event names that actor.
  const ok = await call('/v1/vendors', { body: { name: 'X', answers: BEST, actor: { type: 'user', id: 'vera' } } });
  t.equal(ok.status, 201, ok.text);
  t.same(events().filter((e) => e.kind === 'vendor.assessed').map((e) => e.actor), [{ type: 'user', id: 'vera' }]);
});

t.test('assessments of one vendor sent at once all land: each is decided again on the ones before it', async (t) => {
  const { call, events } = await app(t);
  const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => call('/v1/vendors', { body: { vendor_id: 'acme-ai', name: `Acme AI (${i})`, answers: BEST, actor: { type: 'user', id: 'vera' } } })));
  t.same(answers.map((a) => a.status), Array(30).fill(201), 'no 409 write_conflict');
  t.equal((await call('/v1/vendors/acme-ai')).json.assessments, 30);
  const log = events();
  t.equal(log.filter((e) => e.kind === 'vendor.assessed').length, 30);
  // The access log tells the first assessment from the later ones, in log order.
  const actions = log.filter((e) => e.kind === 'access.logged' && (e.payload.resource as { type: string }).type === 'vendor').map((e) => e.payload.action);
  t.same(actions, ['created', ...Array(29).fill('changed')]);
  // Each answer shows the vendor as it is once its write is indexed (later ones may be in it), and
  // its ETag is that state's version, never another's.
  for (const a of answers) t.equal(a.headers.get('etag'), `"${a.json.vendor.last_seq}"`);
  t.ok(answers.every((a) => a.json.vendor.last_seq >= a.json.event.seq), 'no answer shows a state before its own write');
});

t.test('an evaluation whose reads straddle an index commit derives the vendor maturity after it', async (t) => {
  // The vendor is read as it was before its reassessment was indexed (test/fixtures/straddle.ts).
  const a = await app(t);
  await a.call('/v1/vendors', { body: { vendor_id: 'acme-ai', name: 'Acme AI', answers: BEST } });
  const asset = { asset_id: 'chat-2', name: 'Support chat', purpose: 'Answer billing questions', owner: { type: 'user', id: 'olivia' }, deployment_context: 'public web', models: [{ provider: 'acme', name: 'a-1' }], vendor_ids: ['acme-ai'] };
  t.equal((await a.call('/v1/governance/assets', { body: asset })).status, 201);
  await a.service.store.settled();
  const gov = a.service.gov;
  const stale = gov.vendor(SCOPE_A, 'acme-ai')!;
  const before = versionsOf(gov, [vendorStream(SCOPE_A, 'acme-ai'), assetStream(SCOPE_A, 'chat-2')]);
  const poor = await a.call('/v1/vendors', { body: { vendor_id: 'acme-ai', name: 'Acme AI', answers: BEST.map((x) => (x.question_id === 'VQ-02' ? { ...x, value: 'yes' } : x)) } });
  t.equal(poor.json.vendor.vendor_maturity, 1, 'reassessed: maturity 1');
  const landed = straddle(t, gov, 'vendor', (_scope, vendorId) => vendorId === 'acme-ai', stale, before);
  const evaluated = await a.call('/v1/risk/evaluations', { body: { asset_id: 'chat-2', risk_inputs: { data_sensitivity: 1, decision_impact: 0, autonomy: 1, vendor_maturity: 4, prohibited_practice: 0 } } });
  t.ok(landed(), 'the commit landed during the evaluation');
  t.equal(evaluated.status, 201);
  // On the stale vendor (maturity 4) the input was not above what it derives: no warning.
  t.same(evaluated.json.evaluation.warnings.map((w: { code: string }) => w.code), ['vendor_maturity_above_derived'], 'decided on the vendor as reassessed');
});

t.test('an assessment whose reads straddle an index commit is decided on the tier its assets have after it', async (t) => {
  // The asset is read as it was before a new evaluation raised its tier (test/fixtures/straddle.ts).
  const a = await app(t);
  const asset = { asset_id: 'chat-3', name: 'Support chat', purpose: 'Answer billing questions', owner: { type: 'user', id: 'olivia' }, deployment_context: 'public web', models: [{ provider: 'acme', name: 'a-1' }] };
  t.equal((await a.call('/v1/governance/assets', { body: asset })).status, 201);
  const evaluate = async (inputs: Record<string, number>) => (await a.call('/v1/risk/evaluations', { body: { asset_id: 'chat-3', risk_inputs: inputs } })).json.evaluation.tier;
  t.equal(await evaluate({ data_sensitivity: 0, decision_impact: 0, autonomy: 0, vendor_maturity: 4, prohibited_practice: 0 }), 'minimal');
  await a.service.store.settled();
  const gov = a.service.gov;
  const stale = gov.asset(SCOPE_A, 'chat-3')!;
  const before = versionsOf(gov, [assetStream(SCOPE_A, 'chat-3'), vendorStream(SCOPE_A, 'acme-ai')]);
  t.equal(await evaluate({ data_sensitivity: 3, decision_impact: 3, autonomy: 2, vendor_maturity: 2, prohibited_practice: 0 }), 'high', 'evaluated again: tier high');
  const landed = straddle(t, gov, 'asset', (_scope, assetId) => assetId === 'chat-3', stale, before);
  // Only the questions tier minimal requires are answered.
  const minimal = new Set<unknown>(['VQ-01', 'VQ-02', 'VQ-06', 'VQ-11', 'VQ-12']);
  const assessed = await a.call('/v1/vendors', { body: { vendor_id: 'acme-ai', name: 'Acme AI', answers: BEST.filter((x) => minimal.has(x.question_id)), assessed_for_asset_ids: ['chat-3'] } });
  t.ok(landed(), 'the commit landed during the assessment');
  t.equal(assessed.status, 201);
  const event = a.events().filter((e) => e.kind === 'vendor.assessed').at(-1)!;
  t.equal(event.payload.required_tier, 'high', 'decided on the tier the asset has');
  const derived = event.payload.derived as { open_findings: Array<{ reason: string }>; maturity_rule: string };
  t.same([derived.open_findings.some((f) => f.reason === 'unanswered'), derived.maturity_rule], [true, 'required_unanswered'], 'what tier high requires and was not answered is a finding');
});

t.test('a review completion whose reads straddle an index commit records the triggers after it', async (t) => {
  // The vendor is read as it was before its reassessment was indexed (test/fixtures/straddle.ts).
  const a = await app(t);
  const withFinding = BEST.map((x) => (x.question_id === 'VQ-11' ? { ...x, value: 'no_commitment' } : x));
  await a.call('/v1/vendors', { body: { vendor_id: 'weak-ai', name: 'Weak AI', answers: withFinding } });
  const asset = { asset_id: 'chat-4', name: 'Support chat', purpose: 'Answer billing questions', owner: { type: 'user', id: 'olivia' }, deployment_context: 'public web', models: [{ provider: 'weak', name: 'w-1' }], vendor_ids: ['weak-ai'] };
  t.equal((await a.call('/v1/governance/assets', { body: asset })).status, 201);
  await a.call('/v1/risk/evaluations', { body: { asset_id: 'chat-4', risk_inputs: { data_sensitivity: 0, decision_impact: 0, autonomy: 0, vendor_maturity: 1, prohibited_practice: 0 } } });
  a.jump(181 * DAY); // the assessment (180 days: it has a finding) has expired
  const review = (await a.call('/v1/reviews?asset_id=chat-4')).json.reviews[0];
  t.equal(review.trigger.kind, 'vendor_expired', 'the expiry brought the review forward');
  await a.service.store.settled();
  const gov = a.service.gov;
  const stale = gov.vendor(SCOPE_A, 'weak-ai')!;
  const before = versionsOf(gov, [vendorStream(SCOPE_A, 'weak-ai'), assetStream(SCOPE_A, 'chat-4')]);
  t.equal((await a.call('/v1/vendors', { body: { vendor_id: 'weak-ai', name: 'Weak AI', answers: BEST } })).status, 201, 'reassessed: valid again');
  const landed = straddle(t, gov, 'vendor', (_scope, vendorId) => vendorId === 'weak-ai', stale, before);
  const done = await a.call(`/v1/reviews/${review.review_id}/complete`, { body: { outcome: 'no_change', notes: 'Checked the vendor', actor: { type: 'user', id: 'rita' } } });
  t.ok(landed(), 'the commit landed during the completion');
  t.equal(done.status, 201);
  const completed = a.events().filter((e) => e.kind === 'review.completed').at(-1)!;
  t.notOk('trigger' in completed.payload, 'no expiry recorded: the vendor was reassessed before the completion');
});

t.test('a risk input above the derived vendor maturity warns; an expired assessment brings the review forward', async (t) => {
  const { call, jump } = await app(t);
  await call('/v1/vendors', { body: { vendor_id: 'weak-ai', name: 'Weak AI', answers: BEST.map((a) => (a.question_id === 'VQ-11' ? { ...a, value: 'no_commitment' } : a)) } });
  const asset = { asset_id: 'chat-1', name: 'Support chat', purpose: 'Answer billing questions', owner: { type: 'user', id: 'olivia' }, deployment_context: 'public web', models: [{ provider: 'weak', name: 'w-1' }], vendor_ids: ['weak-ai'] };
  t.equal((await call('/v1/governance/assets', { body: asset })).status, 201);
  const inputs = { data_sensitivity: 1, decision_impact: 0, autonomy: 1, vendor_maturity: 4, prohibited_practice: 0 };
  const evaluated = (await call('/v1/risk/evaluations', { body: { asset_id: 'chat-1', risk_inputs: inputs } })).json.evaluation;
  t.same(evaluated.warnings.map((w: { code: string }) => w.code), ['vendor_maturity_above_derived'], 'vendor_maturity 4 is above the derived 1');
  t.same((await call('/v1/risk/evaluations', { body: { asset_id: 'chat-1', risk_inputs: { ...inputs, vendor_maturity: 1 } } })).json.evaluation.warnings, [], 'at the derived value: no warning');
  const review = (await call('/v1/reviews?asset_id=chat-1')).json.reviews[0];
  t.equal(review.status, 'upcoming');
  t.equal(review.trigger, null);
  jump(181 * DAY); // the assessment (180 days: it has a finding) has expired
  const forward = (await call('/v1/reviews?asset_id=chat-1')).json.reviews[0];
  t.equal(forward.trigger.kind, 'vendor_expired', 'the expiry is the trigger');
  t.ok(Date.parse(forward.due_at) < Date.parse(review.due_at), 'the review is due earlier than by cadence');
});
