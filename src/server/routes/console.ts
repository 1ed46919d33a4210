// GET /console: the console's page, and GET /console/assets/{file}: its script and stylesheet, as
// scripts/bundle-console.mjs built them into deps.consoleDir. Public (the page holds no secret; its
// API calls carry the session cookie), served with a Content-Security-Policy that lets the page
// load only its own files and talk only to this origin.
import type { Context } from 'hono';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AppError } from '../../errors.ts';
import type { AppEnv } from '../env.ts';
import { P } from '../responses.ts';
import type { Route } from '../route-spec.ts';

const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json',
};

/** The asset names the build writes: a name, one extension, nothing that walks out of assets/. */
const ASSET = /^console\.(js|css|js\.map)$/;

async function serve(c: Context<AppEnv>, file: string, type: string): Promise<Response> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    throw new AppError('console_not_built', 'The console is not built in this checkout; run `npm run build` (npm ci runs it too), then reload.');
  }
  return c.body(new Uint8Array(bytes), 200, {
    'Content-Type': type,
    'Content-Security-Policy': CSP,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-cache',
  });
}

export const CONSOLE_ROUTES: Route[] = [
  {
    method: 'GET', path: '/console', status: 'preview', access: 'public', scoped: false,
    summary: 'The console: a web page over this API (sign in with `gov console`).',
    readme: 'the console page (docs/console.md); no token — its API calls carry the session cookie from `gov console`',
    responses: { 200: 'text/html', 503: P },
    handler: (c, deps) => serve(c, join(deps.consoleDir, 'index.html'), 'text/html; charset=utf-8'),
  },
  {
    method: 'GET', path: '/console/assets/{file}', status: 'preview', access: 'public', scoped: false,
    summary: "The console's script and stylesheet.",
    responses: { 200: ['text/javascript', 'text/css', 'application/json'], 404: P, 503: P },
    handler: (c, deps) => {
      const name = c.req.param('file') ?? '';
      if (!ASSET.test(name)) throw new AppError('not_found', `The console has no asset ${name}.`);
      return serve(c, join(deps.consoleDir, 'assets', name), TYPES[name.slice(name.indexOf('.'))] ?? 'application/octet-stream');
    },
  },
];
