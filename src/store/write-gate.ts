// What the single writer decides for each queued unit before it seals it: replay (its
// Idempotency-Key was used by the same request), refuse (a key reused with another request, or a
// failed expectation), or seal. It sees the committed log through the index and, on top of it, the
// units sealed earlier in the same batch (the overlay), so no caller holds a lock across an fsync.
import type { StoredEvent } from '../domain/event.ts';
import { nextStreamState, streamOf, type StreamState } from '../domain/streams.ts';
import { AppError } from '../errors.ts';
import type { PendingEvent } from './event-log.ts';
import { checkExpectations, type Expectation, type WriteView } from './expectations.ts';

export type IdempotencyRecord = { first_seq: number; size: number; request_sha256: string | null };

/** Look-ups into the committed state (the index, caught up with every durable batch). */
export type CommittedState = {
  stream(id: string): StreamState | undefined;
  idempotency(tenantId: string, key: string): IdempotencyRecord | undefined;
  eventIdTaken(eventId: string): boolean;
  recordedAtOf(seq: number): string | undefined;
};

export type Admission =
  | { type: 'seal' }
  /** Answer with the events of the unit that first used the key (`pending`: sealed in this batch). */
  | { type: 'replay'; record: IdempotencyRecord; pending: boolean }
  | { type: 'refuse'; error: Error };

export type WriteGate = {
  /** Starts a batch whose events get seqs from `firstSeq` on, all recorded at `recordedAt`. */
  beginBatch(firstSeq: number, recordedAt: string): void;
  admit(unit: readonly PendingEvent[], expect: readonly Expectation[]): Admission;
  /** Records a sealed unit in the batch's overlay, so later units of the batch see it. */
  sealed(events: readonly StoredEvent[]): void;
  /** The batch is durable and in the index: keep what the cache holds up to date, drop the overlay. */
  commitBatch(): void;
  /** The batch was not written: forget it. */
  abortBatch(): void;
  /** The committed state of a stream (for ETags and reads). */
  committedStream(id: string): StreamState | undefined;
};

const STREAM_CACHE_LIMIT = 50_000;

export function createWriteGate(committed: CommittedState): WriteGate {
  // Stream states are read on every guarded write: keep the recent ones in memory (the index is the
  // authority; an entry is replaced whenever a durable batch touches its stream).
  const cache = new Map<string, StreamState | null>();
  const batchStreams = new Map<string, StreamState>();
  const batchKeys = new Map<string, IdempotencyRecord>();
  const batchIds = new Set<string>();
  let batchFirstSeq = Number.MAX_SAFE_INTEGER;
  let batchRecordedAt = '';
  let sealedThrough = 0;

  const committedStream = (id: string): StreamState | undefined => {
    const hit = cache.get(id);
    if (hit !== undefined) return hit ?? undefined;
    const state = committed.stream(id);
    if (cache.size >= STREAM_CACHE_LIMIT) cache.clear();
    cache.set(id, state ?? null);
    return state;
  };

  const view: WriteView = {
    stream: (id) => batchStreams.get(id) ?? committedStream(id),
    eventIdTaken: (id) => batchIds.has(id) || committed.eventIdTaken(id),
    recordedAtOf: (seq) => {
      if (seq >= batchFirstSeq) return seq <= sealedThrough ? batchRecordedAt : undefined;
      return committed.recordedAtOf(seq);
    },
  };

  return {
    beginBatch(firstSeq, recordedAt) {
      batchFirstSeq = firstSeq;
      sealedThrough = firstSeq - 1;
      batchRecordedAt = recordedAt;
    },
    admit(unit, expect) {
      const head = unit[0]!;
      if (head.idempotency_key !== null) {
        const slot = `${head.tenant_id}\n${head.idempotency_key}`;
        const inBatch = batchKeys.get(slot);
        const record = inBatch ?? committed.idempotency(head.tenant_id, head.idempotency_key);
        if (record) {
          if (record.request_sha256 !== head.request_sha256) {
            return { type: 'refuse', error: new AppError('idempotency_key_reused', 'This Idempotency-Key was already used with a different request; use a new key for a new request.') };
          }
          return { type: 'replay', record, pending: inBatch !== undefined };
        }
      }
      const error = checkExpectations(expect, view);
      return error === null ? { type: 'seal' } : { type: 'refuse', error };
    },
    sealed(events) {
      const head = events[0]!;
      if (head.idempotency_key !== null) {
        batchKeys.set(`${head.tenant_id}\n${head.idempotency_key}`, { first_seq: head.seq, size: events.length, request_sha256: head.request_sha256 });
      }
      for (const event of events) {
        batchIds.add(event.event_id);
        const stream = streamOf(event);
        if (stream !== null) batchStreams.set(stream, nextStreamState(view.stream(stream), event));
      }
      sealedThrough = events[events.length - 1]!.seq;
    },
    commitBatch() {
      for (const [id, state] of batchStreams) cache.set(id, state);
      clearBatch();
    },
    abortBatch() {
      clearBatch();
    },
    committedStream,
  };

  function clearBatch(): void {
    batchStreams.clear();
    batchKeys.clear();
    batchIds.clear();
    batchFirstSeq = Number.MAX_SAFE_INTEGER;
    sealedThrough = 0;
  }
}
