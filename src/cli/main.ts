// The `gov` entry point and the only place that sets the process exit code: 0 success, 1 a check
// failed, 2 usage error, 3 runtime failure (docs/contract.md §1). Errors are one sentence on stderr.
import { CommanderError } from 'commander';
import { AppError } from '../errors.ts';
import { exitCodeOf } from './exit-codes.ts';
import type { CliIo } from './io.ts';
import { createProgram, type ProgramState } from './program.ts';

export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const state: ProgramState = { exitCode: 0 };
  const program = createProgram(io, state);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return state.exitCode;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and version arrive as errors with exit code 0; anything else commander says is usage.
      return err.exitCode === 0 ? 0 : 2;
    }
    const code = exitCodeOf(err);
    if (err instanceof AppError) io.stderr(`gov: ${err.message}\n`);
    else io.stderr(`gov: unexpected failure: ${(err as Error)?.stack ?? String(err)}\n`);
    return code;
  }
}

function processIo(): CliIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    cwd: process.cwd(),
    isTty: process.stderr.isTTY === true,
    onStopSignal: (handler) => {
      process.once('SIGINT', handler);
      process.once('SIGTERM', handler);
    },
  };
}

const code = await runCli(process.argv.slice(2), processIo());
process.exitCode = code;
