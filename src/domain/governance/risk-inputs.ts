// Checking the risk_inputs of an evaluation request against a policy: the typed inputs, or one
// problem per place with a repair prompt that quotes the anchor sentence of every allowed level,
// so that an agent can pick a level from the asset's facts instead of guessing a number.
import leven from 'leven';
import { AppError } from '../../errors.ts';
import { escapePointer } from '../json-pointer.ts';
import { RISK_INPUT_NAMES, type RiskInputName, type RiskInputs, type RiskInputSpec, type RiskPolicy } from './risk-policy.ts';

/** The request schema of POST /v1/risk/evaluations (and the MCP tool's flat arguments). */
export const RISK_EVALUATION_REQUEST_SCHEMA = 'api/risk-evaluation-request.json';

export type RiskInputProblemCode = 'missing' | 'not_an_object' | 'unknown_input' | 'wrong_type' | 'not_integer' | 'out_of_range';

export type RiskInputProblem = {
  code: RiskInputProblemCode;
  /** RFC 6901 pointer into the request body (below `at`, `/risk_inputs` by default). */
  pointer: string;
  /** The input concerned; null when the problem is risk_inputs as a whole. */
  input: string | null;
  /** What is wrong, in a few words. */
  detail: string;
  /** What is wrong and what to send instead, quoting the allowed levels. */
  repair_prompt: string;
};

export type RiskInputsCheck = { ok: true; inputs: RiskInputs } | { ok: false; problems: RiskInputProblem[] };

/**
 * Checks `value` (the request's risk_inputs) against the policy's five inputs. Problems come in the
 * policy's input order, then unknown members in the order given; nothing is coerced ("2" is refused).
 */
export function checkRiskInputs(policy: RiskPolicy, value: unknown, at = '/risk_inputs'): RiskInputsCheck {
  if (value === undefined || value === null || typeof value !== 'object' || Array.isArray(value)) {
    const code = value === undefined ? 'missing' : 'not_an_object';
    const detail = value === undefined ? 'is missing' : `is ${describe(value)}, not an object`;
    return { ok: false, problems: [{ code, pointer: at, input: null, detail, repair_prompt: wholePrompt(policy, detail) }] };
  }
  const given = value as Record<string, unknown>;
  const problems: RiskInputProblem[] = [];
  const inputs = {} as RiskInputs;
  for (const name of RISK_INPUT_NAMES) {
    const spec = policy.document.inputs[name];
    const pointer = `${at}/${name}`;
    const level = Object.hasOwn(given, name) ? given[name] : undefined;
    const found = levelProblem(level, spec);
    if (found === null) inputs[name] = level as number;
    else problems.push({ code: found.code, pointer, input: name, detail: found.detail, repair_prompt: inputPrompt(policy, name, found.detail) });
  }
  for (const name of Object.keys(given)) {
    if ((RISK_INPUT_NAMES as readonly string[]).includes(name)) continue;
    const detail = `is not an input of ${policy.id} ${policy.version}`;
    problems.push({
      code: 'unknown_input',
      pointer: `${at}/${escapePointer(name)}`,
      input: name,
      detail,
      repair_prompt: unknownPrompt(policy, name, detail, Object.keys(given)),
    });
  }
  return problems.length === 0 ? { ok: true, inputs } : { ok: false, problems };
}

/** The refusal a caller raises for failed inputs: `validation_failed`, one detail per problem. */
export function riskInputsError(problems: readonly RiskInputProblem[]): AppError<'validation_failed'> {
  return new AppError('validation_failed', `The risk inputs are not valid: ${problems[0]?.repair_prompt ?? 'no inputs given.'}`, {
    details: problems.map((p) => ({ pointer: p.pointer, detail: p.repair_prompt })),
    extra: { repair_prompt: problems.map((p) => p.repair_prompt) },
  });
}

/** The levels of one input with their anchor sentences: `0 "…"; 1 "…"; …`. */
export function quoteAnchors(spec: RiskInputSpec): string {
  return spec.anchors.map((anchor, i) => `${spec.min + i} "${anchor}"`).join('; ');
}

function levelProblem(level: unknown, spec: RiskInputSpec): { code: RiskInputProblemCode; detail: string } | null {
  if (level === undefined) return { code: 'missing', detail: 'is missing' };
  if (typeof level !== 'number') {
    const quoted = typeof level === 'string' && /^\s*-?\d+\s*$/.test(level) ? ` (write the number ${level.trim()} without quotes)` : '';
    return { code: 'wrong_type', detail: `is ${describe(level)}, not an integer${quoted}` };
  }
  if (!Number.isInteger(level)) return { code: 'not_integer', detail: `is ${level}, not a whole number` };
  if (level < spec.min || level > spec.max) return { code: 'out_of_range', detail: `is ${level}, outside ${spec.min} to ${spec.max}` };
  return null;
}

const OP_TEXT: Record<'eq' | 'gt' | 'gte' | 'lt' | 'lte', string> = { eq: 'exactly', gt: 'above', gte: 'at or above', lt: 'below', lte: 'at or below' };

/**
 * What the direction of an input means for the caller choosing a level. A gate adds no points: what
 * it does is read from the policy's rules that test it alone and set a tier (R1: above 0 → prohibited).
 */
function directionText(policy: RiskPolicy, name: RiskInputName): string {
  const direction = policy.document.inputs[name].direction;
  if (direction === 'higher_is_riskier') return 'higher is riskier';
  if (direction === 'higher_is_safer') return 'higher is safer';
  const effects = policy.document.rules.flatMap((rule) =>
    'input' in rule.when && rule.when.input === name && rule.set_tier !== undefined ? [`${OP_TEXT[rule.when.op]} ${rule.when.value} makes the tier ${rule.set_tier}`] : [],
  );
  return effects.length > 0 ? `a gate: ${effects.join(', ')}` : 'a gate: it adds no points and acts through the policy rules';
}

function inputPrompt(policy: RiskPolicy, name: RiskInputName, detail: string): string {
  const spec = policy.document.inputs[name];
  return (
    `risk_inputs.${name} ${detail}. Set it to the integer ${spec.min} to ${spec.max} (${directionText(policy, name)}) ` + `whose description fits the asset: ${quoteAnchors(spec)}.`
  );
}

/**
 * A member that is no input: remove it, with the anchors of the input it most likely meant (a
 * misspelt name that is missing), else of every input, so the caller can pick the level it meant.
 */
function unknownPrompt(policy: RiskPolicy, name: string, detail: string, given: readonly string[]): string {
  const meant = RISK_INPUT_NAMES.find((input) => !given.includes(input) && leven(input, name.toLowerCase()) <= 3);
  if (meant !== undefined) {
    const spec = policy.document.inputs[meant];
    return `risk_inputs.${name} ${detail}; did you mean ${meant}? Send ${meant} instead, the integer ${spec.min} to ${spec.max} (${directionText(policy, meant)}) whose description fits the asset: ${quoteAnchors(spec)}.`;
  }
  const each = RISK_INPUT_NAMES.map((input) => `${input} (${directionText(policy, input)}): ${quoteAnchors(policy.document.inputs[input])}`);
  return `risk_inputs.${name} ${detail}; remove it. The policy takes exactly ${listNames()}, each the integer level whose description fits the asset — ${each.join(' | ')}.`;
}

function wholePrompt(policy: RiskPolicy, detail: string): string {
  const each = RISK_INPUT_NAMES.map((name) => `${name} (${directionText(policy, name)}): ${quoteAnchors(policy.document.inputs[name])}`);
  return `risk_inputs ${detail}. Send an object with exactly ${listNames()}, each the integer level whose description fits the asset — ${each.join(' | ')}.`;
}

function listNames(): string {
  return `${RISK_INPUT_NAMES.slice(0, -1).join(', ')} and ${RISK_INPUT_NAMES.at(-1)!}`;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}
