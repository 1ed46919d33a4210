// The `gov` entry point and the only place that sets the process exit code: 0 success, 1 a check
// failed, 2 usage error, 3 runtime failure (docs/contract.md §1), as run-cli.ts works it out.
import type { CliIo } from './io.ts';
import { runCli } from './run-cli.ts';

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

// A reader that stops early (`gov … --help | head`) closes the pipe: the rest of the output has
// nowhere to go, which is no failure of the command, so it ends quietly instead of throwing EPIPE.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
    process.exit(process.exitCode ?? 0);
  });
}

const code = await runCli(process.argv.slice(2), processIo());
process.exitCode = code;
