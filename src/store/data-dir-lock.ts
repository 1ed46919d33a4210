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

/** Whether a process with this pid exists (EPERM: it does, it is only not ours to signal). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
