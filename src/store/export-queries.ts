// Reads of the index that the access log and the exports need beyond queries.ts: one scope's events
// of a kind after a seq (streamed, so a filtered page stops once it is full), the tasks of a scope
// that cite evidence, and the scope's last event at or before an instant. Each takes the index's
// current connection and prepares its statement there (better-sqlite3 caches nothing for us, and
// preparing is cheap next to the rows read), so a rebuilt index is read without anything to follow.
import type Database from 'better-sqlite3';
import type { Scope, StoredEvent } from '../domain/event.ts';
import { AppError } from '../errors.ts';
import { scopeKey } from './projections/core.ts';

/** The scope's events of `kind` with afterSeq < seq ≤ upToSeq, in seq order, parsed one at a time. */
export function* scopeEventsOfKind(db: Database.Database, scope: Scope, kind: string, afterSeq: number, upToSeq: number): Generator<StoredEvent> {
  const rows = db.prepare<[string, string, number, number], { line: string }>('SELECT line FROM events WHERE scope = ? AND kind = ? AND seq > ? AND seq <= ? ORDER BY seq')
    .iterate(scopeKey(scope), kind, afterSeq, upToSeq);
  for (const row of rows) yield parsed(row.line);
}

/** The tasks of the scope that cite at least one evidence artifact, in task_id order. */
export function evidenceTasks(db: Database.Database, scope: Scope): string[] {
  return db.prepare<[string], { task_id: string }>('SELECT DISTINCT task_id FROM artifacts WHERE scope = ? ORDER BY task_id').all(scopeKey(scope)).map((r) => r.task_id);
}

/**
 * The seq of the scope's last event recorded at or before `atOrBefore` (a recorded_at in gov's
 * normal form, compared as text: every recorded_at is written in that one form) among seq ≤ upToSeq;
 * 0 when there is none. The log's recorded_at never goes back, so the walk from the end stops early.
 */
export function lastScopeSeqAt(db: Database.Database, scope: Scope, upToSeq: number, atOrBefore: string): number {
  const rows = db.prepare<[string, number], { seq: number; recorded_at: string }>('SELECT seq, recorded_at FROM events WHERE scope = ? AND seq <= ? ORDER BY seq DESC')
    .iterate(scopeKey(scope), upToSeq);
  for (const row of rows) {
    if (row.recorded_at <= atOrBefore) return row.seq;
  }
  return 0;
}

function parsed(line: string): StoredEvent {
  try {
    return JSON.parse(line) as StoredEvent;
  } catch (cause) {
    throw new AppError('index_unavailable', 'The index holds a row that does not parse: the index file is damaged. Every acknowledged event is safe in the log, from which the index is being rebuilt; try again in a few seconds.', { cause });
  }
}
