// The HTTP face of the error catalogue (docs/contract.md §4): the RFC 9457 problem body built from
// an AppError, its status and title from ERRORS (src/error-catalogue.ts). A code the catalogue
// gives no HTTP answer, and anything that is not an AppError, is a 500 that reveals nothing internal.
import type { Context } from 'hono';
import { errorSpecOf } from '../error-catalogue.ts';
import { AppError, type ErrorDetail } from '../errors.ts';

/** What a caller is told about an internal error: nothing internal, only the request id. */
export function internalErrorDetail(requestId: string): string {
  return `Something went wrong on the server. Try again; if it keeps failing, report request id ${requestId}.`;
}

/** An error's status and title, when the catalogue gives it an HTTP answer of its own. */
export function httpAnswerOf(err: unknown): { status: number; title: string } | null {
  const http = err instanceof AppError ? errorSpecOf(err.code)?.http : null;
  return http ? { status: http[0], title: http[1] } : null;
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
  const answer = httpAnswerOf(err);
  if (answer && err instanceof AppError) {
    return {
      type: `https://schemas.gov.local/problems/${err.code}`,
      title: answer.title,
      status: answer.status,
      detail: err.message,
      code: err.code,
      request_id: requestId,
      errors: err.details ?? [],
    };
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

/**
 * A body refused before it was read whole (413) leaves its unread bytes on the connection: the next
 * request cannot be told from them, so the answer says `Connection: close` (Node closes the socket
 * after it) rather than promise a keep-alive the server cannot keep.
 */
export function closesConnection(status: number): boolean {
  return status === 413;
}

export function problemResponse(c: Context, err: unknown): Response {
  const problem = problemOf(err, c.get('requestId') ?? 'unknown');
  const headers: Record<string, string> = { 'Content-Type': 'application/problem+json' };
  if (problem.status === 401) headers['WWW-Authenticate'] = problem.code === 'token_invalid' || problem.code === 'token_expired' ? 'Bearer error="invalid_token"' : 'Bearer';
  if (closesConnection(problem.status)) headers.Connection = 'close';
  return new Response(JSON.stringify(problem), { status: problem.status, headers });
}
