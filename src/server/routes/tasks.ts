// Tasks: create, checkpoint, closeout, the scope's list, the projection and the timeline (event
// truth, cursor paging by after_seq). A body its template's gate refuses answers 422 with the validation body (not a problem
// body), as docs/contract.md §4 and §7 say, and writes nothing. Checkpoint and closeout take If-Match
// (the task's ETag); every task write answers its new ETag.
import type { StoredEvent } from '../../domain/event.ts';
import { closeTask, createTask, listTasks, writeCheckpoint } from '../../service/tasks-service.ts';
import { findTask } from '../../service/write-checks.ts';
import { readQuery, type QuerySpec } from '../query-params.ts';
import { requirePathId } from '../request-input.ts';
import { P, U } from '../responses.ts';
import type { Route } from '../route-spec.ts';
import { etagOf, RawJson, writeContextOf, writeResponse } from '../write-context.ts';

/**
 * How many bytes of events a timeline page holds at most (its first event whatever its size): a
 * page stops before the event that would pass it, and next_after_seq says where to go on.
 */
export const MAX_TIMELINE_PAGE_BYTES = 8 * 1024 * 1024;

/** GET /v1/tasks/{task_id}/timeline: cursor paging by seq. */
export const TIMELINE_QUERY = {
  after_seq: { schema: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0 }, description: 'Only events after this seq: the next_after_seq of the previous page (0, the default, starts at the first event).' },
  limit: { schema: { type: 'integer', minimum: 1, maximum: 1000, default: 100 }, description: 'Events per page.' },
} as const satisfies QuerySpec;

/** GET /v1/tasks: newest created first, cursor paging by the last task of the previous page. */
export const TASK_LIST_QUERY = {
  status: { schema: { type: 'string', enum: ['open', 'closed'] }, description: 'Only tasks with this status.' },
  limit: { schema: { type: 'integer', minimum: 1, maximum: 100, default: 50 }, description: 'Tasks per page.' },
  cursor: { schema: { $ref: 'common/types.json#/$defs/id' }, description: 'The next_cursor of the previous page.', refusal: { message: 'cursor must be a next_cursor value from a previous page.' } },
} as const satisfies QuerySpec;

export const TASK_ROUTES: Route[] = [
  {
    method: 'POST', path: '/v1/tasks', status: 'live', access: 'write', scoped: true,
    summary: 'Create a governed task (task.created).',
    readme: '→ `task.created` when the `task.create.v1` gate passes; else 422 validation body',
    request: 'api/task-create-request.json',
    // Reads nothing from the index (the log's gate checks that the task is new; the answer folds the
    // event itself), so a create lands while the index cannot be written, as a raw event does.
    responses: { 201: 'api/task-write-response.json', 200: 'api/task-write-response.json', 400: P, 409: P, 412: P, 422: U }, etag: 'write', readsIndex: false,
    handler: async (c, deps) => {
      const outcome = await createTask(deps, writeContextOf(c), c.get('body'), c.req.header('if-match') !== undefined);
      if (!outcome.ok) return c.json(outcome.validation, 422);
      const { replayed, task, event, line } = outcome.write;
      return writeResponse(c, replayed, { task, event: new RawJson(line) }, event.seq);
    },
  },
  {
    method: 'POST', path: '/v1/tasks/{task_id}/checkpoints', status: 'live', access: 'write', scoped: true,
    summary: 'Write progress, blockers, next actions, context lines and evidence (task.checkpoint.written).',
    readme: '→ `task.checkpoint.written` when the `checkpoint.write.v1` gate passes; else 422 validation body',
    request: 'api/checkpoint-request.json',
    responses: { 201: 'api/event-response.json', 200: 'api/event-response.json', 400: P, 404: P, 409: P, 412: P, 422: U }, etag: 'write', readsIndex: false,
    handler: async (c, deps) => {
      const taskId = requirePathId(c.req.param('task_id') ?? '', 'task');
      const outcome = await writeCheckpoint(deps, writeContextOf(c), taskId, c.get('body'));
      if (!outcome.ok) return c.json(outcome.validation, 422);
      const { replayed, event, line } = outcome.write;
      return writeResponse(c, replayed, { event: new RawJson(line) }, event.seq);
    },
  },
  {
    method: 'POST', path: '/v1/tasks/{task_id}/closeout', status: 'live', access: 'write', scoped: true,
    summary: 'Close a task (task.closed) only after the closeout gates pass.',
    readme: '→ `task.closed` only when the gates pass; else 422 validation body',
    request: 'api/closeout-request.json',
    responses: { 201: 'api/task-write-response.json', 200: 'api/task-write-response.json', 400: P, 404: P, 409: P, 412: P, 422: U }, etag: 'write',
    handler: async (c, deps) => {
      const taskId = requirePathId(c.req.param('task_id') ?? '', 'task');
      const outcome = await closeTask(deps, writeContextOf(c), taskId, c.get('body'));
      if (!outcome.ok) return c.json(outcome.validation, 422);
      const { replayed, task, event, line } = outcome.write;
      return writeResponse(c, replayed, { task, event: new RawJson(line) }, event.seq);
    },
  },
  {
    method: 'GET', path: '/v1/tasks', status: 'preview', access: 'read', scoped: true,
    summary: "The scope's tasks, newest created first, by status (cursor paging): each the projection GET /v1/tasks/{task_id} answers.",
    readme: '`?status=open|closed&limit=` (1–100, default 50) `&cursor=`',
    query: TASK_LIST_QUERY, responses: { 200: 'api/task-list.json', 400: P },
    handler: (c, deps) => {
      const q = readQuery(c, TASK_LIST_QUERY, deps.registry);
      return c.json(listTasks(deps, c.get('scope'), { ...(q.status ? { status: q.status } : {}), ...(q.cursor ? { cursor: q.cursor } : {}), limit: q.limit }));
    },
  },
  {
    method: 'GET', path: '/v1/tasks/{task_id}', status: 'preview', access: 'read', scoped: true,
    summary: 'The task projection (ETag: its version).', readme: 'the task projection',
    responses: { 200: 'api/task.json', 404: P }, etag: 'read',
    handler: (c, deps) => {
      const task = findTask(deps, c.get('scope'), requirePathId(c.req.param('task_id') ?? '', 'task'));
      // The task's version (the seq of its last event) is what a conditional write's If-Match names.
      c.header('ETag', etagOf(task.last_seq));
      return c.json(task);
    },
  },
  {
    method: 'GET', path: '/v1/tasks/{task_id}/timeline', status: 'live', access: 'read', scoped: true,
    summary: 'Ordered task event truth (cursor paging by after_seq).',
    readme: '`?after_seq=` (default 0) `&limit=` (1–1000, default 100); a page holds at most 8 MiB of events (its first whatever its size)',
    query: TIMELINE_QUERY, responses: { 200: 'api/timeline.json', 400: P, 404: P },
    handler: (c, deps) => {
      const scope = c.get('scope');
      const taskId = requirePathId(c.req.param('task_id') ?? '', 'task');
      const { after_seq: afterSeq, limit } = readQuery(c, TIMELINE_QUERY);
      findTask(deps, scope, taskId);
      // At most `limit` events and MAX_TIMELINE_PAGE_BYTES of them (events of a megabyte each made a
      // page of 1,000 hundreds of megabytes); the page's last line names the seq the next starts after.
      const { lines: page, bytes: sizes, more } = deps.queries.timelinePage(scope, taskId, afterSeq, limit, MAX_TIMELINE_PAGE_BYTES);
      const next = more ? (JSON.parse(page[page.length - 1]!) as StoredEvent).seq : null;
      // The stored lines are already canonical JSON: they are embedded as they are, not parsed and
      // encoded again (a 1,000-event page would spend most of its time doing that). Measured line
      // by line, the answer's Content-Length spares the adapter a pass over the joined ~0.8 MB.
      const head = `${JSON.stringify({ task_id: taskId, scope }).slice(0, -1)},"events":[`;
      const tail = `],"next_after_seq":${next},"authority":"event_truth"}`;
      let bytes = Buffer.byteLength(head) + Buffer.byteLength(tail) + Math.max(page.length - 1, 0);
      for (const size of sizes) bytes += size;
      const text = `${head}${page.join(',')}${tail}`;
      return c.body(text, 200, { 'Content-Type': 'application/json', 'Content-Length': String(bytes) });
    },
  },
];
