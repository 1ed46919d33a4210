// The front door's tools (docs/contract.md §11): for each, its input schema in schemas/mcp/, which
// arguments are path parameters, and the one client call it makes. No rule lives here: the API
// decides; a tool only maps flat arguments onto a route. build-server.ts checks the arguments
// against the tool's own input schema (a write's body goes on as it is: the API's 422 names it).
import type { ApiResponse, CallOptions, GovClient } from '../../client/client.ts';

export type ToolArgs = Record<string, unknown>;

export type ToolSpec = {
  name: string;
  description: string;
  /** The input schema's $id, relative to https://schemas.gov.local/. */
  schema: string;
  /** Path parameters: required, strings, never sent in a body. */
  path: string[];
  /** True when the remaining arguments form a request body (unknown members go to the API, which rejects them). */
  body: boolean;
  readOnly: boolean;
  call: (client: GovClient, args: ToolArgs, options: CallOptions) => Promise<ApiResponse>;
};

export const TEMPLATE_DEFAULTS = { task_template: 'task.create.v1', lifecycle_template: 'checkpoint.write.v1', closeout_template: 'task_closeout.v1' } as const;

export const RISK_TOOL = 'service.risk.evaluate';
export const RISK_ROUTE = 'POST /v1/risk/evaluations';

const templateTool = (name: keyof typeof TEMPLATE_DEFAULTS, what: string): ToolSpec => ({
  name,
  description: `Fetch the ${what} smart template (GET /v1/templates/{template_id}; default ${TEMPLATE_DEFAULTS[name]}): required fields, safe defaults, a starter payload to fill in and the agent obligations. Starter text is placeholder text: never send it back as it is.`,
  schema: `mcp/${name}.json`,
  path: [],
  body: false,
  readOnly: true,
  call: (c, a, o) => c.getTemplate(typeof a.template_id === 'string' ? a.template_id : TEMPLATE_DEFAULTS[name], o),
});

const str = (v: unknown) => String(v);

export const TOOLS: ToolSpec[] = [
  {
    name: 'service_health',
    description: 'Health of the gov API (GET /health): status, mode, release label and every route with its status class (live, preview, target). States access_policy=api_only_no_local_fallback.',
    schema: 'mcp/service_health.json',
    path: [],
    body: false,
    readOnly: true,
    call: (c, _a, o) => c.health(o),
  },
  templateTool('task_template', 'new-task'),
  templateTool('lifecycle_template', 'checkpoint (progress update)'),
  templateTool('closeout_template', 'task closeout'),
  {
    name: 'task_create',
    description: 'Open a governed task (POST /v1/tasks → task.created). Search first (search_tasks) so you do not open a second task for the same work. Answers {task, event}.',
    schema: 'mcp/task_create.json',
    path: [],
    body: true,
    readOnly: false,
    call: (c, a, o) => c.forward('POST /v1/tasks', { ...o, body: a }),
  },
  {
    name: 'task_checkpoint',
    description: 'Record progress on an open task (POST /v1/tasks/{task_id}/checkpoints → task.checkpoint.written): progress, blockers, next actions, context lines and evidence references.',
    schema: 'mcp/task_checkpoint.json',
    path: ['task_id'],
    body: true,
    readOnly: false,
    call: (c, { task_id, ...body }, o) => c.forward('POST /v1/tasks/{task_id}/checkpoints', { ...o, params: { task_id: str(task_id) }, body }),
  },
  {
    name: 'task_closeout',
    description: 'Close a task (POST /v1/tasks/{task_id}/closeout → task.closed) once the closeout gates pass. completed needs verification, an evidence reference, context_lines and future_agent_traps; blocked/deferred need blockers or gaps, next_actions, context_lines and future_agent_traps (task-specific lines of 20+ characters, no placeholder text). A failure lists repair prompts: fix every one and call again.',
    schema: 'mcp/task_closeout.json',
    path: ['task_id'],
    body: true,
    readOnly: false,
    call: (c, { task_id, ...body }, o) => c.forward('POST /v1/tasks/{task_id}/closeout', { ...o, params: { task_id: str(task_id) }, body }),
  },
  {
    name: 'search_tasks',
    description: 'Tenant-scoped discovery over task events (GET /v1/search) by q (words) and/or kind, newest first, paged by cursor. Discovery only, never proof: read task_timeline before claiming anything a result suggests.',
    schema: 'mcp/search_tasks.json',
    path: [],
    body: false,
    readOnly: true,
    call: (c, a, o) => c.forward('GET /v1/search', { ...o, query: a }),
  },
  {
    name: 'task_timeline',
    description: 'The ordered event truth of one task (GET /v1/tasks/{task_id}/timeline), paged by after_seq. This, not search, is what claims rest on.',
    schema: 'mcp/task_timeline.json',
    path: ['task_id'],
    body: false,
    readOnly: true,
    call: (c, { task_id, ...query }, o) => c.forward('GET /v1/tasks/{task_id}/timeline', { ...o, params: { task_id: str(task_id) }, query }),
  },
  {
    name: RISK_TOOL,
    description: `Evaluate the risk of a registered AI asset on the server (${RISK_ROUTE} → risk.evaluated, and approval.requested when the tier needs an approval) under the pinned policy gov.risk.default: asset_id and five integer risk_inputs 0-4, each level with an anchor sentence (vendor_maturity: higher is safer; any prohibited_practice above 0 makes the tier prohibited). Answers {evaluation, event}: points, score, tier, fired rules, required actions, input_sha256, the policy id, version and sha256, and the approval_id to decide. A value outside the levels is refused with a prompt quoting their anchors. Never report a tier you computed yourself, and never call it a legal classification.`,
    schema: `mcp/${RISK_TOOL}.json`,
    path: [],
    body: true,
    readOnly: false,
    call: (c, a, o) => c.forward(RISK_ROUTE, { ...o, body: a }),
  },
];
