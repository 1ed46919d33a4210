// `gov smoke` (docs/contract.md §12): the smoke suite against a throw-away preview (no flags; every
// check) or a running server (--base-url/--token-file), where it writes only in its own smoke-<run
// id> tenants unless --allow-forge-writes or --read-only says otherwise. One line per check, the
// closing line "N passed, N failed", a progress line on stderr when it is a terminal; exit 1 when
// anything failed.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withQuota } from '../../config.ts';
import { startPreview } from '../../deps.ts';
import { AppError } from '../../errors.ts';
import type { SmokeReport, WriteReach } from '../../smoke/check.ts';
import type { SmokeTarget } from '../../smoke/context.ts';
import { runSmoke } from '../../smoke/runner.ts';
import { readSmokeTokenFile } from '../../smoke/target.ts';
import type { CliIo, CommandResult } from '../io.ts';

export type SmokeOptions = { baseUrl?: string; tokenFile?: string; json?: boolean; grep?: string; readOnly?: boolean; allowForgeWrites?: boolean; runId?: string };

export async function smokeCommand(options: SmokeOptions, io: CliIo): Promise<CommandResult> {
  const grep = parseGrep(options.grep);
  const runId = runIdOf(options.runId);
  if (options.readOnly && options.allowForgeWrites) throw new AppError('usage_error', '--read-only sends no write at all, so it cannot be combined with --allow-forge-writes; pick one.');
  let preview: ThrowawayPreview | null = null;
  let target: SmokeTarget;
  if (options.baseUrl !== undefined || options.tokenFile !== undefined) {
    if (options.tokenFile === undefined) throw new AppError('usage_error', '--base-url needs --token-file: give the server\'s run.json (both tokens) or a file holding its customer token.');
    const file = readSmokeTokenFile(options.tokenFile);
    const baseUrl = options.baseUrl ?? file.baseUrl;
    if (!baseUrl) throw new AppError('usage_error', `The token file ${options.tokenFile} names no base URL; pass --base-url URL too.`);
    if (!/^https?:\/\//.test(baseUrl)) throw new AppError('usage_error', `--base-url must be an http:// URL such as http://127.0.0.1:7337, not ${baseUrl}.`);
    target = { baseUrl, ...file.target };
  } else {
    preview = await startThrowawayPreview();
    target = preview.target;
  }
  // A server smoke did not start holds someone's data: by default only the run's own tenants are
  // written and the forge's shared state (quota policy, forge data set) is left alone.
  const reach: WriteReach = options.readOnly ? 'none' : preview !== null || options.allowForgeWrites ? 'forge' : 'smoke_tenant';

  let interrupted = false;
  io.onStopSignal(() => {
    interrupted = true;
  });
  const progress = io.isTty ? (done: number, total: number, name: string) => io.stderr(`\r\x1b[K[${done + 1}/${total}] ${name.slice(0, 100)}`) : undefined;
  let report: SmokeReport;
  try {
    report = await runSmoke(target, { runId, reach, ...(grep ? { grep } : {}), ...(progress ? { progress } : {}), interrupted: () => interrupted });
  } finally {
    if (progress) io.stderr('\r\x1b[K');
    await preview?.stop();
  }
  // An interrupted run did not check everything, so it cannot pass.
  return { exitCode: report.failed > 0 || interrupted ? 1 : 0, json: report, text: renderSmoke(report) };
}

/**
 * The run id names the run's tenants (smoke-<id>, -b, -c): fresh by default; given, so a hosted
 * service's token can be minted for exactly those tenants before the run (docs/hosting.md).
 */
function runIdOf(given: string | undefined): string {
  if (given === undefined) return randomBytes(4).toString('hex');
  if (!/^[0-9a-f]{8}$/.test(given)) throw new AppError('usage_error', `--run-id must be 8 lowercase hex digits (the run's tenants are smoke-<run id>, -b and -c), not ${given}.`);
  return given;
}

type ThrowawayPreview = { target: SmokeTarget; stop: () => Promise<void> };

/**
 * A preview of its own, as `gov preview start` would run it, on a temporary data dir and a free
 * port; its access lines and warnings stay out of smoke's output. stop() stops it and removes the
 * data dir, whatever happened.
 */
async function startThrowawayPreview(): Promise<ThrowawayPreview> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gov-smoke-'));
  const cleanup = () => rmSync(dataDir, { recursive: true, force: true });
  let preview;
  try {
    preview = await startPreview({ ...withQuota(), dataDir, host: '127.0.0.1', port: 0, forgeData: 'default' }, { warn: () => {} });
  } catch (err) {
    cleanup();
    throw err instanceof AppError ? err : new AppError('preview_failed', `The throw-away preview did not start: ${(err as Error).message}.`, { cause: err });
  }
  const { baseUrl, tokens } = preview;
  return {
    target: { baseUrl, tokens: { customer: tokens.customer, operator: tokens.operator } },
    async stop() {
      try {
        await preview.stop();
      } finally {
        cleanup();
      }
    },
  };
}

function parseGrep(pattern: string | undefined): RegExp | undefined {
  if (pattern === undefined) return undefined;
  try {
    return new RegExp(pattern, 'i');
  } catch (err) {
    throw new AppError('usage_error', `--grep ${JSON.stringify(pattern)} is not a valid regular expression (${(err as Error).message}).`);
  }
}

const WROTE: Record<WriteReach, (runId: string) => string> = {
  none: () => 'read-only: no write was sent',
  smoke_tenant: (id) => `writes: only in tenants smoke-${id}…; forge quota state and data set untouched`,
  forge: (id) => `writes: tenants smoke-${id}…, and the forge quota state and data set (restored)`,
};

/** ✓ name; ✗ name — detail; skipped checks with their reason; what was written; then exactly "N passed, N failed". */
export function renderSmoke(report: SmokeReport): string {
  const lines = report.checks.map((c) =>
    c.status === 'passed' ? `✓ ${c.name}` : c.status === 'failed' ? `✗ ${c.name} — ${c.detail}` : `- ${c.name} — skipped: ${c.detail}`,
  );
  if (report.skipped > 0) lines.push(`(${report.skipped} skipped)`);
  lines.push(`(${WROTE[report.writes](report.run_id)})`);
  const classes = report.route_classes;
  if (classes) {
    const total = classes.live + classes.preview + classes.target;
    lines.push(`(routes listed: ${total} — ${classes.live} live, ${classes.preview} preview, ${classes.target} target${classes.target === 0 ? ': every listed route is served' : ''})`);
  }
  lines.push(`${report.passed} passed, ${report.failed} failed`);
  return `${lines.join('\n')}\n`;
}
