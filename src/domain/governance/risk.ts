// Risk evaluation under a loaded policy (docs/governance/risk.md): integer points from the weights,
// a band on points, floor rules in order, the tier's required actions, and the hashes that let
// anyone recompute the result. Pure: same policy and inputs give the same record, byte for byte.
import { AppError } from '../../errors.ts';
import { canonicalSha256Uri, sha256Hex } from '../canonical-json.ts';
import { isId } from '../event.ts';
import { checkRiskInputs, riskInputsError } from './risk-inputs.ts';
import { RISK_INPUT_NAMES, RISK_TIERS, type ApprovalStep, type RiskCondition, type RiskInputs, type RiskPolicy, type RiskTier } from './risk-policy.ts';

export type RiskEvaluationRequest = { asset_id: string; risk_inputs: RiskInputs };

/** What the tier asks for before and while the asset is in use. */
export type RequiredActions = {
  /** [] needs no approval; null has no approval path (the asset is blocked). */
  approval_steps: ApprovalStep[] | null;
  review_every_days: number;
  required_evidence: string[];
  /** Minimum days to keep the system's logs; null when the tier sets none. */
  log_retention_min_days: number | null;
  /** True when the tier blocks the asset from use. */
  blocked: boolean;
};

export type RiskWarning = { code: 'vendor_maturity_above_derived'; detail: string };

/** The vendor maturity the server derived from a vendor assessment, and where it came from. */
export type DerivedVendorMaturity = { value: number; source: string };

export type RiskEvaluation = {
  asset_id: string;
  risk_inputs: RiskInputs;
  policy: { id: string; version: string; sha256: string };
  /** `sha256:` + hex SHA-256 of the RFC 8785 form of {asset_id, risk_inputs}. */
  input_sha256: string;
  /** `sha256:` + hex SHA-256 of `<policy sha256>:<input_sha256>`: equal keys mean equal results. */
  determinism_key: string;
  points: number;
  score: number;
  band_tier: RiskTier;
  tier: RiskTier;
  fired_rules: string[];
  required_actions: RequiredActions;
  warnings: RiskWarning[];
  non_claims: string[];
};

/**
 * Evaluates one request. Inputs that checkRiskInputs refuses throw its `validation_failed` error (a
 * caller that checked first never sees it); an asset_id that is not an id throws the same code.
 * `vendor_maturity_derived` only adds a warning when the given vendor_maturity is above it.
 */
export function evaluateRisk(policy: RiskPolicy, request: RiskEvaluationRequest, options: { vendor_maturity_derived?: DerivedVendorMaturity } = {}): RiskEvaluation {
  if (typeof request.asset_id !== 'string' || !isId(request.asset_id)) {
    throw new AppError('validation_failed', 'asset_id must be an id: 2–128 letters, digits, _ . : - starting with a letter or digit.', {
      details: [{ pointer: '/asset_id', detail: 'is not an id' }],
    });
  }
  const checked = checkRiskInputs(policy, request.risk_inputs);
  if (!checked.ok) throw riskInputsError(checked.problems);
  const inputs = checked.inputs;
  const doc = policy.document;

  let points = 0;
  for (const name of RISK_INPUT_NAMES) {
    const spec = doc.inputs[name];
    if (spec.direction === 'higher_is_riskier') points += spec.weight * (inputs[name] - spec.min);
    else if (spec.direction === 'higher_is_safer') points += spec.weight * (spec.max - inputs[name]);
  }
  // Half up without floats: floor((points·100 + points_max/2) / points_max); 48 gives the policy's + 24.
  const score = Math.floor((points * 100 + Math.floor(doc.points_max / 2)) / doc.points_max);
  // The loader checked that the last band reaches points_max, so a band always matches.
  const bandTier = doc.bands.find((band) => points <= band.max_points)!.tier;

  // Every rule whose condition holds is reported as fired, even when the tier is already as high.
  let tier = bandTier;
  const fired: string[] = [];
  for (const rule of doc.rules) {
    if (!holds(rule.when, inputs)) continue;
    fired.push(rule.rule_id);
    if (rule.set_tier !== undefined) tier = rule.set_tier;
    else if (rule.min_tier !== undefined && rank(rule.min_tier) > rank(tier)) tier = rule.min_tier;
  }

  const riskInputs = Object.fromEntries(RISK_INPUT_NAMES.map((name) => [name, inputs[name]])) as RiskInputs;
  const inputSha256 = canonicalSha256Uri({ asset_id: request.asset_id, risk_inputs: riskInputs });
  return {
    asset_id: request.asset_id,
    risk_inputs: riskInputs,
    policy: { id: policy.id, version: policy.version, sha256: policy.sha256 },
    input_sha256: inputSha256,
    determinism_key: determinismKey(policy.sha256, inputSha256),
    points,
    score,
    band_tier: bandTier,
    tier,
    fired_rules: fired,
    required_actions: requiredActions(policy, tier),
    warnings: warningsFor(inputs, options.vendor_maturity_derived),
    non_claims: [...doc.non_claims],
  };
}

/** `sha256:` + hex SHA-256 of the UTF-8 text `<policy_sha256>:<input_sha256>` (both with their prefix). */
export function determinismKey(policySha256: string, inputSha256: string): string {
  return `sha256:${sha256Hex(`${policySha256}:${inputSha256}`)}`;
}

/** The actions of one tier, copied out of the frozen policy. */
export function requiredActions(policy: RiskPolicy, tier: RiskTier): RequiredActions {
  const actions = policy.document.actions[tier];
  return {
    approval_steps: actions.approval_steps === null ? null : actions.approval_steps.map((step) => ({ ...step })),
    review_every_days: actions.review_every_days,
    required_evidence: [...actions.required_evidence],
    log_retention_min_days: actions.log_retention_min_days ?? null,
    blocked: actions.asset_status === 'blocked',
  };
}

function holds(when: RiskCondition, inputs: RiskInputs): boolean {
  if ('all' in when) return when.all.every((c) => holds(c, inputs));
  const v = inputs[when.input];
  switch (when.op) {
    case 'eq':
      return v === when.value;
    case 'gt':
      return v > when.value;
    case 'gte':
      return v >= when.value;
    case 'lt':
      return v < when.value;
    case 'lte':
      return v <= when.value;
  }
}

function rank(tier: RiskTier): number {
  return RISK_TIERS.indexOf(tier);
}

/** A warning, never a change of the inputs: capping at the derived value is a question for a v2 policy. */
function warningsFor(inputs: RiskInputs, derived: DerivedVendorMaturity | undefined): RiskWarning[] {
  if (derived === undefined || inputs.vendor_maturity <= derived.value) return [];
  return [
    {
      code: 'vendor_maturity_above_derived',
      detail: `vendor_maturity ${inputs.vendor_maturity} exceeds the derived ${derived.value} from ${derived.source}; the evaluation uses the given value.`,
    },
  ];
}
