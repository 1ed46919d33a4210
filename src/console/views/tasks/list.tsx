// The task list (#/tasks?status=): GET /v1/tasks, a status filter, "More" paging by next_cursor, a
// "New task" form (POST /v1/tasks through the task.create.v1 gate) and a jump to a task by id.
import { useEffect, useState } from 'preact/hooks';
import type { Task, TaskCreateRequest } from '../../../domain/contract/schema-types.gen.ts';
import { Field, NO_PROMPTS, PromptSummary, useGatedWrite } from '../../components/fields.tsx';
import { formatTime } from '../../components/format.ts';
import { href, hrefWith, type Route } from '../../router.ts';
import { ErrorBox, Failure, failureOf, Page, useConsole, usePages } from '../../ui.tsx';

const STATUSES = ['', 'open', 'closed'] as const;
const PAGE = 50;

export function TaskList({ route }: { route: Route }) {
  const status = route.query.get('status') ?? '';
  const [creating, setCreating] = useState(route.query.get('new') === '1');
  return (
    <Page
      title="Tasks"
      actions={
        <button type="button" aria-expanded={creating} aria-controls="new-task" onClick={() => setCreating(!creating)}>
          New task
        </button>
      }
    >
      {creating && <NewTaskForm onCancel={() => setCreating(false)} />}
      <div class="toolbar">
        <form
          class="inline"
          aria-label="Filter tasks"
          onSubmit={(e) => {
            e.preventDefault();
            const value = new FormData(e.currentTarget).get('status');
            location.hash = hrefWith({ status: typeof value === 'string' ? value : '' }, 'tasks');
          }}
        >
          <label>
            Status
            <select name="status" value={status} onChange={(e) => (location.hash = hrefWith({ status: e.currentTarget.value }, 'tasks'))}>
              {STATUSES.map((s) => (
                <option key={s} value={s}>
                  {s === '' ? 'any' : s}
                </option>
              ))}
            </select>
          </label>
          <noscript>
            <button type="submit">Filter</button>
          </noscript>
        </form>
        <GoToTask />
      </div>
      <TaskTable key={status} status={status} />
    </Page>
  );
}

function TaskTable({ status }: { status: string }) {
  const { client } = useConsole();
  const { items: tasks, next: cursor, state, more } = usePages<Task>(async (cursor) => {
    const res = await client.call('GET /v1/tasks', { query: { status: status === 'open' || status === 'closed' ? status : undefined, limit: PAGE, cursor: cursor ?? undefined } });
    return res.status === 200 ? { items: res.body.tasks, next: res.body.next_cursor } : failureOf(res);
  }, [client]);

  return (
    <>
      {tasks.length > 0 || state === 'ready' ? (
        <div class="table-wrap">
          <table class="cards-sm" aria-label="Tasks">
            <thead>
              <tr>
                <th scope="col">Task</th>
                <th scope="col">Status</th>
                <th scope="col">Outcome</th>
                <th scope="col">Created</th>
                <th scope="col">Closed</th>
              </tr>
            </thead>
            <tbody>
              {tasks.map((t) => (
                <tr key={t.task_id}>
                  <td>
                    <a href={href('tasks', t.task_id)}>{t.title}</a>
                    <div class="note mono">{t.task_id}</div>
                  </td>
                  <td data-label="Status">
                    <StatusBadge status={t.status} />
                  </td>
                  <td data-label="Outcome">{t.outcome ? <OutcomeBadge outcome={t.outcome} /> : '—'}</td>
                  <td data-label="Created">{formatTime(t.created_at)}</td>
                  <td data-label="Closed">{formatTime(t.closed_at)}</td>
                </tr>
              ))}
              {tasks.length === 0 && (
                <tr>
                  <td colSpan={5}>No tasks{status ? ` with status ${status}` : ''} in this scope yet.</td>
                </tr>
              )}
            </tbody>
          </table>
        </div>
      ) : null}
      {state === 'loading' && (
        <p class="loading" role="status" aria-live="polite">
          Loading…
        </p>
      )}
      {state instanceof Failure && <ErrorBox failure={state} />}
      {state === 'ready' && cursor !== null && (
        <button type="button" onClick={more}>
          More tasks
        </button>
      )}
    </>
  );
}

export function StatusBadge({ status }: { status: string }) {
  return <span class={status === 'open' ? 'badge warn' : 'badge'}>{status}</span>;
}

export function OutcomeBadge({ outcome }: { outcome: string }) {
  return <span class={outcome === 'completed' ? 'badge ok' : 'badge bad'}>{outcome}</span>;
}

/** Opens a task by id: works on any server, with or without the list route. */
function GoToTask() {
  const [id, setId] = useState('');
  return (
    <form
      class="inline"
      aria-label="Open a task"
      onSubmit={(e) => {
        e.preventDefault();
        if (id.trim() !== '') location.hash = href('tasks', id.trim());
      }}
    >
      <label>
        Task id
        <input name="task_id" value={id} required onInput={(e) => setId(e.currentTarget.value)} />
      </label>
      <button type="submit">Open task</button>
    </form>
  );
}

const CREATE_FIELDS = ['task_id', 'title', 'session_id', 'description', 'labels'] as const;

function NewTaskForm({ onCancel }: { onCancel: () => void }) {
  const { client } = useConsole();
  const [draft, setDraft] = useState({ task_id: '', title: '', session_id: 'console', description: '', labels: '' });
  const { form, prompts, failure, busy, send } = useGatedWrite(CREATE_FIELDS);
  // Opened from the "New task" button: the keyboard lands in its first field.
  useEffect(() => form.current?.querySelector<HTMLInputElement>('input')?.focus(), []);
  const set = (name: keyof typeof draft) => (e: { currentTarget: HTMLInputElement | HTMLTextAreaElement }) => setDraft({ ...draft, [name]: e.currentTarget.value });

  async function submit() {
    const body: TaskCreateRequest = { title: draft.title, session_id: draft.session_id };
    if (draft.task_id.trim()) body.task_id = draft.task_id.trim();
    if (draft.description.trim()) body.description = draft.description;
    const labels = draft.labels
      .split(',')
      .map((l) => l.trim())
      .filter((l) => l !== '');
    if (labels.length > 0) body.labels = labels;
    await send(
      () => client.createTask(body),
      (res) => {
        location.hash = href('tasks', res.body.task.task_id);
      },
    );
  }

  const p = prompts ?? NO_PROMPTS;
  return (
    <form
      id="new-task"
      ref={form}
      class="stack panel"
      aria-labelledby="new-task-heading"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <h2 id="new-task-heading">New task</h2>
      {prompts && <PromptSummary prompts={prompts} what="The task" />}
      {failure && <ErrorBox failure={failure} />}
      <Field form="new-task" name="title" label="Title" prompts={p}>
        {(c) => <input {...c} value={draft.title} required maxLength={200} onInput={set('title')} />}
      </Field>
      <Field form="new-task" name="session_id" label="Session id" hint="The session this work belongs to." prompts={p}>
        {(c) => <input {...c} value={draft.session_id} required onInput={set('session_id')} />}
      </Field>
      <Field form="new-task" name="task_id" label="Task id (optional)" hint="Left empty, the server makes one." prompts={p}>
        {(c) => <input {...c} value={draft.task_id} onInput={set('task_id')} />}
      </Field>
      <Field form="new-task" name="description" label="Description (optional)" prompts={p}>
        {(c) => <textarea {...c} value={draft.description} onInput={set('description')} />}
      </Field>
      <Field form="new-task" name="labels" label="Labels (optional)" hint="Comma separated." prompts={p}>
        {(c) => <input {...c} value={draft.labels} onInput={set('labels')} />}
      </Field>
      <div class="buttons">
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Creating…' : 'Create task'}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
