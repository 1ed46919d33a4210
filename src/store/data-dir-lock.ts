// One writer per data dir (docs/contract.md §5), held with proper-lockfile for the life of the
// process. The holder's pid sits beside the lock so a second start can name it, and so a lock left
// by a killed process (its pid no longer alive) is taken over at once instead of after staleness.
import lockfile from 'proper-lockfile';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppError } from '../errors.ts';

export type DataDirLock = { release(): Promise<void> };

export async function acquireDataDirLock(dir: string, warn: (msg: string) => void): Promise<DataDirLock> {
  const lockPath = join(dir, 'writer.lock');
  const pidPath = join(dir, 'writer.pid');
  const options = {
    realpath: false,
    lockfilePath: lockPath,
    stale: 10_000,
    update: 2_000,
    retries: 0,
    onCompromised: (err: Error) => warn(`The data-dir lock was compromised (${err.message}); stop this process and start it again.`),
  };
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(dir, options);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ELOCKED') throw err;
    const holder = readHolderPid(pidPath);
    // No pid yet means a holder that is just starting; proper-lockfile's staleness covers a crash there.
    if (holder === null || isAlive(holder)) {
      const who = holder === null ? 'another process' : `process ${holder}`;
      throw new AppError('data_dir_locked', `The data dir ${dir} is in use by ${who}; stop it (gov preview stop) or use another --data-dir.`, { extra: { pid: holder } });
    }
    warn(`Taking over the lock of ${dir} left by process ${holder}, which is no longer running.`);
    rmSync(lockPath, { recursive: true, force: true });
    release = await lockfile.lock(dir, options);
  }
  writeFileSync(pidPath, `${process.pid}\n`);
  return {
    async release() {
      rmSync(pidPath, { force: true });
      await release();
    },
  };
}

function readHolderPid(path: string): number | null {
  try {
    const pid = Number.parseInt(readFileSync(path, 'utf8').trim(), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/**
 * Whether a process with this pid runs (EPERM: it does, it is only not ours to signal). A zombie —
 * killed, not yet reaped by its parent — still answers signal 0 but holds nothing: on Linux its
 * state in /proc/<pid>/stat is Z, and it counts as gone.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  return !isZombie(pid);
}

function isZombie(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return false; // no /proc (not Linux), or the process just went: signal 0 said it was there
  }
  // "pid (comm) S …": comm may hold spaces and parentheses, so the state follows the last ')'.
  return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
}
