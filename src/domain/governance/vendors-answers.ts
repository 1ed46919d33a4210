// Checking a vendor assessment body (POST /v1/vendors) against a questionnaire: the typed body, or
// one problem per place with its JSON pointer — an unknown question, a repeated answer, a value its
// answer type does not allow, a fact of the wrong type. Nothing is coerced ("2" is not 2).
import { AppError } from '../../errors.ts';
import { isId } from '../event.ts';
import { escapePointer } from '../json-pointer.ts';
import type { QuestionFact, VendorQuestion, VendorQuestionnaire } from './vendors-questionnaire.ts';

/** The request schema of POST /v1/vendors. */
export const VENDOR_ASSESS_REQUEST_SCHEMA = 'api/vendor-assess-request.json';

export type FactValue = number | string | string[];
/** One answer: an option value (a list of them for multi_select), its facts, and the evidence it cites. */
export type VendorAnswer = { question_id: string; value: string | string[]; facts?: Record<string, FactValue>; evidence_refs?: string[] };
/** The body without the optional vendor_id, which the route fills in before assessing. */
export type VendorAssessmentInput = { vendor_id: string; name: string; website?: string; answers: VendorAnswer[]; assessed_for_asset_ids?: string[] };

export type VendorProblemCode = 'missing' | 'wrong_type' | 'unknown_member' | 'unknown_question' | 'duplicate_answer' | 'value_not_allowed' | 'unknown_fact' | 'fact_not_allowed';
export type VendorProblem = {
  code: VendorProblemCode;
  /** RFC 6901 pointer into the request body. */
  pointer: string;
  /** The question concerned, when there is one. */
  question_id: string | null;
  /** What is wrong and what is allowed instead. */
  detail: string;
};
export type VendorAssessmentCheck = { ok: true; input: VendorAssessmentInput } | { ok: false; problems: VendorProblem[] };

export const TEXT_MAX = 1000;
export const INTEGER_FACT_MAX = 100_000;
const BODY_MEMBERS = ['vendor_id', 'name', 'website', 'answers', 'assessed_for_asset_ids'];
const ANSWER_MEMBERS = ['question_id', 'value', 'facts', 'evidence_refs'];
const WEBSITE = /^https?:\/\/[^\s/?#]\S*$/;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const quote = (values: readonly string[]) => values.map((v) => `"${v}"`).join(', ');

/**
 * Checks a body whose vendor_id the route has filled in. Problems come in body order; answers may
 * come in any order and may leave questions out (what is left out is scored as unanswered).
 */
export function checkVendorAssessment(questionnaire: VendorQuestionnaire, body: unknown): VendorAssessmentCheck {
  if (!isObj(body)) return { ok: false, problems: [problem('wrong_type', '', null, 'the body is not an object')] };
  const problems: VendorProblem[] = [];
  const add = (code: VendorProblemCode, pointer: string, detail: string, questionId: string | null = null) => problems.push(problem(code, pointer, questionId, detail));
  for (const name of Object.keys(body)) if (!BODY_MEMBERS.includes(name)) add('unknown_member', `/${escapePointer(name)}`, `is not a member of a vendor assessment; remove it`);
  if (typeof body.vendor_id !== 'string' || !isId(body.vendor_id))
    add(body.vendor_id === undefined ? 'missing' : 'wrong_type', '/vendor_id', 'must be an id: 2–128 letters, digits, _ . : - starting with a letter or digit');
  if (typeof body.name !== 'string' || !/\S/.test(body.name) || body.name.length > 200)
    add(body.name === undefined ? 'missing' : 'wrong_type', '/name', 'must be the vendor name, 1–200 characters');
  if (body.website !== undefined && (typeof body.website !== 'string' || body.website.length > 2000 || !WEBSITE.test(body.website)))
    add('wrong_type', '/website', 'must be an http(s) URL');
  const assets = body.assessed_for_asset_ids;
  if (assets !== undefined && (!Array.isArray(assets) || assets.length > 50 || !assets.every((a) => typeof a === 'string' && isId(a)) || new Set(assets).size !== assets.length)) {
    add('wrong_type', '/assessed_for_asset_ids', 'must be a list of at most 50 distinct asset ids');
  }
  if (!Array.isArray(body.answers))
    add(body.answers === undefined ? 'missing' : 'wrong_type', '/answers', 'must be a list of answers {question_id, value, facts?, evidence_refs?}');
  else {
    const byId = new Map(questionnaire.document.questions.map((q) => [q.question_id, q]));
    const seen = new Set<string>();
    body.answers.forEach((answer, i) => checkAnswer(questionnaire, byId, seen, answer, `/answers/${i}`, add));
  }
  return problems.length === 0 ? { ok: true, input: body as VendorAssessmentInput } : { ok: false, problems };
}

/** The refusal a caller raises for a failed check: `validation_failed`, one detail per problem. */
export function vendorAssessmentError(problems: readonly VendorProblem[]): AppError<'validation_failed'> {
  const first = problems[0];
  return new AppError(
    'validation_failed',
    `The vendor assessment is not valid: ${first ? `${first.pointer || '(root)'} ${first.detail}` : 'no body given'}. Fix the listed members and send it again.`,
    {
      details: problems.map((p) => ({ pointer: p.pointer, detail: p.detail })),
    },
  );
}

type Add = (code: VendorProblemCode, pointer: string, detail: string, questionId?: string | null) => void;

function checkAnswer(questionnaire: VendorQuestionnaire, byId: Map<string, VendorQuestion>, seen: Set<string>, answer: unknown, at: string, add: Add): void {
  if (!isObj(answer)) return add('wrong_type', at, 'must be an answer {question_id, value, facts?, evidence_refs?}');
  for (const name of Object.keys(answer)) if (!ANSWER_MEMBERS.includes(name)) add('unknown_member', `${at}/${escapePointer(name)}`, 'is not a member of an answer; remove it');
  const id = answer.question_id;
  const question = typeof id === 'string' ? byId.get(id) : undefined;
  if (typeof id !== 'string' || !question) {
    const known = `${questionnaire.document.questions[0]?.question_id}…${questionnaire.document.questions.at(-1)?.question_id}`;
    return add(
      id === undefined ? 'missing' : 'unknown_question',
      `${at}/question_id`,
      `${id === undefined ? 'is missing' : `"${String(id)}" is not a question`} of ${questionnaire.id} ${questionnaire.version} (${known})`,
    );
  }
  if (seen.has(id)) add('duplicate_answer', `${at}/question_id`, `answers ${id} again; give one answer per question`, id);
  seen.add(id);
  const detail = valueProblem(question, answer.value);
  if (detail !== null) add(answer.value === undefined ? 'missing' : 'value_not_allowed', `${at}/value`, detail, id);
  if (answer.facts !== undefined) {
    if (!isObj(answer.facts)) add('wrong_type', `${at}/facts`, 'must be an object of facts by fact_id', id);
    else {
      for (const [name, value] of Object.entries(answer.facts)) {
        const fact = question.facts.find((f) => f.fact_id === name);
        const pointer = `${at}/facts/${escapePointer(name)}`;
        if (!fact) add('unknown_fact', pointer, `is not a fact of ${id}; it takes ${question.facts.length > 0 ? quote(question.facts.map((f) => f.fact_id)) : 'none'}`, id);
        else {
          const wrong = factProblem(fact, value);
          if (wrong !== null) add('fact_not_allowed', pointer, wrong, id);
        }
      }
    }
  }
  const refs = answer.evidence_refs;
  if (refs !== undefined && (!Array.isArray(refs) || refs.length > 50 || !refs.every((r) => typeof r === 'string' && isId(r)) || new Set(refs).size !== refs.length)) {
    add('wrong_type', `${at}/evidence_refs`, 'must be a list of at most 50 distinct artifact ids', id);
  }
}

/** Why `value` is not an answer to `question`, or null when it is one. */
function valueProblem(question: VendorQuestion, value: unknown): string | null {
  const values = question.options.map((o) => o.value);
  const allowed = `${question.question_id} (${question.answer_type}) takes ${question.answer_type === 'multi_select' ? 'a list of distinct values from' : 'one of'} ${quote(values)}`;
  if (value === undefined) return `is missing; ${allowed}`;
  if (question.answer_type !== 'multi_select') {
    return typeof value === 'string' && values.includes(value) ? null : `is ${describe(value)}; ${allowed}`;
  }
  if (!Array.isArray(value) || value.length === 0) return `is ${describe(value)}; ${allowed}`;
  if (!value.every((v) => typeof v === 'string' && values.includes(v))) return `holds ${describe(value.find((v) => typeof v !== 'string' || !values.includes(v)))}; ${allowed}`;
  if (new Set(value).size !== value.length) return `repeats a value; ${allowed}`;
  const exclusive = question.options.find((o) => o.exclusive === true && value.includes(o.value));
  if (exclusive && value.length > 1) return `combines "${exclusive.value}" with other values; "${exclusive.value}" stands alone`;
  return null;
}

function factProblem(fact: QuestionFact, value: unknown): string | null {
  switch (fact.type) {
    case 'integer':
      return Number.isInteger(value) && (value as number) >= 0 && (value as number) <= INTEGER_FACT_MAX
        ? null
        : `is ${describe(value)}; ${fact.fact_id} is a whole number of ${fact.unit}, 0 to ${INTEGER_FACT_MAX}`;
    case 'date':
      return typeof value === 'string' && isFullDate(value) ? null : `is ${describe(value)}; ${fact.fact_id} is a date YYYY-MM-DD`;
    case 'text':
      return typeof value === 'string' && /\S/.test(value) && value.length <= TEXT_MAX ? null : `is ${describe(value)}; ${fact.fact_id} is text of 1 to ${TEXT_MAX} characters`;
    case 'single_select':
      return typeof value === 'string' && fact.values!.includes(value) ? null : `is ${describe(value)}; ${fact.fact_id} is one of ${quote(fact.values!)}`;
    case 'multi_select': {
      const ok = Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string' && fact.values!.includes(v)) && new Set(value).size === value.length;
      return ok ? null : `is ${describe(value)}; ${fact.fact_id} is a list of distinct values from ${quote(fact.values!)}`;
    }
  }
}

/** RFC 3339 full-date: YYYY-MM-DD naming a day of the calendar. */
export function isFullDate(text: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day); // not Date.UTC, which reads years 0–99 as 1900–1999
  return d.getUTCFullYear() === year && d.getUTCMonth() === month - 1 && d.getUTCDate() === day;
}

function problem(code: VendorProblemCode, pointer: string, questionId: string | null, detail: string): VendorProblem {
  return { code, pointer, question_id: questionId, detail };
}

function describe(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return value.length === 0 ? 'an empty list' : 'a list';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'number') return `the number ${value}`;
  return `a ${typeof value}`;
}
