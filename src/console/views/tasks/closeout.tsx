// The closeout form (POST /v1/tasks/{task_id}/closeout). The gates (task_closeout.v1) answer a 422
// validation body when something is missing or rejected: each repair prompt is shown next to the
// field it names, the typed values stay, and the user fixes them and sends again. A 201 answers the
// closed task.
import { useState } from 'preact/hooks';
import type { CloseoutRequest, EvidenceRef, Task } from '../../../domain/contract/schema-types.gen.ts';
import { Field, NO_PROMPTS, PromptSummary, useGatedWrite } from '../../components/fields.tsx';
import { linesOf } from '../../components/format.ts';
import { ErrorBox, useConsole } from '../../ui.tsx';

type Outcome = CloseoutRequest['outcome'];
type ListField = 'verification' | 'context_lines' | 'future_agent_traps' | 'blockers' | 'gaps' | 'next_actions';

const EVIDENCE_TYPES: EvidenceRef['evidence_type'][] = ['log', 'artifact', 'commit', 'ticket', 'document', 'provider_log', 'receipt', 'external_ref'];
const CONFIDENCES: EvidenceRef['confidence'][] = ['claimed', 'verified', 'inferred', 'stale', 'missing', 'blocked', 'not_claimed'];
const REDACTIONS: EvidenceRef['redaction'][] = ['none', 'partial', 'removed'];
const TRUSTS: EvidenceRef['content_trust'][] = ['customer_asserted', 'trusted_internal', 'sanitized_projection', 'untrusted_external'];

type EvidenceDraft = {
  artifact_id: string;
  uri: string;
  evidence_type: string;
  sha256: string;
  etag: string;
  confidence: string;
  redaction: string;
  content_trust: string;
  captured_at: string;
};

function newEvidence(): EvidenceDraft {
  return {
    artifact_id: '',
    uri: '',
    evidence_type: 'log',
    sha256: '',
    etag: '',
    confidence: 'claimed',
    redaction: 'none',
    content_trust: 'customer_asserted',
    captured_at: new Date().toISOString(),
  };
}

/** Which lists each outcome's gates ask for (README "Closeout gates"); the others are not sent. */
const LISTS: Record<Outcome, ListField[]> = {
  completed: ['verification', 'context_lines', 'future_agent_traps'],
  blocked: ['blockers', 'gaps', 'next_actions', 'context_lines', 'future_agent_traps'],
  deferred: ['blockers', 'gaps', 'next_actions', 'context_lines', 'future_agent_traps'],
};

const LIST_TEXT: Record<ListField, { label: string; hint: string }> = {
  verification: { label: 'Verification', hint: 'The checks you ran and what each showed, one per line.' },
  context_lines: { label: 'Context lines', hint: 'Facts about this task the next agent needs (what changed, where, why), one per line, at least 20 characters each.' },
  future_agent_traps: { label: 'Future agent traps', hint: 'Mistakes a future agent could make here and how to avoid them, one per line, at least 20 characters each.' },
  blockers: { label: 'Blockers', hint: 'What blocks the task, one per line (blockers or gaps).' },
  gaps: { label: 'Gaps', hint: 'What is missing or unknown, one per line (blockers or gaps).' },
  next_actions: { label: 'Next actions', hint: 'What would unblock or finish the task, one per line.' },
};

/** The evidence_refs repair prompt: it describes the fieldset and each row's marked inputs. */
const EVIDENCE_PROMPT_ID = 'closeout-evidence_refs-prompt';

const FIELDS = ['outcome', 'summary', 'evidence_refs', 'session_id', ...Object.keys(LIST_TEXT)];

export function CloseoutForm({ taskId, onClosed }: { taskId: string; onClosed: (task: Task) => void }) {
  const { client } = useConsole();
  const [outcome, setOutcome] = useState<Outcome>('completed');
  const [summary, setSummary] = useState('');
  const [lists, setLists] = useState<Record<ListField, string>>({ verification: '', context_lines: '', future_agent_traps: '', blockers: '', gaps: '', next_actions: '' });
  const [evidence, setEvidence] = useState<EvidenceDraft[]>(() => [newEvidence()]);
  const { form, prompts, failure, busy, send } = useGatedWrite(FIELDS);

  function body(): CloseoutRequest {
    const out: CloseoutRequest = { outcome, summary, context_lines: [], future_agent_traps: [] };
    for (const name of LISTS[outcome]) {
      const lines = linesOf(lists[name]);
      // The two required lists go as they are (empty too) so the gate names them; the others only when filled.
      if (lines.length > 0 || name === 'context_lines' || name === 'future_agent_traps') out[name] = lines;
    }
    if (outcome === 'completed') {
      const refs = evidence.filter((e) => e.artifact_id.trim() !== '' || e.uri.trim() !== '').map(toRef);
      if (refs.length > 0) out.evidence_refs = refs;
    }
    return out;
  }

  async function submit() {
    await send(
      () => client.closeTask(taskId, body()),
      (res) => onClosed(res.body.task),
    );
  }

  const p = prompts ?? NO_PROMPTS;
  const evidencePrompts = p.byField.evidence_refs;
  return (
    <form
      ref={form}
      class="stack"
      aria-labelledby="closeout-title"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <h2 id="closeout-title">Close out</h2>
      <p class="note">The closeout gates decide: a refused closeout writes nothing and says what to fix next to each field.</p>
      {prompts && <PromptSummary prompts={prompts} what="The closeout" />}
      {failure && <ErrorBox failure={failure} />}
      <Field form="closeout" name="outcome" label="Outcome" prompts={p}>
        {(c) => (
          <select {...c} value={outcome} onChange={(e) => setOutcome(e.currentTarget.value as Outcome)}>
            <option value="completed">completed</option>
            <option value="blocked">blocked</option>
            <option value="deferred">deferred</option>
          </select>
        )}
      </Field>
      <Field form="closeout" name="summary" label="Summary" hint="What was done and the state the task is left in." prompts={p}>
        {(c) => <textarea {...c} value={summary} onInput={(e) => setSummary(e.currentTarget.value)} />}
      </Field>
      {LISTS[outcome].map((name) => (
        <Field key={name} form="closeout" name={name} label={LIST_TEXT[name].label} hint={LIST_TEXT[name].hint} prompts={p}>
          {(c) => <textarea {...c} value={lists[name]} onInput={(e) => setLists({ ...lists, [name]: e.currentTarget.value })} />}
        </Field>
      ))}
      {outcome === 'completed' && (
        <fieldset class={evidencePrompts ? 'evidence invalid' : 'evidence'} aria-describedby={evidencePrompts ? EVIDENCE_PROMPT_ID : undefined}>
          <legend>Evidence</legend>
          <span class="hint">
            References to artifacts that show the work (a CI run, a commit); each needs a sha256 or an ETag. Rows left without artifact id and URI are not sent.
          </span>
          {evidence.map((item, i) => (
            <EvidenceRow
              key={i}
              index={i}
              item={item}
              invalid={evidencePrompts !== undefined}
              onChange={(next) => setEvidence(evidence.map((e, j) => (j === i ? next : e)))}
              onRemove={evidence.length > 1 ? () => setEvidence(evidence.filter((_, j) => j !== i)) : undefined}
            />
          ))}
          {evidencePrompts && (
            <ul class="prompt" id={EVIDENCE_PROMPT_ID} data-field="evidence_refs">
              {evidencePrompts.map((text) => (
                <li key={text}>{text}</li>
              ))}
            </ul>
          )}
          <button type="button" onClick={() => setEvidence([...evidence, newEvidence()])}>
            Add evidence
          </button>
        </fieldset>
      )}
      <div class="buttons">
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Closing…' : 'Close task'}
        </button>
      </div>
    </form>
  );
}

function toRef(e: EvidenceDraft): EvidenceRef {
  const ref = {
    artifact_id: e.artifact_id.trim(),
    uri: e.uri.trim(),
    evidence_type: e.evidence_type,
    confidence: e.confidence,
    redaction: e.redaction,
    content_trust: e.content_trust,
    captured_at: e.captured_at.trim(),
  } as EvidenceRef;
  if (e.sha256.trim() !== '') ref.sha256 = e.sha256.trim();
  if (e.etag.trim() !== '') ref.etag = e.etag.trim();
  return ref;
}

function EvidenceRow({
  index,
  item,
  invalid,
  onChange,
  onRemove,
}: {
  index: number;
  item: EvidenceDraft;
  invalid: boolean;
  onChange: (next: EvidenceDraft) => void;
  onRemove?: () => void;
}) {
  const id = (name: string) => `closeout-evidence-${index}-${name}`;
  const text = (name: keyof EvidenceDraft, label: string, extra?: { placeholder?: string; class?: string }) => (
    <label for={id(name)} class={extra?.class}>
      {label}
      <input
        id={id(name)}
        value={item[name]}
        placeholder={extra?.placeholder}
        aria-invalid={invalid || undefined}
        aria-describedby={invalid ? EVIDENCE_PROMPT_ID : undefined}
        onInput={(e) => onChange({ ...item, [name]: e.currentTarget.value })}
      />
    </label>
  );
  const choice = (name: keyof EvidenceDraft, label: string, options: readonly string[]) => (
    <label for={id(name)}>
      {label}
      <select id={id(name)} value={item[name]} onChange={(e) => onChange({ ...item, [name]: e.currentTarget.value })}>
        {options.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
    </label>
  );
  return (
    <div class="evidence-row" role="group" aria-label={`Evidence ${index + 1}`}>
      {text('artifact_id', 'Artifact id')}
      {text('uri', 'URI', { placeholder: 'https://…', class: 'wide' })}
      {choice('evidence_type', 'Type', EVIDENCE_TYPES)}
      {text('sha256', 'SHA-256', { placeholder: '64 hex digits', class: 'wide' })}
      {text('etag', 'ETag')}
      {choice('confidence', 'Confidence', CONFIDENCES)}
      {choice('redaction', 'Redaction', REDACTIONS)}
      {choice('content_trust', 'Content trust', TRUSTS)}
      {text('captured_at', 'Captured at')}
      {onRemove && (
        <button type="button" onClick={onRemove} aria-label={`Remove evidence ${index + 1}`}>
          Remove
        </button>
      )}
    </div>
  );
}
