// Where the fuzzer sends its requests: a preview of its own on a temporary data dir and port 0
// (whose stderr it reads for the 5xx records), or a running server named by --base-url and
// --token-file (loopback only; it writes only in tenants of its own there).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readSmokeTokenFile } from '../../src/smoke/target.ts';
import type { Target } from './exchange.ts';
import { assertLoopback, startPreviewProcess } from './preview-process.ts';

export type FuzzTarget = Target & {
  /** Whether the fuzzer started this server (and so may write its forge state and name fixed tenants). */
  own: boolean;
  /** The server's stderr record of a 5xx (one JSON line with the stack), when it can be read. */
  serverError(requestId: string | null): string | null;
  /** The events after seq `after` (kind and payload outcome), read from the log; null where it cannot be read. */
  eventsAfter(after: number): { kind: string; outcome: unknown }[] | null;
  /** Where the server's stderr is, for the report. */
  logPath: string | null;
  /** Names this run's tenants (fuzz-<run>-a, -b) when they must be known before (a hosted token grants them). */
  run?: string;
  /** false: the server has no forge routes (the hosted service), so nothing of the forge is set up. */
  forge?: boolean;
  close(keep: boolean): Promise<void>;
};

export async function ownPreview(): Promise<FuzzTarget & { workDir: string }> {
  const workDir = mkdtempSync(join(tmpdir(), 'gov-fuzz-'));
  const logPath = join(workDir, 'preview.stderr.log');
  let preview;
  try {
    preview = await startPreviewProcess(join(workDir, 'data'), logPath);
  } catch (err) {
    rmSync(workDir, { recursive: true, force: true });
    throw err;
  }
  return {
    baseUrl: preview.baseUrl,
    tokens: preview.tokens,
    own: true,
    workDir,
    logPath,
    serverError: (requestId) => errorRecord(logPath, requestId),
    eventsAfter: (after) => eventsAfter(join(workDir, 'data', 'events.jsonl'), after),
    async close(keep) {
      await preview.stop();
      if (!keep) rmSync(workDir, { recursive: true, force: true });
    },
  };
}

export function existingServer(baseUrl: string, tokenFile: string): FuzzTarget {
  const { target } = readSmokeTokenFile(tokenFile);
  assertLoopback(baseUrl);
  return {
    baseUrl: baseUrl.replace(/\/+$/, ''),
    tokens: target.tokens,
    own: false,
    logPath: null,
    serverError: () => null,
    eventsAfter: () => null,
    async close() {},
  };
}

/**
 * A hosted service (gov serve) already running, with OIDC tokens minted for the tenants of `run`
 * (fuzz-<run>-a and -b): the customer token grants them with team roles, the operator token holds
 * the operator role. Its log is in PostgreSQL: `eventsAfter` reads it where the caller can (a
 * server in the caller's process reads its own index), else the appended events are only counted.
 */
export function hostedServer(
  baseUrl: string,
  tokens: { customer: string; operator: string },
  run: string,
  reads: { serverError?: (requestId: string | null) => string | null; eventsAfter?: (after: number) => { kind: string; outcome: unknown }[] | null } = {},
): FuzzTarget {
  return { baseUrl: baseUrl.replace(/\/+$/, ''), tokens, own: false, run, forge: false, logPath: null, serverError: reads.serverError ?? (() => null), eventsAfter: reads.eventsAfter ?? (() => null), async close() {} };
}

/** The 5xx record (`{"level":"error","request_id":…}`) for a request id, from the server's stderr. */
export function errorRecord(logPath: string, requestId: string | null): string | null {
  if (requestId === null) return null;
  let text: string;
  try {
    text = readFileSync(logPath, 'utf8');
  } catch {
    return null;
  }
  for (const line of text.split('\n')) {
    if (!line.startsWith('{') || !line.includes(requestId)) continue;
    try {
      const record = JSON.parse(line) as { request_id?: string };
      if (record.request_id === requestId) return line;
    } catch {
      // a line cut by a crash: not the record
    }
  }
  return null;
}

function eventsAfter(logFile: string, after: number): { kind: string; outcome: unknown }[] | null {
  try {
    return readFileSync(logFile, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { seq: number; kind: string; payload?: { outcome?: unknown } })
      .filter((e) => e.seq > after).map((e) => ({ kind: e.kind, outcome: e.payload?.outcome }));
  } catch {
    return null;
  }
}
