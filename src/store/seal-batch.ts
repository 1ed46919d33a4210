// Sealing a batch of queued appends, shared by both event logs (the local file, event-log.ts, and
// PostgreSQL, pg/pg-log.ts): unit by unit in queue order the write gate decides replay, refusal or
// seal; a sealed unit gets consecutive seqs, the hash chain and its canonical lines. What is decided
// here is answered only once the batch is durable (`settle`), or refused whole when it is not.
import { canonicalJson, sha256Hex } from '../domain/canonical-json.ts';
import type { StoredEvent } from '../domain/event.ts';
import type { AppendResult, PendingEvent, SealedRow } from './event-log.ts';
import type { Expectation, Redecide } from './expectations.ts';
import type { Admission, WriteGate } from './write-gate.ts';

/** An append waiting for the next batch. */
export type Queued = {
  unit: PendingEvent[];
  expect: readonly Expectation[];
  /** Makes the unit's decision again when a stream it read moved on (expectations.ts), if it can. */
  redecide: Redecide | undefined;
  resolve: (result: AppendResult) => void;
  reject: (err: unknown) => void;
};

/** What the caller of `append` may add to a unit and its expectations. */
export type AppendOptions = { redecide?: Redecide };

/** An append as the queue holds it: one object shape whether or not it can be decided again. */
export function queued(unit: PendingEvent[], expect: readonly Expectation[], options: AppendOptions, resolve: Queued['resolve'], reject: Queued['reject']): Queued {
  return { unit, expect, redecide: options.redecide, resolve, reject };
}

/** What the gate made of a batch: the rows to write and how each queued append is answered once they are durable. */
export type SealedBatch = {
  rows: SealedRow[];
  accepted: Array<{ item: Queued; from: number; size: number }>;
  /** Replays of a unit sealed in this very batch (answered from its rows once durable). */
  replays: Array<{ item: Queued; first: number; size: number }>;
  /** Refused units: answered once the batch is durable, since a refusal may rest on a unit of it. */
  refusals: Array<{ item: Queued; error: Error }>;
  /** The last seq and hash after the batch (the tail's when nothing was sealed). */
  seq: number;
  hash: string;
};

/**
 * Runs every queued append through the gate (begun at `tail` by the caller), sealing the admitted
 * ones after `tail`. A replay of a unit that is durable already resolves at once; an append whose
 * admission throws is rejected at once (nothing of it is sealed).
 */
export function sealBatch(gate: WriteGate, batch: readonly Queued[], tail: { seq: number; hash: string }, recordedAt: string): SealedBatch {
  let seq = tail.seq;
  let prev = tail.hash;
  const out: SealedBatch = { rows: [], accepted: [], replays: [], refusals: [], seq, hash: prev };
  for (const item of batch) {
    try {
      const { admission, unit } = admit(gate, item);
      if (admission.type === 'refuse') {
        out.refusals.push({ item, error: admission.error });
        continue;
      }
      if (admission.type === 'replay') {
        const { first_seq: first, size } = admission.record;
        if (admission.inBatch) out.replays.push({ item, first, size });
        else item.resolve(answerOf(gate.rows(first, size), true));
        continue;
      }
      const sealed: SealedRow[] = [];
      unit.forEach((pending, index) => {
        const member = unit.length > 1 ? { index, size: unit.length } : undefined;
        sealed.push(sealEvent(pending, seq + 1 + index, index === 0 ? prev : sealed[index - 1]!.event.event_hash, recordedAt, member));
      });
      gate.sealed(sealed);
      out.accepted.push({ item, from: out.rows.length, size: sealed.length });
      out.rows.push(...sealed);
      seq += sealed.length;
      prev = sealed[sealed.length - 1]!.event.event_hash;
    } catch (err) {
      item.reject(err);
    }
  }
  out.seq = seq;
  out.hash = prev;
  return out;
}

/**
 * The gate's admission of a queued unit. When only a stream it read moved on and the append can
 * decide again, the decision is made once more on what is sealed now and the new unit is
 * admitted instead (or the first refusal stands, if there is no new decision or it fails too).
 */
function admit(gate: WriteGate, item: Queued): { admission: Admission; unit: PendingEvent[] } {
  const admission = gate.admit(item.unit, item.expect);
  if (admission.type !== 'refuse' || admission.stale !== true || item.redecide === undefined) return { admission, unit: item.unit };
  let again: ReturnType<Redecide>;
  try {
    again = item.redecide(gate.sealedView);
  } catch {
    again = null; // it could not read what it needs (say, the index is being rebuilt): the refusal stands
  }
  if (again === null || again.unit.length === 0) return { admission, unit: item.unit };
  const second = gate.admit(again.unit, again.expect);
  return second.type === 'seal' ? { admission: second, unit: again.unit } : { admission, unit: item.unit };
}

/** Answers every append of a batch that is now durable; `beforeSeq` is the tail's seq before it. */
export function settleBatch(batch: SealedBatch, beforeSeq: number): void {
  for (const { item, from, size } of batch.accepted) item.resolve(answerOf(batch.rows.slice(from, from + size), false));
  for (const { item, first, size } of batch.replays) {
    const from = first - beforeSeq - 1;
    item.resolve(answerOf(batch.rows.slice(from, from + size), true));
  }
  for (const { item, error } of batch.refusals) item.reject(error);
}

/** Rejects every append of a batch that was not written (refusals with the write's error too: they may rest on it). */
export function failBatch(batch: SealedBatch, error: unknown): void {
  for (const { item } of [...batch.accepted, ...batch.replays, ...batch.refusals]) item.reject(error);
}

export function answerOf(rows: SealedRow[], replayed: boolean): AppendResult {
  return { replayed, events: rows.map((r) => r.event), lines: rows.map((r) => r.line) };
}

/** The stored event and its canonical line: the envelope's members, prev_hash, and the hash over them. */
export function sealEvent(pending: PendingEvent, seq: number, prevHash: string, recordedAt: string, unit?: StoredEvent['unit']): SealedRow {
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

/** recorded_at of the next batch: now, but never before the tail's (it never decreases in seq order). */
export function nextRecordedAt(clock: () => Date, tailRecordedAt: string): string {
  const now = clock().toISOString();
  return now > tailRecordedAt ? now : tailRecordedAt;
}

/**
 * Resolves once `clock` reads later than `instantMs`: a millisecond at most on a real clock. From
 * then on every batch is recorded after the instant (nextRecordedAt never goes below the clock). A
 * clock that does not move by itself (a test's) is waited for once and taken as it is.
 */
export async function pastInstant(clock: () => Date, instantMs: number): Promise<void> {
  if (clock().getTime() > instantMs) return;
  await new Promise<void>((resolve) => setTimeout(resolve, 1));
}

/**
 * Group commit's scheduling: `kick` starts a run of `flush` unless one is under way, after the
 * current turn (setImmediate) so every append that arrived in it joins the batch; a run that ends
 * with appends queued starts the next. `idle` resolves once no run is under way.
 */
export function flushLoop(flush: () => Promise<void>, queued: () => boolean): { kick(): void; idle(): Promise<void> } {
  let flushing: Promise<void> | null = null;
  const kick = (): void => {
    if (flushing) return;
    flushing = new Promise<void>((resolve) => {
      setImmediate(() => {
        // flush answers every unit itself; a rejection here would be a bug, left to crash loudly.
        void flush().finally(() => {
          flushing = null;
          resolve();
          if (queued()) kick();
        });
      });
    });
  };
  return {
    kick,
    async idle() {
      while (flushing) await flushing;
    },
  };
}
