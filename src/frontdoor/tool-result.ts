// Turning API answers into MCP tool results: success carries the body as structuredContent plus a
// JSON text copy; every failure is an isError result whose text says what happened and what to do
// next. The hint table below is the one map from an error code to MCP advice (dispatch on code).
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ApiResult } from '../client/client.ts';
import { AppError } from '../errors.ts';

export const ACCESS_POLICY = 'api_only_no_local_fallback';

export type Structured = { status: number | null; body: unknown; error?: { code: string; message: string }; [extra: string]: unknown };

const SCOPE_HINT = 'Pass tenant_id, workspace_id and project_id as tool arguments, or set GOV_TENANT_ID, GOV_WORKSPACE_ID and GOV_PROJECT_ID in the environment of gov mcp.';

/** What to do next, by the API's (or the front door's) error code. */
const HINTS: Record<string, string> = {
  scope_required: SCOPE_HINT,
  invalid_scope: `${SCOPE_HINT} Each is an id: 2–128 letters, digits, _ . : - starting with a letter or digit.`,
  scope_mismatch: 'The scope members given disagree with each other; send one scope.',
  unauthorized: 'The token of gov mcp is not accepted (a restarted preview has new tokens): restart gov mcp with the current token (--token-file <data-dir>/run.json, or GOV_TOKEN).',
  operator_transport_rejected: 'gov mcp was given the operator token; writes need the customer token (tokens.customer of run.json).',
  task_not_found: 'Check task_id and the scope; search_tasks finds tasks in this scope, task_create opens a new one.',
  task_exists: 'A task with this task_id exists in this scope: continue it with task_checkpoint, or leave task_id out so the server makes a new id.',
  task_closed: 'The task is closed and takes no more writes: open a new task with task_create for further work.',
  template_not_found: 'Leave template_id out for the default, or use an id or alias that GET /v1/templates lists.',
  validation_failed: 'Fix the arguments at the pointers listed and call the tool again.',
  invalid_query: 'Fix the argument named in the pointer and call the tool again.',
  json_too_deep: 'An argument nests arrays and objects more than 64 levels deep; flatten it (the pointer names the first level too deep) and call the tool again.',
  precondition_failed: 'The task changed since it was read: read it again (task_timeline) and decide again before writing.',
  write_conflict: 'Other writes kept changing what this call depends on; call the tool again.',
  index_behind: 'The server\'s index is catching up (its writes are safe in the log); wait a few seconds and call the tool again.',
  index_unavailable: 'The server\'s index is corrupt (its writes are safe in the log); ask the operator to restart the preview, which rebuilds it.',
  invalid_argument: 'Fix the argument and call the tool again.',
  unknown_argument: 'Leave the argument out; the tool\'s input schema lists every argument it takes.',
};

function textOf(lead: string, structured: Structured): CallToolResult['content'] {
  return [{ type: 'text', text: `${lead}\n\n${JSON.stringify(structured, null, 2)}` }];
}

/** `lead` is a line put before the JSON copy in the text (the structured content is the same). */
export function successResult(res: ApiResult, extra: Record<string, unknown> = {}, lead?: string): CallToolResult {
  const structured: Structured = { status: res.status, body: res.body, ...extra };
  const json = JSON.stringify(structured, null, 2);
  return { content: [{ type: 'text', text: lead === undefined ? json : `${lead}\n\n${json}` }], structuredContent: structured };
}

/** An HTTP error status: the validation body (failed gates) or a problem body, explained. */
export function httpErrorResult(tool: string, res: ApiResult): CallToolResult {
  const body = res.body as Record<string, any> | null;
  const lines: string[] = [];
  let code = `http_${res.status}`;
  if (body && typeof body === 'object' && body.ok === false && Array.isArray(body.repair_prompt)) {
    code = 'validation_failed';
    lines.push(`${tool} failed: the API answered ${res.status} — the gates did not pass and nothing was written (the task stays as it was).`);
    lines.push(`Missing or rejected fields: ${(body.missing_fields ?? []).join(', ') || '(none listed)'}.`);
    lines.push(`Fix every item below and call ${tool} again with the whole payload:`);
    for (const prompt of body.repair_prompt as string[]) lines.push(`- ${prompt}`);
    for (const b of (body.blockers ?? []) as { code: string; field: string; detail: string }[]) lines.push(`- blocker ${b.code} at ${b.field}: ${b.detail}`);
    for (const e of (body.next_required_evidence ?? []) as string[]) lines.push(`- evidence still needed: ${e}`);
  } else if (body && typeof body === 'object' && typeof body.code === 'string') {
    code = body.code;
    lines.push(`${tool} failed: the API answered ${res.status} ${body.code}: ${body.detail ?? body.title ?? ''}`.trimEnd());
    for (const e of (body.errors ?? []) as { pointer: string; detail: string }[]) lines.push(`- ${e.pointer || '(root)'}: ${e.detail}`);
    if (HINTS[body.code]) lines.push(HINTS[body.code]!);
  } else {
    lines.push(`${tool} failed: the API answered HTTP ${res.status}${res.status >= 500 ? '; try again, and if it keeps failing check the server log (its stderr)' : ''}.`);
  }
  const structured: Structured = { status: res.status, body: res.body, error: { code, message: lines[0]! } };
  return { isError: true, content: textOf(lines.join('\n'), structured), structuredContent: structured };
}

/** A failure before or instead of an HTTP answer: the API is down, or an argument is unusable. */
export function thrownErrorResult(tool: string, err: unknown): CallToolResult {
  if (err instanceof AppError) {
    const lines = [`${tool} failed (${err.code}): ${err.message}`];
    if (err.code === 'api_unreachable') {
      lines.push(`access_policy=${ACCESS_POLICY}: gov mcp only calls the HTTP API; nothing was read or written locally and there is no local fallback.`);
    } else if (HINTS[err.code]) lines.push(HINTS[err.code]!);
    const structured: Structured = { status: null, body: null, error: { code: err.code, message: err.message }, ...(err.extra ?? {}) };
    if (err.code === 'api_unreachable') structured.access_policy = ACCESS_POLICY;
    return { isError: true, content: textOf(lines.join('\n'), structured), structuredContent: structured };
  }
  const message = `${tool} failed inside gov mcp: ${(err as Error)?.message ?? String(err)}. Try again; if it keeps failing, report it with the gov mcp stderr log.`;
  const structured: Structured = { status: null, body: null, error: { code: 'internal_error', message } };
  return { isError: true, content: textOf(message, structured), structuredContent: structured };
}
