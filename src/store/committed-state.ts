// The write gate's view of what is committed, read from the index (which every durable batch
// reaches before the next batch is sealed): stream states, idempotency records, event ids, times.
// Built on the store's index, the reads follow it to a rebuilt file; while it is rebuilt they throw
// (503 index_unavailable), and the gate refuses the one unit that needed them (index-handle.ts).
import type Database from 'better-sqlite3';
import type { StoredEvent } from '../domain/event.ts';
import type { StreamState } from '../domain/streams.ts';
import type { SealedRow } from './event-log.ts';
import { preparedOn } from './index-handle.ts';
import { createKeyFilter, type KeyFilter } from './key-filter.ts';
import { keySlot, type CommittedState, type IdempotencyRecord } from './write-gate.ts';

export type CommittedReads = CommittedState & {
  /** The committed rows of seqs first..first+size-1, parsed from their stored lines. */
  rows(first: number, size: number): SealedRow[];
};

/**
 * `filterKeys`: keep a filter of the keys the index holds (read from it `startAfterMs` from now, a
 * page per turn) and of every key the gate seals from now on (`noteKey`), and ask the index only
 * about keys the filter may have. Only for a store whose gate seals every event its index receives
 * (key-filter.ts says why).
 */
export function committedReads(db: Database.Database, options: { filterKeys?: { startAfterMs: number } } = {}): CommittedReads {
  const statements = preparedOn(db, (db) => ({
    stream: db.prepare<[string], { version: number; closed: number }>('SELECT version, closed FROM streams WHERE stream = ?'),
    idem: db.prepare<[string, string], IdempotencyRecord>('SELECT first_seq, size, request_sha256 FROM idempotency WHERE tenant_id = ? AND key = ?'),
    eventId: db.prepare<[string], { seq: number }>('SELECT seq FROM events WHERE event_id = ?'),
    recordedAt: db.prepare<[number], { recorded_at: string }>('SELECT recorded_at FROM events WHERE seq = ?'),
    lines: db.prepare<[number, number], { line: string }>('SELECT line FROM events WHERE seq BETWEEN ? AND ? ORDER BY seq'),
  }));
  const filter = options.filterKeys === undefined ? null : loadKeyFilter(db, options.filterKeys.startAfterMs);
  return {
    stream(id): StreamState | undefined {
      const row = statements().stream.get(id);
      return row ? { version: row.version, closed: row.closed === 1 } : undefined;
    },
    idempotency: (tenantId, key) => (filter === null || filter.mayHave(keySlot(tenantId, key)) ? statements().idem.get(tenantId, key) : undefined),
    ...(filter === null ? {} : { noteKey: (tenantId: string, key: string) => filter.add(keySlot(tenantId, key)) }),
    eventIdTaken: (id) => statements().eventId.get(id) !== undefined,
    recordedAtOf: (seq) => statements().recordedAt.get(seq)?.recorded_at,
    rows: (first, size) => statements().lines.all(first, first + size - 1).map(({ line }) => ({ event: JSON.parse(line) as StoredEvent, line })),
  };
}

/** Keys read per step of the start-up scan. */
const SCAN_PAGE = 5_000;

/**
 * The filter of used keys, filled from the index a page per turn of the event loop, starting
 * `startAfterMs` from now (at once for 0): a start with 100,000 keys would otherwise spend ~0.1 s
 * of its cold start on them. Until the scan is done every key "may" be used, so the index decides,
 * as without a filter. Keys sealed meanwhile are added as they come; the scan misses none of the
 * earlier ones (they are in the table, and it walks the table in key order). If the index goes away
 * mid-scan (a rebuild), the filter stays incomplete and the index decides.
 */
function loadKeyFilter(db: Database.Database, startAfterMs: number): KeyFilter {
  const filter = createKeyFilter();
  const first = db.prepare<[], [string, string]>(`SELECT tenant_id, key FROM idempotency ORDER BY tenant_id, key LIMIT ${SCAN_PAGE}`).raw();
  const next = db.prepare<[string, string], [string, string]>(`SELECT tenant_id, key FROM idempotency WHERE (tenant_id, key) > (?, ?) ORDER BY tenant_id, key LIMIT ${SCAN_PAGE}`).raw();
  let complete = false;
  const step = (after: [string, string] | null) => {
    let rows: Array<[string, string]>;
    try {
      rows = after === null ? first.all() : next.all(after[0], after[1]);
    } catch {
      return;
    }
    for (const [tenantId, key] of rows) filter.add(keySlot(tenantId, key));
    if (rows.length < SCAN_PAGE) complete = true;
    else setImmediate(step, rows[rows.length - 1]!).unref();
  };
  if (startAfterMs === 0) step(null);
  else setTimeout(step, startAfterMs, null).unref();
  return { add: (slot) => filter.add(slot), mayHave: (slot) => !complete || filter.mayHave(slot) };
}
