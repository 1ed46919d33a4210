// The one table from error code to HTTP status and title (docs/contract.md §4), and the RFC 9457
// problem body built from an AppError. Unknown errors become a 500 that reveals nothing internal.
import type { Context } from 'hono';
import { AppError, type ErrorDetail } from '../errors.ts';

const STATUS: Record<string, [number, string]> = {
  bad_request: [400, 'Bad request'],
  malformed_json: [400, 'Malformed JSON'],
  json_too_deep: [400, 'JSON nested too deeply'],
  scope_required: [400, 'Scope required'],
  invalid_scope: [400, 'Invalid scope'],
  idempotency_key_required: [400, 'Idempotency-Key required'],
  invalid_idempotency_key: [400, 'Invalid Idempotency-Key'],
  invalid_query: [400, 'Invalid query'],
  invalid_if_match: [400, 'Invalid If-Match'],
  unauthorized: [401, 'Unauthorized'],
  operator_transport_rejected: [403, 'Operator transport rejected'],
  customer_transport_rejected: [403, 'Operator token required'],
  scope_mismatch: [403, 'Scope mismatch'],
  host_not_allowed: [403, 'Host not allowed'],
  origin_not_allowed: [403, 'Origin not allowed'],
  not_found: [404, 'Not found'],
  not_found_in_scope: [404, 'Not found in scope'],
  task_not_found: [404, 'Task not found'],
  template_not_found: [404, 'Template not found'],
  route_not_found: [404, 'Route not found'],
  method_not_allowed: [405, 'Method not allowed'],
  task_exists: [409, 'Task exists'],
  task_closed: [409, 'Task closed'],
  event_id_exists: [409, 'Event id exists'],
  write_conflict: [409, 'Write conflict'],
  precondition_failed: [412, 'Precondition failed'],
  request_timeout: [408, 'Request timeout'],
  payload_too_large: [413, 'Payload too large'],
  unsupported_media_type: [415, 'Unsupported media type'],
  validation_failed: [422, 'Validation failed'],
  not_plain_json: [422, 'Not plain JSON'],
  reserved_event_kind: [422, 'Reserved event kind'],
  unknown_event_kind: [422, 'Unknown event kind'],
  idempotency_key_reused: [422, 'Idempotency key reused'],
  session_ids_required: [422, 'Session ids required'],
  empty_snapshot: [422, 'Nothing to assemble'],
  invalid_date_time: [422, 'Invalid date-time'],
  as_of_in_future: [422, 'as_of in the future'],
  request_header_fields_too_large: [431, 'Request header fields too large'],
  store_write_failed: [503, 'Store write failed'],
  store_unavailable: [503, 'Store unavailable'],
  index_behind: [503, 'Index behind'],
  index_unavailable: [503, 'Index unavailable'],
  store_closed: [503, 'Store closed'],
};

export function statusOf(code: string): number {
  return STATUS[code]?.[0] ?? 500;
}

/** Whether a code has a row here: an AppError whose code has none is an internal error. */
export function isKnownCode(code: string): boolean {
  return STATUS[code] !== undefined;
}

/** What a caller is told about an internal error: nothing internal, only the request id. */
export function internalErrorDetail(requestId: string): string {
  return `Something went wrong on the server. Try again; if it keeps failing, report request id ${requestId}.`;
}

export type Problem = {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  request_id: string;
  errors: ErrorDetail[];
};

export function problemOf(err: unknown, requestId: string): Problem {
  if (err instanceof AppError && STATUS[err.code]) {
    const [status, title] = STATUS[err.code]!;
    return { type: `https://schemas.gov.local/problems/${err.code}`, title, status, detail: err.message, code: err.code, request_id: requestId, errors: err.details ?? [] };
  }
  return {
    type: 'https://schemas.gov.local/problems/internal_error',
    title: 'Internal error',
    status: 500,
    detail: internalErrorDetail(requestId),
    code: 'internal_error',
    request_id: requestId,
    errors: [],
  };
}

export function problemResponse(c: Context, err: unknown): Response {
  const problem = problemOf(err, c.get('requestId') ?? 'unknown');
  const headers: Record<string, string> = { 'Content-Type': 'application/problem+json' };
  if (problem.status === 401) headers['WWW-Authenticate'] = 'Bearer';
  return new Response(JSON.stringify(problem), { status: problem.status, headers });
}
