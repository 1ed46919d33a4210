// The append-only event log `events.jsonl`: one RFC 8785 line per event, gapless seq, hash chain.
// Appends are group-committed: every unit queued while a write + fsync is in flight goes into the
// next single write + fsync, and no promise resolves before the fsync that made its lines durable.
// The one writer checks each unit's Idempotency-Key and expectations as it seals it (write-gate.ts).
import { closeSync, fstatSync, ftruncateSync, fsyncSync, openSync, readSync } from 'node:fs';
import { fdatasync, write } from 'node:fs';
import { canonicalJson, sha256Hex } from '../domain/canonical-json.ts';
import type { EventDraft, StoredEvent, Transport } from '../domain/event.ts';
import { AppError } from '../errors.ts';
import type { Expectation } from './expectations.ts';
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
   */
  append(unit: PendingEvent[], expect?: readonly Expectation[]): Promise<AppendResult>;
  /** Waits for queued appends, then closes the file. */
  close(): Promise<void>;
  /** Refuses every later append with `error` (the index fell behind: a restart rebuilds it). */
  fail(error: AppError): void;
};

type Queued = { unit: PendingEvent[]; expect: readonly Expectation[]; resolve: (result: AppendResult) => void; reject: (err: unknown) => void };

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
  /** Called once per written batch (one write + one fsync); tests assert group commit with it. */
  onBatch?: (units: number, events: number) => void;
};

export function openEventLog(options: EventLogOptions): EventLog {
  const fd = openSync(options.path, 'r+');
  const { gate } = options;
  let tail = { ...options.tail };
  let queue: Queued[] = [];
  let flushing: Promise<void> | null = null;
  let failed: AppError | null = null;
  let closed = false;

  const seal = (pending: PendingEvent, seq: number, prevHash: string, recordedAt: string, unit?: StoredEvent['unit']): SealedRow => {
    const event: Record<string, unknown> = {
      schema_version: 'service.event.v1',
      event_id: pending.event_id,
      seq,
      kind: pending.kind,
      tenant_id: pending.tenant_id,
      workspace_id: pending.workspace_id,
      project_id: pending.project_id,
      transport: pending.transport,
      recorded_at: recordedAt,
      idempotency_key: pending.idempotency_key,
      request_sha256: pending.request_sha256,
      payload: pending.payload,
      prev_hash: prevHash,
    };
    if (pending.task_id !== undefined) event.task_id = pending.task_id;
    if (pending.session_id !== undefined) event.session_id = pending.session_id;
    if (pending.actor !== undefined) event.actor = pending.actor;
    if (pending.occurred_at !== undefined) event.occurred_at = pending.occurred_at;
    if (pending.evidence_refs !== undefined) event.evidence_refs = pending.evidence_refs;
    if (unit !== undefined) event.unit = unit;
    // One canonicalization serves both the hash and the line: the hash covers the canonical event
    // without event_hash, and the line is that text with event_hash spliced in at its sorted place.
    const unhashed = canonicalJson(event);
    const hash = `sha256:${sha256Hex(unhashed)}`;
    event.event_hash = hash;
    return { event: event as StoredEvent, line: spliceEventHash(unhashed, hash) };
  };

  const answer = (rows: SealedRow[], replayed: boolean): AppendResult => ({ replayed, events: rows.map((r) => r.event), lines: rows.map((r) => r.line) });

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
      // recorded_at never decreases in seq order, whatever the wall clock does.
      const now = options.clock().toISOString();
      const recordedAt = now > tail.recordedAt ? now : tail.recordedAt;
      let seq = tail.seq;
      let prev = tail.hash;
      const rows: SealedRow[] = [];
      const accepted: Array<{ item: Queued; from: number; size: number }> = [];
      // Answered once the batch is durable: replays of a unit sealed in it, and refusals (they
      // may rest on a unit of the batch, which counts only if it is written).
      const replays: Array<{ item: Queued; first: number; size: number }> = [];
      const refusals: Array<{ item: Queued; error: Error }> = [];
      gate.beginBatch(seq + 1, recordedAt);
      for (const item of batch) {
        try {
          const admission = gate.admit(item.unit, item.expect);
          if (admission.type === 'refuse') {
            refusals.push({ item, error: admission.error });
            continue;
          }
          if (admission.type === 'replay') {
            const { first_seq: first, size } = admission.record;
            if (admission.inBatch) replays.push({ item, first, size });
            else item.resolve(answer(gate.rows(first, size), true));
            continue;
          }
          const sealed: SealedRow[] = [];
          item.unit.forEach((pending, index) => {
            const unit = item.unit.length > 1 ? { index, size: item.unit.length } : undefined;
            sealed.push(seal(pending, seq + 1 + index, index === 0 ? prev : sealed[index - 1]!.event.event_hash, recordedAt, unit));
          });
          gate.sealed(sealed);
          accepted.push({ item, from: rows.length, size: sealed.length });
          rows.push(...sealed);
          seq += sealed.length;
          prev = sealed[sealed.length - 1]!.event.event_hash;
        } catch (err) {
          item.reject(err);
        }
      }
      if (accepted.length === 0) {
        gate.abortBatch();
        for (const { item, error } of refusals) item.reject(error);
        continue;
      }
      options.onBatch?.(accepted.length, rows.length);
      const buffer = Buffer.from(`${rows.map((r) => r.line).join('\n')}\n`, 'utf8');
      try {
        await writeAll(fd, buffer, before.size);
        await datasync(fd);
      } catch (cause) {
        gate.abortBatch();
        // Nothing of this batch was acknowledged: cut it off so the log ends where it did.
        try {
          ftruncateSync(fd, before.size);
          fsyncSync(fd);
        } catch {
          failed = new AppError('store_unavailable', 'The event log could not be written or repaired; restart the preview.', { cause });
        }
        const err = new AppError('store_write_failed', 'The event could not be written to disk; nothing was recorded. Try again.', { cause });
        for (const { item } of [...accepted, ...replays, ...refusals]) item.reject(err);
        continue;
      }
      tail = { seq, hash: prev, recordedAt, size: before.size + buffer.length };
      gate.batchDurable();
      options.onDurable({ from: before.size, to: tail.size, lastSeq: seq });
      for (const { item, from, size } of accepted) item.resolve(answer(rows.slice(from, from + size), false));
      for (const { item, first, size } of replays) {
        const from = first - before.seq - 1;
        item.resolve(answer(rows.slice(from, from + size), true));
      }
      for (const { item, error } of refusals) item.reject(error);
    }
  };

  const kick = () => {
    if (flushing) return;
    flushing = new Promise<void>((resolve) => {
      // setImmediate lets every request that arrived in this turn join the batch.
      setImmediate(() => {
        // flush answers every unit itself; a rejection here would be a bug, left to crash loudly.
        void flush().finally(() => {
          flushing = null;
          resolve();
          if (queue.length > 0) kick();
        });
      });
    });
  };

  return {
    path: options.path,
    tail: () => ({ ...tail }),
    append(unit, expect = []) {
      if (closed) return Promise.reject(new AppError('store_closed', 'The store is shutting down; retry against the next run.'));
      if (failed) return Promise.reject(failed);
      if (unit.length === 0) return Promise.reject(new Error('an append needs at least one event'));
      return new Promise<AppendResult>((resolve, reject) => {
        queue.push({ unit, expect, resolve, reject });
        kick();
      });
    },
    async close() {
      closed = true;
      while (flushing) await flushing;
      closeSync(fd);
    },
    fail(error) {
      failed ??= error;
    },
  };
}

/**
 * Inserts `"event_hash":"…",` into the canonical text of an event without it. RFC 8785 sorts members
 * by UTF-16 code units, so event_hash comes right before event_id, which every event has; the only
 * member that can sort before event_id is actor, whose members are id and type, and a string value
 * cannot contain an unescaped `"event_id":`, so the first occurrence is the top-level member.
 */
export function spliceEventHash(unhashed: string, hash: string): string {
  const at = unhashed.indexOf('"event_id":');
  if (at < 0) throw new Error('an event without event_id cannot be sealed');
  return `${unhashed.slice(0, at)}"event_hash":${JSON.stringify(hash)},${unhashed.slice(at)}`;
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

/** Reads the log's tail without reading the whole file: the last complete line and the file size. */
export function readLastLine(path: string): { size: number; lastLine: string | null; lastLineStart: number; endsWithNewline: boolean } {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
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
