// The hosted store's tables in PostgreSQL and their migrations (applied by `gov db migrate`, never
// by `gov serve`, which refuses a database that is behind). The log table is the truth: every
// event's canonical line under its seq, with the columns an append and a verification need beside
// it; one head row holds the last seq and hash, and every append locks it inside its transaction,
// so appends from any number of processes stay gapless and chained. Projections are not kept here:
// each `gov serve` process builds them from the log (docs/hosting.md "What lives where").
import type pg from 'pg';
import { ZERO_HASH } from '../../domain/event.ts';
import { AppError } from '../../errors.ts';

/** One migration: applied once, in order, inside one transaction. */
export type PgMigration = { version: number; name: string; sql: string };

export const PG_MIGRATIONS: readonly PgMigration[] = [
  {
    version: 1,
    name: 'event log, head, keys, quarantine',
    sql: `
      CREATE TABLE gov_events (
        seq bigint PRIMARY KEY,
        event_id text NOT NULL UNIQUE,
        tenant_id text NOT NULL,
        kind text NOT NULL,
        recorded_at text NOT NULL,
        prev_hash text NOT NULL,
        event_hash text NOT NULL,
        line text NOT NULL,
        CHECK (seq > 0)
      );
      CREATE TABLE gov_head (
        id smallint PRIMARY KEY CHECK (id = 1),
        seq bigint NOT NULL,
        event_hash text NOT NULL,
        recorded_at text NOT NULL
      );
      INSERT INTO gov_head (id, seq, event_hash, recorded_at) VALUES (1, 0, '${ZERO_HASH}', '');
      CREATE TABLE gov_keys (
        id smallint PRIMARY KEY CHECK (id = 1),
        ed25519_pem text NOT NULL,
        ecdsa_pem text NOT NULL,
        hmac_secret text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE gov_quarantine (
        kind text NOT NULL CHECK (kind IN ('raw', 'projection')),
        sha256 text NOT NULL,
        bytes bytea NOT NULL,
        PRIMARY KEY (kind, sha256)
      );
    `,
  },
  {
    version: 2,
    name: 'signing key rotation: key sets by generation, retired ones kept for verification',
    sql: `
      ALTER TABLE gov_keys DROP CONSTRAINT gov_keys_id_check;
      ALTER TABLE gov_keys ADD CONSTRAINT gov_keys_id_check CHECK (id >= 1);
      ALTER TABLE gov_keys ADD COLUMN retired_at timestamptz;
    `,
  },
];

export const MIGRATIONS_TABLE = `
  CREATE TABLE IF NOT EXISTS gov_schema_migrations (
    version integer PRIMARY KEY,
    name text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
  )`;

/** The advisory lock two `gov db migrate` runs take (an arbitrary constant), so one waits for the other. */
const MIGRATE_LOCK = 7_337_017;

/** The versions applied so far (none for a database gov never touched). */
export async function appliedMigrations(client: pg.ClientBase): Promise<number[]> {
  const exists = await client.query<{ t: string | null }>("SELECT to_regclass('gov_schema_migrations')::text AS t");
  if (exists.rows[0]?.t == null) return [];
  const rows = await client.query<{ version: number }>('SELECT version FROM gov_schema_migrations ORDER BY version');
  return rows.rows.map((r) => r.version);
}

export type MigrateReport = { applied: Array<{ version: number; name: string }>; current: number };

/** Applies every migration not applied yet, each in its own transaction, under an advisory lock. */
export async function migrate(client: pg.ClientBase, onApplied?: (m: PgMigration) => void): Promise<MigrateReport> {
  const encoding = await client.query<{ server_encoding: string }>('SHOW server_encoding');
  if (encoding.rows[0]?.server_encoding !== 'UTF8') {
    throw new AppError('usage_error', `The database's encoding is ${encoding.rows[0]?.server_encoding}; gov stores canonical JSON lines and needs a UTF8 database (CREATE DATABASE … ENCODING 'UTF8').`);
  }
  await client.query('SELECT pg_advisory_lock($1)', [MIGRATE_LOCK]);
  try {
    await client.query(MIGRATIONS_TABLE);
    const done = new Set(await appliedMigrations(client));
    const applied: MigrateReport['applied'] = [];
    for (const m of PG_MIGRATIONS) {
      if (done.has(m.version)) continue;
      await client.query('BEGIN');
      try {
        await client.query(m.sql);
        await client.query('INSERT INTO gov_schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK');
        throw err;
      }
      applied.push({ version: m.version, name: m.name });
      onApplied?.(m);
    }
    return { applied, current: PG_MIGRATIONS[PG_MIGRATIONS.length - 1]!.version };
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATE_LOCK]);
  }
}

/** Refuses a database whose schema is behind this program (or ahead of it). */
export async function assertMigrated(client: pg.ClientBase): Promise<void> {
  const applied = await appliedMigrations(client);
  const latest = PG_MIGRATIONS[PG_MIGRATIONS.length - 1]!.version;
  const newest = applied[applied.length - 1] ?? 0;
  if (newest > latest) throw new AppError('database_not_migrated', `The database's schema is at version ${newest}, newer than this program knows (${latest}); run a newer gov.`);
  const missing = PG_MIGRATIONS.filter((m) => !applied.includes(m.version));
  if (missing.length > 0) {
    throw new AppError('database_not_migrated', `The database lacks ${missing.length} of gov's ${PG_MIGRATIONS.length} schema migrations (${missing.map((m) => m.version).join(', ')}); run gov db migrate --database-url URL first.`);
  }
}
