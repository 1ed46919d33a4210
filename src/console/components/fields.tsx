// Form fields that carry the gates' repair prompts. A 422 from a template gate answers a validation
// body (schemas/api/validation-result.json) whose missing_fields and repair_prompt are parallel: each
// prompt is shown under the field it names, the field is marked invalid and described by it, and
// whatever the user typed stays in the form so they can fix it and send it again.
import type { ComponentChildren } from 'preact';
import { useRef, useState } from 'preact/hooks';
import type { ValidationResult } from '../../domain/contract/schema-types.gen.ts';
import { type Failure, failureOf, thrownFailure, useConsole } from '../ui.tsx';

export type Prompts = {
  /** Prompts by top-level field name (`evidence_refs.0.sha256` and `/evidence_refs/0` count as evidence_refs). */
  byField: Record<string, string[]>;
  /** Prompts for fields the form does not show, and the payload as a whole (`$`). */
  other: string[];
  /** What the server still wants as evidence. */
  evidence: string[];
  warnings: string[];
  /** Which refusal of the form these are (1, 2, …): each refusal is a new alert, read again even when its text is the same. */
  refusal?: number;
};

export const NO_PROMPTS: Prompts = { byField: {}, other: [], evidence: [], warnings: [] };

export function isValidationBody(body: unknown): body is ValidationResult {
  const b = body as Partial<ValidationResult> | null;
  return typeof b === 'object' && b !== null && Array.isArray(b.repair_prompt) && Array.isArray(b.missing_fields);
}

function topField(name: string): string {
  return name.replace(/^\//, '').split(/[./]/)[0] ?? name;
}

/** Sorts a validation body's prompts onto the form's fields. */
export function promptsOf(body: ValidationResult, fields: readonly string[]): Prompts {
  const byField: Record<string, string[]> = {};
  const other: string[] = [];
  body.repair_prompt.forEach((prompt, i) => {
    const named = body.missing_fields[i];
    const field = named === undefined ? undefined : topField(named);
    if (field !== undefined && fields.includes(field)) (byField[field] ??= []).push(prompt);
    else other.push(prompt);
  });
  // A blocker whose field has no prompt of its own still has to show somewhere.
  for (const blocker of body.blockers) {
    const field = topField(blocker.field);
    if (byField[field] === undefined && !body.missing_fields.includes(blocker.field)) {
      if (fields.includes(field)) byField[field] = [`${blocker.field} ${blocker.detail}.`];
      else other.push(`${blocker.field} ${blocker.detail}.`);
    }
  }
  return { byField, other, evidence: body.next_required_evidence, warnings: body.warnings.map((w) => `${w.field} ${w.detail}.`) };
}

export function invalidFields(prompts: Prompts): string[] {
  return Object.keys(prompts.byField);
}

type FieldProps = {
  /** The API member this field edits: its prompts are looked up by it, and it names the control's id. */
  name: string;
  /** Prefix of the ids, so two forms on one page do not collide. */
  form: string;
  label: string;
  hint?: string;
  prompts: Prompts;
  children: (control: { id: string; name: string; 'aria-describedby'?: string; 'aria-invalid'?: true }) => ComponentChildren;
};

/** A labelled control with its hint and, after a refused write, its repair prompts. */
export function Field({ name, form, label, hint, prompts, children }: FieldProps) {
  const id = `${form}-${name}`;
  const own = prompts.byField[name];
  const described = [hint ? `${id}-hint` : '', own ? `${id}-prompt` : ''].filter((x) => x !== '').join(' ');
  return (
    <div class={own ? 'field invalid' : 'field'}>
      <label for={id}>{label}</label>
      {hint && (
        <span class="hint" id={`${id}-hint`}>
          {hint}
        </span>
      )}
      {children({ id, name, 'aria-describedby': described || undefined, 'aria-invalid': own ? true : undefined })}
      {own && (
        <ul class="prompt" id={`${id}-prompt`} data-field={name}>
          {own.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** The head of a refused write: what to do, the prompts no field of the form shows, and the evidence still needed. */
export function PromptSummary({ prompts, what }: { prompts: Prompts; what: string }) {
  const count = invalidFields(prompts).length + prompts.other.length;
  return (
    <div class="error" role="alert" key={prompts.refusal}>
      <strong>
        {what} was refused: {count === 1 ? '1 field needs' : `${count} fields need`} fixing. Nothing was written.
      </strong>
      <p>Each repair prompt is shown next to its field; fix them and send again.</p>
      {prompts.other.length > 0 && (
        <ul class="prompt">
          {prompts.other.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      )}
      {prompts.evidence.length > 0 && (
        <>
          <p>Evidence still needed:</p>
          <ul>
            {prompts.evidence.map((e) => (
              <li key={e}>{e}</li>
            ))}
          </ul>
        </>
      )}
      {prompts.warnings.length > 0 && (
        <>
          <p>Warnings:</p>
          <ul>
            {prompts.warnings.map((w) => (
              <li key={w}>{w}</li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}

/** Moves focus to the first invalid control of a form after a refused write (keyboard users land on it). */
export function focusFirstInvalid(form: HTMLFormElement | null): void {
  const first = form?.querySelector<HTMLElement>('[aria-invalid="true"]');
  first?.focus();
}

type Answer = { status: number; body: unknown };

/**
 * The state of a form whose write runs a template's gate, and its one way to send: busy while
 * sending; a 201 (or a 200 replay) goes to `onWritten`; a refused gate (422 validation body) shows
 * its prompts by field and moves focus to the first field to fix; any other answer shows its
 * problem (a 401 signs the console out). What the user typed is the caller's state and stays.
 */
export function useGatedWrite(fields: readonly string[]) {
  const { signedOut } = useConsole();
  const [prompts, setPrompts] = useState<Prompts | null>(null);
  const [failure, setFailure] = useState<Failure | null>(null);
  const [busy, setBusy] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  const refusals = useRef(0);

  async function send<R extends Answer>(request: () => Promise<R>, onWritten: (res: Extract<R, { status: 200 | 201 }>) => void): Promise<void> {
    setBusy(true);
    setFailure(null);
    try {
      const res = await request();
      if (res.status === 201 || res.status === 200) {
        setPrompts(null);
        onWritten(res as Extract<R, { status: 200 | 201 }>);
      } else if (res.status === 422 && isValidationBody(res.body)) {
        setPrompts({ ...promptsOf(res.body, fields), refusal: ++refusals.current });
        requestAnimationFrame(() => focusFirstInvalid(form.current));
      } else {
        if (res.status === 401) signedOut();
        setPrompts(null);
        setFailure(failureOf(res));
      }
    } catch (err) {
      setFailure(thrownFailure(err));
    } finally {
      setBusy(false);
    }
  }

  return { form, prompts, failure, busy, send };
}
