// The MCP front door: a low-level SDK Server whose tools call the gov HTTP API through the typed
// client and nothing else (docs/contract.md §11). No data dir, no store, no local fallback: when the
// API is down a tool answers an error result naming the URL and how to start the preview.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { createClient, type ApiResponse, type CallOptions, type ClientScope, type GovClient } from '../client/client.ts';
import { hasLoneSurrogate } from '../domain/canonical-json.ts';
import { isId } from '../domain/event.ts';
import { findTooDeep, MAX_BODY_NESTING } from '../domain/json-depth.ts';
import { AppError, type ErrorDetail } from '../errors.ts';
import { VERSION } from '../version.ts';
import { SCHEMA_BASE } from '../schema-registry.ts';
import { derefSchema } from './deref-schema.ts';
import { ACCESS_POLICY, httpErrorResult, notApiResult, successResult, thrownErrorResult } from './tool-result.ts';
import { RISK_ROUTE, RISK_TOOL, TOOLS, type ToolArgs, type ToolSpec } from './tools/tool-table.ts';

export type FrontDoorDeps = {
  client: GovClient;
  /** The schema registry's `schemas` map ($id → schema): tool input schemas are inlined from it. */
  schemas: ReadonlyMap<string, Record<string, unknown>>;
  /**
   * The schema registry's `validate`: a tool that reads (its arguments a query, not a body) has
   * them checked against its input schema here, so a bad one is named as an argument error rather
   * than met as whatever the HTTP layer makes of it. A body goes to the API, whose 422 names it.
   */
  validate: (ref: string, value: unknown) => ErrorDetail[];
  /** Scope members used when a call leaves them out (from GOV_TENANT_ID / GOV_WORKSPACE_ID / GOV_PROJECT_ID). */
  scope?: Partial<ClientScope>;
  /** Diagnostics (stderr in gov mcp; never stdout, which is the protocol channel). */
  log?: (line: string) => void;
  version?: string;
  /** How long a tool waits for the API's answer (default API_TIMEOUT_MS). */
  timeoutMs?: number;
};

/**
 * Below the 60 s an MCP client (the SDK's default) waits for a tool: a hung API is then an error
 * result that says what to do, not a request timeout the agent cannot act on.
 */
export const API_TIMEOUT_MS = 30_000;

const SCOPE_ARGS = ['tenant_id', 'workspace_id', 'project_id'] as const;

/**
 * The client the front door calls the API with. It follows no redirect: a 3xx is answered as an
 * error result, so a write's body and the scope headers go to the base URL and nowhere else
 * (api_only_no_local_fallback is about where calls go, not only about local files).
 */
export function frontDoorClient(options: { baseUrl: string; token: string; fetch?: typeof fetch }): GovClient {
  return createClient({ ...options, redirect: 'manual' });
}

export function instructionsFor(baseUrl: string): string {
  return [
    `gov governance API front door. access_policy=${ACCESS_POLICY}: every tool calls the gov HTTP API at ${baseUrl}; nothing is read from local files and there is no local fallback — when the API is unreachable a tool answers an error saying how to start it.`,
    'Flow: search_tasks first (discovery only, never proof), task_template → task_create, lifecycle_template → task_checkpoint while working, closeout_template → task_closeout to finish. A closeout that fails its gates lists repair_prompt lines: fix every one and call task_closeout again.',
    'Claims rest on task_timeline (event truth), not on search results. Scope: pass tenant_id, workspace_id and project_id, or rely on the GOV_* defaults of this server.',
    `${RISK_TOOL} evaluates a registered AI asset on the server (${RISK_ROUTE}); its answer, not your own reckoning, is the asset's risk tier.`,
  ].join('\n');
}

export function toolList(schemas: FrontDoorDeps['schemas']): Tool[] {
  return TOOLS.map((spec) => ({
    name: spec.name,
    description: spec.description,
    inputSchema: derefSchema(schemas, SCHEMA_BASE + spec.schema) as Tool['inputSchema'],
    annotations: { readOnlyHint: spec.readOnly, destructiveHint: false, idempotentHint: spec.readOnly, openWorldHint: false },
  }));
}

export function buildMcpServer(deps: FrontDoorDeps): Server {
  const tools = toolList(deps.schemas);
  const known = new Map(tools.map((tool) => [tool.name, new Set(Object.keys(tool.inputSchema.properties ?? {}))]));
  const specs = new Map(TOOLS.map((spec) => [spec.name, spec]));
  const server = new Server(
    { name: 'gov', version: deps.version ?? VERSION },
    { capabilities: { tools: {} }, instructions: instructionsFor(deps.client.baseUrl) },
  );
  // One page holds every tool, so no cursor was ever issued: one sent is invalid (MCP pagination).
  server.setRequestHandler(ListToolsRequestSchema, async (request) => {
    if (request.params?.cursor !== undefined) throw new McpError(ErrorCode.InvalidParams, 'Unknown cursor: tools/list answers every tool in one page and issues no cursor; call it without one.');
    return { tools };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const spec = specs.get(request.params.name);
    if (!spec) throw new McpError(ErrorCode.InvalidParams, `Unknown tool ${request.params.name}; tools/list names every tool.`);
    const args = (request.params.arguments ?? {}) as ToolArgs;
    try {
      return await callTool(deps, spec, known.get(spec.name)!, args, extra.signal);
    } catch (err) {
      if (!(err instanceof AppError)) deps.log?.(`gov mcp: ${spec.name} failed: ${(err as Error)?.stack ?? String(err)}`);
      return thrownErrorResult(spec.name, err);
    }
  });
  return server;
}

async function callTool(deps: FrontDoorDeps, spec: ToolSpec, known: Set<string>, given: ToolArgs, cancelled: AbortSignal): Promise<CallToolResult> {
  // As the API refuses a body nested deeper (json_too_deep), before anything recursive sees it.
  const deep = findTooDeep(given, MAX_BODY_NESTING);
  if (deep !== null) throw new AppError('invalid_argument', `The arguments nest more than ${MAX_BODY_NESTING} levels (at ${deep}); send flatter JSON.`);
  if (!spec.body) {
    const unknown = Object.keys(given).filter((name) => !known.has(name));
    if (unknown.length > 0) throw new AppError('unknown_argument', `${spec.name} takes no argument ${unknown.join(', ')}.`);
    // A query goes out UTF-8 encoded, where a lone surrogate would silently become U+FFFD: the
    // tool would then search for something other than what it was given.
    const broken = Object.entries(given).find(([, value]) => typeof value === 'string' && hasLoneSurrogate(value));
    if (broken) throw new AppError('invalid_argument', `${spec.name}: the argument ${broken[0]} holds half of a character (a lone UTF-16 surrogate such as \\uD800 without its pair); send well-formed Unicode text.`);
    const problems = deps.validate(spec.schema, given);
    if (problems.length > 0) {
      throw new AppError('invalid_argument', `${spec.name}: ${problems.slice(0, 3).map((p) => `${p.pointer ? `the argument ${p.pointer.slice(1).split('/')[0]}` : 'the arguments'}: ${p.detail}`).join('; ')} (its input schema, tools/list).`, { details: problems });
    }
  }
  const { options, rest } = splitScope(deps.scope ?? {}, given);
  for (const name of spec.path) {
    if (typeof rest[name] !== 'string' || !isId(rest[name])) {
      throw new AppError('invalid_argument', `The argument ${name} is required and must be an id, 2–128 characters of letters, digits, _ . : - (the {${name}} of the route path).`);
    }
  }
  const res = await callWithin(deps, spec, rest, options, cancelled);
  // Only a 2xx is the route's answer; a 3xx (redirects are not followed) is a failure too.
  if (res.status < 200 || res.status >= 300) return httpErrorResult(spec.name, res);
  if (res.body === null || typeof res.body !== 'object' || Array.isArray(res.body)) return notApiResult(spec.name, res, !spec.readOnly);
  if (spec.name === 'service_health') {
    const lead = `access_policy=${ACCESS_POLICY}: gov mcp calls the API at ${deps.client.baseUrl} and nothing else.`;
    return successResult(res, { access_policy: ACCESS_POLICY, base_url: deps.client.baseUrl }, lead);
  }
  return successResult(res);
}

/** Scope arguments become headers (over the defaults); everything else stays an argument. */
function splitScope(defaults: Partial<ClientScope>, given: ToolArgs): { options: CallOptions; rest: ToolArgs } {
  const scope: Partial<ClientScope> = { ...defaults };
  const rest: ToolArgs = {};
  for (const [name, value] of Object.entries(given)) {
    if ((SCOPE_ARGS as readonly string[]).includes(name)) {
      if (typeof value !== 'string' || !isId(value)) throw new AppError('invalid_argument', `The argument ${name} must be an id: 2–128 characters of letters, digits, _ . : -.`);
      scope[name as keyof ClientScope] = value;
    } else rest[name] = value;
  }
  return { options: { scope }, rest };
}

/**
 * The tool's one API call, aborted when the client cancels the tool call or when no answer has
 * arrived within the timeout. A timed-out write may have been applied, and the result says so.
 */
async function callWithin(deps: FrontDoorDeps, spec: ToolSpec, args: ToolArgs, options: CallOptions, cancelled: AbortSignal): Promise<ApiResponse> {
  const ms = deps.timeoutMs ?? API_TIMEOUT_MS;
  const abort = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    abort.abort();
  }, ms);
  const onCancel = () => abort.abort();
  cancelled.addEventListener('abort', onCancel, { once: true });
  if (cancelled.aborted) abort.abort();
  try {
    return await spec.call(deps.client, args, { ...options, signal: abort.signal });
  } catch (err) {
    if (!timedOut) throw err;
    const next = spec.readOnly
      ? 'Try again; if it keeps timing out, check the API and its log.'
      : `The write may still have been applied: read task_timeline (or search_tasks) before calling ${spec.name} again, so that it is not written twice.`;
    throw new AppError('api_unreachable', `The gov API at ${deps.client.baseUrl} did not answer within ${ms / 1000} s. ${next}`, { cause: err, extra: { base_url: deps.client.baseUrl } });
  } finally {
    clearTimeout(timer);
    cancelled.removeEventListener('abort', onCancel);
  }
}
