// The one template gate (docs/contract.md §7): POST /v1/templates/validate and every write route with a
// template call validateTemplatePayload, so a body that validates is exactly a body the route takes.
import type { ErrorDetail } from '../errors.ts';
import {
  checkpointRules, closeoutRules, evidenceAttachRules, packetAssembleRules, sessionBindRules, taskCreateRules, type TemplateRule,
} from './closeout-rules.ts';
import { payloadSchemaOf } from './event.ts';
import { fieldPointer, GateContext, isRecord, jsonType, type ValidationResult } from './gate-context.ts';
import { findAngleToken, findEmptyValue, isCopiedFrom, trimmedLength } from './placeholder-text.ts';
import { EVIDENCE_TEXT, ISSUE_TEXT, MIN_TEXT_LENGTH } from './repair-prompts.ts';
import { escapePointer } from './json-pointer.ts';
import { eachString, type SmartTemplate, type TemplateRegistry } from './templates.ts';

export type { GateIssue, GateIssueCode, ValidationResult } from './gate-context.ts';

export type GateOptions = {
  registry: TemplateRegistry;
  /**
   * The schema registry's `validate`. When given and the template names a `request_schema`, the
   * payload is checked against it and every finding no rule already covered becomes a blocker
   * (code `schema_violation`), so unknown members and bad evidence_ref shapes fail the gate too.
   */
  validateSchema?: (ref: string, value: unknown) => ErrorDetail[];
  /**
   * false: leave out the warnings (they never change `ok`). A write route that passes throws them
   * away, so it asks without them and asks again with them only for a body it refuses.
   */
  warnings?: boolean;
};

/** Content rules beyond the generic ones, by canonical template id. */
const TEMPLATE_RULES: Readonly<Record<string, TemplateRule>> = {
  'task_closeout.v1': closeoutRules,
  'evidence.attach.v1': evidenceAttachRules,
  'checkpoint.write.v1': checkpointRules,
  'task.create.v1': taskCreateRules,
  'session.bind.v1': sessionBindRules,
  'proof_packet.assemble.v1': packetAssembleRules,
};

/**
 * Checks a filled payload against its template. Never throws for any JSON `payload`: a payload of
 * the wrong shape is a result with `ok: false`. A failed gate is a value, not an exception.
 */
export function validateTemplatePayload(template: SmartTemplate, payload: unknown, options: GateOptions): ValidationResult {
  const ctx = new GateContext(template, options.registry);
  const warnings = options.warnings !== false;
  // Only a target template's route is contract only; a preview template's route is served.
  if (warnings && template.status === 'target') ctx.warn('target_template', '', ISSUE_TEXT.target_template(template.status));
  if (!isRecord(payload)) {
    ctx.block('wrong_type', '', ISSUE_TEXT.wrong_type('a JSON object', jsonType(payload)));
    return ctx.result();
  }
  const long = findLongPath(payload, MAX_GATE_POINTER);
  if (long !== null) {
    ctx.block('schema_violation', '', ISSUE_TEXT.schema_violation(`holds a member whose path is longer than ${MAX_GATE_POINTER.toLocaleString('en-US')} characters (${long}); no template takes member names that long, so the body was not judged further: send the template's own members`));
    return ctx.result();
  }
  // Specific rules first: the first blocker at a place wins, and theirs say the most.
  TEMPLATE_RULES[template.template_id]?.(payload, ctx);
  checkRequiredFields(template, payload, ctx);
  checkStarterTypes(template, payload, ctx);
  eachString(payload, '', (text, pointer) => {
    const token = findAngleToken(text);
    if (token !== undefined) ctx.block('placeholder_text', pointer, ISSUE_TEXT.placeholder_text(token));
  });
  if (options.validateSchema !== undefined && template.request_schema !== undefined) {
    ctx.foldSchemaErrors(options.validateSchema(template.request_schema, payload));
    // An event template's payload is its kind's event payload, which the raw door checks against
    // the kind's schema: so does the gate, or validate would pass what POST /v1/events refuses.
    const kindSchema = eventPayloadSchemaOf(template, payload);
    if (kindSchema !== null) {
      ctx.foldSchemaErrors(options.validateSchema(kindSchema, payload.payload).map((e) => ({ ...e, pointer: `/payload${e.pointer}` })));
    }
  }
  // Any rejected evidence reference (placeholder, unbound, bad shape) means evidence is still owed.
  if (ctx.blockers.some((b) => b.field === 'evidence_refs')) ctx.needEvidence(EVIDENCE_TEXT.artifact_ref());
  if (warnings) {
    warnSafeDefaults(template, payload, ctx);
    warnCopiedRequiredText(template, payload, ctx);
  }
  return ctx.result();
}

/**
 * The longest JSON pointer a judged payload may have. Every blocker carries its pointer (twice, as
 * field and pointer), so under a member name of 100,000 characters each refused item repeated it:
 * 2,000 items (a 112 KB body) made a 401 MB answer and took 33 s, and pointers longer than ~16K
 * characters also defeat V8's string hashing of the gate's set of blocked places. Template members
 * are short; a path of 1,024 characters leaves far more than any template needs.
 */
export const MAX_GATE_POINTER = 1_024;

/**
 * The start of the first member path whose JSON pointer is longer than `max`, or null. Walks the
 * payload once, adding up each path's escaped length, and builds no pointer until it finds one.
 */
function findLongPath(payload: Record<string, unknown>, max: number): string | null {
  const stack: PathStep[] = [{ value: payload, length: 0, parent: null, key: '' }];
  while (stack.length > 0) {
    const step = stack.pop()!;
    const container = step.value as Record<string, unknown>;
    for (const key of Array.isArray(container) ? container.keys() : Object.keys(container)) {
      const name = String(key);
      let length = step.length + 1 + name.length;
      for (let i = 0; i < name.length; i++) if (name.charCodeAt(i) === 0x7e || name.charCodeAt(i) === 0x2f) length++;
      if (length > max) return shownPath(step, name);
      // Only containers go on the walk: a leaf's path was measured above.
      const value = container[name];
      if (value !== null && typeof value === 'object') stack.push({ value, length, parent: step, key: name });
    }
  }
  return null;
}

/** A container on findLongPath's walk: its pointer's length, and its parent and name to spell it. */
type PathStep = { value: unknown; length: number; parent: PathStep | null; key: string };

/** A long path's first 64 characters, as a pointer: `name` under the container `step`. */
function shownPath(step: PathStep, name: string): string {
  const keys = [name];
  for (let at: PathStep | null = step; at !== null && at.parent !== null; at = at.parent) keys.push(at.key);
  const pointer = keys.reverse().map((k) => `/${escapePointer(k.slice(0, 64))}`).join('');
  return `${pointer.slice(0, 64)}…`;
}

/** The payload schema of the kind an event template writes, once the body names that kind. */
function eventPayloadSchemaOf(template: SmartTemplate, payload: Record<string, unknown>): string | null {
  const kind = template.starter_payload.kind;
  if (typeof kind !== 'string' || payload.kind !== kind || !isRecord(payload.payload)) return null;
  return payloadSchemaOf(kind);
}

/** Every required path present, not blank, not an empty list, not a placeholder value. */
function checkRequiredFields(template: SmartTemplate, payload: Record<string, unknown>, ctx: GateContext): void {
  for (const field of template.required_fields) {
    const pointer = fieldPointer(field);
    const value = valueAt(payload, field);
    if (value === undefined || value === null) ctx.block('missing', pointer, ISSUE_TEXT.missing(), field);
    else if (typeof value === 'string') {
      const token = value.trim() === '' ? undefined : findEmptyValue(value);
      if (value.trim() === '') ctx.block('blank', pointer, ISSUE_TEXT.blank(), field);
      else if (token !== undefined) ctx.block('placeholder_text', pointer, ISSUE_TEXT.placeholder_text(token), field);
    } else if (Array.isArray(value)) {
      if (value.length === 0) ctx.block('missing', pointer, ISSUE_TEXT.empty_list(), field);
      value.forEach((item, i) => {
        const token = typeof item === 'string' ? findEmptyValue(item) : undefined;
        if (token !== undefined) ctx.block('placeholder_text', `${pointer}/${i}`, ISSUE_TEXT.placeholder_text(token), field);
      });
    }
  }
}

/** A top-level member must have the JSON type the starter payload shows for it. */
function checkStarterTypes(template: SmartTemplate, payload: Record<string, unknown>, ctx: GateContext): void {
  for (const [key, starter] of Object.entries(template.starter_payload)) {
    if (!Object.hasOwn(payload, key) || payload[key] === undefined) continue;
    const expected = jsonType(starter);
    const actual = jsonType(payload[key]);
    if (expected !== actual) ctx.block('wrong_type', `/${escapePointer(key)}`, ISSUE_TEXT.wrong_type(expected, actual));
  }
}

/** Scalar safe defaults left in place are worth a word: they never claim more than is known. */
function warnSafeDefaults(template: SmartTemplate, payload: Record<string, unknown>, ctx: GateContext): void {
  for (const [path, safe] of Object.entries(template.safe_defaults)) {
    if (safe === null || typeof safe === 'object') continue;
    for (const [pointer, value] of valuesAt(payload, path)) {
      if (value === safe && !ctx.isBlocked(pointer)) ctx.warn('safe_default_kept', pointer, ISSUE_TEXT.safe_default_kept(JSON.stringify(safe)));
    }
  }
}

/** Long required text equal to template text passes the gate but is probably not about this task. */
function warnCopiedRequiredText(template: SmartTemplate, payload: Record<string, unknown>, ctx: GateContext): void {
  for (const field of template.required_fields) {
    const value = valueAt(payload, field);
    const pointer = fieldPointer(field);
    if (typeof value !== 'string' || trimmedLength(value) < MIN_TEXT_LENGTH || ctx.isBlocked(pointer)) continue;
    if (isCopiedFrom(value, ctx.registry.copySources)) ctx.warn('copied_example', pointer, ISSUE_TEXT.copied_example(), field);
  }
}

/** The value at a dotted path (`risk_inputs.autonomy`), or undefined. */
function valueAt(payload: Record<string, unknown>, path: string): unknown {
  let current: unknown = payload;
  for (const key of path.split('.')) {
    if (!isRecord(current) || !Object.hasOwn(current, key)) return undefined;
    current = current[key];
  }
  return current;
}

/** Every [pointer, value] a safe-default path names; `name[]` steps into each list item. */
function valuesAt(payload: Record<string, unknown>, path: string): Array<[string, unknown]> {
  let current: Array<[string, unknown]> = [['', payload]];
  for (const segment of path.split('.')) {
    const each = segment.endsWith('[]');
    const key = each ? segment.slice(0, -2) : segment;
    const next: Array<[string, unknown]> = [];
    for (const [pointer, value] of current) {
      if (!isRecord(value) || !Object.hasOwn(value, key)) continue;
      const child = value[key];
      const childPointer = `${pointer}/${escapePointer(key)}`;
      if (!each) next.push([childPointer, child]);
      else if (Array.isArray(child)) child.forEach((item, i) => next.push([`${childPointer}/${i}`, item]));
    }
    current = next;
  }
  return current;
}
