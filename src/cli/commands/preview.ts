// `gov preview start|status|stop`: the loopback preview server in the foreground, its status from
// the run file and /health, and a clean stop by signal.
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { appDepsOf, DEFAULT_FORGE_DATA_PATH, resolveDataDir, newTokens, openServiceDeps, readConfigFile, schemaRegistry } from '../../deps.ts';
import { ensureForgeData, readForgeDataFile } from '../../service/quota/forge-data.ts';
import { AppError } from '../../errors.ts';
import { createApp } from '../../server/create-app.ts';
import { createNodeServer } from '../../server/node-server.ts';
import type { CliIo, CommandResult } from '../io.ts';
import { readRunFile, removeRunFile, runFilePath, writeRunFile } from '../run-file.ts';
import { isAlive } from '../../store/data-dir-lock.ts';

export type StartOptions = { port?: string; host?: string; dataDir?: string; config?: string; forgeData?: string; json?: boolean };

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

export function parsePort(raw: string | undefined): number {
  if (raw === undefined) return 7337;
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port > 65535) throw new AppError('usage_error', `--port must be an integer from 0 to 65535 (0 takes a free port), not ${raw}.`);
  return port;
}

export function parseHost(raw: string | undefined): string {
  const host = raw ?? '127.0.0.1';
  if (!LOOPBACK.has(host)) throw new AppError('usage_error', `--host must be a loopback address (127.0.0.1 or ::1); the preview never listens on ${host}.`);
  return host === 'localhost' ? '127.0.0.1' : host;
}

/** Runs until SIGINT/SIGTERM, then stops accepting, finishes in-flight requests, flushes and releases. */
export async function previewStart(options: StartOptions, io: CliIo): Promise<CommandResult> {
  const port = parsePort(options.port);
  const host = parseHost(options.host);
  const dataDir = resolveDataDir(options.dataDir, io.env, io.cwd);
  // Both files are checked before the data dir is locked, so a bad file exits 2 and holds nothing.
  const config = readConfigFile(options.config === undefined ? undefined : resolve(io.cwd, options.config));
  const forgeData = options.forgeData === undefined ? null : readForgeDataFile(resolve(io.cwd, options.forgeData), schemaRegistry());
  const service = await openServiceDeps({ dataDir, warn: (m) => io.stderr(`warning: ${m}\n`) });
  try {
    await ensureForgeData(service, forgeData, () => readForgeDataFile(DEFAULT_FORGE_DATA_PATH, schemaRegistry()));
  } catch (err) {
    await service.store.close();
    throw err;
  }
  const tokens = newTokens();
  let boundPort = port;
  const access = batchedLines(options.json ? io.stderr : io.stdout);
  const deps = appDepsOf(service, { tokens, port: () => boundPort, access, config });
  const server = createNodeServer(createApp(deps).fetch, deps);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
  } catch (err) {
    await service.store.close();
    throw new AppError('cannot_bind', `Cannot listen on ${host}:${port} (${(err as Error).message}); choose another --port, or --port 0 for a free one.`, { cause: err });
  }
  boundPort = (server.address() as AddressInfo).port;
  const baseUrl = `http://${host.includes(':') ? `[${host}]` : host}:${boundPort}`;
  const runFile = writeRunFile(dataDir, { base_url: baseUrl, pid: process.pid, started_at: service.clock().toISOString(), data_dir: dataDir, tokens });
  if (options.json) {
    io.stdout(`${JSON.stringify({ base_url: baseUrl, data_dir: dataDir, run_file: runFile, pid: process.pid })}\n`);
  } else {
    io.stdout(`gov preview listening on ${baseUrl}\n  data dir:    ${dataDir}\n  events:      ${service.store.tail().seq}\n  credentials: ${runFile} (customer and operator tokens)\nPress Ctrl-C to stop.\n`);
  }
  await new Promise<void>((resolve) => io.onStopSignal(resolve));
  io.stderr('stopping: finishing in-flight requests\n');
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
  await service.store.close();
  removeRunFile(dataDir);
  return { exitCode: 0, json: { stopped: true }, text: 'stopped\n' };
}

export async function previewStatus(options: { dataDir?: string }, io: CliIo): Promise<CommandResult> {
  const dataDir = resolveDataDir(options.dataDir, io.env, io.cwd);
  let run;
  try {
    run = readRunFile(dataDir);
  } catch {
    return { exitCode: 1, json: { running: false, data_dir: dataDir }, text: `not running (no ${runFilePath(dataDir)})\n` };
  }
  let health: Record<string, unknown> | null = null;
  try {
    const res = await fetch(`${run.base_url}/health`, { headers: { Authorization: `Bearer ${run.tokens.operator}` } });
    health = (await res.json()) as Record<string, unknown>;
  } catch {
    health = null;
  }
  if (!health) {
    return { exitCode: 1, json: { running: false, data_dir: dataDir, base_url: run.base_url, pid: run.pid }, text: `not answering at ${run.base_url} (pid ${run.pid}); the run file may be left over from a killed process\n` };
  }
  const detail = (health.detail ?? {}) as Record<string, number>;
  return {
    exitCode: 0,
    json: { running: true, data_dir: dataDir, base_url: run.base_url, pid: run.pid, started_at: run.started_at, health },
    text: `running at ${run.base_url} (pid ${run.pid}) since ${run.started_at}\n  events: ${detail.event_count ?? '?'}  index seq: ${detail.index_seq ?? '?'}  uptime: ${Math.round(detail.uptime_s ?? 0)}s\n`,
  };
}

export async function previewStop(options: { dataDir?: string }, io: CliIo): Promise<CommandResult> {
  const dataDir = resolveDataDir(options.dataDir, io.env, io.cwd);
  let run;
  try {
    run = readRunFile(dataDir);
  } catch {
    return { exitCode: 0, json: { stopped: false, running: false }, text: `no preview is running for ${dataDir}\n` };
  }
  try {
    process.kill(run.pid, 'SIGTERM');
  } catch {
    removeRunFile(dataDir);
    return { exitCode: 0, json: { stopped: false, running: false }, text: `process ${run.pid} was not running; removed its left-over run file\n` };
  }
  // Wait (up to 15 s) for the process to go away: it removes the run file as its last step.
  for (let i = 0; i < 150; i++) {
    if (!isAlive(run.pid)) return { exitCode: 0, json: { stopped: true, pid: run.pid }, text: `stopped the preview (pid ${run.pid})\n` };
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new AppError('stop_timeout', `Process ${run.pid} did not stop within 15 s; stop it with kill ${run.pid}.`);
}

/**
 * Access lines are collected and written once per event-loop turn: stdout and stderr are
 * synchronous on files and pipes, and a write per request would cost more than the request.
 */
function batchedLines(write: (text: string) => void): (line: string) => void {
  let pending: string[] = [];
  return (line) => {
    if (pending.length === 0) {
      setImmediate(() => {
        const text = pending.join('');
        pending = [];
        write(text);
      });
    }
    pending.push(`${line}\n`);
  };
}

