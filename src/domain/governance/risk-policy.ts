// A risk policy document (gov.risk_policy.v1, docs/governance/risk.md): its types, the checks a
// JSON Schema cannot make, and its pin — `sha256:` + hex SHA-256 of the RFC 8785 canonical form.
// The composition root reads policies/*.json and validates it against RISK_POLICY_SCHEMA first.
import { canonicalSha256Uri } from '../canonical-json.ts';
import { loadPinned, type Pinned } from '../pinned-document.ts';

/** The schema a document must pass before loadRiskPolicy (a $id relative to the schema base). */
export const RISK_POLICY_SCHEMA = 'governance/risk-policy.json';

/** The five inputs of gov.risk_policy.v1, in the order the policy lists them (and prompts quote them). */
export const RISK_INPUT_NAMES = ['data_sensitivity', 'decision_impact', 'autonomy', 'vendor_maturity', 'prohibited_practice'] as const;
export type RiskInputName = (typeof RISK_INPUT_NAMES)[number];
export type RiskInputs = Record<RiskInputName, number>;

/** Lowest first. The policy's own tier_order must be exactly this (the schema says so). */
export const RISK_TIERS = ['minimal', 'limited', 'high', 'prohibited'] as const;
export type RiskTier = (typeof RISK_TIERS)[number];

export type RiskInputSpec = {
  min: number;
  max: number;
  weight: number;
  /** higher_is_safer counts max − value; a gate counts nothing and acts through the rules. */
  direction: 'higher_is_riskier' | 'higher_is_safer' | 'gate';
  /** anchors[level − min]: the sentence that describes that level. */
  anchors: string[];
};
export type RiskCondition = { input: RiskInputName; op: 'eq' | 'gt' | 'gte' | 'lt' | 'lte'; value: number } | { all: RiskCondition[] };
export type RiskRule = { rule_id: string; when: RiskCondition; set_tier?: RiskTier; min_tier?: RiskTier };
export type ApprovalStep = { step: number; role: string; min_approvers: number };
export type TierActions = {
  /** [] needs no approval; null has no approval path at all. */
  approval_steps: ApprovalStep[] | null;
  review_every_days: number;
  required_evidence: string[];
  log_retention_min_days?: number;
  asset_status?: 'blocked';
};

/** The document exactly as schemas/governance/risk-policy.json describes it. */
export type RiskPolicyDocument = {
  schema_version: 'gov.risk_policy.v1';
  policy_id: string;
  policy_version: string;
  inputs: Record<RiskInputName, RiskInputSpec>;
  points: string;
  points_max: number;
  score: string;
  bands: { tier: RiskTier; max_points: number }[];
  rules: RiskRule[];
  tier_order: RiskTier[];
  actions: Record<RiskTier, TierActions>;
  separation_of_duties: { requester_may_decide: boolean; one_person_one_step: boolean; owner_may_decide_last_step: boolean; deciding_actor_types: string[] };
  non_claims: string[];
};

/** A loaded policy: the frozen document and the pin every evaluation records. */
export type RiskPolicy = Pinned<RiskPolicyDocument>;

/**
 * The pin of every released policy version. A document naming a version listed here must hash to
 * its pin, so editing a released policy without a new version is refused at load (and by a test);
 * a new version adds a line. Changing a line here is changing history: do not.
 */
export const RISK_POLICY_PINS: Readonly<Record<string, string>> = {
  'gov.risk.default@1.0.0': 'sha256:64f732b4cb3f00ecc916a710c59d94cbd0e0847f187188e6ee72cd7c50b8f6b9',
};

/** `sha256:` + hex SHA-256 of the document's RFC 8785 form (what gets pinned and recorded). */
export function riskPolicySha256(document: unknown): string {
  return canonicalSha256Uri(document);
}

/**
 * Loads a document already checked against RISK_POLICY_SCHEMA: checks what the schema cannot,
 * computes the pin, compares it with RISK_POLICY_PINS, and freezes a copy. Every refusal is an
 * AppError `bad_input_file` whose details name the JSON pointer.
 */
export function loadRiskPolicy(document: unknown): RiskPolicy {
  return loadPinned<RiskPolicyDocument>(document, {
    what: 'risk policy', problems: policyProblems, id: (d) => d.policy_id, version: (d) => d.policy_version, versionPointer: '/policy_version', pins: RISK_POLICY_PINS,
  });
}

type Problem = { pointer: string; detail: string };

/** The cross-member invariants the evaluator relies on, in document order. */
function policyProblems(doc: RiskPolicyDocument): Problem[] {
  const out: Problem[] = [];
  const fail = (pointer: string, detail: string) => out.push({ pointer, detail });
  let weightedMax = 0;
  for (const name of RISK_INPUT_NAMES) {
    const spec = doc.inputs[name];
    const at = `/inputs/${name}`;
    if (spec.max < spec.min) fail(at, `has max ${spec.max} below min ${spec.min}`);
    else if (spec.anchors.length !== spec.max - spec.min + 1) fail(`${at}/anchors`, `has ${spec.anchors.length} anchors for ${spec.max - spec.min + 1} levels`);
    if (spec.direction === 'gate' && spec.weight !== 0) fail(`${at}/weight`, 'is not 0 on a gate, which adds no points');
    if (spec.direction !== 'gate') weightedMax += spec.weight * (spec.max - spec.min);
  }
  if (doc.points_max !== weightedMax) fail('/points_max', `is ${doc.points_max}, but the weights give at most ${weightedMax}`);
  doc.bands.forEach((band, i) => {
    const previous = doc.bands[i - 1];
    if (previous && (band.max_points <= previous.max_points || RISK_TIERS.indexOf(band.tier) <= RISK_TIERS.indexOf(previous.tier))) {
      fail(`/bands/${i}`, 'does not rise above the band before it (in points and in tier)');
    }
  });
  if (doc.bands.at(-1)?.max_points !== doc.points_max) fail(`/bands/${doc.bands.length - 1}/max_points`, `does not reach points_max ${doc.points_max}`);
  const ids = new Set<string>();
  doc.rules.forEach((rule, i) => {
    if (ids.has(rule.rule_id)) fail(`/rules/${i}/rule_id`, `repeats ${rule.rule_id}`);
    ids.add(rule.rule_id);
    conditionProblems(doc, rule.when, `/rules/${i}/when`, fail);
  });
  for (const tier of RISK_TIERS) {
    const steps = doc.actions[tier].approval_steps;
    steps?.forEach((step, i) => {
      if (step.step !== i + 1) fail(`/actions/${tier}/approval_steps/${i}/step`, `is ${step.step}; steps are numbered 1, 2, … in order`);
    });
  }
  return out;
}

function conditionProblems(doc: RiskPolicyDocument, when: RiskCondition, at: string, fail: (pointer: string, detail: string) => void): void {
  if ('all' in when) {
    when.all.forEach((c, i) => conditionProblems(doc, c, `${at}/all/${i}`, fail));
    return;
  }
  const spec = doc.inputs[when.input];
  if (when.value < spec.min || when.value > spec.max) fail(`${at}/value`, `${when.value} is outside ${when.input}'s range ${spec.min}–${spec.max}`);
}
