// Numbered migrations of the SQLite index, tracked with PRAGMA user_version. The index is a
// projection of the log, so an index from a newer or unknown version is simply rebuilt.

/**
 * Secondary indexes of the event table that a rebuild drops while it replays the log and creates
 * again at the end: building an index once from sorted rows is far cheaper than growing it row by
 * row (and the unique one re-checks that no event id repeats).
 */
export const EVENT_INDEXES: ReadonlyArray<[name: string, ddl: string]> = [
  ['events_by_id', 'CREATE UNIQUE INDEX events_by_id ON events (event_id)'],
  ['events_by_task', 'CREATE INDEX events_by_task ON events (scope, task_id, seq)'],
  ['events_by_kind', 'CREATE INDEX events_by_kind ON events (scope, kind, seq)'],
  ['events_by_session', 'CREATE INDEX events_by_session ON events (scope, session_id, seq)'],
];

export const MIGRATIONS: string[] = [
  // 1: the event table, tasks, idempotency records, full-text search.
  `
  CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
  CREATE TABLE events (
    seq INTEGER PRIMARY KEY,
    event_id TEXT NOT NULL,
    scope TEXT NOT NULL,
    kind TEXT NOT NULL,
    task_id TEXT,
    session_id TEXT,
    recorded_at TEXT NOT NULL,
    event_hash TEXT NOT NULL,
    line TEXT NOT NULL
  );
  CREATE UNIQUE INDEX events_by_id ON events (event_id);
  CREATE INDEX events_by_task ON events (scope, task_id, seq);
  CREATE INDEX events_by_kind ON events (scope, kind, seq);
  CREATE INDEX events_by_session ON events (scope, session_id, seq);
  CREATE TABLE packets (
    scope TEXT NOT NULL,
    packet_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    PRIMARY KEY (scope, packet_id)
  ) WITHOUT ROWID;
  CREATE TABLE tasks (
    scope TEXT NOT NULL,
    task_id TEXT NOT NULL,
    state TEXT NOT NULL,
    PRIMARY KEY (scope, task_id)
  ) WITHOUT ROWID;
  CREATE TABLE idempotency (
    tenant_id TEXT NOT NULL,
    key TEXT NOT NULL,
    first_seq INTEGER NOT NULL,
    size INTEGER NOT NULL,
    request_sha256 TEXT,
    PRIMARY KEY (tenant_id, key)
  ) WITHOUT ROWID;
  CREATE VIRTUAL TABLE search USING fts5(scope_tok, body, tokenize = 'unicode61', detail = 'column');
  `,
  // 2: forge quota state (projections/quota.ts): rules, groups, their links, memberships, forge data.
  // Every row keeps the seq of the event that made it, which is also the listing order.
  `
  CREATE TABLE quota_rules (name TEXT PRIMARY KEY, rule_limit INTEGER NOT NULL, subjects TEXT NOT NULL, seq INTEGER NOT NULL);
  CREATE TABLE quota_groups (name TEXT PRIMARY KEY, seq INTEGER NOT NULL);
  CREATE TABLE quota_group_rules (
    group_name TEXT NOT NULL,
    rule_name TEXT NOT NULL,
    seq INTEGER NOT NULL,
    PRIMARY KEY (group_name, rule_name)
  );
  CREATE INDEX quota_group_rules_by_rule ON quota_group_rules (rule_name);
  CREATE TABLE quota_group_users (
    group_name TEXT NOT NULL,
    user_key TEXT NOT NULL,
    seq INTEGER NOT NULL,
    PRIMARY KEY (group_name, user_key)
  );
  CREATE INDEX quota_group_users_by_user ON quota_group_users (user_key);
  CREATE TABLE forge_data (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    data TEXT NOT NULL,
    seq INTEGER NOT NULL,
    recorded_at TEXT NOT NULL
  );
  `,
  // 3: stream versions (domain/streams.ts), which the write gate checks expectations against.
  `
  CREATE TABLE streams (stream TEXT PRIMARY KEY, version INTEGER NOT NULL, closed INTEGER NOT NULL) WITHOUT ROWID;
  `,
  // 4: governance (projections/governance.ts): assets, approvals and each tenant's team, each row the
  // pure fold of its events (state) plus the columns the lists filter on. Status columns hold the
  // status as of the row's last event; what changes with time alone (an approval past due_at, a
  // review falling due) is derived at read time from expires_at / due_at / review_due_at. id_hash is
  // the part of a review id that names its asset (the first 16 hex of sha256(asset_id)).
  `
  CREATE TABLE gov_assets (
    scope TEXT NOT NULL,
    asset_id TEXT NOT NULL,
    state TEXT NOT NULL,
    tier TEXT,
    status TEXT NOT NULL,
    expires_at TEXT,
    review_due_at TEXT,
    id_hash TEXT NOT NULL,
    seq INTEGER NOT NULL,
    PRIMARY KEY (scope, asset_id)
  ) WITHOUT ROWID;
  CREATE INDEX gov_assets_by_id_hash ON gov_assets (scope, id_hash);
  CREATE TABLE gov_approvals (
    scope TEXT NOT NULL,
    approval_id TEXT NOT NULL,
    asset_id TEXT NOT NULL,
    state TEXT NOT NULL,
    status TEXT NOT NULL,
    current_role TEXT,
    due_at TEXT NOT NULL,
    seq INTEGER NOT NULL,
    PRIMARY KEY (scope, approval_id)
  ) WITHOUT ROWID;
  CREATE INDEX gov_approvals_by_asset ON gov_approvals (scope, asset_id);
  CREATE TABLE gov_team (tenant_id TEXT PRIMARY KEY, state TEXT NOT NULL) WITHOUT ROWID;
  `,
  // 5: which tasks of a scope hold an artifact (the latest ref each attached), so a reviewer's or the
  // sanitizer's decision about an artifact reaches every timeline it is cited from.
  `
  CREATE TABLE artifacts (
    scope TEXT NOT NULL,
    artifact_id TEXT NOT NULL,
    task_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    sha256 TEXT,
    PRIMARY KEY (scope, artifact_id, task_id)
  ) WITHOUT ROWID;
  `,
  // 6: vendors (projections/governance.ts): each vendor's assessments, folded.
  `
  CREATE TABLE gov_vendors (scope TEXT NOT NULL, vendor_id TEXT NOT NULL, state TEXT NOT NULL, PRIMARY KEY (scope, vendor_id)) WITHOUT ROWID;
  `,
  // 7: incidents (projections/governance.ts): each incident folded, and the assets its review
  // triggers name, so a write or an asset's review reads one incident, not all of the scope's.
  `
  CREATE TABLE gov_incidents (scope TEXT NOT NULL, incident_id TEXT NOT NULL, state TEXT NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (scope, incident_id)) WITHOUT ROWID;
  CREATE TABLE gov_incident_assets (scope TEXT NOT NULL, asset_id TEXT NOT NULL, incident_id TEXT NOT NULL, PRIMARY KEY (scope, asset_id, incident_id)) WITHOUT ROWID;
  `,
  // 8: what the dashboard counts, kept by the index writer so that reading it folds nothing:
  // each incident's status, severity and seriousness as columns; each posture item (the fold of
  // regulatory.posture.updated); the scope's evidence pool (evidence-pool.ts over the tasks that cite
  // evidence: one row per artifact with its effective trust), and the tasks of a scope that hold a
  // raising event (evidence.sanitized / .reviewed) for an artifact they do not cite, which the
  // service never writes but a pool built from holders' events would read differently. The
  // dashboard's GROUP BYs read covering indexes of the columns they count, not the rows, whose
  // state documents make a scan of 10,000 assets ~30 ms.
  `
  ALTER TABLE gov_incidents ADD COLUMN status TEXT;
  ALTER TABLE gov_incidents ADD COLUMN severity TEXT;
  ALTER TABLE gov_incidents ADD COLUMN serious INTEGER;
  CREATE TABLE gov_posture (
    scope TEXT NOT NULL,
    item_key TEXT NOT NULL,
    profile_id TEXT NOT NULL,
    asset_id TEXT,
    state TEXT NOT NULL,
    PRIMARY KEY (scope, item_key)
  ) WITHOUT ROWID;
  CREATE TABLE gov_evidence (
    scope TEXT NOT NULL,
    artifact_id TEXT NOT NULL,
    entry TEXT NOT NULL,
    content_trust TEXT NOT NULL,
    basis TEXT NOT NULL,
    verified INTEGER NOT NULL,
    PRIMARY KEY (scope, artifact_id)
  ) WITHOUT ROWID;
  CREATE INDEX gov_assets_counted ON gov_assets (scope, tier, status, expires_at, review_due_at);
  CREATE INDEX gov_approvals_counted ON gov_approvals (scope, status, current_role, due_at);
  CREATE INDEX gov_incidents_counted ON gov_incidents (scope, serious, status, severity);
  CREATE TABLE gov_evidence_foreign (scope TEXT NOT NULL, task_id TEXT NOT NULL, artifact_id TEXT NOT NULL, PRIMARY KEY (scope, task_id, artifact_id)) WITHOUT ROWID;
  `,
  // 9: an asset's evaluations, the evidence attached naming it and its reviews (the events of those
  // kinds whose payload's asset_id names it), by asset and kind: read from the asset's own rows,
  // not from every event of the kind in the scope (which made GET …/risk grow with the registry).
  // And the access log's entries by the tasks they name (task_ids): a packet's snapshot reads the
  // entries about its tasks, not the scope's whole access log. And posture items by profile and
  // subject, which the posture routes read instead of folding every posture update of the scope.
  `
  CREATE TABLE asset_events (scope TEXT NOT NULL, asset_id TEXT NOT NULL, kind TEXT NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (scope, asset_id, kind, seq)) WITHOUT ROWID;
  CREATE TABLE task_access (scope TEXT NOT NULL, task_id TEXT NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (scope, task_id, seq)) WITHOUT ROWID;
  CREATE INDEX gov_posture_by_subject ON gov_posture (scope, profile_id, asset_id);
  `,
  // 10: assets and approvals become rowid tables, written in place. Their rows carry a folded state
  // of 0.7–1.6 KB, and a WITHOUT ROWID table keeps whole rows in its interior pages too (SQLite
  // advises it only for rows under ~1/20 of a page), while INSERT OR REPLACE deleted and inserted
  // every secondary index entry of a row whose indexed columns had not changed. Replaying risk
  // evaluations (three events each), the index writer spent ~15–20 % less CPU per event and wrote
  // a third fewer bytes (docs/write-path.md). The rows are copied as they are.
  `
  CREATE TABLE gov_assets_v10 (
    scope TEXT NOT NULL,
    asset_id TEXT NOT NULL,
    state TEXT NOT NULL,
    tier TEXT,
    status TEXT NOT NULL,
    expires_at TEXT,
    review_due_at TEXT,
    id_hash TEXT NOT NULL,
    seq INTEGER NOT NULL,
    PRIMARY KEY (scope, asset_id)
  );
  INSERT INTO gov_assets_v10 (scope, asset_id, state, tier, status, expires_at, review_due_at, id_hash, seq)
    SELECT scope, asset_id, state, tier, status, expires_at, review_due_at, id_hash, seq FROM gov_assets ORDER BY scope, asset_id;
  DROP TABLE gov_assets;
  ALTER TABLE gov_assets_v10 RENAME TO gov_assets;
  CREATE INDEX gov_assets_by_id_hash ON gov_assets (scope, id_hash);
  CREATE INDEX gov_assets_counted ON gov_assets (scope, tier, status, expires_at, review_due_at);
  CREATE TABLE gov_approvals_v10 (
    scope TEXT NOT NULL,
    approval_id TEXT NOT NULL,
    asset_id TEXT NOT NULL,
    state TEXT NOT NULL,
    status TEXT NOT NULL,
    current_role TEXT,
    due_at TEXT NOT NULL,
    seq INTEGER NOT NULL,
    PRIMARY KEY (scope, approval_id)
  );
  INSERT INTO gov_approvals_v10 (scope, approval_id, asset_id, state, status, current_role, due_at, seq)
    SELECT scope, approval_id, asset_id, state, status, current_role, due_at, seq FROM gov_approvals ORDER BY scope, approval_id;
  DROP TABLE gov_approvals;
  ALTER TABLE gov_approvals_v10 RENAME TO gov_approvals;
  CREATE INDEX gov_approvals_by_asset ON gov_approvals (scope, asset_id);
  CREATE INDEX gov_approvals_counted ON gov_approvals (scope, status, current_role, due_at);
  `,
  // 11: the full-text index without its own copy of the text. FTS5 stored every event's text a
  // second time (the event table holds the line it comes from); as an external-content table over
  // the view search_source (functions in projections/core.ts, registerSearchFunctions) it stores
  // the index only, and reads text back for snippets alone. Indexing cost ~6 µs less per event
  // (replayed here: 22–26 → 16–19.5 µs in transactions of 300). The index is filled from the events.
  `
  DROP TABLE search;
  DROP VIEW IF EXISTS search_source;
  CREATE VIEW search_source AS SELECT seq, gov_scope_token(scope) AS scope_tok, gov_search_body(line) AS body FROM events;
  CREATE VIRTUAL TABLE search USING fts5(scope_tok, body, tokenize = 'unicode61', detail = 'column', content = 'search_source', content_rowid = 'seq');
  INSERT INTO search (search) VALUES ('rebuild');
  `,
  // 12: evidence attached outside any task is held by the scope itself (SCOPE_HOLDER, the task_id ''
  // of its artifacts rows), so it is in the scope's evidence pool; scope_evidence lists the
  // task-less events that cite or raise evidence, which fold that holder's trust as a task's events
  // fold a task's. Past events fill both: an older index is rebuilt (REPROJECT_BELOW_VERSION).
  `
  CREATE TABLE scope_evidence (scope TEXT NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (scope, seq)) WITHOUT ROWID;
  `,
  // 13: an approval's requested_at is the instant of its request (due_at − 14 days), not when its
  // event was recorded (approvals.ts): the approvals and assets folded before are folded again
  // (REPROJECT_BELOW_VERSION).
  `
  SELECT 1;
  `,
];

/**
 * Migrations that add a projection of events already in the log cannot fill it with SQL alone:
 * an index older than this version is rebuilt from the log instead of migrated. Migrations 6 and 7
 * (vendors, incidents) added projections too, 8 fills columns and tables from past events, and 9
 * indexes past events by asset and access entries by task, so any index before 9 is rebuilt; 12
 * holds past evidence attached outside tasks, so any index before 12 is rebuilt too, and 13 folds
 * approvals anew (their requested_at), so any index before 13 is rebuilt.
 */
export const REPROJECT_BELOW_VERSION = 13;
