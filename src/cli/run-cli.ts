// Running `gov` on an argument list: the outcome as an exit code — 0 success, 1 a check failed, 2
// usage error or bad input, 3 runtime failure (docs/contract.md §1) — for main.ts to set. A failure
// is one sentence on stderr and, with --json, one error document on stdout.
import { type Command, CommanderError } from 'commander';
import { ERRORS } from '../error-catalogue.ts';
import { AppError } from '../errors.ts';
import { exitCodeOf } from './exit-codes.ts';
import type { CliIo } from './io.ts';
import { createProgram, type ProgramState } from './program.ts';
import { errorDocument, renderError } from './render.ts';

export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const state: ProgramState = { exitCode: 0 };
  const program = createProgram(io, state);
  try {
    refuseHelpOfUnknown(program, argv);
    await program.parseAsync(argv, { from: 'user' });
    return state.exitCode;
  } catch (err) {
    // The command's own --json once its action ran; before that (commander refused the arguments),
    // whether the command named takes --json and the arguments hold it.
    const json = state.json ?? asksJson(program, argv);
    if (err instanceof CommanderError) {
      // Help and version arrive as errors with exit code 0; anything else commander says is usage,
      // and commander has already said it on stderr.
      if (err.exitCode === 0) return 0;
      if (json) renderError(errorDocument(new AppError('usage_error', err.message.replace(/^error: /, ''))), io);
      return ERRORS.usage_error.exit;
    }
    if (err instanceof AppError) io.stderr(`gov: ${err.message}\n`);
    else io.stderr(`gov: unexpected failure: ${(err as Error)?.stack ?? String(err)}\n`);
    if (json) renderError(errorDocument(err), io);
    return exitCodeOf(err);
  }
}

/** Whether the command the arguments name takes --json (gov mcp does not) and they hold it before any `--`. */
function asksJson(program: Command, argv: string[]): boolean {
  let command = program;
  for (const word of argv) {
    const sub = command.commands.find((c) => c.name() === word);
    if (sub === undefined) break;
    command = sub;
  }
  const end = argv.indexOf('--');
  return command.options.some((o) => o.long === '--json') && (end === -1 ? argv : argv.slice(0, end)).includes('--json');
}

/**
 * `gov help x` (or `gov events help x`) where x names no command: commander would print the whole
 * help; this says in one sentence, as for `gov x`, that there is no such command.
 */
function refuseHelpOfUnknown(program: Command, argv: string[]): void {
  let command = program;
  for (const [i, word] of argv.entries()) {
    const next = argv[i + 1];
    if (word === 'help') {
      if (next !== undefined && !next.startsWith('-') && !command.commands.some((c) => c.name() === next || c.aliases().includes(next))) {
        command.error(`error: unknown command '${next}'`, { code: 'commander.unknownCommand', exitCode: ERRORS.usage_error.exit });
      }
      return;
    }
    const sub = command.commands.find((c) => c.name() === word);
    if (sub === undefined) return;
    command = sub;
  }
}
