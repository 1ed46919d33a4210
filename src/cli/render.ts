// Printing a command's result: exactly one JSON document on stdout with --json, else its text.
import type { CliIo, CommandResult } from './io.ts';

export function render(result: CommandResult, json: boolean, io: CliIo): void {
  if (json) io.stdout(`${JSON.stringify(result.json, null, 2)}\n`);
  else io.stdout(result.text);
}
