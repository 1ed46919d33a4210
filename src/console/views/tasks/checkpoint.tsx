// Checkpoints: the task.checkpoint.written events of the loaded timeline, and the form that writes
// one (POST /v1/tasks/{task_id}/checkpoints, through the checkpoint.write.v1 gate).
import { useState } from 'preact/hooks';
import type { CheckpointRequest, Event } from '../../../domain/contract/schema-types.gen.ts';
import { Field, NO_PROMPTS, PromptSummary, useGatedWrite } from '../../components/fields.tsx';
import { formatTime, linesOf } from '../../components/format.ts';
import { ErrorBox, useConsole } from '../../ui.tsx';

export const CHECKPOINT_KIND = 'task.checkpoint.written';

/** Checkpoints shown before "Show all": the latest few are what a reader needs first. */
const LATEST = 10;

export function CheckpointList({ events }: { events: Event[] }) {
  const [all, setAll] = useState(false);
  const checkpoints = events.filter((e) => e.kind === CHECKPOINT_KIND);
  if (checkpoints.length === 0) return <p class="note">No checkpoint in the loaded timeline yet.</p>;
  const shown = all ? checkpoints : checkpoints.slice(-LATEST);
  return (
    <>
      {shown.length < checkpoints.length && (
        <p class="note">
          The latest {shown.length} of {checkpoints.length} checkpoints in the loaded timeline.{' '}
          <button type="button" class="link" onClick={() => setAll(true)}>
            Show all {checkpoints.length}
          </button>
        </p>
      )}
      <ol class="checkpoints" aria-label="Checkpoints">
        {shown.map((e) => {
          const p = e.payload as { progress?: string; blockers?: string[]; next_actions?: string[]; context_lines?: string[] };
          return (
            <li key={e.seq} class="card">
              <div class="note">
                #{e.seq} · {formatTime(e.recorded_at)}
              </div>
              <p class="progress">{p.progress}</p>
              <Items label="Next actions" items={p.next_actions} />
              <Items label="Blockers" items={p.blockers} />
              <Items label="Context lines" items={p.context_lines} />
              {e.evidence_refs && e.evidence_refs.length > 0 && (
                <Items label="Evidence" items={e.evidence_refs.map((r) => `${r.artifact_id} (${r.evidence_type}, ${r.confidence})`)} />
              )}
            </li>
          );
        })}
      </ol>
    </>
  );
}

/** A closed task's closeout, from the task.closed event of the loaded timeline. */
export function CloseoutSummary({ events }: { events: Event[] }) {
  const closed = events.filter((e) => e.kind === 'task.closed').at(-1);
  if (closed === undefined) return null;
  const p = closed.payload as Partial<Record<'verification' | 'context_lines' | 'future_agent_traps' | 'blockers' | 'gaps' | 'next_actions', string[]>> & {
    summary?: string;
    outcome?: string;
  };
  return (
    <section aria-labelledby="closeout-summary-title">
      <h2 id="closeout-summary-title">Closeout</h2>
      <div class="card">
        <div class="note">
          #{closed.seq} · {formatTime(closed.recorded_at)} · {p.outcome}
        </div>
        <p class="progress">{p.summary}</p>
        <Items label="Verification" items={p.verification} />
        <Items label="Blockers" items={p.blockers} />
        <Items label="Gaps" items={p.gaps} />
        <Items label="Next actions" items={p.next_actions} />
        <Items label="Context lines" items={p.context_lines} />
        <Items label="Future agent traps" items={p.future_agent_traps} />
        {closed.evidence_refs && closed.evidence_refs.length > 0 && (
          <Items label="Evidence" items={closed.evidence_refs.map((r) => `${r.artifact_id} (${r.evidence_type}, ${r.confidence}) ${r.uri}`)} />
        )}
      </div>
    </section>
  );
}

function Items({ label, items }: { label: string; items: string[] | undefined }) {
  if (!items || items.length === 0) return null;
  return (
    <div class="items">
      <span class="note">{label}:</span>
      <ul>
        {items.map((item, i) => (
          <li key={i}>{item}</li>
        ))}
      </ul>
    </div>
  );
}

const FIELDS = ['progress', 'next_actions', 'blockers', 'context_lines', 'session_id'] as const;
const EMPTY = { progress: '', next_actions: '', blockers: '', context_lines: '' };

export function CheckpointForm({ taskId, onWritten }: { taskId: string; onWritten: (event: Event) => void }) {
  const { client, announce } = useConsole();
  const [draft, setDraft] = useState(EMPTY);
  const { form, prompts, failure, busy, send } = useGatedWrite(FIELDS);
  const [written, setWritten] = useState<number | null>(null);
  const set = (name: keyof typeof EMPTY) => (e: { currentTarget: HTMLTextAreaElement }) => setDraft({ ...draft, [name]: e.currentTarget.value });

  async function submit() {
    const body: CheckpointRequest = { progress: draft.progress };
    for (const name of ['next_actions', 'blockers', 'context_lines'] as const) {
      const lines = linesOf(draft[name]);
      if (lines.length > 0) body[name] = lines;
    }
    setWritten(null);
    await send(
      () => client.writeCheckpoint(taskId, body),
      (res) => {
        setDraft(EMPTY);
        setWritten(res.body.event.seq);
        announce(`Checkpoint written as event #${res.body.event.seq}.`);
        onWritten(res.body.event);
      },
    );
  }

  const p = prompts ?? NO_PROMPTS;
  return (
    <form
      ref={form}
      class="stack"
      aria-labelledby="checkpoint-form-title"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <h3 id="checkpoint-form-title">Write a checkpoint</h3>
      {prompts && <PromptSummary prompts={prompts} what="The checkpoint" />}
      {failure && <ErrorBox failure={failure} />}
      {written !== null && (
        // Read out by the page's live region (announce), not by this line.
        <p class="pass">Checkpoint written as event #{written}.</p>
      )}
      <Field form="checkpoint" name="progress" label="Progress" hint="What changed since the last checkpoint." prompts={p}>
        {(c) => <textarea {...c} value={draft.progress} required onInput={set('progress')} />}
      </Field>
      <Field form="checkpoint" name="next_actions" label="Next actions" hint="One per line; leave empty when there are none." prompts={p}>
        {(c) => <textarea {...c} value={draft.next_actions} onInput={set('next_actions')} />}
      </Field>
      <Field form="checkpoint" name="blockers" label="Blockers" hint="One per line; leave empty when there are none." prompts={p}>
        {(c) => <textarea {...c} value={draft.blockers} onInput={set('blockers')} />}
      </Field>
      <Field form="checkpoint" name="context_lines" label="Context lines" hint="Facts the next agent needs, one per line." prompts={p}>
        {(c) => <textarea {...c} value={draft.context_lines} onInput={set('context_lines')} />}
      </Field>
      <div class="buttons">
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Writing…' : 'Write checkpoint'}
        </button>
      </div>
    </form>
  );
}
