// GET /v1/tasks over a real socket: the scope's task projections newest created first, paged by an
// opaque cursor, filtered by status, never another scope's, and 400 on a query outside its
// declaration.
import t, { type Test } from 'tap';
import { closeout } from '../fixtures/bodies.ts';
import { serveApp } from '../fixtures/served-app.ts';
import { assertSchema, SCOPE_A, SCOPE_B, TOKENS, type Scope } from '../fixtures/test-app.ts';

async function served(t: Test) {
  const { baseUrl } = await serveApp(t);
  const headers = (scope: Scope | null, token: string | null = TOKENS.customer): Record<string, string> => ({
    ...(token === null ? {} : { Authorization: `Bearer ${token}` }),
    ...(scope === null ? {} : { 'X-Tenant-Id': scope.tenant_id, 'X-Workspace-Id': scope.workspace_id, 'X-Project-Id': scope.project_id }),
  });
  const post = async (path: string, body: unknown, scope: Scope = SCOPE_A) => {
    const res = await fetch(`${baseUrl}${path}`, { method: 'POST', headers: { ...headers(scope), 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    t.equal(res.status, 201, `POST ${path}`);
    return res.json() as Promise<any>;
  };
  const list = async (query = '', scope: Scope | null = SCOPE_A, token: string | null = TOKENS.customer) => {
    const res = await fetch(`${baseUrl}/v1/tasks${query}`, { headers: headers(scope, token) });
    return { status: res.status, type: res.headers.get('content-type'), json: (await res.json()) as any };
  };
  const get = async (taskId: string) => (await (await fetch(`${baseUrl}/v1/tasks/${taskId}`, { headers: headers(SCOPE_A) })).json()) as any;
  return { post, list, get };
}

t.test('lists the scope\'s tasks newest first, as GET /v1/tasks/{task_id} answers each', async (t) => {
  const { post, list, get } = await served(t);
  t.same(await list(), { status: 200, type: 'application/json', json: { tasks: [], next_cursor: null } }, 'an empty scope lists nothing');
  for (const n of [1, 2, 3]) await post('/v1/tasks', { task_id: `task-${n}`, title: `Task number ${n}`, session_id: 'sess-1' });
  // A later event on an older task does not move it: the order is by creation.
  await post('/v1/tasks/task-1/checkpoints', { progress: 'Checked the first task again' });
  await post('/v1/tasks/task-2/closeout', closeout);
  const all = await list();
  t.equal(all.status, 200);
  assertSchema(t, 'api/task-list.json', all.json);
  t.same(all.json, { tasks: [await get('task-3'), await get('task-2'), await get('task-1')], next_cursor: null }, 'each item is the projection itself');
  t.match(all.json.tasks[1], { task_id: 'task-2', status: 'closed', outcome: 'completed' });
  t.equal(all.json.tasks[2].last_seq, 4, 'the projection after its checkpoint');
});

t.test('pages by cursor and filters by status', async (t) => {
  const { post, list } = await served(t);
  for (const n of [1, 2, 3, 4, 5]) await post('/v1/tasks', { task_id: `task-${n}`, title: `Task number ${n}`, session_id: 'sess-1' });
  await post('/v1/tasks/task-2/closeout', closeout);
  await post('/v1/tasks/task-4/closeout', closeout);
  const ids = (page: { json: { tasks: { task_id: string }[] } }) => page.json.tasks.map((task) => task.task_id);

  const first = await list('?limit=2');
  t.same([ids(first), first.json.next_cursor], [['task-5', 'task-4'], 'task-4']);
  const second = await list(`?limit=2&cursor=${first.json.next_cursor}`);
  t.same([ids(second), second.json.next_cursor], [['task-3', 'task-2'], 'task-2']);
  // A task created between pages does not shift the next one.
  await post('/v1/tasks', { task_id: 'task-6', title: 'Task number 6', session_id: 'sess-1' });
  const third = await list(`?limit=2&cursor=${second.json.next_cursor}`);
  t.same([ids(third), third.json.next_cursor], [['task-1'], null], 'the last page says so');

  t.same(ids(await list('?status=open')), ['task-6', 'task-5', 'task-3', 'task-1']);
  t.same(ids(await list('?status=closed')), ['task-4', 'task-2']);
  const open = await list('?status=open&limit=1&cursor=task-5');
  t.same([ids(open), open.json.next_cursor], [['task-3'], 'task-3'], 'the cursor and the filter together');
  t.same((await list('?limit=100')).json.tasks.length, 6);
});

t.test('never lists another scope\'s tasks', async (t) => {
  const { post, list } = await served(t);
  await post('/v1/tasks', { task_id: 'task-a', title: 'Tenant A task', session_id: 'sess-1' });
  await post('/v1/tasks', { task_id: 'task-b', title: 'Tenant B task', session_id: 'sess-1' }, SCOPE_B);
  await post('/v1/tasks', { task_id: 'task-shared', title: 'Tenant B twin', session_id: 'sess-1' }, SCOPE_B);
  await post('/v1/tasks', { task_id: 'task-shared', title: 'Tenant A twin', session_id: 'sess-1' });
  t.same((await list()).json.tasks.map((task: { task_id: string; title: string }) => [task.task_id, task.title]), [['task-shared', 'Tenant A twin'], ['task-a', 'Tenant A task']]);
  t.same((await list('', SCOPE_B)).json.tasks.map((task: { task_id: string; title: string }) => [task.task_id, task.title]), [['task-shared', 'Tenant B twin'], ['task-b', 'Tenant B task']]);
  const other = { ...SCOPE_A, project_id: 'proj-2' };
  t.same((await list('', other)).json, { tasks: [], next_cursor: null }, 'another project of the same tenant sees none');
  const foreign = await list('?cursor=task-b');
  t.same([foreign.status, foreign.json.code], [400, 'invalid_query'], 'a cursor naming another scope\'s task is refused like any unknown one');
});

t.test('400 on a query outside the declaration; 401 and 400 before it', async (t) => {
  const { list } = await served(t);
  for (const query of ['?limit=0', '?limit=101', '?limit=ten', '?status=done', '?cursor=%20bad', '?cursor=no-such-task']) {
    const res = await list(query);
    t.same([res.status, res.type, res.json.code], [400, 'application/problem+json', 'invalid_query'], query);
  }
  t.match((await list('?limit=0')).json, { errors: [{ pointer: '/query/limit' }] });
  t.match((await list('?cursor=no-such-task')).json, { errors: [{ pointer: '/query/cursor' }] });
  t.same([(await list('', SCOPE_A, null)).status, (await list('', SCOPE_A, null)).json.code], [401, 'unauthorized']);
  const unscoped = await list('', null);
  t.same([unscoped.status, unscoped.json.code], [400, 'scope_required']);
  t.equal((await list('', SCOPE_A, TOKENS.operator)).status, 200, 'a read: the operator token may list too');
});
