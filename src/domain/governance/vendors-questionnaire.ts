// A vendor questionnaire document (gov.vendor_questionnaire.v1, docs/governance/vendors.md): its
// types, the checks a JSON Schema cannot make, the questions each tier requires, and its pin —
// `sha256:` + hex SHA-256 of the RFC 8785 form, recorded by every assessment.
import { loadPinned, type Pinned } from '../pinned-document.ts';
import { TIERS, type Tier } from './types.ts';

/** The schema a document must pass before loadVendorQuestionnaire (a $id relative to the schema base). */
export const VENDOR_QUESTIONS_SCHEMA = 'governance/vendor-questions.json';

/** The shape of an answer's value: one option value, or a list of them for multi_select. */
export type AnswerType = 'yes_no_partial_na' | 'yes_no_partial' | 'single_select' | 'multi_select';
/** The option values the two fixed types take, in the order the questionnaire lists them. */
export const FIXED_VALUES: Readonly<Partial<Record<AnswerType, readonly string[]>>> = {
  yes_no_partial_na: ['yes', 'partial', 'no', 'na'],
  yes_no_partial: ['yes', 'partial', 'no'],
};

/** 0 good, 1 partial, 2 poor: more points, more risk. */
export type Points = 0 | 1 | 2;
export const POOR: Points = 2;

export type QuestionOption = { value: string; label: string; points: Points; exclusive?: boolean };
export type FactType = 'integer' | 'date' | 'text' | 'single_select' | 'multi_select';
/** A typed fact recorded with an answer (days, a date, regions, a model list); checked, never scored. */
export type QuestionFact = { fact_id: string; type: FactType; label: string; unit?: 'days' | 'hours'; values?: string[] };
export type VendorQuestion = {
  question_id: string;
  domain: string;
  text: string;
  answer_type: AnswerType;
  options: QuestionOption[];
  facts: QuestionFact[];
  critical: boolean;
  evidence_required: boolean;
  /** Framework requirement ids `<profile_id>:<local-id>`. */
  maps_to: string[];
};
export type MaturityBand = { max_points: number; vendor_maturity: number };

/** The document exactly as schemas/governance/vendor-questions.json describes it. */
export type VendorQuestionnaireDocument = {
  schema_version: 'gov.vendor_questionnaire.v1';
  questionnaire_id: string;
  version: string;
  title: string;
  points: string;
  points_max: number;
  questions: VendorQuestion[];
  required_by_tier: Record<Tier, string[]>;
  maturity: { direction: 'higher_is_safer'; unanswered_required: number; critical_poor_cap: number; bands: MaturityBand[] };
  valid_days: { no_open_findings: number; open_findings: number };
  non_claims: string[];
};

/** A loaded questionnaire: the frozen document and the pin every assessment records. */
export type VendorQuestionnaire = Pinned<VendorQuestionnaireDocument>;

/**
 * The pin of every released questionnaire version: a document naming a listed version must hash to
 * its pin, so a released questionnaire cannot change without a new version. Changing a line is
 * changing history: add one instead.
 */
export const VENDOR_QUESTIONNAIRE_PINS: Readonly<Record<string, string>> = {
  'gov.vendor.questions.v1@1.0.0': 'sha256:73174ccb2f421b36120ef1b1997a6b9be6979ba8fc9231764a25e1ba38a3a922',
};

/**
 * Loads a document already checked against VENDOR_QUESTIONS_SCHEMA: checks what the schema cannot,
 * computes the pin, compares it with VENDOR_QUESTIONNAIRE_PINS and freezes a copy. Every refusal is
 * an AppError `bad_input_file` whose details name the JSON pointer.
 */
export function loadVendorQuestionnaire(document: unknown): VendorQuestionnaire {
  return loadPinned<VendorQuestionnaireDocument>(document, {
    what: 'vendor questionnaire', problems: questionnaireProblems, id: (d) => d.questionnaire_id, version: (d) => d.version, versionPointer: '/version', pins: VENDOR_QUESTIONNAIRE_PINS,
  });
}

/** The questions an assessment must answer for a tier; without a tier, every question (fail-closed). */
export function requiredQuestionIds(questionnaire: VendorQuestionnaire, tier: Tier | undefined): readonly string[] {
  return tier === undefined ? questionnaire.document.questions.map((q) => q.question_id) : questionnaire.document.required_by_tier[tier];
}

type Problem = { pointer: string; detail: string };

/** The cross-member invariants the assessment relies on, in document order. */
function questionnaireProblems(doc: VendorQuestionnaireDocument): Problem[] {
  const out: Problem[] = [];
  const fail = (pointer: string, detail: string) => out.push({ pointer, detail });
  const ids = doc.questions.map((q) => q.question_id);
  doc.questions.forEach((q, i) => {
    const at = `/questions/${i}`;
    const expected = `VQ-${String(i + 1).padStart(2, '0')}`;
    if (q.question_id !== expected) fail(`${at}/question_id`, `is ${q.question_id}; questions are numbered VQ-01, VQ-02, … in order, so this one is ${expected}`);
    const values = q.options.map((o) => o.value);
    const fixed = FIXED_VALUES[q.answer_type];
    if (fixed && values.join() !== fixed.join()) fail(`${at}/options`, `lists ${values.join(', ')}; ${q.answer_type} lists exactly ${fixed.join(', ')}`);
    if (new Set(values).size !== values.length) fail(`${at}/options`, 'repeats an option value');
    const points = q.options.map((o) => o.points);
    if (!points.includes(0) || !points.includes(POOR)) fail(`${at}/options`, 'needs an option at 0 points and one at 2, so that every question spans the same 0–2');
    q.options.forEach((o, j) => {
      if (o.exclusive !== undefined && q.answer_type !== 'multi_select') fail(`${at}/options/${j}/exclusive`, 'is only for multi_select');
    });
    const factIds = q.facts.map((f) => f.fact_id);
    if (new Set(factIds).size !== factIds.length) fail(`${at}/facts`, 'repeats a fact_id');
  });
  if (doc.points_max !== POOR * doc.questions.length)
    fail('/points_max', `is ${doc.points_max}, but ${doc.questions.length} questions at 2 points give ${POOR * doc.questions.length}`);
  let previous: Set<string> = new Set();
  for (const tier of TIERS) {
    const list = doc.required_by_tier[tier];
    list.forEach((id, j) => {
      if (!ids.includes(id)) fail(`/required_by_tier/${tier}/${j}`, `names ${id}, which is not a question`);
    });
    const missing = [...previous].filter((id) => !list.includes(id));
    if (missing.length > 0) fail(`/required_by_tier/${tier}`, `leaves out ${missing.join(', ')}, required at a lower tier; a higher tier asks for at least as much`);
    // A critical answer caps maturity only when it is given, so every tier asks for every critical question.
    const critical = doc.questions.filter((q) => q.critical && !list.includes(q.question_id)).map((q) => q.question_id);
    if (critical.length > 0) fail(`/required_by_tier/${tier}`, `leaves out the critical ${critical.join(', ')}`);
    previous = new Set(list);
  }
  const bands = doc.maturity.bands;
  bands.forEach((band, i) => {
    const before = bands[i - 1];
    if (before && (band.max_points <= before.max_points || band.vendor_maturity >= before.vendor_maturity)) {
      fail(`/maturity/bands/${i}`, 'does not rise in points and fall in maturity from the band before it');
    }
  });
  if (bands.at(-1)?.max_points !== doc.points_max) fail(`/maturity/bands/${bands.length - 1}/max_points`, `does not reach points_max ${doc.points_max}`);
  if (doc.valid_days.open_findings > doc.valid_days.no_open_findings) fail('/valid_days/open_findings', 'is longer than no_open_findings; open findings shorten the validity');
  return out;
}
