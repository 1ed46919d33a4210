// The conditions a unit states about the log when it is appended, checked by the single writer in
// queue order against the committed state plus the units sealed before it in the same batch
// (as EventStoreDB's expectedRevision and emmett's expectedStreamVersion, with a few more kinds).
// A unit whose condition fails is refused alone; nothing of it is written.
import type { StoredEvent } from '../domain/event.ts';
import type { StreamState } from '../domain/streams.ts';
import type { PendingEvent } from './event-log.ts';

export type StreamFailure = { reason: 'exists' | 'missing' | 'closed' | 'stale'; actual: StreamState | undefined };

export type Expectation =
  /**
   * `absent`: no event yet; `exists`: at least one; `open`: exists and not closed. `version`, when
   * given, must equal the stream's version (0 for a stream without events): the If-Match of a
   * route, or the version a decision was made at. Checked in that order, so a missing task is a
   * 404 before a closed one is a 409 before a stale version is a 412.
   */
  | { type: 'stream'; stream: string; state?: 'absent' | 'exists' | 'open'; version?: number; orElse: (failure: StreamFailure) => Error }
  /** A caller-chosen event id must be new. */
  | { type: 'event_id_unused'; eventId: string; orElse: () => Error }
  /**
   * A snapshot read at seq `seq` of everything recorded up to `asOf` (epoch ms) is complete: no
   * event after `seq` was recorded at or before `asOf`. recorded_at never decreases in seq order,
   * so looking at seq + 1 is enough. A failure means a write was in flight: read again.
   */
  | { type: 'snapshot_complete'; seq: number; asOf: number; orElse: () => Error };

/** What the writer sees when it checks a unit: the committed log plus the batch sealed so far. */
export type WriteView = {
  stream(id: string): StreamState | undefined;
  eventIdTaken(eventId: string): boolean;
  /** recorded_at of an event at or before the writer's current position, else undefined. */
  recordedAtOf(seq: number): string | undefined;
};

/**
 * What a decision made again inside the writer sees beyond the index: the events sealed after a
 * seq that the index may not hold yet (durable batches it has not applied and the batch being
 * sealed, oldest first), and each stream's version as the writer knows it.
 */
export type SealedView = {
  eventsAfter(seq: number): StoredEvent[];
  streamVersion(stream: string): number;
  /**
   * What a decision derived from everything sealed up to `seq` (a stream's state), for the next
   * decision of the same key to fold on from there. Forgotten when a batch is not written.
   */
  memo: Map<string, { seq: number; value: unknown }>;
};

/**
 * Makes a unit's decision again when a stream it read moved on before the writer reached it (its
 * expectation is stale): the state it read plus what was sealed since is the state the unit
 * would be sealed on. Synchronous, and it must not write or refuse: null keeps the refusal (the
 * caller then decides again the slow way). The writer calls it at most once per append, and the
 * new unit's expectations are checked like any other's.
 */
export type Redecide = (view: SealedView) => { unit: PendingEvent[]; expect: readonly Expectation[] } | null;

/** A failed expectation: its error, and whether only a stream's version was stale (the state moved on). */
export type ExpectationFailure = { error: Error; stale: boolean };

/** The first failing expectation, or null when every one holds. */
export function checkExpectations(expect: readonly Expectation[], view: WriteView): ExpectationFailure | null {
  for (const e of expect) {
    if (e.type === 'stream') {
      const actual = view.stream(e.stream);
      const reason = streamFailure(e, actual);
      if (reason !== null) return { error: e.orElse({ reason, actual }), stale: reason === 'stale' };
    } else if (e.type === 'event_id_unused') {
      if (view.eventIdTaken(e.eventId)) return { error: e.orElse(), stale: false };
    } else {
      const next = view.recordedAtOf(e.seq + 1);
      if (next !== undefined && Date.parse(next) <= e.asOf) return { error: e.orElse(), stale: false };
    }
  }
  return null;
}

function streamFailure(e: Extract<Expectation, { type: 'stream' }>, actual: StreamState | undefined): StreamFailure['reason'] | null {
  if (e.state === 'absent' && actual !== undefined) return 'exists';
  if ((e.state === 'exists' || e.state === 'open') && actual === undefined) return 'missing';
  if (e.state === 'open' && actual!.closed) return 'closed';
  if (e.version !== undefined && (actual?.version ?? 0) !== e.version) return 'stale';
  return null;
}
