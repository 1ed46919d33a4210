// One task (#/tasks/<task_id>[?limit=N]): its projection (GET /v1/tasks/{task_id}), its timeline with
// the hash chain, its checkpoints with the form that writes one, and the closeout form while it is
// open. Every write reloads the task and its timeline, so what is shown is what the server holds.
import { useEffect, useState } from 'preact/hooks';
import type { Task } from '../../../domain/contract/schema-types.gen.ts';
import { formatTime } from '../../components/format.ts';
import { href, type Route } from '../../router.ts';
import { failureOf, Loaded, Page, useConsole, useLoad } from '../../ui.tsx';
import { CheckpointForm, CheckpointList, CloseoutSummary } from './checkpoint.tsx';
import { CloseoutForm } from './closeout.tsx';
import { OutcomeBadge, StatusBadge } from './list.tsx';
import { TimelineList, useTimeline } from './timeline.tsx';

/** The timeline's page size: ?limit= in the hash (1–1000, the API's range), else the API's default. */
function limitOf(route: Route): number {
  const n = Number(route.query.get('limit'));
  return Number.isInteger(n) && n >= 1 && n <= 1000 ? n : 100;
}

export function TaskView({ taskId, route }: { taskId: string; route: Route }) {
  const { client, announce } = useConsole();
  const [round, setRound] = useState(0);
  const [closed, setClosed] = useState<Task | null>(null);
  const [load] = useLoad(async () => {
    const res = await client.getTask(taskId);
    return res.status === 200 ? res.body : failureOf(res);
  }, [client, taskId, round]);
  const timeline = useTimeline(taskId, limitOf(route), round);
  const reload = () => setRound((r) => r + 1);
  // The last task answered stays on screen while a write reloads it, so the forms keep their state.
  const [known, setKnown] = useState<Task | null>(null);
  useEffect(() => {
    if (load.state === 'ready') setKnown(load.data);
  }, [load]);
  const task = load.state === 'ready' ? load.data : known;

  return (
    <Page title={task ? task.title : `Task ${taskId}`} actions={<a href={href('tasks')}>All tasks</a>}>
      {closed && (
        // Read out by the page's live region (announce), not by this line.
        <p class="pass">Task closed: {closed.outcome}.</p>
      )}
      {task === null || load.state === 'error' ? (
        <Loaded load={load}>{() => null}</Loaded>
      ) : (
        <>
          <dl class="facts" aria-label="Task">
            <div>
              <dt>Task id</dt>
              <dd class="mono">{task.task_id}</dd>
            </div>
            <div>
              <dt>Status</dt>
              <dd>
                <StatusBadge status={task.status} />
              </dd>
            </div>
            <div>
              <dt>Outcome</dt>
              <dd>{task.outcome ? <OutcomeBadge outcome={task.outcome} /> : '—'}</dd>
            </div>
            <div>
              <dt>Created</dt>
              <dd>
                <time dateTime={task.created_at}>{formatTime(task.created_at)}</time>
              </dd>
            </div>
            {task.closed_at && (
              <div>
                <dt>Closed</dt>
                <dd>
                  <time dateTime={task.closed_at}>{formatTime(task.closed_at)}</time>
                </dd>
              </div>
            )}
            <div>
              <dt>Sessions</dt>
              <dd class="mono">{task.session_ids.join(', ') || '—'}</dd>
            </div>
            <div>
              <dt>Version (last seq)</dt>
              <dd>{task.last_seq}</dd>
            </div>
          </dl>
        </>
      )}

      {task?.status === 'closed' && <CloseoutSummary events={timeline.events} />}

      {/* A task that does not answer (404, another scope) has nothing more to show than its error. */}
      {!(task === null && load.state === 'error') && (
        <>
          <section aria-labelledby="timeline-title">
            <h2 id="timeline-title">Timeline</h2>
            <TimelineList timeline={timeline} />
          </section>

          <section aria-labelledby="checkpoints-title">
            <h2 id="checkpoints-title">Checkpoints</h2>
            <CheckpointList events={timeline.events} />
            {task?.status === 'open' && <CheckpointForm taskId={taskId} onWritten={reload} />}
          </section>
        </>
      )}

      {task?.status === 'open' && (
        <section class="closeout">
          <CloseoutForm
            taskId={taskId}
            onClosed={(task) => {
              setClosed(task);
              announce(`Task closed: ${task.outcome ?? 'closed'}.`);
              reload();
            }}
          />
        </section>
      )}
    </Page>
  );
}
