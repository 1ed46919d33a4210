// `gov export KIND`: one export of a running preview (GET /v1/exports/{kind}) written to a file, its
// export_sha256 checked on the bytes received (json: the RFC 8785 document without it; jsonl: the
// record lines after the header). The preview is found as `gov packet verify` finds it: --base-url
// and --token-file, else GOV_BASE_URL / GOV_TOKEN, else <data-dir>/run.json. The answer is read
// whole before it is written (simple; the route streams jsonl, the CLI does not yet).
import { createHash } from 'node:crypto';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createClient, type ClientScope } from '../../client/client.ts';
import { parseTokenFile } from '../../client/credentials.ts';
import { resolveDataDir } from '../../config.ts';
import { canonicalJson } from '../../domain/canonical-json.ts';
import { AppError } from '../../errors.ts';
import type { CliIo, CommandResult } from '../io.ts';

export type ExportOptions = {
  asOf?: string;
  format?: string;
  out?: string;
  baseUrl?: string;
  tokenFile?: string;
  dataDir?: string;
  tenantId?: string;
  workspaceId?: string;
  projectId?: string;
};

type Header = { kind: string; as_of: string; last_seq: number; export_sha256: string; record_count?: number; records?: unknown[] };

export async function exportCommand(kind: string, options: ExportOptions, io: CliIo): Promise<CommandResult> {
  const format = options.format ?? 'json';
  if (format !== 'json' && format !== 'jsonl') throw new AppError('usage_error', `--format takes json or jsonl, not ${JSON.stringify(format)}.`);
  const out = resolve(io.cwd, options.out ?? `export-${kind}.${format}`);
  // Before the export is asked for: the file system's own ENOENT would name neither the flag nor the cause.
  if (!isDirectory(dirname(out))) {
    const flag = options.out === undefined ? 'the working directory' : `the --out directory ${dirname(out)}`;
    throw new AppError('usage_error', `${flag[0]!.toUpperCase()}${flag.slice(1)} does not exist or is not a directory; create it, or give --out a file in a directory that exists.`, { extra: { out } });
  }
  const { baseUrl, token } = connection(options, io);
  const scope = scopeOf(options, io);
  let raw = '';
  // The client's request, with the answer's bytes kept as received: the file holds exactly them.
  const keepRaw: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    raw = await res.clone().text();
    return res;
  };
  const client = createClient({ baseUrl, token, scope, fetch: keepRaw });
  const res = await client.request('GET', `/v1/exports/${encodeURIComponent(kind)}`, { query: { format, ...(options.asOf !== undefined ? { as_of: options.asOf } : {}) } });
  if (res.status !== 200) {
    const body = res.body as { code?: unknown; detail?: unknown } | null;
    const detail = body && typeof body === 'object' ? `${String(body.code ?? '')}: ${String(body.detail ?? '')}` : String(res.body);
    throw new AppError(res.status === 400 || res.status === 404 || res.status === 422 ? 'usage_error' : 'api_error', `The preview at ${baseUrl} refused the export (${res.status} ${detail}).`, { extra: { base_url: baseUrl, status: res.status } });
  }
  const { header, computed } = format === 'json' ? checkJson(raw) : checkJsonl(raw);
  writeFileSync(out, raw);
  const ok = computed === header.export_sha256;
  const recordCount = header.record_count ?? header.records?.length ?? 0;
  const json = { ok, kind, format, as_of: header.as_of, last_seq: header.last_seq, record_count: recordCount, export_sha256: header.export_sha256, computed_sha256: computed, out, bytes: Buffer.byteLength(raw) };
  const text = ok
    ? `exported ${kind} as of ${header.as_of} (seq ${header.last_seq}): ${recordCount} records, ${json.bytes} bytes → ${out}\nexport_sha256 ${header.export_sha256} (recomputed)\n`
    : `export written to ${out}, but its export_sha256 does NOT recompute: the answer says ${header.export_sha256}, the bytes give ${computed}\n`;
  return { exitCode: ok ? 0 : 1, json, text };
}

function sha256Uri(text: string): string {
  return `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`;
}

function checkJson(raw: string): { header: Header; computed: string } {
  const doc = parse(raw) as Header & Record<string, unknown>;
  const { export_sha256: _claimed, ...rest } = doc;
  return { header: doc, computed: sha256Uri(canonicalJson(rest)) };
}

function checkJsonl(raw: string): { header: Header; computed: string } {
  const cut = raw.indexOf('\n');
  if (cut < 0) throw new AppError('api_error', 'The jsonl export has no header line.');
  return { header: parse(raw.slice(0, cut)) as Header, computed: sha256Uri(raw.slice(cut + 1)) };
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new AppError('api_error', `The export is not the JSON it should be (${(err as Error).message}).`);
  }
}

function connection(options: ExportOptions, io: CliIo): { baseUrl: string; token: string } {
  let token = io.env.GOV_TOKEN ?? null;
  let baseUrl = options.baseUrl ?? io.env.GOV_BASE_URL ?? null;
  const tokenFile = options.tokenFile ?? (token ? undefined : join(resolveDataDir(options.dataDir, io.env, io.cwd), 'run.json'));
  if (tokenFile) {
    let text: string;
    try {
      text = readFileSync(tokenFile, 'utf8');
    } catch {
      throw new AppError('not_running', `No credentials: ${tokenFile} cannot be read. Start a preview (gov preview start), or pass --base-url and --token-file.`);
    }
    const creds = parseTokenFile(text, tokenFile);
    token = creds.token;
    baseUrl ??= creds.baseUrl;
  }
  if (!baseUrl) throw new AppError('usage_error', 'No base URL: pass --base-url URL (or set GOV_BASE_URL).');
  return { baseUrl, token: token! };
}

function scopeOf(options: ExportOptions, io: CliIo): ClientScope {
  const scope = {
    tenant_id: options.tenantId ?? io.env.GOV_TENANT_ID,
    workspace_id: options.workspaceId ?? io.env.GOV_WORKSPACE_ID,
    project_id: options.projectId ?? io.env.GOV_PROJECT_ID,
  };
  const missing = Object.entries(scope).filter(([, v]) => !v).map(([k]) => k);
  if (missing.length > 0) {
    throw new AppError('usage_error', `An export is of one scope: pass ${missing.map((m) => `--${m.replace('_', '-')}`).join(', ')} (or set ${missing.map((m) => `GOV_${m.toUpperCase()}`).join(', ')}).`);
  }
  return scope as ClientScope;
}

function isDirectory(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
}
