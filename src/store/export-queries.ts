// Reads of the index that the access log and the exports need beyond queries.ts: one scope's events
// of a kind after a seq (streamed, so a filtered page stops once it is full), the scope's events of
// some kinds in seq order a page at a time (what an export reads, twice), the tasks of a scope
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

/** How many rows of each kind an export reads at once: what it holds of the events, whatever their number. */
export const EXPORT_PAGE_ROWS = 500;

/**
 * The scope's events of any of `kinds` with seq ≤ upToSeq, in seq order. Each kind is read a page
 * at a time by keyset (seq > the page's last) on events_by_kind, and the kinds' pages are merged by
 * seq: one `kind IN (…) ORDER BY seq LIMIT` would sort every remaining row for each page. A page is
 * read whole (`.all()`), so no statement stays open on the connection between pages: the caller may
 * wait between two events (a client reading slowly) while the index writer uses the connection, and
 * `db()` is asked again for each page, so a page after a rebuild reads the rebuilt index (the rows
 * at or below upToSeq are the same there). `onPage` counts the reads (tests).
 */
export function* scopeEventsOfKinds(
  db: () => Database.Database, scope: Scope, kinds: readonly string[], upToSeq: number,
  pageRows = EXPORT_PAGE_ROWS, onPage?: () => void,
): Generator<StoredEvent> {
  const key = scopeKey(scope);
  const cursors = [...new Set(kinds)].map((kind) => ({ kind, after: 0, rows: [] as { seq: number; line: string }[], at: 0, done: false }));
  const fill = (c: (typeof cursors)[number]) => {
    if (c.at < c.rows.length || c.done) return;
    c.rows = db().prepare<[string, string, number, number, number], { seq: number; line: string }>('SELECT seq, line FROM events WHERE scope = ? AND kind = ? AND seq > ? AND seq <= ? ORDER BY seq LIMIT ?')
      .all(key, c.kind, c.after, upToSeq, pageRows);
    c.at = 0;
    onPage?.();
    if (c.rows.length < pageRows) c.done = true;
    if (c.rows.length > 0) c.after = c.rows[c.rows.length - 1]!.seq;
  };
  for (;;) {
    let next: (typeof cursors)[number] | undefined;
    for (const c of cursors) {
      fill(c);
      if (c.at < c.rows.length && (next === undefined || c.rows[c.at]!.seq < next.rows[next.at]!.seq)) next = c;
    }
    if (next === undefined) return;
    const row = next.rows[next.at++]!;
    yield parsed(row.line);
  }
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
