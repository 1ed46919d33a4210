// Risk evaluation under gov.risk.default 1.0.0 (docs/governance/risk.md): the eight golden vectors
// (points, score, tiers, fired rules and input hashes from the policy's reference notes, the hashes
// recomputed here from hand-written canonical text), determinism, every refusal of the inputs, the
// policy pin, and the request, event and policy schemas.
import t from 'tap';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isAppError } from '../../../src/errors.ts';
import { loadSchemaRegistry } from '../../../src/schema-registry.ts';
import { checkRiskInputs, RISK_EVALUATION_REQUEST_SCHEMA, riskInputsError, type RiskInputProblemCode } from '../../../src/domain/governance/risk-inputs.ts';
import {
  loadRiskPolicy,
  RISK_INPUT_NAMES,
  RISK_POLICY_PINS,
  RISK_POLICY_SCHEMA,
  riskPolicySha256,
  type RiskInputs,
  type RiskPolicyDocument,
} from '../../../src/domain/governance/risk-policy.ts';
import { evaluateRisk, type RiskEvaluation } from '../../../src/domain/governance/risk.ts';

const POLICIES = fileURLToPath(new URL('../../../policies/', import.meta.url));
const registry = loadSchemaRegistry(fileURLToPath(new URL('../../../schemas', import.meta.url)));
const readDoc = (): RiskPolicyDocument => JSON.parse(readFileSync(`${POLICIES}gov.risk.default-1.0.0.json`, 'utf8')) as RiskPolicyDocument;
const policy = loadRiskPolicy(readDoc());

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
/** The pin published with the policy (DOMAIN notes §2.3): RFC 8785 form, 3,900 bytes. */
const POLICY_SHA256 = 'sha256:64f732b4cb3f00ecc916a710c59d94cbd0e0847f187188e6ee72cd7c50b8f6b9';

const inputs = (ds: number, di: number, au: number, vm: number, pp: number): RiskInputs => ({
  data_sensitivity: ds,
  decision_impact: di,
  autonomy: au,
  vendor_maturity: vm,
  prohibited_practice: pp,
});

/**
 * RFC 8785 of {asset_id, risk_inputs} written out by hand: members sorted by UTF-16 code units,
 * no spaces, integers as themselves (the ids are plain ASCII, so no escaping is needed).
 */
function canonicalRequestText(assetId: string, i: RiskInputs): string {
  return (
    `{"asset_id":"${assetId}","risk_inputs":{"autonomy":${i.autonomy},"data_sensitivity":${i.data_sensitivity},` +
    `"decision_impact":${i.decision_impact},"prohibited_practice":${i.prohibited_practice},"vendor_maturity":${i.vendor_maturity}}}`
  );
}

// The golden vectors (DOMAIN notes §2.5): [asset_id, inputs, points, score, band, tier, fired, input sha256 hex].
type Vector = [string, RiskInputs, number, number, string, string, string[], string];
const VECTORS: Vector[] = [
  ['asset_code_assist', inputs(1, 0, 1, 3, 0), 8, 17, 'minimal', 'minimal', [], 'dba48f9de9783629be81749fb5ce709f23a642d5d48304d76852b60576307ab3'],
  ['asset_doc_summarizer', inputs(1, 1, 1, 0, 0), 18, 38, 'limited', 'limited', [], '3015b972303202c340dbf6988cb498f67729d0cda48e6dea96b11c955cf99e6a'],
  ['asset_support_bot', inputs(2, 2, 2, 3, 0), 22, 46, 'limited', 'limited', [], '053ac10362f4ff5a0e894d8bd1a36a22a43ddcbd9a8a262e76fc834fb229a2f9'],
  ['asset_cv_screen', inputs(3, 3, 2, 2, 0), 31, 65, 'high', 'high', [], '1cb33e3ce7c9b9c1a0a4d2d2c8d7e894000ee4f9845ed09dd447ac7208cc7467'],
  ['asset_benefit_triage', inputs(0, 4, 1, 4, 0), 19, 40, 'limited', 'high', ['R2'], '68742906b136af13c5612f8391dafd70657dad5d9cceb053d7d57d19daecd7e6'],
  ['asset_ticket_router', inputs(0, 3, 3, 4, 0), 21, 44, 'limited', 'high', ['R3'], '2bb2307be5adc9829214f60920aa4bdcbf653df81dbe70b254e8a23d7236e64b'],
  ['asset_credit_auto', inputs(3, 4, 4, 3, 0), 39, 81, 'high', 'high', ['R2', 'R3'], '609e29cdf0c39873df4dd14356369d176df2dfdd4be84d562b3b911e1e3cb50d'],
  ['asset_emotion_hr', inputs(4, 3, 2, 2, 3), 34, 71, 'high', 'prohibited', ['R1'], '4b2f0957faff44ab341951682b750012564af418087a9a73ed5706d7df061a7c'],
];

t.test('the eight golden vectors', async (t) => {
  for (const [assetId, given, points, score, band, tier, fired, hex] of VECTORS) {
    const e = evaluateRisk(policy, { asset_id: assetId, risk_inputs: given });
    t.equal(sha256(canonicalRequestText(assetId, given)), hex, `${assetId}: the hand-written canonical text hashes to the published value`);
    t.same(
      { points: e.points, score: e.score, band_tier: e.band_tier, tier: e.tier, fired_rules: e.fired_rules, input_sha256: e.input_sha256 },
      { points, score, band_tier: band, tier, fired_rules: fired, input_sha256: `sha256:${hex}` },
      assetId,
    );
    t.equal(e.determinism_key, `sha256:${sha256(`${POLICY_SHA256}:sha256:${hex}`)}`, `${assetId}: determinism key`);
    t.same(e.policy, { id: 'gov.risk.default', version: '1.0.0', sha256: POLICY_SHA256 });
    t.same(e.non_claims, [
      'The tier is an internal governance tier under this policy version; it is not a legal classification under the EU AI Act or any other law.',
      'The evaluation scores the inputs it was given; it does not check that the inputs are true.',
    ]);
    t.same(e.warnings, []);
  }
});

t.test('required actions per tier', async (t) => {
  const actionsOf = (i: RiskInputs) => evaluateRisk(policy, { asset_id: 'asset_x', risk_inputs: i }).required_actions;
  t.same(actionsOf(inputs(1, 0, 1, 3, 0)), { approval_steps: [], review_every_days: 365, required_evidence: ['asset_registration'], log_retention_min_days: null, blocked: false });
  t.same(actionsOf(inputs(1, 1, 1, 0, 0)), {
    approval_steps: [{ step: 1, role: 'governance_reviewer', min_approvers: 1 }],
    review_every_days: 180,
    required_evidence: ['asset_registration', 'user_notice_if_people_interact', 'vendor_assessment_if_third_party'],
    log_retention_min_days: null,
    blocked: false,
  });
  const high = actionsOf(inputs(3, 3, 2, 2, 0));
  t.same(high.approval_steps, [
    { step: 1, role: 'governance_reviewer', min_approvers: 1 },
    { step: 2, role: 'accountable_executive', min_approvers: 1 },
  ]);
  t.same([high.review_every_days, high.log_retention_min_days, high.blocked], [90, 183, false]);
  t.same(actionsOf(inputs(0, 0, 0, 4, 1)), { approval_steps: null, review_every_days: 30, required_evidence: ['legal_review'], log_retention_min_days: null, blocked: true });
});

t.test('floors and bands over the whole grid', async (t) => {
  // With prohibited_practice 0, the notes count 63 / 264 / 298 by band and 63 / 243 / 319 by tier.
  const bands: Record<string, number> = {};
  const tiers: Record<string, number> = {};
  for (let n = 0; n < 625; n++) {
    const d = [0, 1, 2, 3].map((k) => Math.floor(n / 5 ** k) % 5);
    const e = evaluateRisk(policy, { asset_id: 'asset_grid', risk_inputs: inputs(d[0]!, d[1]!, d[2]!, d[3]!, 0) });
    t.equal(e.points, 3 * d[0]! + 4 * d[1]! + 3 * d[2]! + 2 * (4 - d[3]!));
    t.equal(e.score, Math.floor((e.points * 100 + 24) / 48));
    bands[e.band_tier] = (bands[e.band_tier] ?? 0) + 1;
    tiers[e.tier] = (tiers[e.tier] ?? 0) + 1;
  }
  t.same(bands, { minimal: 63, limited: 264, high: 298 });
  t.same(tiers, { minimal: 63, limited: 243, high: 319 });
  t.same(
    [0, 6, 12, 13, 24, 25, 48].map((points) => Math.floor((points * 100 + 24) / 48)),
    [0, 13, 25, 27, 50, 52, 100],
    'the score rounds half up (6 of 48 is 12.5 → 13)',
  );
  for (const pp of [1, 2, 3, 4]) {
    const e = evaluateRisk(policy, { asset_id: 'asset_low', risk_inputs: inputs(0, 0, 0, 4, pp) });
    t.same([e.points, e.band_tier, e.tier, e.fired_rules], [0, 'minimal', 'prohibited', ['R1']], `prohibited_practice ${pp} is prohibited however low the points`);
  }
  const all = evaluateRisk(policy, { asset_id: 'asset_all', risk_inputs: inputs(0, 4, 4, 4, 1) });
  t.same([all.tier, all.fired_rules], ['prohibited', ['R1', 'R2', 'R3']], 'every rule that holds is listed; a floor never lowers R1');
});

t.test('determinism: same request, same record and hashes', async (t) => {
  const request = { asset_id: 'asset_cv_screen', risk_inputs: inputs(3, 3, 2, 2, 0) };
  const first = evaluateRisk(policy, request);
  const second = evaluateRisk(loadRiskPolicy(readDoc()), structuredClone(request));
  t.same(second, first);
  t.equal(JSON.stringify(second), JSON.stringify(first), 'byte for byte');
  const reordered = { prohibited_practice: 0, vendor_maturity: 2, autonomy: 2, decision_impact: 3, data_sensitivity: 3 };
  const third = evaluateRisk(policy, { asset_id: 'asset_cv_screen', risk_inputs: reordered });
  t.equal(third.input_sha256, first.input_sha256, 'member order does not change the input hash');
  t.same(Object.keys(third.risk_inputs), [...RISK_INPUT_NAMES], 'the record lists the inputs in policy order');
  const other = evaluateRisk(policy, { ...request, asset_id: 'asset_cv_screen_2' });
  t.equal(other.points, first.points);
  t.not(other.input_sha256, first.input_sha256, 'the asset is part of the input hash');
  t.not(other.determinism_key, first.determinism_key);
});

t.test('a vendor maturity above the derived one is a warning, never a change', async (t) => {
  const request = { asset_id: 'asset_support_bot', risk_inputs: inputs(2, 2, 2, 3, 0) };
  const plain = evaluateRisk(policy, request);
  const above = evaluateRisk(policy, request, { vendor_maturity_derived: { value: 2, source: 'vendor.assessed vsa_1' } });
  t.same(
    above.warnings.map((w) => w.code),
    ['vendor_maturity_above_derived'],
  );
  t.match(above.warnings[0]!.detail, 'vsa_1');
  t.same({ ...above, warnings: [] }, plain, 'points, tier and hashes are those of the given inputs');
  t.same(evaluateRisk(policy, request, { vendor_maturity_derived: { value: 3, source: 'vendor.assessed vsa_1' } }).warnings, [], 'equal is fine');
});

// [name, risk_inputs, expected [code, pointer] pairs]
const REFUSALS: [string, unknown, [RiskInputProblemCode, string][]][] = [
  ['above the range', { ...inputs(1, 1, 1, 1, 0), vendor_maturity: 5 }, [['out_of_range', '/risk_inputs/vendor_maturity']]],
  ['below the range', { ...inputs(1, 1, 1, 1, 0), data_sensitivity: -1 }, [['out_of_range', '/risk_inputs/data_sensitivity']]],
  ['not an integer', { ...inputs(1, 1, 1, 1, 0), decision_impact: 2.5 }, [['not_integer', '/risk_inputs/decision_impact']]],
  ['a string', { ...inputs(1, 1, 1, 1, 0), autonomy: '2' }, [['wrong_type', '/risk_inputs/autonomy']]],
  ['a boolean', { ...inputs(1, 1, 1, 1, 0), autonomy: true }, [['wrong_type', '/risk_inputs/autonomy']]],
  ['null', { ...inputs(1, 1, 1, 1, 0), prohibited_practice: null }, [['wrong_type', '/risk_inputs/prohibited_practice']]],
  ['a missing input', (({ autonomy: _, ...rest }) => rest)(inputs(1, 1, 1, 1, 0)), [['missing', '/risk_inputs/autonomy']]],
  ['an extra input', { ...inputs(1, 1, 1, 1, 0), model_size: 3 }, [['unknown_input', '/risk_inputs/model_size']]],
  ['an extra input needing escapes', { ...inputs(1, 1, 1, 1, 0), 'a/b~c': 1 }, [['unknown_input', '/risk_inputs/a~1b~0c']]],
  ['an empty object', {}, RISK_INPUT_NAMES.map((name) => ['missing', `/risk_inputs/${name}`])],
  [
    'several at once, in policy order then extras',
    { extra: 1, prohibited_practice: 9, data_sensitivity: '3' },
    [
      ['wrong_type', '/risk_inputs/data_sensitivity'],
      ['missing', '/risk_inputs/decision_impact'],
      ['missing', '/risk_inputs/autonomy'],
      ['missing', '/risk_inputs/vendor_maturity'],
      ['out_of_range', '/risk_inputs/prohibited_practice'],
      ['unknown_input', '/risk_inputs/extra'],
    ],
  ],
  ['a list', [1, 1, 1, 1, 0], [['not_an_object', '/risk_inputs']]],
  ['a string body', 'low risk', [['not_an_object', '/risk_inputs']]],
  ['null body', null, [['not_an_object', '/risk_inputs']]],
  ['absent', undefined, [['missing', '/risk_inputs']]],
];

t.test('checkRiskInputs: every refusal, each prompt quoting the anchors it needs', async (t) => {
  t.same(checkRiskInputs(policy, inputs(1, 0, 1, 3, 0)), { ok: true, inputs: inputs(1, 0, 1, 3, 0) });
  for (const [name, value, expected] of REFUSALS) {
    const check = checkRiskInputs(policy, value);
    if (check.ok) {
      t.fail(`${name}: accepted`);
      continue;
    }
    t.same(
      check.problems.map((p) => [p.code, p.pointer]),
      expected,
      name,
    );
    for (const p of check.problems) {
      const spec = RISK_INPUT_NAMES.find((n) => n === p.input);
      // An input's prompt quotes each of its five levels; a whole-object prompt, and an extra member's, all 25.
      const quoted = p.input === null || !spec ? RISK_INPUT_NAMES.flatMap((n) => policy.document.inputs[n].anchors) : policy.document.inputs[spec].anchors;
      for (const anchor of quoted) t.ok(p.repair_prompt.includes(`"${anchor}"`), `${name}: ${p.pointer} quotes "${anchor}"`);
      if (p.code === 'unknown_input') t.match(p.repair_prompt, /remove it/, `${name}: says to remove the member`);
    }
  }
  const check = checkRiskInputs(policy, { ...inputs(1, 1, 1, 1, 0), autonomy: '2' });
  t.match(!check.ok && check.problems[0]!.repair_prompt, 'without quotes', 'a numeric string is told to drop its quotes');
  const gate = checkRiskInputs(policy, { ...inputs(1, 1, 1, 1, 0), prohibited_practice: 7 });
  t.match(!gate.ok && gate.problems[0]!.repair_prompt, 'above 0 makes the tier prohibited', 'the gate says what it does, from R1');
  const { autonomy: _autonomy, ...misspelt } = { ...inputs(1, 1, 1, 1, 0), autonmy: 2 };
  const typo = checkRiskInputs(policy, misspelt);
  t.same(!typo.ok && typo.problems.map((p) => [p.code, p.pointer]), [['missing', '/risk_inputs/autonomy'], ['unknown_input', '/risk_inputs/autonmy']]);
  const meant = !typo.ok ? typo.problems[1]!.repair_prompt : '';
  t.match(meant, 'did you mean autonomy?', 'a misspelt input is told the name it likely meant');
  for (const anchor of policy.document.inputs.autonomy.anchors) t.ok(meant.includes(`"${anchor}"`), `the misspelt input's prompt quotes "${anchor}"`);
  const nested = checkRiskInputs(policy, {}, '/arguments/risk_inputs');
  t.equal(!nested.ok && nested.problems[0]!.pointer, '/arguments/risk_inputs/data_sensitivity', 'pointers start where the caller says');
});

t.test('evaluateRisk refuses what checkRiskInputs refuses, as validation_failed', async (t) => {
  const bad = { asset_id: 'asset_x', risk_inputs: { ...inputs(1, 1, 1, 1, 0), vendor_maturity: 5 } };
  t.throws(() => evaluateRisk(policy, bad), { code: 'validation_failed' });
  t.throws(() => evaluateRisk(policy, { asset_id: '-not an id', risk_inputs: inputs(0, 0, 0, 0, 0) }), { code: 'validation_failed' });
  const check = checkRiskInputs(policy, bad.risk_inputs);
  const error = riskInputsError(!check.ok ? check.problems : []);
  t.ok(isAppError(error));
  t.equal(error.code, 'validation_failed');
  t.same(
    error.details?.map((d) => d.pointer),
    ['/risk_inputs/vendor_maturity'],
  );
});

t.test('the policy pin: a released version never changes', async (t) => {
  const doc = readDoc();
  // Sorted-key compact JSON is RFC 8785 here: ASCII text and small integers only (checked below).
  const sortedCompact = (v: unknown): string =>
    Array.isArray(v)
      ? `[${v.map(sortedCompact).join(',')}]`
      : v !== null && typeof v === 'object'
        ? `{${Object.keys(v)
            .sort()
            .map((k) => `${JSON.stringify(k)}:${sortedCompact((v as Record<string, unknown>)[k])}`)
            .join(',')}}`
        : JSON.stringify(v);
  const text = sortedCompact(doc);
  t.ok(/^[\x20-\x7e]*$/.test(text), 'ASCII only');
  t.equal(text.length, 3900);
  t.equal(`sha256:${sha256(text)}`, POLICY_SHA256, 'the fixture is the published document');
  t.equal(riskPolicySha256(doc), POLICY_SHA256);
  t.equal(policy.sha256, POLICY_SHA256);
  t.same(RISK_POLICY_PINS, { 'gov.risk.default@1.0.0': POLICY_SHA256 }, 'the committed pin table');

  // Every policy file is pinned under its own id and version, and named after them.
  const files = readdirSync(POLICIES).filter((f) => f.endsWith('.json'));
  t.ok(files.length >= 1);
  for (const file of files) {
    const d = JSON.parse(readFileSync(`${POLICIES}${file}`, 'utf8')) as RiskPolicyDocument;
    t.equal(file, `${d.policy_id}-${d.policy_version}.json`, `${file} is named after its id and version`);
    t.equal(RISK_POLICY_PINS[`${d.policy_id}@${d.policy_version}`], riskPolicySha256(d), `${file} matches its pin`);
  }

  // Changing one anchor without a new version is refused; with a new version it loads (and then
  // needs a pin line of its own, which the loop above demands of every committed file).
  const edited = readDoc();
  edited.inputs.autonomy.anchors[1] = 'a person approves each action';
  t.throws(() => loadRiskPolicy(edited), { code: 'bad_input_file' }, 'edited under the same version');
  const bumped = { ...edited, policy_version: '1.0.1' };
  t.equal(loadRiskPolicy(bumped).version, '1.0.1');
  t.not(loadRiskPolicy(bumped).sha256, POLICY_SHA256);

  t.throws(() => {
    (policy.document.inputs.autonomy as { weight: number }).weight = 9;
  }, 'a loaded policy is frozen');
});

t.test('the loader refuses what the schema cannot see', async (t) => {
  const cases: [string, (d: RiskPolicyDocument) => void, string][] = [
    ['an anchor short', (d) => void d.inputs.autonomy.anchors.pop(), '/inputs/autonomy/anchors'],
    ['max below min', (d) => void (d.inputs.autonomy.min = 5), '/inputs/autonomy'],
    ['a weighted gate', (d) => void (d.inputs.prohibited_practice.weight = 1), '/inputs/prohibited_practice/weight'],
    ['points_max off', (d) => void (d.points_max = 47), '/points_max'],
    ['bands not rising', (d) => void (d.bands[1]!.max_points = 12), '/bands/1'],
    ['bands short of points_max', (d) => void (d.bands[2]!.max_points = 40), '/bands/2/max_points'],
    ['a repeated rule id', (d) => void (d.rules[1]!.rule_id = 'R1'), '/rules/1/rule_id'],
    ['a rule value out of range', (d) => void (d.rules[1]!.when = { input: 'decision_impact', op: 'eq', value: 5 }), '/rules/1/when/value'],
    ['steps out of order', (d) => void (d.actions.high.approval_steps![1]!.step = 3), '/actions/high/approval_steps/1/step'],
  ];
  for (const [name, breakIt, pointer] of cases) {
    const doc = readDoc();
    breakIt(doc);
    t.same(registry.validate(RISK_POLICY_SCHEMA, doc), [], `${name}: the schema alone accepts it`);
    try {
      loadRiskPolicy(doc);
      t.fail(`${name}: loaded`);
    } catch (err) {
      t.equal(isAppError(err) && err.code, 'bad_input_file', name);
      t.equal(isAppError(err) && err.details?.[0]?.pointer, pointer, `${name}: names ${pointer} first`);
    }
  }
});

t.test('schemas: the policy, the request body and the risk.evaluated payload', async (t) => {
  t.same(registry.validate(RISK_POLICY_SCHEMA, readDoc()), [], 'the fixture passes its schema');
  t.not(registry.validate(RISK_POLICY_SCHEMA, { ...readDoc(), tier_order: ['low', 'high'] }), [], 'a different tier order is refused');
  t.not(registry.validate(RISK_POLICY_SCHEMA, { ...readDoc(), notes: 'x' }), [], 'unknown members are refused');

  const body = { asset_id: 'asset_cv_screen', risk_inputs: inputs(3, 3, 2, 2, 0) };
  t.same(registry.validate(RISK_EVALUATION_REQUEST_SCHEMA, body), []);
  for (const [name, risk_inputs] of REFUSALS) {
    t.not(registry.validate(RISK_EVALUATION_REQUEST_SCHEMA, { asset_id: 'asset_x', risk_inputs }), [], `the request schema refuses ${name} too`);
  }
  t.not(registry.validate(RISK_EVALUATION_REQUEST_SCHEMA, { ...body, actor: { type: 'user', id: 'u1' } }), [], 'no other members');

  const payload = (e: RiskEvaluation, more: Record<string, unknown> = {}) => ({
    evaluation_id: 'rev_1',
    asset_revision: 1,
    asset_event_id: 'evt_reg1',
    approval_id: 'apr_1',
    supersedes: null,
    evaluated_at: '2026-11-01T10:00:00Z',
    ...e,
    ...more,
  });
  const high = evaluateRisk(policy, body);
  const warned = evaluateRisk(policy, body, { vendor_maturity_derived: { value: 1, source: 'vendor.assessed vsa_1' } });
  const blocked = evaluateRisk(policy, { asset_id: 'asset_emotion_hr', risk_inputs: inputs(4, 3, 2, 2, 3) });
  for (const record of [payload(high), payload(warned, { supersedes: 'rev_0' }), payload(blocked, { approval_id: null })]) {
    t.same(registry.validate('events/risk-evaluated.json', record), [], `${record.asset_id} ${record.tier}: a valid payload`);
  }
  const breaks: [string, Record<string, unknown>][] = [
    ['an unknown member', { colour: 'red' }],
    ['an unknown tier', { tier: 'severe' }],
    ['a prohibited band', { band_tier: 'prohibited' }],
    ['a bare hex hash', { input_sha256: high.input_sha256.slice(7) }],
    ['a score above 100', { score: 101 }],
    ['revision 0', { asset_revision: 0 }],
    ['an input out of range', { risk_inputs: { ...high.risk_inputs, autonomy: 5 } }],
    ['the policy pin under its DOMAIN-note name', { policy: { policy_id: 'gov.risk.default', policy_version: '1.0.0', policy_sha256: POLICY_SHA256 } }],
  ];
  for (const [name, change] of breaks) t.not(registry.validate('events/risk-evaluated.json', payload(high, change)), [], name);
  const { evaluated_at: _, ...missing } = payload(high);
  t.not(registry.validate('events/risk-evaluated.json', missing), [], 'evaluated_at is required');
});
