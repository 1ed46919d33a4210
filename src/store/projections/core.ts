// The core projections of the index: the event table (timelines), tasks (the pure fold of
// domain/task.ts), stream versions (domain/streams.ts), idempotency records, the tasks holding each
// artifact, and the full-text search rows. Each runs inside the batch's index transaction.
import type Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import type { Scope, StoredEvent } from '../../domain/event.ts';
import { EVIDENCE_REVIEWED_KIND, EVIDENCE_SANITIZED_KIND, SCOPE_HOLDER } from '../../domain/evidence-pool.ts';
import { nextStreamState, streamsOf, type StreamState } from '../../domain/streams.ts';
import { applyTaskEvent, type Task } from '../../domain/task.ts';

/**
 * Applies one event inside a batch's index transaction. A projection that keeps rows in memory
 * while a transaction runs (a row several events of the batch change is written once) writes them
 * in `finish`, before the commit, and forgets them in `discard` when the transaction rolls back.
 */
export type Apply = ((event: StoredEvent, line: string) => void) & { finish?: () => void; discard?: () => void };

export function scopeKey(scope: Scope): string {
  // ids cannot contain '/', so the key is unambiguous.
  return `${scope.tenant_id}/${scope.workspace_id}/${scope.project_id}`;
}

/** A single FTS token standing for the scope, so the scope filter runs inside the FTS index. */
export function scopeToken(scope: Scope): string {
  return scopeTokenOfKey(scopeKey(scope));
}

function scopeTokenOfKey(key: string): string {
  return `s${createHash('sha256').update(key).digest('hex').slice(0, 24)}`;
}

/**
 * The full-text index keeps no copy of the text it indexes (index migration 11): its content is the
 * view `search_source`, which derives each event's scope token and text from the event table's line
 * with these two functions, so FTS5 reads them back only for what a query shows (snippets, bodies).
 * Every connection to the index registers them before it reads or migrates anything. The text must
 * stay what `searchText` gave when the row was indexed: a change to it needs a migration that
 * rebuilds the full-text index.
 */
export function registerSearchFunctions(db: Database.Database): void {
  db.function('gov_search_body', { deterministic: true }, (line: unknown) => searchText(JSON.parse(String(line)) as StoredEvent));
  db.function('gov_scope_token', { deterministic: true }, (key: unknown) => scopeTokenOfKey(String(key)));
}

export function prepareCoreProjections(db: Database.Database): Apply {
  const insertEvent = db.prepare(
    'INSERT INTO events (seq, event_id, scope, kind, task_id, session_id, recorded_at, event_hash, line) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const getTask = db.prepare<[string, string], { state: string }>('SELECT state FROM tasks WHERE scope = ? AND task_id = ?');
  const putTask = db.prepare('INSERT OR REPLACE INTO tasks (scope, task_id, state) VALUES (?, ?, ?)');
  const getStream = db.prepare<[string], { version: number; closed: number }>('SELECT version, closed FROM streams WHERE stream = ?');
  const putStream = db.prepare('INSERT OR REPLACE INTO streams (stream, version, closed) VALUES (?, ?, ?)');
  const putIdem = db.prepare('INSERT OR IGNORE INTO idempotency (tenant_id, key, first_seq, size, request_sha256) VALUES (?, ?, ?, ?, ?)');
  const putSearch = db.prepare('INSERT INTO search (rowid, scope_tok, body) VALUES (?, ?, ?)');
  const putArtifact = db.prepare('INSERT OR REPLACE INTO artifacts (scope, artifact_id, task_id, seq, sha256) VALUES (?, ?, ?, ?, ?)');
  const putScopeEvidence = db.prepare('INSERT OR IGNORE INTO scope_evidence (scope, seq) VALUES (?, ?)');
  // The latest assembly of a packet id wins (a re-assembly with the same inputs has the same id).
  const putPacket = db.prepare('INSERT OR REPLACE INTO packets (scope, packet_id, seq) VALUES (?, ?, ?)');
  // A log holds few scopes and many events each: this projection hashes each scope once (bounded).
  const tokens = new Map<string, string>();
  const tokenOf = (event: StoredEvent, key: string): string => {
    let token = tokens.get(key);
    if (token === undefined) {
      if (tokens.size >= 10_000) tokens.clear();
      tokens.set(key, (token = scopeToken(event)));
    }
    return token;
  };

  // A task or stream that several events of one batch touch is read once and written once, at the
  // end of the transaction (a hot task takes most of a batch).
  const tasks = new Map<string, { scope: string; taskId: string; state: Task | undefined; changed: boolean }>();
  const streams = new Map<string, StreamState>();

  const apply: Apply = (event, line) => {
    const scope = scopeKey(event);
    insertEvent.run(event.seq, event.event_id, scope, event.kind, event.task_id ?? null, event.session_id ?? null, event.recorded_at, event.event_hash, line);
    if (event.task_id === undefined) {
      // Evidence attached outside a task is the scope's own (SCOPE_HOLDER); its raising events too.
      const refs = event.evidence_refs ?? [];
      for (const ref of refs) putArtifact.run(scope, ref.artifact_id, SCOPE_HOLDER, event.seq, ref.sha256 ?? null);
      if (refs.length > 0 || event.kind === EVIDENCE_SANITIZED_KIND || event.kind === EVIDENCE_REVIEWED_KIND) putScopeEvidence.run(scope, event.seq);
    } else {
      for (const ref of event.evidence_refs ?? []) putArtifact.run(scope, ref.artifact_id, event.task_id, event.seq, ref.sha256 ?? null);
      const key = `${scope}/${event.task_id}`;
      let task = tasks.get(key);
      if (task === undefined) {
        const row = getTask.get(scope, event.task_id);
        task = { scope, taskId: event.task_id, state: row ? (JSON.parse(row.state) as Task) : undefined, changed: false };
        tasks.set(key, task);
      }
      const after = applyTaskEvent(task.state, event);
      if (after && after !== task.state) {
        task.state = after;
        task.changed = true;
      }
    }
    for (const stream of streamsOf(event)) {
      const before = () => {
        const cached = streams.get(stream);
        if (cached !== undefined) return cached;
        const row = getStream.get(stream);
        return row ? { version: row.version, closed: row.closed === 1 } : undefined;
      };
      streams.set(stream, nextStreamState(before, event, stream));
    }
    if (event.idempotency_key !== null && (event.unit === undefined || event.unit.index === 0)) {
      putIdem.run(event.tenant_id, event.idempotency_key, event.seq, event.unit?.size ?? 1, event.request_sha256);
    }
    if (event.kind === 'proof_packet.assembled') {
      const packet = event.payload.packet as { packet_id?: unknown } | null;
      if (packet && typeof packet.packet_id === 'string') putPacket.run(scope, packet.packet_id, event.seq);
    }
    putSearch.run(event.seq, tokenOf(event, scope), searchText(event));
  };
  apply.finish = () => {
    for (const task of tasks.values()) if (task.changed) putTask.run(task.scope, task.taskId, JSON.stringify(task.state));
    for (const [stream, state] of streams) putStream.run(stream, state.version, state.closed ? 1 : 0);
    tasks.clear();
    streams.clear();
  };
  apply.discard = () => {
    tasks.clear();
    streams.clear();
  };
  return apply;
}

/** What search finds an event by: its kind, every string in its payload, evidence uris and sources. */
export function searchText(event: StoredEvent): string {
  const parts: string[] = [event.kind];
  collectStrings(event.payload, parts);
  for (const ref of event.evidence_refs ?? []) {
    parts.push(ref.uri);
    if (ref.source) parts.push(ref.source);
  }
  return parts.join('\n');
}

/** Every string inside a payload, in document order; its own stack, so any depth (caller data). */
function collectStrings(value: unknown, out: string[]): void {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item === 'string') out.push(item);
    else if (item !== null && typeof item === 'object') {
      const members = Array.isArray(item) ? item : Object.values(item);
      for (let i = members.length - 1; i >= 0; i--) stack.push(members[i]);
    }
  }
}
