// The evidence quarantine under the data dir (docs/governance/sanitizer.md): raw evidence bytes and
// the sanitizer's projections, each stored once under the hex sha256 of its content
// (content-addressed: the same bytes are one file), written to a temporary name, fsynced and
// renamed into place so a crash leaves either the whole file or none. Raw bytes are never indexed,
// exported or placed in a packet: nothing reads them back but a check of their hash.
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { syncPath, writeSynced } from './durable-files.ts';

/**
 * Content-addressed storage of evidence bytes: this directory in the preview, a table of the
 * database in the hosted service (pg/pg-quarantine.ts). A put resolves once the bytes are durable.
 */
export type Quarantine = {
  /** Stores raw evidence bytes; answers their hex sha256. */
  putRaw(bytes: Uint8Array): Promise<string>;
  /** Whether raw bytes with this hex sha256 are held. */
  hasRaw(sha256: string): Promise<boolean>;
  /** Stores a sanitized projection (UTF-8 text); answers the hex sha256 of its bytes. */
  putProjection(text: string): Promise<string>;
  /** A stored projection by its hex sha256, or undefined. */
  projection(sha256: string): Promise<string | undefined>;
};

export const hexOf = (sha256: string) => {
  if (!/^[0-9a-f]{64}$/.test(sha256)) throw new Error(`not a hex sha256: ${sha256}`);
  return sha256;
};

export function openQuarantine(dataDir: string): Quarantine {
  const rawDir = join(dataDir, 'quarantine', 'raw');
  const projectionDir = join(dataDir, 'quarantine', 'projections');
  const put = (dir: string, bytes: Uint8Array): string => {
    const hex = createHash('sha256').update(bytes).digest('hex');
    const path = join(dir, hex);
    if (existsSync(path)) return hex;
    mkdirSync(dir, { recursive: true });
    const tmp = `${path}.${process.pid}.tmp`;
    writeSynced(tmp, bytes, 0o600);
    renameSync(tmp, path);
    // The rename is durable once the directory is.
    syncPath(dir);
    return hex;
  };
  // Synchronous file calls behind the async port: a put is a few KiB and one fsync.
  return {
    putRaw: async (bytes) => put(rawDir, bytes),
    hasRaw: async (sha256) => existsSync(join(rawDir, hexOf(sha256))),
    putProjection: async (text) => put(projectionDir, Buffer.from(text, 'utf8')),
    async projection(sha256) {
      const path = join(projectionDir, hexOf(sha256));
      return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
    },
  };
}
