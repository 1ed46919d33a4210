// A real preview as a child process (`node bin/gov.js preview start --port 0 --json`), for the
// fuzzer, the crash matrix and the disk-full script: its stderr (access lines, 5xx records) goes to
// a file so a slow reader never blocks the server, and it can be stopped, or killed by its pid.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { runNode } from '../bench/processes.ts';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const GOV_BIN = `${ROOT}bin/gov.js`;

export type Tokens = { customer: string; operator: string };

export type PreviewProcess = {
  baseUrl: string;
  pid: number;
  tokens: Tokens;
  logPath: string;
  /** Resolves when the process has exited (and its lock can be taken over). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(signal: NodeJS.Signals): Promise<void>;
  /** SIGTERM (in-flight requests finish), SIGKILL if it is still running after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
};

const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of live) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

export async function startPreviewProcess(dataDir: string, logPath: string, timeoutMs = 60_000): Promise<PreviewProcess> {
  const log = openSync(logPath, 'a');
  const child = spawn(process.execPath, [GOV_BIN, 'preview', 'start', '--port', '0', '--json', '--data-dir', dataDir], { cwd: ROOT, stdio: ['ignore', 'pipe', log] });
  closeSync(log);
  live.add(child);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      live.delete(child);
      resolve({ code, signal });
    });
  });
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the preview did not report listening within ${timeoutMs} ms; see ${logPath}`));
    }, timeoutMs);
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (d: string) => {
      out += d;
      const nl = out.indexOf('\n');
      if (nl >= 0) {
        clearTimeout(timer);
        resolve(out.slice(0, nl));
      }
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`the preview exited (${code ?? signal}) before listening: ${tailOf(logPath)}`));
    });
  });
  const info = JSON.parse(line) as { base_url: string; pid: number; run_file: string };
  const run = JSON.parse(readFileSync(info.run_file, 'utf8')) as { tokens: Tokens };
  const kill = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  return {
    baseUrl: info.base_url,
    pid: info.pid,
    tokens: run.tokens,
    logPath,
    exited,
    kill,
    async stop(graceMs = 15_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      const late = await Promise.race([exited.then(() => false), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), graceMs)))]);
      clearTimeout(timer);
      if (late) await kill('SIGKILL');
    },
  };
}

/** Runs `gov <args>` to completion, bounded in time (the bench's runner: one place spawns one-shot commands). */
export async function runGov(args: string[], timeoutMs = 120_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const { code, stdout, stderr } = await runNode([GOV_BIN, ...args], timeoutMs);
  return { code, stdout, stderr };
}

export function tailOf(path: string, chars = 2000): string {
  try {
    return readFileSync(path, 'utf8').slice(-chars);
  } catch {
    return '(no log)';
  }
}

/** Only loopback targets: the fuzz and fault scripts never send traffic anywhere else. */
export function assertLoopback(baseUrl: string): void {
  const host = new URL(baseUrl).hostname;
  if (!(host === 'localhost' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host))) {
    throw new Error(`${baseUrl} is not a loopback address; the fuzz and fault scripts only target 127.0.0.0/8, localhost or [::1]`);
  }
}
