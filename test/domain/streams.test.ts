// Stream states (src/domain/streams.ts): an event's streams, and the state after it. Only a task's
// stream closes, so only a task event reads the state before it; any other stream's state is its
// new version alone, and its state before is never asked for (a look-up in the index saved).
import t from 'tap';
import { approvalStream, assetStream, nextStreamState, streamsOf, taskStream, type StreamState } from '../../src/domain/streams.ts';

const scope = { tenant_id: 'tenant-a', workspace_id: 'ws-1', project_id: 'proj-1' };

/** A `before` that counts how often it is asked. */
function counted(state: StreamState | undefined): { before: () => StreamState | undefined; asked: () => number } {
  let n = 0;
  return { before: () => (n++, state), asked: () => n };
}

t.test('task streams: the state before is read, and task.closed closes the stream for good', async (t) => {
  const note = { ...scope, kind: 'ext.acme.note', task_id: 'task-1', seq: 7 };
  const task = taskStream(scope, 'task-1');
  t.same(streamsOf(note), [task]);
  const open = counted({ version: 3, closed: false });
  t.same(nextStreamState(open.before, note, task), { version: 7, closed: false });
  t.equal(open.asked(), 1);
  t.same(nextStreamState(counted(undefined).before, { ...note, kind: 'task.closed' }, task), { version: 7, closed: true });
  const closed = counted({ version: 5, closed: true });
  t.same(nextStreamState(closed.before, note, task), { version: 7, closed: true }, 'a closed task stays closed');
  t.equal(closed.asked(), 1);
});

t.test('other streams: the new version alone, without asking for the state before', async (t) => {
  const requested = { ...scope, kind: 'approval.requested', payload: { approval_id: 'apr_1' }, seq: 12 };
  const evaluated = { ...scope, kind: 'risk.evaluated', payload: { asset_id: 'asset-1' }, seq: 11 };
  t.same(streamsOf(requested), [approvalStream(scope, 'apr_1')]);
  t.same(streamsOf(evaluated), [assetStream(scope, 'asset-1')]);
  t.same(streamsOf({ ...scope, kind: 'access.logged', payload: {} }), [], 'an access entry without a task extends none');
  for (const event of [requested, evaluated]) {
    const before = counted({ version: 4, closed: false });
    t.same(nextStreamState(before.before, event, streamsOf(event)[0]!), { version: event.seq, closed: false });
    t.equal(before.asked(), 0, `${event.kind}: the state before is not read`);
  }
});

t.test('a decision written to a task extends its task and its aggregate: a write expecting either sees it', async (t) => {
  const decided = { ...scope, kind: 'approval.decided', task_id: 'task-1', payload: { approval_id: 'apr_1' }, seq: 20 };
  const task = taskStream(scope, 'task-1');
  t.same(streamsOf(decided), [task, approvalStream(scope, 'apr_1')]);
  const before = counted({ version: 9, closed: false });
  t.same(nextStreamState(before.before, decided, approvalStream(scope, 'apr_1')), { version: 20, closed: false }, 'the approval: its new version alone');
  t.equal(before.asked(), 0);
  t.same(nextStreamState(counted({ version: 19, closed: false }).before, decided, task), { version: 20, closed: false }, 'the task: read, still open');
  t.same(streamsOf({ ...decided, kind: 'access.logged', payload: {} }), [task], 'its access entry extends the task alone');
});
