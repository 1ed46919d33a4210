// The CLI's face of the error catalogue (docs/contract.md §1): an error's exit code — 2 usage or bad
// input, 3 runtime failure — is its catalogue entry's; anything that is not an AppError is 3.
import { errorSpecOf } from '../error-catalogue.ts';
import { AppError } from '../errors.ts';

export function exitCodeOf(err: unknown): 2 | 3 {
  return (err instanceof AppError ? errorSpecOf(err.code)?.exit : undefined) ?? 3;
}
