// The state of one template-gate run: blockers and warnings found so far (one blocker per place in
// the payload), evidence still needed, and the validation body they become (docs/contract.md §7).
import type { ErrorDetail } from '../errors.ts';
import { composeRepairPrompt, ISSUE_TEXT } from './repair-prompts.ts';
import type { SmartTemplate, TemplateRegistry } from './templates.ts';
import { pointerFrom, unescapePointer } from './json-pointer.ts';

export type GateIssueCode =
  | 'missing' | 'wrong_type' | 'invalid_value' | 'blank' | 'too_short' | 'duplicate' | 'copied_text'
  | 'placeholder_text' | 'evidence_unbound' | 'schema_violation'
  // warnings only
  | 'safe_default_kept' | 'target_template' | 'self_verified_evidence' | 'repeated_across_lists'
  | 'blockers_on_completed' | 'copied_example';

/** One finding: `field` is the payload member it belongs to, `pointer` the exact place (RFC 6901). */
export type GateIssue = { code: GateIssueCode; field: string; pointer: string; detail: string };

/** The body of POST /v1/templates/validate and of a failed closeout (schemas/api/validation-result.json). */
export type ValidationResult = {
  ok: boolean;
  template_id: string;
  blockers: GateIssue[];
  warnings: GateIssue[];
  missing_fields: string[];
  repair_prompt: string[];
  next_required_evidence: string[];
};

export class GateContext {
  readonly blockers: GateIssue[] = [];
  readonly warnings: GateIssue[] = [];
  /** Where the blockers sit, so that asking costs the pointer's depth, not the blockers so far. */
  private readonly blocked = new Set<string>();
  private readonly evidence = new Set<string>();

  constructor(
    readonly template: SmartTemplate,
    readonly registry: TemplateRegistry,
  ) {}

  /** Records a blocker unless that place (or a place containing it) is already blocked. */
  block(code: GateIssueCode, pointer: string, detail: string, field: string = fieldOf(pointer)): void {
    if (this.isBlocked(pointer)) return;
    this.blockers.push({ code, field, pointer, detail });
    this.blocked.add(pointer);
  }

  warn(code: GateIssueCode, pointer: string, detail: string, field: string = fieldOf(pointer)): void {
    this.warnings.push({ code, field, pointer, detail });
  }

  needEvidence(text: string): void {
    this.evidence.add(text);
  }

  /** True when a blocker sits at `pointer` or at a member containing it. */
  isBlocked(pointer: string): boolean {
    if (this.blocked.has(pointer) || this.blocked.has('')) return true;
    // A body of 1 MiB holds ~100,000 refused items: looking at each earlier blocker made the gate
    // quadratic (8,000 items held the server for seconds). A pointer has few ancestors instead.
    for (let at = pointer.lastIndexOf('/'); at > 0; at = pointer.lastIndexOf('/', at - 1)) {
      if (this.blocked.has(pointer.slice(0, at))) return true;
    }
    return false;
  }

  /**
   * Adds schema findings the caller got from the template's request schema, except where a rule
   * already said something more specific about the same place.
   */
  foldSchemaErrors(errors: readonly ErrorDetail[]): void {
    for (const e of errors) this.block('schema_violation', e.pointer, ISSUE_TEXT.schema_violation(e.detail));
  }

  result(): ValidationResult {
    const byField = new Map<string, GateIssue[]>();
    for (const b of this.blockers) {
      const list = byField.get(b.field) ?? [];
      list.push(b);
      byField.set(b.field, list);
    }
    const fields = [...byField.keys()];
    return {
      ok: this.blockers.length === 0,
      template_id: this.template.template_id,
      blockers: this.blockers.map((b) => ({ ...b })),
      warnings: this.warnings.map((w) => ({ ...w })),
      missing_fields: fields,
      repair_prompt: fields.map((field) => {
        const base = fieldPointer(field);
        const parts = byField.get(field)!.map((b): [string, string] => [
          b.pointer.startsWith(base) ? b.pointer.slice(base.length) : b.pointer,
          b.detail,
        ]);
        return composeRepairPrompt(field, parts, this.template.template_id);
      }),
      next_required_evidence: this.blockers.length === 0 ? [] : [...this.evidence],
    };
  }
}

/** The field name of the payload as a whole (a raw event body has a member called `payload`). */
export const ROOT_FIELD = '$';

/** The top-level member a pointer belongs to; the whole payload is ROOT_FIELD. */
export function fieldOf(pointer: string): string {
  if (pointer === '') return ROOT_FIELD;
  const first = pointer.slice(1).split('/')[0] ?? '';
  return unescapePointer(first);
}

/** Pointers of the fields templates name (a few dozen), made once each. */
const FIELD_POINTERS = new Map<string, string>();

/** `risk_inputs.autonomy` → `/risk_inputs/autonomy`; ROOT_FIELD → the root. */
export function fieldPointer(field: string): string {
  if (field === ROOT_FIELD) return '';
  let pointer = FIELD_POINTERS.get(field);
  if (pointer === undefined) {
    pointer = pointerFrom(field.split('.'));
    if (FIELD_POINTERS.size < 1_000) FIELD_POINTERS.set(field, pointer);
  }
  return pointer;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The JSON type of a value, as named in repair prompts. */
export function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'number') return 'a number';
  if (typeof value === 'boolean') return 'a boolean';
  return typeof value;
}
