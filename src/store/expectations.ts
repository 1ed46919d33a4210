// The conditions a unit states about the log when it is appended, checked by the single writer in
// queue order against the committed state plus the units sealed before it in the same batch
// (as EventStoreDB's expectedRevision and emmett's expectedStreamVersion, with a few more kinds).
// A unit whose condition fails is refused alone; nothing of it is written.
import type { StreamState } from '../domain/streams.ts';

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

/** The first failing expectation's error, or null when every one holds. */
export function checkExpectations(expect: readonly Expectation[], view: WriteView): Error | null {
  for (const e of expect) {
    if (e.type === 'stream') {
      const actual = view.stream(e.stream);
      const reason = streamFailure(e, actual);
      if (reason !== null) return e.orElse({ reason, actual });
    } else if (e.type === 'event_id_unused') {
      if (view.eventIdTaken(e.eventId)) return e.orElse();
    } else {
      const next = view.recordedAtOf(e.seq + 1);
      if (next !== undefined && Date.parse(next) <= e.asOf) return e.orElse();
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
