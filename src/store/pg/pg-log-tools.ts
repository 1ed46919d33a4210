// `gov db migrate`, `gov db import` and `gov events verify --database-url`: the hosted store's
// offline tools. An import copies a preview's log into an empty hosted store byte for byte (same
// seqs, hashes and Merkle root), checking every line with gov events verify's own checks as it goes,
// in one transaction: a bad line stops it with the seq named and nothing imported.
import pg from 'pg';
import type { StoredEvent } from '../../domain/event.ts';
import { AppError } from '../../errors.ts';
import { acquireDataDirLock } from '../data-dir-lock.ts';
import { readKeyMaterial } from '../keys.ts';
import { logLines } from '../log-lines.ts';
import { logPathOf } from '../store.ts';
import { chainChecker, readLine, tailOf, type Finding } from '../verify-log.ts';
import { rotatePgKeys, storePgKeys, type Rotation } from './pg-files.ts';
import { assertMigrated, migrate, type MigrateReport } from './pg-schema.ts';
import { eventColumns, INSERT_EVENTS, pgConfig, unreachable } from './pg-store.ts';

/** Runs `work` on one connection to the database, closed afterwards. */
export async function withDatabase<T>(databaseUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client(pgConfig(databaseUrl));
  // A connection the server drops also fails the query in flight (or the next one), which the
  // command reports; unheard, the error event would end the process with a stack trace instead.
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (err) {
    throw unreachable(databaseUrl, err);
  }
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => {});
  }
}

export function migrateDatabase(databaseUrl: string): Promise<MigrateReport> {
  return withDatabase(databaseUrl, (client) => migrate(client));
}

/** gov db rotate-keys: a new generation of signing keys; running processes take it at their next start. */
export function rotateDatabaseKeys(databaseUrl: string): Promise<Rotation> {
  return withDatabase(databaseUrl, async (client) => {
    await assertMigrated(client);
    return rotatePgKeys(client);
  });
}

export type ImportReport = { events: number; last_seq: number; merkle_root: string; keys_copied: boolean };

const INSERT_ROWS = 1_000;

/** Copies the data dir's log (and its signing keys, when the store has none) into an empty, migrated store. */
export async function importDataDir(dataDir: string, databaseUrl: string, onProgress?: (seq: number) => void): Promise<ImportReport> {
  // A running preview holds the lock: its log must not grow while it is copied.
  const lock = await acquireDataDirLock(dataDir, () => {});
  try {
    const logPath = logPathOf(dataDir);
    const tail = tailOf(logPath);
    if (tail.status !== 'clean') throw new AppError('store_corrupt', `The log of ${dataDir} ends with what start-up would cut (${tail.detail}); start and stop the preview once (it cuts it), then import.`);
    return await withDatabase(databaseUrl, async (client) => {
      await assertMigrated(client);
      await client.query('BEGIN');
      try {
        const head = (await client.query<{ seq: string }>('SELECT seq FROM gov_head WHERE id = 1 FOR UPDATE')).rows[0]!;
        const count = Number((await client.query<{ n: string }>('SELECT count(*) AS n FROM gov_events')).rows[0]!.n);
        if (Number(head.seq) !== 0 || count !== 0) {
          throw new AppError('database_not_empty', `The database holds ${count} events already; gov db import fills an empty store only (a fresh database after gov db migrate).`);
        }
        const chain = chainChecker();
        let rows: Array<{ event: StoredEvent; line: string }> = [];
        let n = 0;
        let last: StoredEvent | null = null;
        const flush = async () => {
          if (rows.length === 0) return;
          await insertRows(client, rows);
          rows = [];
        };
        for (const line of logLines(logPath, 0, tail.cut_at)) {
          n++;
          const read = readLine(line.bytes);
          const finding: Finding | null = 'code' in read ? { ...read, seq: n, offset: line.offset } : chain.next(read, line.offset);
          if (finding !== null) throw importStopped(finding);
          last = read as StoredEvent;
          rows.push({ event: last, line: line.bytes.toString('utf8') });
          if (rows.length >= INSERT_ROWS) {
            await flush();
            onProgress?.(n);
          }
        }
        const open = chain.end(n);
        if (open !== null) throw importStopped(open);
        await flush();
        if (last !== null) await client.query('UPDATE gov_head SET seq = $1, event_hash = $2, recorded_at = $3 WHERE id = 1', [last.seq, last.event_hash, last.recorded_at]);
        const material = readKeyMaterial(dataDir);
        const keysCopied = material !== null && (await storePgKeys(client, material));
        await client.query('COMMIT');
        return { events: n, last_seq: chain.seq(), merkle_root: chain.root(), keys_copied: keysCopied };
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw err;
      }
    });
  } finally {
    await lock.release();
  }
}

function importStopped(finding: Finding): AppError {
  const at = finding.offset === null ? '' : ` (byte ${finding.offset})`;
  return new AppError('store_corrupt', `The preview's log fails at seq ${finding.seq}${at}: ${finding.detail}. Nothing was imported; run gov events verify --data-dir on it.`);
}

async function insertRows(client: pg.ClientBase, rows: Array<{ event: StoredEvent; line: string }>): Promise<void> {
  await client.query(INSERT_EVENTS, eventColumns(rows));
}

export type PgLogVerification = {
  ok: boolean;
  event_count: number;
  last_seq: number;
  merkle_root: string | null;
  first_bad_seq: number | null;
  problem: string | null;
  problem_code: string | null;
  /** The head row: the last seq and hash every append locks and moves. */
  head: { seq: number; event_hash: string; agrees: boolean };
};

const VERIFY_PAGE = 10_000;

/** Every line of the hosted log through gov events verify's checks, its columns against the line, and the head row. */
export async function verifyDatabaseLog(databaseUrl: string, onProgress?: (seq: number) => void): Promise<PgLogVerification> {
  return withDatabase(databaseUrl, async (client) => {
    await assertMigrated(client);
    // One snapshot for the whole read, so a store that takes appends meanwhile verifies as of its start.
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    try {
      const head = (await client.query<{ seq: string; event_hash: string }>('SELECT seq, event_hash FROM gov_head WHERE id = 1')).rows[0]!;
      const chain = chainChecker();
      let finding: Finding | null = null;
      let count = 0;
      let after = 0;
      while (finding === null) {
        const { rows } = await client.query<{ seq: string; event_hash: string; prev_hash: string; event_id: string; line: string }>(
          'SELECT seq, event_hash, prev_hash, event_id, line FROM gov_events WHERE seq > $1 ORDER BY seq LIMIT $2',
          [after, VERIFY_PAGE],
        );
        if (rows.length === 0) break;
        for (const row of rows) {
          count++;
          after = Number(row.seq);
          const read = readLine(Buffer.from(row.line, 'utf8'));
          finding = 'code' in read ? { ...read, seq: count, offset: null } : chain.next(read, null);
          if (finding === null && 'seq' in read && (read.seq !== after || read.event_hash !== row.event_hash || read.prev_hash !== row.prev_hash || read.event_id !== row.event_id)) {
            finding = { code: 'envelope_invalid', seq: after, offset: null, detail: 'the row\'s columns (seq, event_id, prev_hash, event_hash) disagree with its line' };
          }
          if (finding !== null) break;
        }
        onProgress?.(count);
      }
      finding ??= chain.end(count);
      const agrees = finding === null && Number(head.seq) === chain.seq() && head.event_hash === chain.lastHash();
      return {
        ok: finding === null && agrees,
        event_count: count,
        last_seq: chain.seq(),
        merkle_root: finding === null ? chain.root() : null,
        first_bad_seq: finding?.seq ?? (agrees ? null : chain.seq()),
        problem: finding?.detail ?? (agrees ? null : `the head row (seq ${head.seq}) does not name the log's last event (seq ${chain.seq()})`),
        problem_code: finding?.code ?? (agrees ? null : 'head_mismatch'),
        head: { seq: Number(head.seq), event_hash: head.event_hash, agrees },
      };
    } finally {
      await client.query('COMMIT').catch(() => {});
    }
  });
}
