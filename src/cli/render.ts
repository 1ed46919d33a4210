// Printing a command's result: exactly one JSON document on stdout with --json, else its text. A
// failure with --json is one error document on stdout too (its sentence still goes to stderr).
import type { ErrorCode, ErrorDetail } from '../errors.ts';
import { AppError } from '../errors.ts';
import type { CliIo, CommandResult } from './io.ts';

export function render(result: CommandResult, json: boolean, io: CliIo): void {
  if (json) io.stdout(`${JSON.stringify(result.json, null, 2)}\n`);
  else io.stdout(result.text);
}

/**
 * What `--json` prints when a command fails (exit 2 or 3): `ok: false`, the catalogue code, the
 * sentence that says what to do, the error's details (pointers) and what it names (file, line,
 * pid, base_url) when it has them. Never a stack.
 */
export type ErrorDocument = { ok: false; code: ErrorCode; message: string; details?: ErrorDetail[]; [named: string]: unknown };

export function errorDocument(err: unknown): ErrorDocument {
  if (!(err instanceof AppError)) return { ok: false, code: 'internal_error', message: `unexpected failure: ${(err as Error)?.message ?? String(err)}` };
  // What the error names comes after the fixed members and never replaces one of them.
  const named = Object.entries(err.extra ?? {}).filter(([key]) => !FIXED.has(key));
  return {
    ok: false,
    code: err.code,
    message: err.message,
    ...(err.details === undefined ? {} : { details: err.details }),
    ...Object.fromEntries(named),
  };
}

const FIXED = new Set(['ok', 'code', 'message', 'details']);

export function renderError(doc: ErrorDocument, io: CliIo): void {
  io.stdout(`${JSON.stringify(doc, null, 2)}\n`);
}
