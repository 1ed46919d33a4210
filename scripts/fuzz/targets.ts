// Where the fuzzer sends its requests: a preview of its own on a temporary data dir and port 0
// (whose stderr it reads for the 5xx records), or a running server named by --base-url and
// --token-file (loopback only; it writes only in tenants of its own there).
import { closeSync, fstatSync, mkdtempSync, openSync, readFileSync, readSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readSmokeTokenFile } from '../../src/smoke/target.ts';
import { envelopeProblem } from '../../src/domain/event-envelope.ts';
import type { Target } from './exchange.ts';
import type { AppendedEvent } from './invariants.ts';
import { assertLoopback, startPreviewProcess } from './preview-process.ts';

export type FuzzTarget = Target & {
  /** Whether the fuzzer started this server (and so may write its forge state and name fixed tenants). */
  own: boolean;
  /** The server's stderr record of a 5xx (one JSON line with the stack), when it can be read. */
  serverError(requestId: string | null): string | null;
  /** The events after seq `after`, read from the log (each checked as an envelope where it can be); null where it cannot be read. */
  eventsAfter(after: number): AppendedEvent[] | null;
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
    eventsAfter: logReader(join(workDir, 'data', 'events.jsonl')),
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
  reads: { serverError?: (requestId: string | null) => string | null; eventsAfter?: (after: number) => AppendedEvent[] | null } = {},
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

/**
 * The events after a seq, from the log file: each line read once (the fuzzer asks after every
 * write, and the log grows to thousands of events), kept as its kind, outcome and envelope check.
 */
export function logReader(logFile: string): (after: number) => AppendedEvent[] | null {
  const read: AppendedEvent[] = [];
  let offset = 0;
  let rest = '';
  return (after) => {
    try {
      const fd = openSync(logFile, 'r');
      try {
        const size = fstatSync(fd).size;
        if (size > offset) {
          const chunk = Buffer.alloc(size - offset);
          readSync(fd, chunk, 0, chunk.length, offset);
          offset = size;
          const lines = (rest + chunk.toString('utf8')).split('\n');
          rest = lines.pop()!;
          for (const line of lines.filter((l) => l !== '')) {
            let event: { seq: number; kind: string; payload?: { outcome?: unknown } };
            try {
              event = JSON.parse(line) as typeof event;
            } catch {
              // A whole line that is no JSON is appended after everything the fuzzer has seen.
              read.push({ seq: Number.MAX_SAFE_INTEGER, kind: '(a line that is not JSON)', outcome: undefined, problem: 'the line is not JSON' });
              continue;
            }
            read.push({ seq: event.seq, kind: event.kind, outcome: event.payload?.outcome, problem: envelopeProblem(event) });
          }
        }
      } finally {
        closeSync(fd);
      }
    } catch {
      return null;
    }
    return read.filter((e) => e.seq! > after);
  };
}
