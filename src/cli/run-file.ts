// <data-dir>/run.json: the per-run credentials and address of a running preview (mode 0600).
import { chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppError } from '../errors.ts';
import type { Tokens } from '../server/middleware/auth.ts';

export type RunFile = { base_url: string; pid: number; started_at: string; data_dir: string; tokens: Tokens };

export function runFilePath(dataDir: string): string {
  return join(dataDir, 'run.json');
}

export function writeRunFile(dataDir: string, run: RunFile): string {
  const path = runFilePath(dataDir);
  writeFileSync(path, `${JSON.stringify(run, null, 2)}\n`, { mode: 0o600 });
  chmodSync(path, 0o600); // an existing file keeps its old mode on write
  return path;
}

export function readRunFile(dataDir: string): RunFile {
  const path = runFilePath(dataDir);
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as RunFile;
  } catch {
    throw new AppError('not_running', `No preview is running for ${dataDir} (no ${path}); start one with gov preview start.`);
  }
}

export function removeRunFile(dataDir: string): void {
  rmSync(runFilePath(dataDir), { force: true });
}
