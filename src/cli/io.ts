// What a command may touch of its surroundings, injected so tests can run commands in-process.
export type CliIo = {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** True when stderr is a terminal (progress lines are shown only then). */
  isTty: boolean;
  /** Resolves when SIGINT or SIGTERM arrives (long-running commands stop cleanly). */
  onStopSignal: (handler: () => void) => void;
};

/** A command's outcome: what to print and the exit code (0 ok, 1 a check failed). */
export type CommandResult = { exitCode: 0 | 1; json: unknown; text: string };
