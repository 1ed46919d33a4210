// The MCP front door in-process: a real SDK Client over InMemoryTransport, the real server, and a
// real preview app listening on 127.0.0.1:0. Tool list and schemas, every happy path, the repair
// flow of a failed closeout, problem bodies and argument errors, and the target risk tool.
import t from 'tap';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { testSchemas } from '../fixtures/templates.ts';
import { connectMcp as connect, liveApi, TOOL_NAMES } from '../fixtures/mcp-harness.ts';
import { assertSchema, SCOPE_A, SCOPE_B, TOKENS } from '../fixtures/test-app.ts';
import { closeout, evidence } from '../fixtures/bodies.ts';
const POLICY = 'access_policy=api_only_no_local_fallback';


t.test('tools/list: exactly the contract tools, each with a self-contained object input schema', async (t) => {
  const { baseUrl } = await liveApi(t);
  const { mcp } = await connect(t, { baseUrl });
  t.match(mcp.getInstructions(), new RegExp(POLICY), 'the instructions state the access policy');
  const { tools, nextCursor } = await mcp.listTools();
  t.same(tools.map((tool) => tool.name), TOOL_NAMES);
  t.equal(nextCursor, undefined, 'one page');
  await t.rejects(mcp.listTools({ cursor: 'page-2' }), { code: -32602, message: /Unknown cursor/ }, 'a cursor never issued is invalid params');
  const ajv = new Ajv2020({ strict: true, strictRequired: false, allowUnionTypes: true, allErrors: true }); // the registry's options
  (addFormatsModule as unknown as (a: Ajv2020) => void)(ajv);
  for (const tool of tools) {
    t.equal(tool.inputSchema.type, 'object', `${tool.name}: type object`);
    t.equal((tool.inputSchema as any).additionalProperties, false, `${tool.name}: no unknown arguments`);
    t.notMatch(JSON.stringify(tool.inputSchema), /"\$ref"/, `${tool.name}: every $ref inlined`);
    t.doesNotThrow(() => ajv.compile(tool.inputSchema), `${tool.name}: compiles on its own, with no other document`);
    t.ok(tool.description && tool.description.length > 20, `${tool.name}: described`);
  }
  const byName = new Map(tools.map((tool) => [tool.name, tool.inputSchema as any]));
  const scopeArgs = ['tenant_id', 'workspace_id', 'project_id'];
  // Body tools take exactly the request body's members, plus path parameters and scope.
  for (const [tool, request, path] of [['task_create', 'task-create-request', []], ['task_checkpoint', 'checkpoint-request', ['task_id']], ['task_closeout', 'closeout-request', ['task_id']]] as const) {
    const body = testSchemas().schemas.get(`https://schemas.gov.local/api/${request}.json`) as any;
    t.same(Object.keys(byName.get(tool).properties).sort(), [...path, ...Object.keys(body.properties), ...scopeArgs].sort(), `${tool} arguments = body members + path + scope`);
    t.same(byName.get(tool).required, [...path, ...body.required], `${tool}: required = path + body required`);
  }
  t.same(Object.keys(byName.get('search_tasks').properties).sort(), ['cursor', 'kind', 'limit', 'q', 'task_id', ...scopeArgs].sort());
  t.same(Object.keys(byName.get('task_timeline').properties).sort(), ['after_seq', 'limit', 'task_id', ...scopeArgs].sort());
  const risk = byName.get('service.risk.evaluate');
  t.same(risk.required, ['asset_id', 'risk_inputs']);
  t.same(risk.properties.risk_inputs.required, ['data_sensitivity', 'decision_impact', 'autonomy', 'vendor_maturity', 'prohibited_practice']);
  for (const member of risk.properties.risk_inputs.required) t.equal(risk.properties.risk_inputs.properties[member].type, 'integer', member);
  t.ok(ajv.validate(byName.get('task_closeout'), { task_id: 'task-1', ...closeout }), 'a good closeout fits the closeout tool schema');
  t.notOk(ajv.validate(byName.get('task_closeout'), { task_id: 'task-1', ...closeout, evidence_refs: [{ ...evidence, sha256: 'XYZ' }] }), 'nested evidence rules survive inlining');
});

t.test('every happy path, against the live API', async (t) => {
  const { baseUrl, service } = await liveApi(t);
  const { call, client } = await connect(t, { baseUrl });

  const health = await call('service_health');
  t.equal(health.isError, false);
  t.match(health.structured, { status: 200, access_policy: 'api_only_no_local_fallback', base_url: baseUrl });
  assertSchema(t, 'api/health.json', health.structured.body);
  t.match(health.text, new RegExp(POLICY));

  const defaults: Array<[string, string]> = [['task_template', 'task.create.v1'], ['lifecycle_template', 'checkpoint.write.v1'], ['closeout_template', 'task_closeout.v1']];
  for (const [tool, id] of defaults) {
    const res = await call(tool);
    t.equal(res.isError, false, tool);
    t.equal(res.structured.status, 200);
    t.equal(res.structured.body.template_id, id, `${tool} defaults to ${id}`);
    assertSchema(t, 'api/template.json', res.structured.body);
  }
  t.equal((await call('task_template', { template_id: 'closeout' })).structured.body.template_id, 'task_closeout.v1', 'an alias works');

  const created = await call('task_create', { task_id: 'task-1', title: 'Move the invoice renderer to the new font pipeline', session_id: 'sess-1' });
  t.equal(created.isError, false, 'created');
  t.equal(created.structured.status, 201);
  assertSchema(t, 'api/task-write-response.json', created.structured.body);
  t.match(created.structured.body.task, { task_id: 'task-1', status: 'open' });
  t.same(JSON.parse(created.text), created.structured, 'the text is a JSON copy of the structured content');

  const agent = { type: 'agent', id: 'font-agent-2' };
  const cp = await call('task_checkpoint', { task_id: 'task-1', progress: 'Fonts uploaded; kerning checked on the sample set', next_actions: ['Re-render the backlog'], actor: agent });
  t.equal(cp.structured.status, 201, 'checkpoint written');
  t.equal(cp.structured.body.event.kind, 'task.checkpoint.written');
  t.same([created.structured.body.event.actor, cp.structured.body.event.actor], [{ type: 'service_account', id: 'preview-customer' }, agent], 'an actor argument names the agent; without one, the transport');

  const found = await call('search_tasks', { q: 'kerning' });
  t.equal(found.isError, false);
  assertSchema(t, 'api/search-result.json', found.structured.body);
  t.same(found.structured.body.results.map((r: any) => [r.task_id, r.kind]), [['task-1', 'task.checkpoint.written']]);

  const closed = await call('task_closeout', { task_id: 'task-1', ...closeout });
  t.equal(closed.structured.status, 201, 'closed');
  t.match(closed.structured.body.task, { status: 'closed', outcome: 'completed' });

  const timeline = await call('task_timeline', { task_id: 'task-1', limit: 2 });
  assertSchema(t, 'api/timeline.json', timeline.structured.body);
  t.same(timeline.structured.body.events.map((e: any) => e.kind), ['task.created', 'task.checkpoint.written']);
  t.equal(timeline.structured.body.next_after_seq, 2);
  const page2 = await call('task_timeline', { task_id: 'task-1', after_seq: 2 });
  t.same(page2.structured.body.events.map((e: any) => e.kind), ['task.closed']);

  t.equal(service.store.tail().seq, 3, 'three events, all written through the HTTP API');
  const direct = await client.getTask('task-1', { scope: SCOPE_A });
  t.equal(direct.status === 200 && direct.body.status, 'closed', 'the API itself sees the closed task');

  // Explicit scope arguments beat the defaults, and scopes never see each other.
  const inB = await call('task_create', { ...SCOPE_B, task_id: 'task-b', title: 'A task of tenant B only', session_id: 'sess-b' });
  t.equal(inB.structured.status, 201);
  t.equal((await client.getTask('task-b', { scope: SCOPE_B })).status, 200);
  const fromA = await call('task_timeline', { task_id: 'task-b' });
  t.equal(fromA.isError, true);
  t.equal(fromA.structured.body.code, 'task_not_found');
});

t.test('a failed closeout returns every repair prompt; following them closes the task', async (t) => {
  const { baseUrl, service } = await liveApi(t);
  const { call } = await connect(t, { baseUrl });
  await call('task_create', { task_id: 'task-1', title: 'Move the invoice renderer to the new font pipeline', session_id: 'sess-1' });
  const before = service.store.tail().seq;
  const { context_lines: _c, future_agent_traps: _f, ...partial } = closeout;
  const failed = await call('task_closeout', { task_id: 'task-1', ...partial, context_lines: ['TODO'], future_agent_traps: ['<a trap>'] });
  t.equal(failed.isError, true);
  t.equal(failed.structured.status, 422);
  t.equal(failed.structured.error.code, 'validation_failed');
  assertSchema(t, 'api/validation-result.json', failed.structured.body);
  const body = failed.structured.body;
  t.same([...body.missing_fields].sort(), ['context_lines', 'future_agent_traps']);
  t.equal(body.repair_prompt.length, 2);
  for (const prompt of body.repair_prompt) t.ok(failed.text.includes(`- ${prompt}`), `the text carries the prompt: ${prompt.slice(0, 40)}…`);
  t.match(failed.text, /Missing or rejected fields: (context_lines, future_agent_traps|future_agent_traps, context_lines)\./);
  t.match(failed.text, /call task_closeout again/);
  t.equal(service.store.tail().seq, before, 'nothing written');

  const fixed = await call('task_closeout', { task_id: 'task-1', ...closeout });
  t.equal(fixed.isError, false, 'closed after following the prompts');
  t.equal(fixed.structured.body.task.status, 'closed');
});

t.test('problem bodies and argument errors are isError results with the code and what to do', async (t) => {
  const { baseUrl } = await liveApi(t);
  let fetches = 0;
  const counting: typeof fetch = (input, init) => {
    fetches++;
    return fetch(input, init);
  };
  const { call } = await connect(t, { baseUrl, fetch: counting });
  const cases: [string, Record<string, unknown>, string, RegExp][] = [
    ['task_checkpoint', { task_id: 'nope-1', progress: 'x' }, 'task_not_found', /task_create opens a new one/],
    ['task_timeline', { task_id: 'nope-1' }, 'task_not_found', /task_create opens a new one|No task nope-1/],
    ['task_template', { template_id: 'no-such-template' }, 'template_not_found', /GET \/v1\/templates/],
  ];
  for (const [tool, args, code, hint] of cases) {
    const res = await call(tool, args);
    t.equal(res.isError, true, `${tool} ${code}`);
    t.equal(res.structured.body.code, code);
    t.equal(res.structured.error.code, code);
    t.match(res.text, new RegExp(`answered \\d{3} ${code}`));
    t.match(res.text, hint);
  }
  // A body the template's gate refuses is the validation body, explained like a failed closeout.
  const gated = await call('task_create', { title: 'Bad', session_id: 'sess-1', colour: 'red' });
  t.same([gated.isError, gated.structured.status, gated.structured.error.code], [true, 422, 'validation_failed']);
  t.match(gated.text, /blocker schema_violation at colour: unknown member "colour"/);
  t.match(gated.text, /call task_create again/);
  const noScope = await connect(t, { baseUrl, scope: {} });
  const missing = await noScope.call('task_create', { title: 'No scope anywhere', session_id: 'sess-1' });
  t.equal(missing.structured.body.code, 'scope_required');
  t.match(missing.text, /GOV_TENANT_ID, GOV_WORKSPACE_ID and GOV_PROJECT_ID/);
  const wrongToken = await connect(t, { baseUrl, token: 'not-the-token' });
  const denied = await wrongToken.call('search_tasks', { q: 'anything' });
  t.equal(denied.structured.body.code, 'unauthorized');
  t.match(denied.text, /restart gov mcp/);

  const before = fetches;
  for (const [tool, args, code] of [['search_tasks', { q: 'x', colour: 'red' }, 'unknown_argument'], ['task_timeline', {}, 'invalid_argument'], ['task_closeout', { task_id: 7 }, 'invalid_argument'], ['task_create', { title: 'x', session_id: 's-1', tenant_id: 5 }, 'invalid_argument']] as const) {
    const res = await call(tool, args);
    t.equal(res.isError, true, `${tool} ${code}`);
    t.same(res.structured, { status: null, body: null, error: { code, message: res.structured.error.message } });
  }
  // Arguments that break the tool's input schema are named as argument errors, never sent.
  let deep: unknown = 'leaf';
  for (let i = 0; i < 5_000; i++) deep = [deep];
  const refusals: Array<[string, Record<string, unknown>, RegExp]> = [
    ['search_tasks', { q: 'x'.repeat(2_000) }, /search_tasks: the argument q: .*256/],
    ['search_tasks', { q: 'x', limit: '5' }, /the argument limit: must be integer/],
    ['task_template', { template_id: '!' }, /the argument template_id: must match pattern/],
    ['task_timeline', { task_id: 'task-1', tenant_id: 'acme\r\nX-Evil: 1' }, /the argument tenant_id: must match pattern/],
    ['task_create', { title: 'Bad scope', session_id: 'sess-1', tenant_id: '!' }, /The argument tenant_id must be an id/],
    ['task_timeline', { task_id: 'task-1', limit: 0 }, /the argument limit: must be >= 1/],
    // The route's own bound (a seq is a safe integer): past it the API would answer invalid_query.
    ['task_timeline', { task_id: 'task-1', after_seq: 2 ** 53 }, /the argument after_seq: must be <= 9007199254740991/],
    ['search_tasks', { q: 'invoice \uD800 font' }, /search_tasks: the argument q holds half of a character/],
    ['task_create', { title: 'Deep', session_id: 'sess-1', labels: deep }, /The arguments nest more than 64 levels \(at \/labels(\/0)+\)/],
  ];
  for (const [tool, args, message] of refusals) {
    const res = await call(tool, args);
    t.equal(res.isError, true, `${tool} refused`);
    t.equal(res.structured.error.code, 'invalid_argument');
    t.match(res.structured.error.message, message);
  }
  t.equal(fetches, before, 'arguments that cannot make a request are refused before any call');
  await t.rejects(call('no_such_tool'), /Unknown tool/, 'an unknown tool is a protocol error');
});

t.test('service.risk.evaluate evaluates a registered asset through the API: the same answer as the route', async (t) => {
  const { baseUrl, service } = await liveApi(t);
  const { call } = await connect(t, { baseUrl });
  const inputs = { data_sensitivity: 3, decision_impact: 3, autonomy: 2, vendor_maturity: 2, prohibited_practice: 0 };
  const before = service.store.tail().seq;
  const unknown = await call('service.risk.evaluate', { asset_id: 'asset-7', risk_inputs: inputs, ...SCOPE_A });
  t.equal(unknown.isError, true, 'an asset that is not registered');
  t.equal(unknown.structured.body.code, 'not_found_in_scope');
  const registered = await fetch(`${baseUrl}/v1/governance/assets`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${TOKENS.customer}`, 'Content-Type': 'application/json', 'X-Tenant-Id': SCOPE_A.tenant_id, 'X-Workspace-Id': SCOPE_A.workspace_id, 'X-Project-Id': SCOPE_A.project_id },
    body: JSON.stringify({ asset_id: 'asset-7', name: 'CV screener', purpose: 'Rank job applications', owner: { type: 'user', id: 'olivia' }, deployment_context: 'HR', models: [{ provider: 'acme', name: 'rank-1' }] }),
  });
  t.equal(registered.status, 201);
  const res = await call('service.risk.evaluate', { asset_id: 'asset-7', risk_inputs: inputs, ...SCOPE_A });
  t.equal(res.isError, false);
  t.equal(res.structured.status, 201);
  const { evaluation, event } = res.structured.body;
  t.same([evaluation.points, evaluation.score, evaluation.tier, evaluation.policy.id, evaluation.policy.version], [31, 65, 'high', 'gov.risk.default', '1.0.0'], 'the CV screening golden vector');
  t.match(evaluation.approval_id, /^apr_/, 'a high tier requests its approval');
  t.match(event, { event_id: String, seq: Number, event_hash: /^sha256:/ }, 'the event binding');
  const again = await call('service.risk.evaluate', { asset_id: 'asset-7', risk_inputs: inputs, ...SCOPE_A });
  t.equal(again.structured.body.evaluation.input_sha256, evaluation.input_sha256, 'same inputs, same hash');
  const bad = await call('service.risk.evaluate', { asset_id: 'asset-7', risk_inputs: { ...inputs, autonomy: 7 }, ...SCOPE_A });
  t.equal(bad.isError, true);
  t.equal(bad.structured.body.code, 'validation_failed');
  t.match(bad.text, /suggests only/, 'the refusal quotes the anchor sentences');
  t.ok(service.store.tail().seq > before, 'the evaluations are events in the log');
  const task = await call('task_create', { task_id: 'adopt-screener', title: 'Adopt the CV screener for the HR pilot', session_id: 'sess-1', ...SCOPE_A });
  t.equal(task.structured.status, 201, 'a task to bind the evaluation to');
  const bound = await call('service.risk.evaluate', { asset_id: 'asset-7', risk_inputs: inputs, task_id: 'adopt-screener', ...SCOPE_A });
  t.equal(bound.structured.status, 201, bound.text);
  const timeline = await call('task_timeline', { task_id: 'adopt-screener', ...SCOPE_A });
  t.ok(timeline.structured.body.events.some((e: { event_id: string }) => e.event_id === bound.structured.body.event.event_id), 'an evaluation naming its task is in the task\'s timeline');
});
