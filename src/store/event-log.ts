// The append-only event log `events.jsonl`: one RFC 8785 line per event, gapless seq, hash chain.
// Appends are group-committed: every unit queued while a durable write is in flight goes into the
// next single durable write (O_DSYNC, or write + fdatasync), and no promise resolves before the
// write that made its lines durable has returned.
// The one writer checks each unit's Idempotency-Key and expectations as it seals it (write-gate.ts).
import { closeSync, constants, fstatSync, ftruncateSync, fsyncSync, openSync, readSync } from 'node:fs';
import { fdatasync, write } from 'node:fs';
import type { EventDraft, StoredEvent, Transport } from '../domain/event.ts';
import { AppError } from '../errors.ts';
import type { Expectation } from './expectations.ts';
import { failBatch, flushLoop, nextRecordedAt, queued, sealBatch, settleBatch, type AppendOptions, type Queued, type SealedBatch } from './seal-batch.ts';
import type { WriteGate } from './write-gate.ts';

/** An event as a route hands it to the log: the draft plus the server-set request members. */
export type PendingEvent = EventDraft & {
  event_id: string;
  transport: Transport;
  idempotency_key: string | null;
  request_sha256: string | null;
};

export type LogTail = { seq: number; hash: string; recordedAt: string; size: number };

/** A sealed event and its canonical line (what the log holds and what a route answers with). */
export type SealedRow = { event: StoredEvent; line: string };

/**
 * What an append answers: the unit's events and their canonical lines, and whether they are the
 * events of an earlier request with the same Idempotency-Key (a replay) rather than new ones.
 * Answer with `lines`: they are byte-identical between the first answer and every replay.
 */
export type AppendResult = { replayed: boolean; events: StoredEvent[]; lines: string[] };

export type EventLog = {
  readonly path: string;
  tail(): LogTail;
  /**
   * Appends a unit atomically (consecutive seqs, one write) when its key is new and its
   * expectations hold; resolves once it is on disk, or with the original unit for a replay.
   * `options.redecide` may replace the unit when a stream it read moved on (expectations.ts).
   */
  append(unit: PendingEvent[], expect?: readonly Expectation[], options?: AppendOptions): Promise<AppendResult>;
  /**
   * Resolves once the batch being written now (sealed: its seqs and recorded_at are fixed) is
   * durable or has failed; at once when none is. The tail moves past it only when it is durable.
   */
  written(): Promise<void>;
  /** Waits for queued appends, then closes the file. */
  close(): Promise<void>;
  /** Refuses every later append with `error` (the index fell behind: a restart rebuilds it). */
  fail(error: AppError): void;
};

export type EventLogOptions = {
  path: string;
  tail: LogTail;
  clock: () => Date;
  /** Decides, unit by unit in queue order, what each queued append becomes; holds the overlays. */
  gate: WriteGate;
  /**
   * Runs once a batch is durable, before its appends resolve: tells the index writer, which reads
   * the batch's lines (bytes `from` to `to` of the log) and applies them in the background (the
   * gate's overlay covers the batch meanwhile).
   */
  onDurable: (batch: { from: number; to: number; lastSeq: number }) => void;
  /** Resolves when the next batch may be sealed (the index writer is not too far behind). */
  ready?: () => Promise<void>;
  /** Called once per written batch (one durable write); tests assert group commit with it. */
  onBatch?: (units: number, events: number) => void;
};

/**
 * The log is opened for synchronized data writes where the platform has them (O_DSYNC: Linux, the
 * BSDs, macOS): each write returns once its bytes, and the file size that reaches them, are on
 * disk, as a write followed by fdatasync would. One call in libuv's thread pool instead of two,
 * and one wait for the event loop's turn instead of two: under load each was a few milliseconds of
 * a batch's time here, while the next batch waited. Without O_DSYNC (Windows) the write is
 * followed by fdatasync.
 */
const DSYNC = typeof constants.O_DSYNC === 'number' && constants.O_DSYNC !== 0 ? constants.O_DSYNC : null;

export function openEventLog(options: EventLogOptions): EventLog {
  const fd = openSync(options.path, DSYNC === null ? 'r+' : constants.O_RDWR | DSYNC);
  const { gate } = options;
  let tail = { ...options.tail };
  let queue: Queued[] = [];
  let failed: AppError | null = null;
  let closed = false;
  /** The batch being written, settled once its appends are answered (written or failed). */
  let writing: Promise<void> | null = null;

  const flush = async (): Promise<void> => {
    while (queue.length > 0) {
      if (options.ready) {
        try {
          await options.ready();
        } catch (err) {
          // The index is too far behind and cannot catch up now: refuse what waits (nothing of it
          // is written); later appends try again.
          const waiting = queue;
          queue = [];
          for (const item of waiting) item.reject(err);
          return;
        }
      }
      const batch = queue;
      queue = [];
      const before = tail;
      const recordedAt = nextRecordedAt(options.clock, tail.recordedAt);
      gate.beginBatch(tail.seq + 1, recordedAt);
      const sealed = sealBatch(gate, batch, tail, recordedAt);
      if (sealed.accepted.length === 0) {
        gate.abortBatch();
        for (const { item, error } of sealed.refusals) item.reject(error);
        continue;
      }
      options.onBatch?.(sealed.accepted.length, sealed.rows.length);
      let done!: () => void;
      writing = new Promise<void>((resolve) => (done = resolve));
      try {
        await writeSealed(sealed, before, recordedAt);
      } finally {
        writing = null;
        done();
      }
    }
  };

  /** Writes a sealed batch at the log's end and answers its appends; a failed write is cut off again. */
  const writeSealed = async (sealed: SealedBatch, before: LogTail, recordedAt: string): Promise<void> => {
    const buffer = Buffer.from(`${sealed.rows.map((r) => r.line).join('\n')}\n`, 'utf8');
    try {
      await writeAll(fd, buffer, before.size);
      if (DSYNC === null) await datasync(fd);
    } catch (cause) {
      gate.abortBatch();
      // Nothing of this batch was acknowledged: cut it off so the log ends where it did.
      try {
        ftruncateSync(fd, before.size);
        fsyncSync(fd);
      } catch {
        failed = new AppError('store_unavailable', 'The event log could not be written or repaired; restart the preview.', { cause });
      }
      failBatch(sealed, new AppError('store_write_failed', 'The event could not be written to disk; nothing was recorded. Try again.', { cause }));
      return;
    }
    tail = { seq: sealed.seq, hash: sealed.hash, recordedAt, size: before.size + buffer.length };
    gate.batchDurable();
    options.onDurable({ from: before.size, to: tail.size, lastSeq: tail.seq });
    settleBatch(sealed, before.seq);
  };

  const loop = flushLoop(flush, () => queue.length > 0);

  return {
    path: options.path,
    tail: () => ({ ...tail }),
    written: () => writing ?? Promise.resolve(),
    append(unit, expect = [], appendOptions = {}) {
      if (closed) return Promise.reject(new AppError('store_closed', 'The store is shutting down; retry against the next run.'));
      if (failed) return Promise.reject(failed);
      if (unit.length === 0) return Promise.reject(new Error('an append needs at least one event'));
      return new Promise<AppendResult>((resolve, reject) => {
        queue.push(queued(unit, expect, appendOptions, resolve, reject));
        loop.kick();
      });
    },
    async close() {
      closed = true;
      await loop.idle();
      closeSync(fd);
    },
    fail(error) {
      failed ??= error;
    },
  };
}

function writeAll(fd: number, buffer: Buffer, position: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const step = (offset: number) => {
      write(fd, buffer, offset, buffer.length - offset, position + offset, (err, written) => {
        if (err) return reject(err);
        if (offset + written < buffer.length) step(offset + written);
        else resolve();
      });
    };
    step(0);
  });
}

function datasync(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fdatasync(fd, (err) => (err ? reject(err) : resolve())));
}

/**
 * Reads the log's tail without reading the whole file: the last complete line and the file size
 * (of the log as if it ended at `end`, when given).
 */
export function readLastLine(path: string, end?: number): { size: number; lastLine: string | null; lastLineStart: number; endsWithNewline: boolean } {
  const fd = openSync(path, 'r');
  try {
    const size = Math.min(end ?? Infinity, fstatSync(fd).size);
    if (size === 0) return { size, lastLine: null, lastLineStart: 0, endsWithNewline: true };
    let chunk = 64 * 1024;
    for (;;) {
      const start = Math.max(0, size - chunk);
      const buf = Buffer.alloc(size - start);
      readSync(fd, buf, 0, buf.length, start);
      const endsWithNewline = buf[buf.length - 1] === 0x0a;
      const body = endsWithNewline ? buf.subarray(0, buf.length - 1) : buf;
      const nl = body.lastIndexOf(0x0a);
      if (nl >= 0 || start === 0) {
        const lineStart = start + nl + 1;
        return { size, lastLine: body.subarray(nl + 1).toString('utf8'), lastLineStart: lineStart, endsWithNewline };
      }
      chunk *= 4;
    }
  } finally {
    closeSync(fd);
  }
}

/** Cuts the log to `size` bytes and syncs (recovery only, before any append runs). */
export function truncateDurably(path: string, size: number): void {
  const fd = openSync(path, 'r+');
  try {
    ftruncateSync(fd, size);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
