// The one error type of the project. Code raises AppError with a stable snake_case code from the
// catalogue (error-catalogue.ts); transports (HTTP problem table, forge bodies, CLI exit codes, MCP
// results) map the code through that catalogue, never the message.
import type { ErrorCode } from './error-catalogue.ts';

export type { ErrorCode };

export type ErrorDetail = { pointer: string; detail: string };

export class AppError<C extends ErrorCode = ErrorCode> extends Error {
  readonly code: C;
  readonly details: ErrorDetail[] | undefined;
  readonly extra: Record<string, unknown> | undefined;
  /**
   * The refusal is already in the access log (service/governance/refusals.ts `deny`), so the route's
   * own denial logging (server/create-app.ts) leaves it alone.
   */
  readonly accessLogged: boolean;

  constructor(code: C, message: string, options: { details?: ErrorDetail[]; cause?: unknown; extra?: Record<string, unknown>; accessLogged?: true } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.details = options.details;
    this.extra = options.extra;
    this.accessLogged = options.accessLogged === true;
  }
}

export function isAppError(value: unknown): value is AppError {
  return value instanceof AppError;
}
