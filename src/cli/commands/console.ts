// `gov console`: opens the running preview's console in the browser, signed in. It finds the preview
// as `gov preview status` does (<data-dir>/run.json: --data-dir, else $GOV_DATA_DIR, else
// .gov-preview/), asks it for a one-time login code with the operator token (POST
// /admin/console/login-codes) and opens the sign-in link it answers. The link holds only that code
// (one use, 60 s), never a token, so it may be printed and handed to a browser.
import { spawn } from 'node:child_process';
import { createClient } from '../../client/client.ts';
import { resolveDataDir } from '../../config.ts';
import { AppError } from '../../errors.ts';
import type { CliIo, CommandResult } from '../io.ts';
import { readRunFile } from '../run-file.ts';

export type ConsoleOptions = { dataDir?: string; open?: boolean; json?: boolean };

type LoginCode = { code: string; url: string; expires_at: string };

export async function consoleCommand(options: ConsoleOptions, io: CliIo, platform: NodeJS.Platform = process.platform): Promise<CommandResult> {
  const dataDir = resolveDataDir(options.dataDir, io.env, io.cwd);
  const run = readRunFile(dataDir);
  const client = createClient({ baseUrl: run.base_url, token: run.tokens.operator });
  let res;
  try {
    res = await client.request('POST', '/admin/console/login-codes', { scope: null });
  } catch (err) {
    if (!(err instanceof AppError) || err.code !== 'api_unreachable') throw err;
    throw new AppError('not_running', `No preview answers at ${run.base_url} (the run file ${dataDir}/run.json may be left over from a stopped one); start one with npx gov preview start.`, { extra: { base_url: run.base_url } });
  }
  if (res.status !== 201) {
    const body = res.body as { code?: unknown; detail?: unknown } | null;
    const detail = body !== null && typeof body === 'object' ? `${String(body.code ?? '')}: ${String(body.detail ?? '')}` : String(res.body);
    throw new AppError('api_error', `The preview at ${run.base_url} gave no login code (${res.status} ${detail}); is it a gov preview with the console (npx gov preview start)?`, { extra: { base_url: run.base_url, status: res.status } });
  }
  const login = res.body as LoginCode;
  const opened = options.open === false ? null : await openInBrowser(login.url, platform);
  const note = opened === null ? '' : opened ? 'Opened in your browser.\n' : 'No browser opener found (xdg-open, open or start): open the link yourself.\n';
  return {
    exitCode: 0,
    json: { url: login.url, expires_at: login.expires_at },
    text: `Console sign-in link (one use, within 60 s; run npx gov console again for a fresh one):\n  ${login.url}\n${note}`,
  };
}

/** The system's opener for a URL: xdg-open on Linux and the BSDs, open on macOS, start on Windows. */
export function openerFor(platform: NodeJS.Platform, url: string): [string, string[]] {
  if (platform === 'darwin') return ['open', [url]];
  // start is a cmd built-in; its first quoted argument is a window title, hence the empty one.
  if (platform === 'win32') return ['cmd', ['/c', 'start', '""', url.replace(/&/g, '^&')]];
  return ['xdg-open', [url]];
}

/** Starts the opener and leaves it running on its own; false when there is none to start. */
function openInBrowser(url: string, platform: NodeJS.Platform): Promise<boolean> {
  const [command, args] = openerFor(platform, url);
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: 'ignore', detached: true });
    child.once('error', () => resolve(false));
    child.once('spawn', () => {
      child.unref();
      resolve(true);
    });
  });
}
