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
    const failure = fileSystemRefusal(err) ?? err;
    if (failure instanceof AppError) io.stderr(`gov: ${failure.message}\n`);
    else io.stderr(`gov: unexpected failure: ${(failure as Error)?.stack ?? String(failure)}\n`);
    if (json) renderError(errorDocument(failure), io);
    return exitCodeOf(failure);
  }
}

/**
 * The file system's refusal of a file the command needed (a full disk, a read-only or foreign
 * directory, a path that is no directory), as one sentence that says what to do, or null.
 */
export function fileSystemRefusal(err: unknown): AppError | null {
  const e = (err ?? {}) as NodeJS.ErrnoException & { info?: { path?: string } };
  const { code, syscall } = e;
  // Node's SystemError (ERR_FS_EISDIR from rm) keeps the path in its info.
  const path = e.path ?? e.info?.path;
  const where = path ?? 'a file of the data dir';
  const say = (sentence: string) => new AppError('file_system_refused', sentence, { cause: err });
  switch (code) {
    case 'ENOSPC':
    case 'SQLITE_FULL':
      return say(`The disk holding ${where} is full; free some space and run the command again.`);
    case 'EROFS':
    case 'SQLITE_READONLY':
      return say(`${where} is on a read-only file system; use a --data-dir on a writable one.`);
    case 'EACCES':
    case 'EPERM':
      return say(`Permission denied for ${where}${syscall ? ` (${syscall})` : ''}; run as a user that may write there, or use another --data-dir.`);
    case 'ENOENT':
      return path === undefined ? null : say(`${path} does not exist (a link to nowhere, or removed meanwhile); check the --data-dir path.`);
    case 'EISDIR':
    case 'ERR_FS_EISDIR':
      return say(`${where} is a directory where a file belongs; move it away and run the command again.`);
    case 'ENOTDIR':
      return say(`A part of ${where} is a file where a directory belongs; check the --data-dir path.`);
    case 'SQLITE_CANTOPEN':
      return say(`The index file of the data dir cannot be opened (${(err as Error).message}); check that index.sqlite is a file you may write, or move it away (it is rebuilt from the log).`);
    default:
      return null;
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
