// The one table from error code to process exit code (docs/contract.md §1): 2 usage or bad input,
// 3 runtime failure; everything unknown is a runtime failure too.
import { AppError } from '../errors.ts';

const EXIT: Record<string, 2 | 3> = {
  usage_error: 2,
  bad_input_file: 2,
  forge_data_invalid: 2,
  unrecognised_subject: 2,
  data_dir_locked: 3,
  cannot_bind: 3,
  store_corrupt: 3,
  not_running: 3,
  api_unreachable: 3,
  api_error: 3,
};

export function exitCodeOf(err: unknown): 2 | 3 {
  return err instanceof AppError ? (EXIT[err.code] ?? 3) : 3;
}
