// Child processes of the bench: the real preview (`node bin/gov.js preview start --port 0 --json`),
// the no-op baseline server, and one-shot `gov` commands. Every child is tracked and killed by its
// pid if the bench itself fails; a server's stderr (one access line per request) goes to a file so
// a slow reader can never block the server's event loop on a full pipe.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const GOV_BIN = join(ROOT, 'bin', 'gov.js');
const NOOP_SERVER = join(ROOT, 'scripts', 'bench', 'noop-server.ts');

/**
 * Which code `bin/gov.js` runs: the esbuild bundle dist/gov.mjs while it is newer than every file
 * under src/, else the sources through tsx (the same rule as bin/gov.js). Cold start differs a lot.
 */
export function govEntry(): 'bundle' | 'tsx' {
  const bundle = join(ROOT, 'dist', 'gov.mjs');
  return existsSync(bundle) && statSync(bundle).mtimeMs >= newestMtime(join(ROOT, 'src')) ? 'bundle' : 'tsx';
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of live) if (child.exitCode === null && child.pid !== undefined) process.kill(child.pid, 'SIGKILL');
});

export type Tokens = { customer: string; operator: string };

export type ServerProcess = {
  name: string;
  baseUrl: string;
  pid: number;
  tokens: Tokens | null;
  /** performance.now() just before the spawn, for spawn-to-first-answer timings. */
  spawnedAt: number;
  /** Milliseconds from spawn to the --json "listening" line. */
  listenMs: number;
  logPath: string;
  stop(): Promise<void>;
};

const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 15_000;

function spawnServer(name: string, args: string[], logPath: string): { child: ChildProcess; started: number; line: Promise<string> } {
  const log = openSync(logPath, 'a');
  const started = performance.now();
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', log] });
  closeSync(log);
  live.add(child);
  child.on('exit', () => live.delete(child));
  const line = new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`${name} did not report listening within ${START_TIMEOUT_MS} ms; see ${logPath}`)), START_TIMEOUT_MS);
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (d: string) => {
      out += d;
      const nl = out.indexOf('\n');
      if (nl >= 0) {
        clearTimeout(timer);
        resolve(out.slice(0, nl));
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code} before listening: ${tail(logPath)}`));
    });
  });
  return { child, started, line };
}

function stopper(name: string, child: ChildProcess): () => Promise<void> {
  return async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), STOP_TIMEOUT_MS)));
    if (await Promise.race([exited.then(() => false), timedOut])) {
      process.stderr.write(`  ${name} did not stop within ${STOP_TIMEOUT_MS} ms; killing pid ${child.pid}\n`);
      child.kill('SIGKILL');
      await exited;
    }
    clearTimeout(timer);
  };
}

/** `bin`: another build's bin/gov.js (the compare section); this checkout's by default. */
export async function startPreview(dataDir: string, logPath = join(dataDir, '..', `preview-${Date.now()}.log`), bin = GOV_BIN): Promise<ServerProcess> {
  const { child, started, line } = spawnServer('preview', [bin, 'preview', 'start', '--port', '0', '--json', '--data-dir', dataDir], logPath);
  const info = JSON.parse(await line) as { base_url: string; pid: number; run_file: string };
  const listenMs = performance.now() - started;
  const run = JSON.parse(readFileSync(info.run_file, 'utf8')) as { tokens: Tokens };
  return { name: 'preview', baseUrl: info.base_url, pid: info.pid, tokens: run.tokens, spawnedAt: started, listenMs, logPath, stop: stopper('preview', child) };
}

export async function startNoopServer(logPath: string): Promise<ServerProcess> {
  const { child, started, line } = spawnServer('no-op server', ['--import', 'tsx', NOOP_SERVER], logPath);
  const info = JSON.parse(await line) as { base_url: string; pid: number };
  return { name: 'no-op', baseUrl: info.base_url, pid: info.pid, tokens: null, spawnedAt: started, listenMs: performance.now() - started, logPath, stop: stopper('no-op server', child) };
}

/** Runs a one-shot command to completion (bounded), with its wall time. */
export function runNode(args: string[], timeoutMs = 120_000): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  return runProgram(process.execPath, args, timeoutMs);
}

/** CPU seconds (user + system) a process has used so far, from /proc; null where there is no /proc. */
export function cpuSeconds(pid: number): number | null {
  try {
    // Fields after the command name (which may hold spaces, so split after its closing paren).
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // utime and stime are fields 14 and 15 of stat, in USER_HZ ticks (100 per second on Linux).
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

/** A process's CPU in seconds by thread: its main thread, the index writer, and the rest (V8's helpers, libuv's pool). */
export type ThreadCpu = { main: number; index: number; other: number };

/**
 * The preview's CPU by thread, read from /proc (Linux only; null elsewhere). The index writer is
 * the thread the worker lowered to nice 10 (index-worker.ts); a thread that ended meanwhile is
 * missing from the second reading, so compare readings of a process that keeps its threads.
 */
export function threadCpuSeconds(pid: number): ThreadCpu | null {
  try {
    const out: ThreadCpu = { main: 0, index: 0, other: 0 };
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const fields = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      // utime, stime: fields 14 and 15; nice: field 19 (indexes 11, 12 and 16 after the name).
      const seconds = (Number(fields[11]) + Number(fields[12])) / 100;
      if (Number(tid) === pid) out.main += seconds;
      else if (Number(fields[16]) > 0) out.index += seconds;
      else out.other += seconds;
    }
    return out;
  } catch {
    return null;
  }
}

function tail(path: string): string {
  try {
    return readFileSync(path, 'utf8').slice(-2000);
  } catch {
    return '(no log)';
  }
}

/**
 * `gov serve` (the hosted service) on a migrated PostgreSQL database, OIDC tokens checked against
 * a JWKS file. Its pid is the serving process (bin/gov.js runs the code in-process), for cpuSeconds.
 */
export async function startHostedServe(name: string, options: { databaseUrl: string; issuer: string; audience: string; jwksFile: string }, logPath: string): Promise<ServerProcess> {
  const args = [GOV_BIN, 'serve', '--database-url', options.databaseUrl, '--host', '127.0.0.1', '--port', '0', '--issuer', options.issuer, '--audience', options.audience, '--jwks-file', options.jwksFile, '--json'];
  const { child, started, line } = spawnServer(name, args, logPath);
  const info = JSON.parse(await line) as { base_url: string; pid: number };
  return { name, baseUrl: info.base_url, pid: info.pid, tokens: null, spawnedAt: started, listenMs: performance.now() - started, logPath, stop: stopper(name, child) };
}

/** Runs a one-shot program to completion, bounded and tracked (killed with the bench), with its wall time. */
export function runProgram(command: string, args: string[], timeoutMs = 120_000): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    live.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      live.delete(child);
      reject(err);
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      live.delete(child);
      resolve({ code, stdout, stderr, ms: performance.now() - started });
    });
  });
}
