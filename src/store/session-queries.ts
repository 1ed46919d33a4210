// Reads of the index the session provenance needs beyond queries.ts: one scope's events that name a
// session, in seq order (the events_by_session index). Like export-queries.ts it takes the index's
// current connection and prepares its statement there, so a rebuilt index is read without anything
// to follow.
import type Database from 'better-sqlite3';
import type { Scope, StoredEvent } from '../domain/event.ts';
import { AppError } from '../errors.ts';
import { scopeKey } from './projections/core.ts';

/** The scope's events whose envelope names `sessionId`, with seq ≤ upToSeq, in seq order. */
export function sessionEvents(db: Database.Database, scope: Scope, sessionId: string, upToSeq: number): StoredEvent[] {
  return db.prepare<[string, string, number], { line: string }>('SELECT line FROM events WHERE scope = ? AND session_id = ? AND seq <= ? ORDER BY seq')
    .all(scopeKey(scope), sessionId, upToSeq)
    .map((row) => parsed(row.line));
}

function parsed(line: string): StoredEvent {
  try {
    return JSON.parse(line) as StoredEvent;
  } catch (cause) {
    throw new AppError('index_unavailable', 'The index holds a row that does not parse: the index file is damaged. Every acknowledged event is safe in the log, from which the index is being rebuilt; try again in a few seconds.', { cause });
  }
}
