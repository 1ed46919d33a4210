// Turning API answers into MCP tool results: success carries the body as structuredContent plus a
// JSON text copy; every failure is an isError result whose text says what happened and what to do
// next. The advice after the message comes from the error catalogue (src/error-catalogue.ts), by code.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ApiResponse } from '../client/client.ts';
import { errorSpecOf } from '../error-catalogue.ts';
import { AppError } from '../errors.ts';

export const ACCESS_POLICY = 'api_only_no_local_fallback';

export type Structured = { status: number | null; body: unknown; error?: { code: string; message: string }; [extra: string]: unknown };

/** What to do next, by the API's (or the front door's) error code: the catalogue's MCP advice. */
function hintOf(code: string): string | undefined {
  return errorSpecOf(code)?.mcp;
}

function textOf(lead: string, structured: Structured): CallToolResult['content'] {
  return [{ type: 'text', text: `${lead}\n\n${JSON.stringify(structured, null, 2)}` }];
}

/** `lead` is a line put before the JSON copy in the text (the structured content is the same). */
export function successResult(res: ApiResponse, extra: Record<string, unknown> = {}, lead?: string): CallToolResult {
  const structured: Structured = { status: res.status, body: res.body, ...extra };
  const json = JSON.stringify(structured, null, 2);
  return { content: [{ type: 'text', text: lead === undefined ? json : `${lead}\n\n${json}` }], structuredContent: structured };
}

/** An HTTP error status: the validation body (failed gates) or a problem body, explained. */
export function httpErrorResult(tool: string, res: ApiResponse): CallToolResult {
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
    const hint = hintOf(body.code);
    if (hint) lines.push(hint);
  } else if (res.status >= 300 && res.status < 400) {
    const location = res.headers.get('location');
    lines.push(`${tool} failed: the API answered ${res.status}, a redirect${location ? ` to ${location}` : ''}; gov mcp calls only the API at its base URL and follows no redirect, so nothing was sent there.`);
    lines.push('Point --base-url (or GOV_BASE_URL) at the API itself and restart gov mcp.');
  } else {
    lines.push(`${tool} failed: the API answered HTTP ${res.status}${res.status >= 500 ? '; try again, and if it keeps failing check the server log (its stderr)' : ''}.`);
  }
  const structured: Structured = { status: res.status, body: res.body, error: { code, message: lines[0]! } };
  return { isError: true, content: textOf(lines.join('\n'), structured), structuredContent: structured };
}

/**
 * A 2xx whose body is no JSON object: every route a tool calls answers one, so whatever answered is
 * not the gov API (a proxy's page, another server at the base URL) and its answer proves nothing.
 */
export function notApiResult(tool: string, res: ApiResponse, write: boolean): CallToolResult {
  const lines = [`${tool} failed: the API answered ${res.status} with a body that is not a JSON object, so it is not the gov API's answer.`];
  if (write) lines.push(`Whatever answered may have passed the write on: read task_timeline before calling ${tool} again.`);
  lines.push('Check that --base-url (or GOV_BASE_URL) names the gov API itself, not a proxy page or another server.');
  const structured: Structured = { status: res.status, body: res.body, error: { code: `http_${res.status}`, message: lines[0]! } };
  return { isError: true, content: textOf(lines.join('\n'), structured), structuredContent: structured };
}

/** A failure before or instead of an HTTP answer: the API is down, or an argument is unusable. */
export function thrownErrorResult(tool: string, err: unknown): CallToolResult {
  if (err instanceof AppError) {
    const lines = [`${tool} failed (${err.code}): ${err.message}`];
    const hint = hintOf(err.code);
    if (hint) lines.push(hint);
    const structured: Structured = { status: null, body: null, error: { code: err.code, message: err.message }, ...(err.extra ?? {}) };
    if (err.code === 'api_unreachable') structured.access_policy = ACCESS_POLICY;
    return { isError: true, content: textOf(lines.join('\n'), structured), structuredContent: structured };
  }
  const message = `${tool} failed inside gov mcp: ${(err as Error)?.message ?? String(err)}. Try again; if it keeps failing, report it with the gov mcp stderr log.`;
  const structured: Structured = { status: null, body: null, error: { code: 'internal_error', message } };
  return { isError: true, content: textOf(message, structured), structuredContent: structured };
}
