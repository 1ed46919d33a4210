// Where the smoke suite runs: a running server named by --base-url/--token-file, or a throw-away
// preview started in-process through `gov preview start`'s own code path on a temporary data dir
// and port 0, stopped and removed afterwards whatever happened.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseTokenFile } from '../client/credentials.ts';
import { previewStart } from '../cli/commands/preview.ts';
import type { CliIo, CommandResult } from '../cli/io.ts';
import { readRunFile } from '../cli/run-file.ts';
import { AppError } from '../errors.ts';
import type { SmokeTarget } from './context.ts';

/** A run.json gives both tokens (and its base URL); a bare token file is the customer token. */
export function readSmokeTokenFile(path: string): { target: Omit<SmokeTarget, 'baseUrl'>; baseUrl: string | null } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new AppError('bad_input_file', `Cannot read the token file ${path} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); give a preview's run.json or a file holding the customer token.`);
  }
  const { token, baseUrl } = parseTokenFile(text, path);
  let operator: string | null = null;
  if (text.trim().startsWith('{')) {
    const value = (JSON.parse(text) as { tokens?: { operator?: unknown } }).tokens?.operator;
    operator = typeof value === 'string' && value !== '' ? value : null;
  }
  return { target: { tokens: { customer: token, operator } }, baseUrl };
}

export type ThrowawayPreview = { target: SmokeTarget; stop: () => Promise<void> };

export async function startThrowawayPreview(): Promise<ThrowawayPreview> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gov-smoke-'));
  let stopHandler: (() => void) | null = null;
  let announce: (line: string) => void = () => {};
  const listening = new Promise<string>((resolve) => (announce = resolve));
  // The preview's own output (its --json line, access lines, warnings) stays out of smoke's output.
  const io: CliIo = {
    stdout: (text) => announce(text),
    stderr: () => {},
    env: {},
    cwd: dataDir,
    isTty: false,
    onStopSignal: (handler) => {
      stopHandler = handler;
    },
  };
  const running: Promise<CommandResult> = previewStart({ port: '0', dataDir, json: true }, io);
  const cleanup = () => rmSync(dataDir, { recursive: true, force: true });
  const stoppedEarly = running.then(() => {
    throw new Error('the preview stopped before listening');
  });
  stoppedEarly.catch(() => {}); // once listening, the race is decided and this outcome is moot
  try {
    await Promise.race([listening, stoppedEarly]);
  } catch (err) {
    cleanup();
    throw err instanceof AppError ? err : new AppError('preview_failed', `The throw-away preview did not start: ${(err as Error).message}.`, { cause: err });
  }
  const run = readRunFile(dataDir);
  return {
    target: { baseUrl: run.base_url, tokens: { customer: run.tokens.customer, operator: run.tokens.operator } },
    async stop() {
      try {
        // The preview registers its stop handler as soon as it has announced itself.
        while (stopHandler === null) await new Promise((resolve) => setImmediate(resolve));
        (stopHandler as () => void)();
        await running;
      } finally {
        cleanup();
      }
    },
  };
}
