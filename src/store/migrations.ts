// Numbered migrations of the SQLite index, tracked with PRAGMA user_version. The index is a
// projection of the log, so an index from a newer or unknown version is simply rebuilt.

export const MIGRATIONS: string[] = [
  // 1: the event table, tasks, idempotency records, full-text search.
  `
  CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
  CREATE TABLE events (
    seq INTEGER PRIMARY KEY,
    event_id TEXT NOT NULL UNIQUE,
    scope TEXT NOT NULL,
    kind TEXT NOT NULL,
    task_id TEXT,
    session_id TEXT,
    recorded_at TEXT NOT NULL,
    event_hash TEXT NOT NULL,
    line TEXT NOT NULL
  );
  CREATE INDEX events_by_task ON events (scope, task_id, seq);
  CREATE INDEX events_by_kind ON events (scope, kind, seq);
  CREATE INDEX events_by_session ON events (scope, session_id, seq);
  CREATE TABLE packets (
    scope TEXT NOT NULL,
    packet_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    PRIMARY KEY (scope, packet_id)
  );
  CREATE TABLE tasks (
    scope TEXT NOT NULL,
    task_id TEXT NOT NULL,
    state TEXT NOT NULL,
    PRIMARY KEY (scope, task_id)
  );
  CREATE TABLE idempotency (
    tenant_id TEXT NOT NULL,
    key TEXT NOT NULL,
    first_seq INTEGER NOT NULL,
    size INTEGER NOT NULL,
    request_sha256 TEXT,
    PRIMARY KEY (tenant_id, key)
  );
  CREATE VIRTUAL TABLE search USING fts5(scope_tok, body, tokenize = 'unicode61');
  `,
];
