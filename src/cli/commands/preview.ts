// `gov preview start|status|stop`: the loopback preview server in the foreground, its status from
// the run file and /health, and a clean stop by signal.
import { resolveDataDir } from '../../config.ts';
import { loadSchemas, readStartConfig, startPreview, type StartFlags } from '../../deps.ts';
import { AppError } from '../../errors.ts';
import type { CliIo, CommandResult } from '../io.ts';
import { readRunFile, removeRunFile, runFilePath } from '../run-file.ts';
import { isAlive } from '../../store/data-dir-lock.ts';

export type StartOptions = StartFlags & { json?: boolean };

/** Runs until SIGINT/SIGTERM, then stops accepting, finishes in-flight requests, flushes and releases. */
export async function previewStart(options: StartOptions, io: CliIo): Promise<CommandResult> {
  const registry = loadSchemas();
  // Both files are checked before the data dir is locked, so a bad file exits 2 and holds nothing.
  const config = readStartConfig(options, io.env, io.cwd, registry);
  const access = batchedLines(options.json ? io.stderr : io.stdout);
  const preview = await startPreview(config, { registry, access, warn: (m) => io.stderr(`warning: ${m}\n`) });
  const { baseUrl, dataDir, runFile } = preview;
  if (options.json) {
    io.stdout(`${JSON.stringify({ base_url: baseUrl, data_dir: dataDir, run_file: runFile, pid: process.pid })}\n`);
  } else {
    // No sign-in code here: whatever holds the terminal's output (a CI log) would hold a credential.
    // gov console mints one with the operator token and opens it.
    const consoleLine = `  console:     ${baseUrl}/console (sign in: npx gov console, in another terminal)\n`;
    io.stdout(`gov preview listening on ${baseUrl}\n  data dir:    ${dataDir}\n  events:      ${preview.deps.store.tail().seq}\n  credentials: ${runFile} (customer and operator tokens)\n${consoleLine}Press Ctrl-C to stop.\n`);
  }
  await new Promise<void>((resolve) => io.onStopSignal(resolve));
  io.stderr('stopping: finishing in-flight requests\n');
  await preview.stop();
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
export function batchedLines(write: (text: string) => void): (line: string) => void {
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

