// The content rules of the live templates (docs/contract.md §7): what a
// closeout needs per outcome, what makes a context line or trap acceptable, when evidence is bound.
import { type GateContext, isRecord, jsonType } from './gate-context.ts';
import { findEmptyValue, findPlaceholder, isCopiedFrom, trimmedLength } from './placeholder-text.ts';
import { EVIDENCE_TEXT, ISSUE_TEXT, MIN_TEXT_LENGTH } from './repair-prompts.ts';
import { rawIpMember } from './governance/provenance.ts';

type Payload = Record<string, unknown>;
export type TemplateRule = (payload: Payload, ctx: GateContext) => void;

export const CLOSEOUT_OUTCOMES = ['completed', 'blocked', 'deferred'] as const;
export type CloseoutOutcome = (typeof CLOSEOUT_OUTCOMES)[number];

// Only these trust levels can back a verified claim (docs/contract.md §8, class 7).
const TRUSTED = new Set(['trusted_internal', 'sanitized_projection']);

export const closeoutRules: TemplateRule = (payload, ctx) => {
  const outcome = checkOutcome(payload, ctx);
  checkText(payload, 'summary', ctx, true);
  const context = checkContextList(payload, 'context_lines', ctx);
  const traps = checkContextList(payload, 'future_agent_traps', ctx);
  const inContext = new Set(context);
  traps.forEach((key, i) => {
    if (key !== undefined && inContext.has(key)) {
      ctx.warn('repeated_across_lists', `/future_agent_traps/${i}`, ISSUE_TEXT.repeated_across_lists('context_lines'));
    }
  });

  const completed = outcome === 'completed';
  const verification = checkTextList(payload, 'verification', ctx, completed);
  if (completed && verification === 0) ctx.needEvidence(EVIDENCE_TEXT.verification());
  checkEvidenceRefs(payload, ctx, completed);

  const stopped = outcome === 'blocked' || outcome === 'deferred';
  const blockers = checkTextList(payload, 'blockers', ctx, false);
  const gaps = checkTextList(payload, 'gaps', ctx, false);
  if (stopped && blockers === 0 && gaps === 0) ctx.block('missing', '/blockers', ISSUE_TEXT.blockers_or_gaps());
  checkTextList(payload, 'next_actions', ctx, stopped);
  if (completed && blockers > 0) ctx.warn('blockers_on_completed', '/blockers', ISSUE_TEXT.blockers_on_completed());
};

export const evidenceAttachRules: TemplateRule = (payload, ctx) => {
  checkEventKind(payload, ctx, 'evidence.attached');
  checkEvidenceRefs(payload, ctx, true);
};

/** session.bind.v1 (POST /v1/sessions): a raw IP only in `ip`, as the route refuses one anywhere else. */
export const sessionBindRules: TemplateRule = (payload, ctx) => {
  const pointer = rawIpMember(payload);
  if (pointer !== null) ctx.block('schema_violation', pointer, ISSUE_TEXT.raw_ip());
};

export const checkpointRules: TemplateRule = (payload, ctx) => {
  checkText(payload, 'progress', ctx, true);
  for (const field of ['blockers', 'next_actions', 'context_lines']) checkTextList(payload, field, ctx, false);
  checkEvidenceRefs(payload, ctx, false);
};

/**
 * proof_packet.assemble.v1: a non-claim or a claim that is only a placeholder (TODO, TBD, n/a, lorem
 * ipsum, `<…>`) would be signed into the packet as if it said something.
 */
export const packetAssembleRules: TemplateRule = (payload, ctx) => {
  // The schema says what each member must be; these look only at the strings it holds.
  const check = (text: unknown, pointer: string) => {
    if (typeof text !== 'string' || text.trim() === '') return;
    const token = findEmptyValue(text) ?? FILLER.exec(text)?.[0];
    if (token !== undefined) ctx.block('placeholder_text', pointer, ISSUE_TEXT.placeholder_text(token));
  };
  if (Array.isArray(payload.non_claims)) payload.non_claims.forEach((text, i) => check(text, `/non_claims/${i}`));
  if (Array.isArray(payload.claims)) {
    payload.claims.forEach((claim, i) => {
      if (claim !== null && typeof claim === 'object' && !Array.isArray(claim)) check((claim as Payload).claim, `/claims/${i}/claim`);
    });
  }
};

/** Filler text anywhere in a packet's statement (a whole-value placeholder is findEmptyValue's). */
const FILLER = /\blorem\s+ipsum\b/iu;

export const taskCreateRules: TemplateRule = (payload, ctx) => {
  checkText(payload, 'title', ctx, true);
  checkText(payload, 'description', ctx, false);
  checkLabels(payload, ctx);
};

/** A raw-door template writes one kind, and its payload is an object (the kind's schema says the rest). */
function checkEventKind(payload: Payload, ctx: GateContext, kind: string): void {
  if (payload.kind === undefined) ctx.block('missing', '/kind', ISSUE_TEXT.missing());
  else if (payload.kind !== kind) ctx.block('invalid_value', '/kind', ISSUE_TEXT.invalid_value([kind]));
  if (payload.payload !== undefined && !isRecord(payload.payload)) {
    ctx.block('wrong_type', '/payload', ISSUE_TEXT.wrong_type('an object', jsonType(payload.payload)));
  }
}

/**
 * Labels are tags, not prose: "todo", "none" or "examples" are ordinary tag values (a board column,
 * a docs area), so only blank labels are refused; a `<…>` token is still caught by the sweep.
 */
function checkLabels(payload: Payload, ctx: GateContext): void {
  readList(payload, 'labels', ctx, false)?.forEach((item, i) => {
    const pointer = `/labels/${i}`;
    if (typeof item !== 'string') ctx.block('wrong_type', pointer, ISSUE_TEXT.wrong_type('a string', jsonType(item)));
    else if (item.trim() === '') ctx.block('blank', pointer, ISSUE_TEXT.blank());
  });
}

function checkOutcome(payload: Payload, ctx: GateContext): CloseoutOutcome | undefined {
  const value = payload.outcome;
  if (value === undefined) {
    ctx.block('missing', '/outcome', ISSUE_TEXT.missing());
    return undefined;
  }
  const outcome = CLOSEOUT_OUTCOMES.find((o) => o === value);
  if (outcome === undefined) ctx.block('invalid_value', '/outcome', ISSUE_TEXT.invalid_value(CLOSEOUT_OUTCOMES));
  return outcome;
}

/** A single free-text member: a non-blank string that is not a placeholder. */
function checkText(payload: Payload, field: string, ctx: GateContext, required: boolean): void {
  const value = payload[field];
  const pointer = `/${field}`;
  if (value === undefined) {
    if (required) ctx.block('missing', pointer, ISSUE_TEXT.missing());
  } else if (typeof value !== 'string') {
    ctx.block('wrong_type', pointer, ISSUE_TEXT.wrong_type('a string', jsonType(value)));
  } else if (value.trim() === '') {
    ctx.block('blank', pointer, ISSUE_TEXT.blank());
  } else {
    const token = findEmptyValue(value);
    if (token !== undefined) ctx.block('placeholder_text', pointer, ISSUE_TEXT.placeholder_text(token));
  }
}

/**
 * Reads `payload[field]` as a list, blocking when it is required and absent or empty, or of the
 * wrong type. Returns the list (or undefined when there is none to look into).
 */
function readList(payload: Payload, field: string, ctx: GateContext, required: boolean): unknown[] | undefined {
  const value = payload[field];
  const pointer = `/${field}`;
  if (value === undefined) {
    if (required) ctx.block('missing', pointer, ISSUE_TEXT.missing());
    return undefined;
  }
  if (!Array.isArray(value)) {
    ctx.block('wrong_type', pointer, ISSUE_TEXT.wrong_type('a list', jsonType(value)));
    return undefined;
  }
  if (value.length === 0 && required) ctx.block('missing', pointer, ISSUE_TEXT.empty_list());
  return value;
}

/** An ordinary list of strings; returns how many items it has (0 when absent or not a list). */
function checkTextList(payload: Payload, field: string, ctx: GateContext, required: boolean): number {
  const list = readList(payload, field, ctx, required);
  list?.forEach((item, i) => {
    const pointer = `/${field}/${i}`;
    if (typeof item !== 'string') return ctx.block('wrong_type', pointer, ISSUE_TEXT.wrong_type('a string', jsonType(item)));
    if (item.trim() === '') return ctx.block('blank', pointer, ISSUE_TEXT.blank());
    const token = findEmptyValue(item);
    if (token !== undefined) ctx.block('placeholder_text', pointer, ISSUE_TEXT.placeholder_text(token));
  });
  return list?.length ?? 0;
}

/**
 * context_lines / future_agent_traps: required, non-empty, each item a string of at least 20 code
 * points after trimming, not copied template text, not placeholder text, not a repeat (compared
 * trimmed and case-insensitively). Returns each item's comparison key (undefined for non-strings).
 */
function checkContextList(payload: Payload, field: string, ctx: GateContext): Array<string | undefined> {
  const list = readList(payload, field, ctx, true) ?? [];
  const seen = new Map<string, number>();
  return list.map((item, i) => {
    const pointer = `/${field}/${i}`;
    if (typeof item !== 'string') {
      ctx.block('wrong_type', pointer, ISSUE_TEXT.wrong_type('a string', jsonType(item)));
      return undefined;
    }
    const key = item.trim().toLowerCase();
    const first = seen.get(key);
    if (first === undefined) seen.set(key, i);
    const length = trimmedLength(item);
    const token = findPlaceholder(item);
    if (length < MIN_TEXT_LENGTH) ctx.block('too_short', pointer, ISSUE_TEXT.too_short(length));
    else if (isCopiedFrom(item, ctx.registry.copySources)) ctx.block('copied_text', pointer, ISSUE_TEXT.copied_text());
    else if (token !== undefined) ctx.block('placeholder_text', pointer, ISSUE_TEXT.placeholder_text(token));
    else if (first !== undefined) ctx.block('duplicate', pointer, ISSUE_TEXT.duplicate(first));
    return key;
  });
}

/**
 * Evidence references: each an object bound to its artifact by sha256 or etag (docs/contract.md §7);
 * the full shape is the request schema's job. `required` = at least one.
 */
function checkEvidenceRefs(payload: Payload, ctx: GateContext, required: boolean): void {
  const list = readList(payload, 'evidence_refs', ctx, required);
  if (required && (list === undefined || list.length === 0)) ctx.needEvidence(EVIDENCE_TEXT.artifact_ref());
  list?.forEach((ref, i) => {
    const pointer = `/evidence_refs/${i}`;
    if (!isRecord(ref)) return ctx.block('wrong_type', pointer, ISSUE_TEXT.wrong_type('an evidence_ref object', jsonType(ref)));
    const bound = [ref.sha256, ref.etag].some((v) => typeof v === 'string' && v !== '');
    if (!bound) {
      ctx.block('evidence_unbound', pointer, ISSUE_TEXT.evidence_unbound());
      ctx.needEvidence(EVIDENCE_TEXT.bind(i));
    }
    if (ref.confidence === 'verified' && !TRUSTED.has(String(ref.content_trust))) {
      ctx.warn('self_verified_evidence', `${pointer}/confidence`, ISSUE_TEXT.self_verified_evidence());
    }
  });
}
