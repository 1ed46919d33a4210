// Vendor assessment (docs/governance/vendors.md): the questionnaire fixture and its pin, every
// vendor_maturity band boundary, the critical cap, unanswered required questions, valid_until on an
// injected clock, the input problems with their pointers, the schemas, the fold with `expired` read
// at a given time, and the warning a risk evaluation carries when its vendor_maturity is higher.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isAppError } from '../../../src/errors.ts';
import { loadSchemaRegistry } from '../../../src/schema-registry.ts';
import { classifyKind, payloadSchemaOf } from '../../../src/domain/event.ts';
import { loadRiskPolicy } from '../../../src/domain/governance/risk-policy.ts';
import { evaluateRisk } from '../../../src/domain/governance/risk.ts';
import {
  checkVendorAssessment,
  VENDOR_ASSESS_REQUEST_SCHEMA,
  type VendorAnswer,
  type VendorAssessmentInput,
  type VendorProblemCode,
} from '../../../src/domain/governance/vendors-answers.ts';
import {
  loadVendorQuestionnaire,
  requiredQuestionIds,
  VENDOR_QUESTIONNAIRE_PINS,
  VENDOR_QUESTIONS_SCHEMA,
  type VendorQuestionnaireDocument,
} from '../../../src/domain/governance/vendors-questionnaire.ts';
import { assessVendor, derivedVendorMaturity, foldVendors, VENDOR_ASSESSED, vendorView } from '../../../src/domain/governance/vendors.ts';
import { day, eventMaker, iso, user } from './fixtures.ts';

const root = (path: string) => fileURLToPath(new URL(`../../../${path}`, import.meta.url));
const registry = loadSchemaRegistry(root('schemas'));
const readDoc = (): VendorQuestionnaireDocument => JSON.parse(readFileSync(root('fixtures/vendors/gov.vendor.questions.v1.json'), 'utf8')) as VendorQuestionnaireDocument;
const questionnaire = loadVendorQuestionnaire(readDoc());
const questions = questionnaire.document.questions;
const IDS = questions.map((q) => q.question_id);
const CRITICAL = ['VQ-01', 'VQ-02', 'VQ-06', 'VQ-11', 'VQ-12'];

/** The answer to a question whose first option scoring `points` is chosen. */
function answer(id: string, points: number): VendorAnswer {
  const q = questions.find((x) => x.question_id === id)!;
  const option = q.options.find((o) => o.points === points)!;
  return { question_id: id, value: q.answer_type === 'multi_select' ? [option.value] : option.value };
}
/** Every question answered, with these points by id (0 for the rest). */
function answered(points: Record<string, number> = {}): VendorAnswer[] {
  return IDS.map((id) => answer(id, points[id] ?? 0));
}
/** All sixteen answered with `total` points and no critical question at 2: non-critical ones fill up to 2 first, then critical ones to 1. */
function withTotal(total: number): VendorAnswer[] {
  let left = total;
  const points: Record<string, number> = {};
  for (const id of [...IDS.filter((i) => !CRITICAL.includes(i)), ...CRITICAL]) {
    points[id] = Math.min(left, CRITICAL.includes(id) ? 1 : 2);
    left -= points[id];
  }
  if (left > 0) throw new Error(`${total} points need a critical question at 2`);
  return answered(points);
}
const body = (answers: VendorAnswer[], extra: Partial<VendorAssessmentInput> = {}): VendorAssessmentInput => ({ vendor_id: 'vnd_acme', name: 'Acme AI', answers, ...extra });
const NOW = day(0);

t.test('the questionnaire fixture: its schema, sixteen questions VQ-01..VQ-16, 32 points, its pin', async (t) => {
  const doc = readDoc();
  t.same(registry.validate(VENDOR_QUESTIONS_SCHEMA, doc), [], 'validates against governance/vendor-questions.json');
  t.equal(registry.schemas.get('https://schemas.gov.local/governance/vendor-questions.json')?.$id, 'https://schemas.gov.local/governance/vendor-questions.json');
  t.same(
    IDS,
    Array.from({ length: 16 }, (_, i) => `VQ-${String(i + 1).padStart(2, '0')}`),
  );
  t.equal(new Set(IDS).size, 16, 'unique ids');
  t.equal(doc.points_max, 32);
  t.equal(
    questions.reduce((sum, q) => sum + Math.max(...q.options.map((o) => o.points)), 0),
    32,
    'the poorest answer to each question adds up to points_max',
  );
  for (const q of questions) t.same([...new Set(q.options.map((o) => o.points))].sort(), q.options.some((o) => o.points === 1) ? [0, 1, 2] : [0, 2], `${q.question_id} scores 0–2`);
  t.same(
    questions.filter((q) => q.critical).map((q) => q.question_id),
    CRITICAL,
  );
  t.same(doc.required_by_tier.minimal, CRITICAL, 'minimal asks for the critical questions');
  t.same(doc.required_by_tier.limited, ['VQ-01', 'VQ-02', 'VQ-03', 'VQ-04', 'VQ-05', 'VQ-06', 'VQ-10', 'VQ-11', 'VQ-12', 'VQ-15']);
  t.same(doc.required_by_tier.high, IDS);
  t.same(requiredQuestionIds(questionnaire, undefined), IDS, 'without a tier every question is required');
  for (const q of questions)
    for (const id of q.maps_to) t.match(id, /^(eu-ai-act|nist-ai-rmf|iso-42001|csa-aicm|gdpr):[A-Za-z0-9][A-Za-z0-9_.:-]*$/, `${q.question_id} maps to ${id}`);
  t.equal(questionnaire.sha256, VENDOR_QUESTIONNAIRE_PINS['gov.vendor.questions.v1@1.0.0'], 'the fixture hashes to its pin');
  t.ok(Object.isFrozen(questionnaire.document.questions[0]), 'the loaded document is frozen');
});

t.test('the loader refuses a changed release and broken invariants, at their pointers', async (t) => {
  const refused = (change: (d: VendorQuestionnaireDocument) => void, pointer: string, name: string, version = '1.0.1') => {
    const doc = readDoc();
    doc.version = version;
    change(doc);
    t.same(registry.validate(VENDOR_QUESTIONS_SCHEMA, doc), [], `${name}: the schema alone lets it through`);
    try {
      loadVendorQuestionnaire(doc);
      t.fail(`${name}: loaded`);
    } catch (error) {
      t.ok(isAppError(error) && error.code === 'bad_input_file', `${name}: bad_input_file`);
      t.ok(isAppError(error) && error.details?.some((d) => d.pointer === pointer), `${name}: at ${pointer}`);
    }
  };
  refused((d) => (d.questions[0]!.text = 'Which models?'), '/version', 'a released version edited', '1.0.0');
  refused((d) => (d.questions[2]!.question_id = 'VQ-30'), '/questions/2/question_id', 'ids out of order');
  refused((d) => (d.points_max = 30), '/points_max', 'points_max not 2 per question');
  refused((d) => (d.required_by_tier.minimal = ['VQ-01', 'VQ-02', 'VQ-06', 'VQ-11']), '/required_by_tier/minimal', 'a critical question not required');
  refused((d) => (d.required_by_tier.high = d.required_by_tier.high.filter((id) => id !== 'VQ-03')), '/required_by_tier/high', 'a higher tier asking less');
  refused((d) => (d.maturity.bands[4]!.max_points = 30), '/maturity/bands/4/max_points', 'bands short of points_max');
  refused((d) => (d.questions[15]!.options[0]!.points = 1), '/questions/15/options', 'a question without a 0-point answer');
  refused((d) => (d.questions[1]!.options[0]!.exclusive = true), '/questions/1/options/0/exclusive', 'exclusive outside multi_select');
  const doc = readDoc();
  doc.questions[6]!.options.push({ value: 'na', label: 'n/a', points: 0 });
  t.ok(
    registry.validate(VENDOR_QUESTIONS_SCHEMA, doc).some((e) => e.pointer === '/questions/6/options'),
    'the schema holds yes_no_partial to yes, partial, no',
  );
});

t.test('vendor_maturity at each band boundary (points ≤4 → 4, ≤10 → 3, ≤16 → 2, ≤24 → 1, else 0)', async (t) => {
  const table: [number, number][] = [
    [0, 4],
    [4, 4],
    [5, 3],
    [10, 3],
    [11, 2],
    [16, 2],
    [17, 1],
    [24, 1],
    [25, 0],
    [27, 0],
  ];
  for (const [points, maturity] of table) {
    const { derived } = assessVendor(questionnaire, body(withTotal(points)), NOW);
    t.same(
      { points: derived.points, band: derived.band_maturity, maturity: derived.vendor_maturity, rule: derived.maturity_rule, max: derived.points_max },
      { points, band: maturity, maturity, rule: 'points_band', max: 32 },
      `${points} points → ${maturity}`,
    );
  }
  const worst = assessVendor(questionnaire, body(answered(Object.fromEntries(IDS.map((id) => [id, 2])))), NOW).derived;
  t.same([worst.points, worst.vendor_maturity, worst.open_findings.length], [32, 0, 16], 'every answer poor: 32 points, maturity 0, sixteen findings');
});

t.test('a critical question answered at 2 points caps maturity at 1; at 1 point it does not', async (t) => {
  for (const [id, value] of [
    ['VQ-02', 'yes'],
    ['VQ-06', ['none']],
    ['VQ-11', 'no_commitment'],
    ['VQ-12', 'prohibited'],
  ] as const) {
    const answers = answered().map((a) => (a.question_id === id ? { ...a, value: typeof value === 'string' ? value : [...value] } : a));
    const { derived } = assessVendor(questionnaire, body(answers), NOW);
    t.same(
      { points: derived.points, band: derived.band_maturity, maturity: derived.vendor_maturity, rule: derived.maturity_rule, findings: derived.open_findings },
      { points: 2, band: 4, maturity: 1, rule: 'critical_cap', findings: [{ question_id: id, severity: 'critical', reason: 'poor_answer' }] },
      `${id} ${JSON.stringify(value)}`,
    );
  }
  const partial = assessVendor(questionnaire, body(answered({ 'VQ-12': 1 })), NOW).derived;
  t.same([partial.points, partial.vendor_maturity, partial.open_findings], [1, 4, []], 'VQ-12 unknown (1 point) is a partial answer: no cap, no finding');
  const low = assessVendor(questionnaire, body(answered({ 'VQ-02': 2, ...Object.fromEntries(IDS.filter((i) => !CRITICAL.includes(i)).map((i) => [i, 2])) })), NOW).derived;
  t.same([low.points, low.band_maturity, low.vendor_maturity, low.maturity_rule], [24, 1, 1, 'points_band'], 'the cap changes nothing when the band is already at or below it');
  const nonCritical = assessVendor(questionnaire, body(answered({ 'VQ-07': 2 })), NOW).derived;
  t.same(
    [nonCritical.vendor_maturity, nonCritical.open_findings],
    [4, [{ question_id: 'VQ-07', severity: 'major', reason: 'poor_answer' }]],
    'a poor non-critical answer is a major finding, no cap',
  );
});

t.test('an unanswered required question gives 0; unanswered optional ones count 2 points each', async (t) => {
  const without = (ids: string[]) => answered().filter((a) => !ids.includes(a.question_id));
  const minimal = assessVendor(questionnaire, body(without(['VQ-11'])), NOW, { required_tier: 'minimal' });
  t.same(
    [minimal.derived.vendor_maturity, minimal.derived.maturity_rule, minimal.derived.open_findings, minimal.derived.unanswered],
    [0, 'required_unanswered', [{ question_id: 'VQ-11', severity: 'critical', reason: 'unanswered' }], ['VQ-11']],
  );
  const limited = assessVendor(questionnaire, body(without(['VQ-10'])), NOW, { required_tier: 'limited' }).derived;
  t.same([limited.vendor_maturity, limited.open_findings], [0, [{ question_id: 'VQ-10', severity: 'major', reason: 'unanswered' }]], 'limited requires VQ-10');
  const notRequired = assessVendor(questionnaire, body(without(['VQ-10'])), NOW, { required_tier: 'minimal' });
  t.same(
    [notRequired.derived.points, notRequired.derived.vendor_maturity, notRequired.derived.open_findings, notRequired.required_tier],
    [2, 4, [], 'minimal'],
    'minimal does not require VQ-10: no finding, but 2 points',
  );
  const onlyCritical = assessVendor(questionnaire, body(answered().filter((a) => CRITICAL.includes(a.question_id))), NOW, { required_tier: 'minimal' }).derived;
  t.same([onlyCritical.points, onlyCritical.vendor_maturity, onlyCritical.open_findings], [22, 1, []], 'five perfect answers and eleven left out: 22 points, maturity 1');
  const noTier = assessVendor(questionnaire, body(without(['VQ-16'])), NOW);
  t.same([noTier.derived.vendor_maturity, noTier.required_tier], [0, null], 'without a tier, every question is required');
  const empty = assessVendor(questionnaire, body([]), NOW, { required_tier: 'high' }).derived;
  t.same([empty.points, empty.vendor_maturity, empty.unanswered.length, empty.open_findings.length], [32, 0, 16, 16]);
});

t.test('valid_until: 365 days without open findings, 180 with, from the injected clock', async (t) => {
  const clean = assessVendor(questionnaire, body(answered()), day(10, 6));
  t.same([clean.assessed_at, clean.valid_until], [iso(10, 6), iso(375, 6)]);
  t.equal(clean.valid_until, '2027-01-11T06:00:00.000Z');
  const partial = assessVendor(questionnaire, body(answered({ 'VQ-03': 1, 'VQ-16': 1 })), day(10, 6));
  t.same([partial.derived.open_findings, partial.valid_until], [[], iso(375, 6)], 'partial answers open no finding');
  const poor = assessVendor(questionnaire, body(answered({ 'VQ-16': 2 })), day(10, 6));
  t.equal(poor.valid_until, iso(190, 6));
  const unanswered = assessVendor(questionnaire, body(answered().slice(1)), day(10, 6), { required_tier: 'minimal' });
  t.equal(unanswered.valid_until, iso(190, 6), 'an unanswered required question is an open finding');
});

t.test('answers are echoed in questionnaire order with their points; multi_select scores its best choice', async (t) => {
  const given: VendorAnswer[] = [
    { question_id: 'VQ-06', value: ['iso_42001', 'soc2_type2'] },
    { question_id: 'VQ-03', value: 'up_to_365_days', facts: { retention_days: 90 }, evidence_refs: ['art-dpa'] },
    { question_id: 'VQ-12', value: 'high', facts: { reasoning: 'Annex III 4(a).', role: 'provider' } },
  ];
  const p = assessVendor(questionnaire, body(given, { website: 'https://acme.example', assessed_for_asset_ids: ['asset_cv'] }), NOW, { required_tier: 'minimal' });
  t.same(p.answers, [
    { question_id: 'VQ-03', value: 'up_to_365_days', points: 1, facts: { retention_days: 90 }, evidence_refs: ['art-dpa'] },
    { question_id: 'VQ-06', value: ['soc2_type2', 'iso_42001'], points: 0 },
    { question_id: 'VQ-12', value: 'high', points: 0, facts: { role: 'provider', reasoning: 'Annex III 4(a).' } },
  ]);
  t.same([p.website, p.assessed_for_asset_ids, p.content_trust], ['https://acme.example', ['asset_cv'], 'customer_asserted']);
  const soc2 = assessVendor(questionnaire, body(answered().map((a) => (a.question_id === 'VQ-06' ? { ...a, value: ['soc2_type2', 'iso_27001'] } : a))), NOW).derived;
  t.same([soc2.points, soc2.vendor_maturity], [1, 4], 'general assurance only: 1 point');
  t.same(p.questionnaire, { id: 'gov.vendor.questions.v1', version: '1.0.0', sha256: questionnaire.sha256 });
  t.same(p.non_claims, questionnaire.document.non_claims);
  t.match(p.assessment_id, /^vsa_[0-9a-f]{32}$/);
  t.same(assessVendor(questionnaire, body(given), NOW), assessVendor(questionnaire, body(given), NOW), 'same input and clock, same payload');
  t.not(assessVendor(questionnaire, body(given), NOW).assessment_id, assessVendor(questionnaire, body(given), day(1)).assessment_id, 'another time, another id');
  t.equal(assessVendor(questionnaire, body(given), NOW, { assessment_id: 'vsa_given' }).assessment_id, 'vsa_given');
});

t.test('the worked example of docs/governance/vendors.md', async (t) => {
  const p = assessVendor(questionnaire, body(workedExample()), day(0), { required_tier: 'limited' });
  t.same(
    {
      points: p.derived.points,
      band: p.derived.band_maturity,
      maturity: p.derived.vendor_maturity,
      rule: p.derived.maturity_rule,
      findings: p.derived.open_findings,
      unanswered: p.derived.unanswered,
    },
    { points: 11, band: 2, maturity: 2, rule: 'points_band', findings: [{ question_id: 'VQ-07', severity: 'major', reason: 'poor_answer' }], unanswered: ['VQ-14'] },
  );
  t.equal(p.valid_until, '2026-06-30T00:00:00.000Z');
  const capped = assessVendor(questionnaire, body(workedExample().map((a) => (a.question_id === 'VQ-02' ? { ...a, value: 'yes' } : a))), day(0), {
    required_tier: 'limited',
  }).derived;
  t.same([capped.points, capped.band_maturity, capped.vendor_maturity, capped.maturity_rule], [13, 2, 1, 'critical_cap']);
});

function workedExample(): VendorAnswer[] {
  return [
    { question_id: 'VQ-01', value: 'listed_with_versions', facts: { models: 'OpenModel Co, om-large, 2026-05' }, evidence_refs: ['art-model-list'] },
    { question_id: 'VQ-02', value: 'opt_in_only' },
    { question_id: 'VQ-03', value: 'up_to_365_days', facts: { retention_days: 90 } },
    { question_id: 'VQ-04', value: 'known_not_pinnable', facts: { regions: ['EU', 'US'] } },
    { question_id: 'VQ-05', value: 'yes', evidence_refs: ['art-subprocessors'] },
    { question_id: 'VQ-06', value: ['soc2_type2'] },
    { question_id: 'VQ-07', value: 'no' },
    { question_id: 'VQ-08', value: 'partial' },
    { question_id: 'VQ-09', value: 'partial' },
    { question_id: 'VQ-10', value: 'yes', facts: { log_retention_days: 365 } },
    { question_id: 'VQ-11', value: 'contractual_72h', facts: { notice_hours: 48 } },
    { question_id: 'VQ-12', value: 'transparency', facts: { role: 'provider' } },
    { question_id: 'VQ-13', value: 'na' },
    { question_id: 'VQ-15', value: 'partial', facts: { notice_days: 30 } },
    { question_id: 'VQ-16', value: 'partial' },
  ];
}

t.test('input problems name their place: unknown question, values and facts their type does not allow', async (t) => {
  const base = () => body(answered()) as unknown as Record<string, unknown> & { answers: Record<string, unknown>[] };
  const cases: [string, (b: ReturnType<typeof base>) => void, VendorProblemCode, string][] = [
    ['unknown question', (b) => b.answers.push({ question_id: 'VQ-17', value: 'yes' }), 'unknown_question', '/answers/16/question_id'],
    ['question id missing', (b) => delete b.answers[3]!.question_id, 'missing', '/answers/3/question_id'],
    ['answered twice', (b) => b.answers.push({ question_id: 'VQ-05', value: 'no' }), 'duplicate_answer', '/answers/16/question_id'],
    ['na on yes_no_partial', (b) => (b.answers[6]!.value = 'na'), 'value_not_allowed', '/answers/6/value'],
    ['a number for an option', (b) => (b.answers[4]!.value = 0), 'value_not_allowed', '/answers/4/value'],
    ['an unknown option', (b) => (b.answers[1]!.value = 'sometimes'), 'value_not_allowed', '/answers/1/value'],
    ['a list on single_select', (b) => (b.answers[1]!.value = ['never']), 'value_not_allowed', '/answers/1/value'],
    ['a string on multi_select', (b) => (b.answers[5]!.value = 'iso_42001'), 'value_not_allowed', '/answers/5/value'],
    ['an empty multi_select', (b) => (b.answers[5]!.value = []), 'value_not_allowed', '/answers/5/value'],
    ['none with another', (b) => (b.answers[5]!.value = ['none', 'iso_42001']), 'value_not_allowed', '/answers/5/value'],
    ['a repeated choice', (b) => (b.answers[5]!.value = ['iso_42001', 'iso_42001']), 'value_not_allowed', '/answers/5/value'],
    ['value missing', (b) => delete b.answers[8]!.value, 'missing', '/answers/8/value'],
    ['unknown fact', (b) => (b.answers[2]!.facts = { retention_hours: 3 }), 'unknown_fact', '/answers/2/facts/retention_hours'],
    ['integer fact as a string', (b) => (b.answers[2]!.facts = { retention_days: '30' }), 'fact_not_allowed', '/answers/2/facts/retention_days'],
    ['negative integer fact', (b) => (b.answers[10]!.facts = { notice_hours: -1 }), 'fact_not_allowed', '/answers/10/facts/notice_hours'],
    ['no such date', (b) => (b.answers[6]!.facts = { latest_test: '2026-02-30' }), 'fact_not_allowed', '/answers/6/facts/latest_test'],
    ['blank text fact', (b) => (b.answers[0]!.facts = { models: '  ' }), 'fact_not_allowed', '/answers/0/facts/models'],
    ['text fact too long', (b) => (b.answers[0]!.facts = { models: 'x'.repeat(1001) }), 'fact_not_allowed', '/answers/0/facts/models'],
    ['unknown region', (b) => (b.answers[3]!.facts = { regions: ['EU', 'Mars'] }), 'fact_not_allowed', '/answers/3/facts/regions'],
    ['repeated evidence', (b) => (b.answers[0]!.evidence_refs = ['art-1', 'art-1']), 'wrong_type', '/answers/0/evidence_refs'],
    ['unknown answer member', (b) => (b.answers[0]!.comment = 'x'), 'unknown_member', '/answers/0/comment'],
    ['unknown body member', (b) => (b.score = 3), 'unknown_member', '/score'],
    ['name missing', (b) => delete b.name, 'missing', '/name'],
    ['answers not a list', (b) => (b.answers = {} as never), 'wrong_type', '/answers'],
    ['website not http', (b) => (b.website = 'ftp://acme.example'), 'wrong_type', '/website'],
  ];
  for (const [name, breakIt, code, pointer] of cases) {
    const broken = base();
    breakIt(broken);
    const checked = checkVendorAssessment(questionnaire, broken);
    t.same(checked.ok ? [] : checked.problems.map((p) => [p.code, p.pointer]), [[code, pointer]], name);
    try {
      assessVendor(questionnaire, broken as unknown as VendorAssessmentInput, NOW);
      t.fail(`${name}: assessed`);
    } catch (error) {
      t.ok(isAppError(error) && error.code === 'validation_failed' && error.details?.[0]?.pointer === pointer, `${name}: validation_failed at ${pointer}`);
    }
  }
  const valid = checkVendorAssessment(questionnaire, body(workedExample()));
  t.ok(valid.ok, 'the worked example passes');
  const problems = checkVendorAssessment(questionnaire, { ...base(), answers: [{ question_id: 'VQ-09', value: 'maybe' }] });
  t.match(problems.ok ? '' : problems.problems[0]!.detail, /"yes", "partial", "no", "na"/, 'the detail lists what is allowed');
});

t.test('the request and event schemas: what the domain builds fits, an unknown member fails', async (t) => {
  t.equal(classifyKind(VENDOR_ASSESSED), 'reserved', 'vendor.assessed is reserved from raw writes');
  t.equal(payloadSchemaOf(VENDOR_ASSESSED), 'events/vendor-assessed.json');
  const payloads = [
    assessVendor(questionnaire, body(workedExample(), { website: 'https://acme.example/ai', assessed_for_asset_ids: ['asset_cv'] }), NOW, { required_tier: 'limited' }),
    assessVendor(questionnaire, body([]), NOW),
    assessVendor(questionnaire, body(answered()), NOW, { required_tier: 'prohibited' }),
  ];
  for (const [i, payload] of payloads.entries()) {
    t.same(registry.validate('events/vendor-assessed.json', payload), [], `payload ${i}`);
    t.ok(
      registry.validate('events/vendor-assessed.json', { ...payload, surplus: 1 }).some((e) => e.pointer === '/surplus'),
      `payload ${i}: unknown member`,
    );
  }
  t.ok(
    registry
      .validate('events/vendor-assessed.json', { ...payloads[0], derived: { ...payloads[0]!.derived, vendor_maturity: 5 } })
      .some((e) => e.pointer === '/derived/vendor_maturity'),
  );
  const request = {
    vendor_id: 'vnd_acme',
    name: 'Acme AI',
    website: 'https://acme.example',
    answers: workedExample(),
    assessed_for_asset_ids: ['asset_cv'],
    actor: user('u_assessor'),
  };
  t.same(registry.validate(VENDOR_ASSESS_REQUEST_SCHEMA, request), [], 'request sample');
  t.same(registry.validate(VENDOR_ASSESS_REQUEST_SCHEMA, { name: 'Acme AI', answers: [] }), [], 'vendor_id, website, assets and actor are optional');
  for (const [pointer, broken] of [
    ['/surplus', { ...request, surplus: 1 }],
    ['/answers/0/points', { ...request, answers: [{ question_id: 'VQ-01', value: 'not_listed', points: 0 }] }],
    ['/answers/0/question_id', { ...request, answers: [{ question_id: 'Q1', value: 'yes' }] }],
    ['/answers/0/facts', { ...request, answers: [{ question_id: 'VQ-03', value: 'longer', facts: { Days: 1 } }] }],
    ['/website', { ...request, website: 'acme.example' }],
  ] as const) {
    t.ok(
      registry.validate(VENDOR_ASSESS_REQUEST_SCHEMA, broken).some((e) => e.pointer.startsWith(pointer)),
      `request: ${pointer}`,
    );
  }
});

t.test('the fold: the latest assessment wins, expired is read at the given time', async (t) => {
  const ev = eventMaker();
  const first = assessVendor(questionnaire, body(answered()), day(0));
  const second = assessVendor(questionnaire, body(answered({ 'VQ-08': 2 }), { assessed_for_asset_ids: ['asset_cv'] }), day(30));
  const other = assessVendor(questionnaire, body(answered({ 'VQ-02': 1 }), { vendor_id: 'vnd_beta', name: 'Beta' }), day(0));
  const events = [
    ev(VENDOR_ASSESSED, first, { actor: user('u_a'), at: iso(0) }),
    ev('risk.evaluated', { asset_id: 'asset_cv' }),
    ev(VENDOR_ASSESSED, other, { actor: user('u_b'), at: iso(0) }),
    ev(VENDOR_ASSESSED, second, { actor: user('u_c'), at: iso(30) }),
  ];
  const views = vendorView(events, day(100));
  t.same(
    views.map((v) => [v.vendor_id, v.assessment_id, v.vendor_maturity, v.assessments, v.assessed_by.id, v.valid_until, v.expired, v.last_seq]),
    [
      ['vnd_acme', second.assessment_id, 4, 2, 'u_c', iso(210), false, 4],
      ['vnd_beta', other.assessment_id, 4, 1, 'u_b', iso(365), false, 3],
    ],
  );
  t.same(views[0]!.open_findings, [{ question_id: 'VQ-08', severity: 'major', reason: 'poor_answer' }]);
  t.same(views[0]!.assessed_for_asset_ids, ['asset_cv']);
  t.equal(views[0]!.content_trust, 'customer_asserted');
  t.same(
    [day(209, 23), day(210), day(400)].map((now) => vendorView(events, now).map((v) => v.expired)),
    [
      [false, false],
      [true, false],
      [true, true],
    ],
    'expired from valid_until on',
  );
  t.same(vendorView([], day(0)), []);
});

t.test('a risk evaluation whose vendor_maturity is above the derived value carries a warning', async (t) => {
  const policy = loadRiskPolicy(JSON.parse(readFileSync(root('policies/gov.risk.default-1.0.0.json'), 'utf8')));
  const ev = eventMaker();
  const acme = assessVendor(questionnaire, body(workedExample()), day(0), { required_tier: 'limited' }); // derived 2
  const beta = assessVendor(questionnaire, body(answered(), { vendor_id: 'vnd_beta', name: 'Beta' }), day(0)); // derived 4
  const vendors = foldVendors([ev(VENDOR_ASSESSED, acme), ev(VENDOR_ASSESSED, beta)]);
  const derived = derivedVendorMaturity(vendors, ['vnd_beta', 'vnd_acme', 'vnd_unknown'], day(1));
  t.same(derived, { value: 2, source: `vendor.assessed ${acme.assessment_id} (vendor vnd_acme)` }, 'the lowest current derived maturity among the asset vendors');
  t.same(derivedVendorMaturity(vendors, ['vnd_beta'], day(1)), { value: 4, source: `vendor.assessed ${beta.assessment_id} (vendor vnd_beta)` });
  t.equal(derivedVendorMaturity(vendors, ['vnd_acme'], day(180)), undefined, 'an expired assessment adds nothing');
  t.equal(derivedVendorMaturity(vendors, [], day(1)), undefined);
  const inputs = (vm: number) => ({ data_sensitivity: 3, decision_impact: 3, autonomy: 2, vendor_maturity: vm, prohibited_practice: 0 });
  const above = evaluateRisk(policy, { asset_id: 'asset_cv', risk_inputs: inputs(4) }, { vendor_maturity_derived: derived! });
  t.same(
    above.warnings.map((w) => w.code),
    ['vendor_maturity_above_derived'],
  );
  t.match(above.warnings[0]!.detail, `vendor_maturity 4 exceeds the derived 2 from vendor.assessed ${acme.assessment_id}`);
  t.equal(above.risk_inputs.vendor_maturity, 4, 'the evaluation keeps the given value (a warning, not a cap)');
  t.same(evaluateRisk(policy, { asset_id: 'asset_cv', risk_inputs: inputs(2) }, { vendor_maturity_derived: derived! }).warnings, [], 'equal to the derived value: no warning');
});
