// Where the smoke suite runs when it is pointed at a server: the token file named by --token-file
// (a preview's run.json, or a bare customer token). The throw-away preview of a bare `gov smoke` is
// started by the command through the composition root (src/cli/commands/smoke.ts): the suite itself
// only ever talks HTTP.
import { readFileSync } from 'node:fs';
import { parseTokenFile } from '../client/credentials.ts';
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
