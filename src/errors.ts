// The one error type of the project. Domain code raises AppError with a stable snake_case code;
// transports (HTTP problem table, CLI exit table, MCP results) map the code, never the message.

export type ErrorDetail = { pointer: string; detail: string };

export class AppError extends Error {
  readonly code: string;
  readonly details: ErrorDetail[] | undefined;
  readonly extra: Record<string, unknown> | undefined;

  constructor(
    code: string,
    message: string,
    options: { details?: ErrorDetail[]; cause?: unknown; extra?: Record<string, unknown> } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.details = options.details;
    this.extra = options.extra;
  }
}

export function isAppError(value: unknown): value is AppError {
  return value instanceof AppError;
}
