// Read-side queries over the index: tasks, timelines, events by id, search. Every query is keyed
// by the full scope, so one scope never sees another's rows. Built on the store's index, they
// follow it to a rebuilt file (index-handle.ts).
import type Database from 'better-sqlite3';
import type { Scope, StoredEvent } from '../domain/event.ts';
import { SCOPE_HOLDER } from '../domain/evidence-pool.ts';
import type { Task } from '../domain/task.ts';
import { AppError } from '../errors.ts';
import { preparedOn } from './index-handle.ts';
import { scopeKey, scopeToken, searchText } from './projections/core.ts';

export type SearchHit = { task_id: string | null; event_id: string; seq: number; kind: string; snippet: string };

export type Queries = ReturnType<typeof createQueries>;

export function createQueries(db: Database.Database) {
  const statements = preparedOn(db, (db) => {
    const task = db.prepare<[string, string], { state: string }>('SELECT state FROM tasks WHERE scope = ? AND task_id = ?');
    // The lines alone: better-sqlite3 builds no row object per event (a 1,000-event page read in
    // about a third of the time of seq and line as objects).
    const timelineLines = db.prepare<[string, string, number, number], string>(
      'SELECT line FROM events WHERE scope = ? AND task_id = ? AND seq > ? ORDER BY seq LIMIT ?',
    ).pluck();
    const taskEventsUpTo = db.prepare<[string, string, number], { line: string }>(
      'SELECT line FROM events WHERE scope = ? AND task_id = ? AND seq <= ? ORDER BY seq',
    );
    const scopeEvidenceUpTo = db.prepare<[string, number], { line: string }>(
      'SELECT e.line FROM scope_evidence s JOIN events e ON e.seq = s.seq WHERE s.scope = ? AND s.seq <= ? ORDER BY s.seq',
    );
    const bySeqRange = db.prepare<[number, number], { line: string }>('SELECT line FROM events WHERE seq BETWEEN ? AND ? ORDER BY seq');
    const byEventId = db.prepare<[string], { line: string }>('SELECT line FROM events WHERE event_id = ?');
    const searchText = db.prepare<[string, string, string | null, string | null, string | null, string | null, number, number], { seq: number; task_id: string | null; event_id: string; kind: string; snippet: string | null; long_line: string | null }>(
      // FTS5's snippet() and highlight() grow with the square of the matches in one event (an event
      // of 80 KB full of the word took seconds): a longer event's snippet is cut in JS around the
      // first place a term of the query reads (markedSnippet), from its line.
      `SELECT e.seq, e.task_id, e.event_id, e.kind,
              CASE WHEN length(e.line) <= ${FULL_SNIPPET_MAX_CHARS} THEN snippet(search, 1, '[', ']', '…', 16) END AS snippet,
              CASE WHEN length(e.line) > ${FULL_SNIPPET_MAX_CHARS} THEN e.line END AS long_line
         FROM search JOIN events e ON e.seq = search.rowid
        WHERE search MATCH ? AND e.scope = ?
          AND (? IS NULL OR e.kind = ?) AND (? IS NULL OR e.task_id = ?)
          AND search.rowid < ?
        ORDER BY search.rowid DESC LIMIT ?`,
    );
    const searchKind = db.prepare<[string, string, string | null, string | null, number, number], { seq: number; task_id: string | null; event_id: string; kind: string; body: string }>(
      `SELECT e.seq, e.task_id, e.event_id, e.kind, s.body
         FROM events e JOIN search s ON s.rowid = e.seq
        WHERE e.scope = ? AND e.kind = ? AND (? IS NULL OR e.task_id = ?) AND e.seq < ?
        ORDER BY e.seq DESC LIMIT ?`,
    );
    const sessionSeen = db.prepare<[string, string], { seq: number }>('SELECT seq FROM events WHERE scope = ? AND session_id = ? LIMIT 1');
    const byKind = db.prepare<[string, string], { line: string }>('SELECT line FROM events WHERE scope = ? AND kind = ? ORDER BY seq');
    const taskAccessUpTo = db.prepare<[string, string, number], { line: string }>(
      'SELECT e.line FROM task_access a JOIN events e ON e.seq = a.seq WHERE a.scope = ? AND a.task_id = ? AND a.seq <= ? ORDER BY a.seq',
    );
    const byAssetKind = db.prepare<[string, string, string], { line: string }>(
      'SELECT e.line FROM asset_events a JOIN events e ON e.seq = a.seq WHERE a.scope = ? AND a.asset_id = ? AND a.kind = ? ORDER BY a.seq',
    );
    const packet = db.prepare<[string, string], { seq: number }>('SELECT seq FROM packets WHERE scope = ? AND packet_id = ?');
    // The scope's receipts on events_by_kind, the hash compared in SQLite (no line parsed in JS).
    const receipt = db.prepare<[string, string], { event_id: string }>(
      "SELECT event_id FROM events WHERE scope = ? AND kind = 'proof_packet.receipted' AND json_extract(line, '$.payload.packet_sha256') = ? ORDER BY seq LIMIT 1",
    );
    const bySeq = db.prepare<[number], { line: string }>('SELECT line FROM events WHERE seq = ?');
    const hashesBetween = db.prepare<[number, number], string>('SELECT event_hash FROM events WHERE seq BETWEEN ? AND ? ORDER BY seq').pluck();
    // The scope's tasks, newest created first: the scope's task.created rows walked backwards on
    // events_by_kind (bounded by the limit, a status filter aside), each joined to its projection.
    // A task counts by its first task.created (the fold ignores any later one; `+p.kind` looks for
    // an earlier one among the task's own events).
    const taskPage = db.prepare<[string, number, string | null, string | null, number], { state: string; seq: number }>(
      `SELECT t.state, e.seq FROM events e JOIN tasks t ON t.scope = e.scope AND t.task_id = e.task_id
        WHERE e.scope = ? AND e.kind = 'task.created' AND e.seq < ?
          AND (? IS NULL OR json_extract(t.state, '$.status') = ?)
          AND NOT EXISTS (SELECT 1 FROM events p WHERE p.scope = e.scope AND p.task_id = e.task_id AND p.seq < e.seq AND +p.kind = 'task.created')
        ORDER BY e.seq DESC LIMIT ?`,
    );
    // `+kind`: the task's own events (events_by_task), not every task.created of the scope.
    const taskCreatedSeq = db.prepare<[string, string], { seq: number }>(
      "SELECT seq FROM events WHERE scope = ? AND task_id = ? AND +kind = 'task.created' ORDER BY seq LIMIT 1",
    );
    // The scope's events in seq order: a walk of the table's rowid from the cursor (`+scope` keeps
    // SQLite off the scope-prefixed indexes, which would sort the whole scope for every page).
    const scopeLines = db.prepare<[number, string, number], { seq: number; kind: string; line: string }>(
      'SELECT seq, kind, line FROM events WHERE seq > ? AND +scope = ? ORDER BY seq LIMIT ?',
    );
    return { task, timelineLines, taskEventsUpTo, scopeEvidenceUpTo, bySeqRange, byEventId, searchText, searchKind, sessionSeen, byKind, byAssetKind, taskAccessUpTo, packet, receipt, bySeq, hashesBetween, taskPage, taskCreatedSeq, scopeLines };
  });
  const parse = (rows: Array<{ line: string }>) => rows.map((r) => indexed<StoredEvent>(r.line));

  return {
    task(scope: Scope, taskId: string): Task | undefined {
      const row = statements().task.get(scopeKey(scope), taskId);
      return row ? indexed<Task>(row.state) : undefined;
    },
    /**
     * A page of the scope's task projections, newest created first: those created before the seq
     * `beforeSeq` (the cursor; Number.MAX_SAFE_INTEGER for the first page), with `status` if given.
     * `created_seq` is each task's cursor value.
     */
    tasks(scope: Scope, q: { beforeSeq: number; status: 'open' | 'closed' | null; limit: number }): Array<{ task: Task; created_seq: number }> {
      return statements().taskPage.all(scopeKey(scope), q.beforeSeq, q.status, q.status, q.limit).map((r) => ({ task: indexed<Task>(r.state), created_seq: r.seq }));
    },
    /** The seq of the task's task.created event in the scope, if the task exists there. */
    taskCreatedSeq(scope: Scope, taskId: string): number | undefined {
      return statements().taskCreatedSeq.get(scopeKey(scope), taskId)?.seq;
    },
    /**
     * The scope's stored lines after `afterSeq`, in seq order (the event stream's pages): at most
     * `limit` of them and, past the first, no more than `maxChars` characters of lines in all.
     */
    scopeEventLines(scope: Scope, afterSeq: number, limit: number, maxChars = Number.POSITIVE_INFINITY): Array<{ seq: number; kind: string; line: string }> {
      const rows: Array<{ seq: number; kind: string; line: string }> = [];
      let chars = 0;
      for (const row of statements().scopeLines.iterate(afterSeq, scopeKey(scope), limit)) {
        if (rows.length > 0 && chars + row.line.length > maxChars) break;
        rows.push(row);
        chars += row.line.length;
      }
      return rows;
    },
    timeline(scope: Scope, taskId: string, afterSeq: number, limit: number): StoredEvent[] {
      return statements().timelineLines.all(scopeKey(scope), taskId, afterSeq, limit).map((line) => indexed<StoredEvent>(line));
    },
    /**
     * A timeline page as its stored canonical lines (answers embed them without re-encoding), in seq
     * order: at most `limit` lines and `maxBytes` of UTF-8 (the first line whatever its size), each
     * with its byte length; `more` when the task has events after the page's last.
     */
    timelinePage(scope: Scope, taskId: string, afterSeq: number, limit: number, maxBytes: number): { lines: string[]; bytes: number[]; more: boolean } {
      const lines: string[] = [];
      const bytes: number[] = [];
      let total = 0;
      for (const line of statements().timelineLines.iterate(scopeKey(scope), taskId, afterSeq, limit + 1)) {
        const size = Buffer.byteLength(line);
        if (lines.length === limit || (lines.length > 0 && total + size > maxBytes)) return { lines, bytes, more: true };
        lines.push(line);
        bytes.push(size);
        total += size;
      }
      return { lines, bytes, more: false };
    },
    taskEventsUpTo(scope: Scope, taskId: string, seq: number): StoredEvent[] {
      return parse(statements().taskEventsUpTo.all(scopeKey(scope), taskId, seq));
    },
    /**
     * The events an evidence holder's trust folds, up to seq: a task's events, or for the scope
     * itself (SCOPE_HOLDER) its task-less events that cite or raise evidence.
     */
    holderEventsUpTo(scope: Scope, holder: string, seq: number): StoredEvent[] {
      if (holder === SCOPE_HOLDER) return parse(statements().scopeEvidenceUpTo.all(scopeKey(scope), seq));
      return parse(statements().taskEventsUpTo.all(scopeKey(scope), holder, seq));
    },
    /** Events with their stored canonical lines (what a replay answers with, byte for byte). */
    rowsBySeq(first: number, last: number): Array<{ event: StoredEvent; line: string }> {
      return statements().bySeqRange.all(first, last).map(({ line }) => ({ event: indexed<StoredEvent>(line), line }));
    },
    eventById(eventId: string): StoredEvent | undefined {
      const row = statements().byEventId.get(eventId);
      return row ? indexed<StoredEvent>(row.line) : undefined;
    },
    sessionExists(scope: Scope, sessionId: string): boolean {
      return statements().sessionSeen.get(scopeKey(scope), sessionId) !== undefined;
    },
    eventsOfKind(scope: Scope, kind: string): StoredEvent[] {
      return parse(statements().byKind.all(scopeKey(scope), kind));
    },
    /** The access log's entries that name the task (`task_ids`) up to `seq`, in seq order. */
    taskAccessUpTo(scope: Scope, taskId: string, seq: number): StoredEvent[] {
      return parse(statements().taskAccessUpTo.all(scopeKey(scope), taskId, seq));
    },
    /** The events of `kind` whose payload names the asset (`asset_id`), in seq order. */
    assetEventsOfKind(scope: Scope, assetId: string, kind: string): StoredEvent[] {
      return parse(statements().byAssetKind.all(scopeKey(scope), assetId, kind));
    },
    /** The event that assembled the packet, when it is in the scope. */
    packetEvent(scope: Scope, packetId: string): StoredEvent | undefined {
      const row = statements().packet.get(scopeKey(scope), packetId);
      const line = row ? statements().bySeq.get(row.seq) : undefined;
      return line ? indexed<StoredEvent>(line.line) : undefined;
    },
    /** The id of the scope's first proof_packet.receipted event for this packet_sha256 (its receipt), if any. */
    receiptOf(scope: Scope, packetSha256: string): string | undefined {
      return statements().receipt.get(scopeKey(scope), packetSha256)?.event_id;
    },
    /** The event hashes of seqs `from` to `to` (inclusive), in seq order. */
    eventHashesBetween(from: number, to: number): string[] {
      return statements().hashesBetween.all(from, to);
    },
    /** Newest first; `beforeSeq` is the cursor. FTS ordered by rowid streams, so the cost is bounded by `limit`. */
    search(scope: Scope, q: { match: string | null; kind: string | null; taskId: string | null; beforeSeq: number; limit: number }): SearchHit[] {
      if (q.match !== null) {
        const match = `scope_tok : ${scopeToken(scope)} AND body : (${q.match})`;
        const terms = queryTerms(q.match);
        return statements().searchText.all(match, scopeKey(scope), q.kind, q.kind, q.taskId, q.taskId, q.beforeSeq, q.limit)
          .map(({ long_line: longLine, snippet, ...r }) => ({
            ...r,
            snippet: longLine !== null ? markedSnippet(searchText(indexed<StoredEvent>(longLine)), terms) : snippet!.length > MAX_SNIPPET ? boundedSnippet(snippet!) : snippet!,
          }));
      }
      return statements().searchKind.all(scopeKey(scope), q.kind ?? '', q.taskId, q.taskId, q.beforeSeq, q.limit).map((r) => ({
        seq: r.seq, task_id: r.task_id, event_id: r.event_id, kind: r.kind, snippet: r.body.slice(0, 160),
      }));
    },
  };
}

/** FTS5 cuts a snippet to 16 tokens, but one token may be a megabyte of text without a break. */
export const MAX_SNIPPET = 320;
/** Events up to this many characters (their stored line) get FTS5's snippet(); longer ones, markedSnippet. */
const FULL_SNIPPET_MAX_CHARS = 4096;
/** The words of a match expression (search-service.ts quotes each word of the query: no operators). */
export function queryTerms(match: string): string[] {
  return [...new Set((match.match(/[\p{L}\p{N}]+/gu) ?? []).map((word) => word.toLowerCase()))];
}

/**
 * A long event's snippet: its text cut to MAX_SNIPPET characters around the first word a term of
 * the query reads, marked [ ]. One pass over the text. FTS5's tokenizer folds more than lower case
 * (diacritics): where no term reads as written, the snippet is the text's beginning, unmarked.
 */
export function markedSnippet(text: string, terms: readonly string[]): string {
  // Words are letters and digits only (queryTerms), so they need no escaping in the pattern.
  const hit = terms.length === 0 ? null : new RegExp(`(?<![\\p{L}\\p{N}])(?:${terms.join('|')})(?![\\p{L}\\p{N}])`, 'iu').exec(text);
  if (hit === null) return boundedSnippet(text, 0);
  return boundedSnippet(`${text.slice(0, hit.index)}[${hit[0]}]${text.slice(hit.index + hit[0].length)}`, hit.index);
}

/**
 * A snippet cut to MAX_SNIPPET characters around its match (at `markAt`, else its first '['), with …
 * where it was cut.
 */
export function boundedSnippet(snippet: string, markAt?: number): string {
  const at = Math.max(0, markAt ?? snippet.indexOf('['));
  const start = Math.max(0, Math.min(at - 80, snippet.length - MAX_SNIPPET));
  const end = Math.min(snippet.length, start + MAX_SNIPPET);
  // Never between the halves of a surrogate pair.
  const from = start > 0 && isLowSurrogate(snippet.charCodeAt(start)) ? start + 1 : start;
  const to = end < snippet.length && isLowSurrogate(snippet.charCodeAt(end)) ? end - 1 : end;
  return `${from > 0 ? '…' : ''}${snippet.slice(from, to)}${to < snippet.length ? '…' : ''}`;
}

const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/** JSON the index holds; text that does not parse means the index file is damaged. */
function indexed<T>(text: string): T {
  try {
    return JSON.parse(text) as T;
  } catch (cause) {
    throw new AppError('index_unavailable', 'The index holds a row that does not parse: the index file is damaged. Every acknowledged event is safe in the log, from which the index is being rebuilt; try again in a few seconds.', { cause });
  }
}
