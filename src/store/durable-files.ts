// Files that outlive a crash: written and fsynced, and their directory fsynced where a name was
// created, renamed or removed (a directory entry is durable only once its directory is). The store's
// markers (index.rebuild, index.unsynced), the index file it renames into place and the evidence
// quarantine's content-addressed files use these; the log itself is written through O_DSYNC
// (event-log.ts).
import { closeSync, fsyncSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

/** fsync of a file or a directory. */
export function syncPath(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Writes `data` to `path` (created with `mode`, replaced if there) and fsyncs the file, not its directory. */
export function writeSynced(path: string, data: string | Uint8Array, mode?: number): void {
  const fd = openSync(path, 'w', mode);
  try {
    writeSync(fd, typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Writes `data` to `path` and flushes the file and its directory: it outlives a crash once this returns. */
export function writeFileDurably(path: string, data: string | Uint8Array): void {
  writeSynced(path, data);
  syncPath(dirname(path));
}
