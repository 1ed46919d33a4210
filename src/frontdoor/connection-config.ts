// Where gov mcp finds the API: flags, else GOV_BASE_URL / GOV_TOKEN, else <data-dir>/run.json (the
// customer token). run.json and the --token-file are the only files it may read: the front door
// never opens the event log or the SQLite index (api_only_no_local_fallback).
import { join } from 'node:path';
import { withoutTrailingSlashes, type ClientScope } from '../client/client.ts';
import { parseTokenFile } from '../client/credentials.ts';
import { AppError, type ErrorCode } from '../errors.ts';

export type ConnectionOptions = { baseUrl?: string; tokenFile?: string; dataDir: string };

export type ConnectionConfig = {
  baseUrl: string;
  token: string;
  /** Where each came from, for the start-up line on stderr (never the token itself). */
  source: { baseUrl: string; token: string };
};

export type Env = Record<string, string | undefined>;

export function scopeFromEnv(env: Env): Partial<ClientScope> {
  const scope: Partial<ClientScope> = {};
  if (env.GOV_TENANT_ID) scope.tenant_id = env.GOV_TENANT_ID;
  if (env.GOV_WORKSPACE_ID) scope.workspace_id = env.GOV_WORKSPACE_ID;
  if (env.GOV_PROJECT_ID) scope.project_id = env.GOV_PROJECT_ID;
  return scope;
}

/** `readFile` is injected so a test can see exactly which files were read. */
export function resolveConnection(options: ConnectionOptions, env: Env, readFile: (path: string) => string): ConnectionConfig {
  let baseUrl: [string, string] | null = options.baseUrl ? [options.baseUrl, '--base-url'] : env.GOV_BASE_URL ? [env.GOV_BASE_URL, 'GOV_BASE_URL'] : null;
  let token: [string, string] | null = null;
  if (options.tokenFile !== undefined) {
    const file = parseTokenFile(readOrFail(readFile, options.tokenFile, 'bad_input_file', `Cannot read the token file ${options.tokenFile}`), options.tokenFile);
    token = [file.token, `--token-file ${options.tokenFile}`];
    if (!baseUrl && file.baseUrl) baseUrl = [file.baseUrl, `--token-file ${options.tokenFile}`];
  } else if (env.GOV_TOKEN) {
    token = [env.GOV_TOKEN, 'GOV_TOKEN'];
  }
  if (!baseUrl || !token) {
    const path = join(options.dataDir, 'run.json');
    const text = readOrFail(readFile, path, 'not_running', `gov mcp needs the API's base URL and a token: pass --base-url and --token-file, set GOV_BASE_URL and GOV_TOKEN, or start a preview (gov preview start) so that ${path} exists`);
    const run = parseTokenFile(text, path);
    if (!token) token = [run.token, path];
    if (!baseUrl && run.baseUrl) baseUrl = [run.baseUrl, path];
    if (!baseUrl) throw new AppError('not_running', `${path} names no base_url; pass --base-url or set GOV_BASE_URL.`);
  }
  return { baseUrl: checkUrl(baseUrl[0], baseUrl[1]), token: token[0], source: { baseUrl: baseUrl[1], token: token[1] } };
}

function readOrFail(readFile: (path: string) => string, path: string, code: ErrorCode, lead: string): string {
  try {
    return readFile(path);
  } catch (err) {
    throw new AppError(code, `${lead} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}).`, { cause: err });
  }
}

function checkUrl(raw: string, from: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AppError('usage_error', `The base URL from ${from} is not a URL: ${raw}; give one such as http://127.0.0.1:7337.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new AppError('usage_error', `The base URL from ${from} must be http:// or https://, not ${url.protocol}.`);
  }
  return withoutTrailingSlashes(raw);
}
