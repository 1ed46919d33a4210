// The hosted store: the event log in PostgreSQL (pg-schema.ts), the same envelope, seqs, hash chain
// and Merkle tree as the preview's file, so packets, receipts and gov packet verify do not know
// which one ran. Each process group-commits: every append queued while a transaction is in flight
// goes into the next one, which locks the head row, catches this process's index up with what
// other processes appended, lets the write gate check every unit's expectations against it, inserts
// the sealed rows, moves the head and commits (synchronous_commit on: a 201 means the commit is
// durable). No lock is held across a commit but the head row's, inside the database.
//
// Reads are served from a process-local SQLite index (the preview's, same projections and queries)
// kept in a throw-away directory: built from the log at start, extended by this process's own
// commits, and caught up with other processes' before every read (settled) and on their NOTIFY.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { ZERO_HASH, type StoredEvent } from '../../domain/event.ts';
import { streamsOf } from '../../domain/streams.ts';
import { AppError } from '../../errors.ts';
import { committedReads } from '../committed-state.ts';
import type { AppendResult, PendingEvent, SealedRow } from '../event-log.ts';
import type { Expectation } from '../expectations.ts';
import { beginBulkLoad, endBulkLoad, openIndexDb, removeIndexFiles } from '../index-db.ts';
import { indexHandle } from '../index-handle.ts';
import { indexListeners } from '../index-listeners.ts';
import type { IndexStatus } from '../index-writer.ts';
import { EXTRA_PROJECTIONS } from '../projections/registry.ts';
import { failBatch, flushLoop, nextRecordedAt, pastInstant, queued, sealBatch, settleBatch, type AppendOptions, type Queued, type SealedBatch } from '../seal-batch.ts';
import type { Store } from '../store.ts';
import { createWriteGate } from '../write-gate.ts';
import { assertMigrated } from './pg-schema.ts';

export type PgStoreOptions = {
  databaseUrl: string;
  clock: () => Date;
  warn: (message: string) => void;
  /** Where this process keeps its index (a fresh temporary directory by default, removed on close). */
  cacheDir?: string;
  /** Connections of the pool (reads, catch-ups and each transaction take one; the NOTIFY listener has its own). */
  poolSize?: number;
  /** Called once per committed batch: units and events in it. */
  onBatch?: (units: number, events: number) => void;
};

export type PgStore = Store & {
  /** The pool this store reads through (keys and quarantine use it too). */
  readonly pool: pg.Pool;
};

/** Inserts rows given as the eight arrays of eventColumns ($1–$8), one statement for a whole batch. */
export const INSERT_EVENTS = `INSERT INTO gov_events (seq, event_id, tenant_id, kind, recorded_at, prev_hash, event_hash, line)
  SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[])`;

/** The columns of gov_events for INSERT_EVENTS, one array each, from sealed rows. */
export function eventColumns(rows: ReadonlyArray<{ event: StoredEvent; line: string }>): unknown[] {
  return [
    rows.map((r) => r.event.seq),
    rows.map((r) => r.event.event_id),
    rows.map((r) => r.event.tenant_id),
    rows.map((r) => r.event.kind),
    rows.map((r) => r.event.recorded_at),
    rows.map((r) => r.event.prev_hash),
    rows.map((r) => r.event.event_hash),
    rows.map((r) => r.line),
  ];
}

/** The NOTIFY channel an append commits with: its payload is the new head seq. */
const CHANNEL = 'gov_events';
/** Lines fetched per query when catching up or loading the index. */
const PAGE = 5_000;

/** Connection settings every gov connection uses: durable commits, and a name in pg_stat_activity. */
export function pgConfig(databaseUrl: string, max?: number): pg.PoolConfig {
  return {
    connectionString: databaseUrl,
    ...(max === undefined ? {} : { max }),
    application_name: 'gov',
    // A 201 means the commit reached the WAL on disk (and any synchronous standby).
    options: '-c synchronous_commit=on',
    connectionTimeoutMillis: 10_000,
  };
}

/** Turns a driver's connection failure into a sentence that says what to check. */
export function unreachable(databaseUrl: string, err: unknown): AppError {
  const where = safeUrl(databaseUrl);
  return new AppError('database_unreachable', `Cannot use the database at ${where} (${(err as Error)?.message ?? String(err)}); check --database-url, that PostgreSQL runs and accepts this user.`, { cause: err });
}

/** The URL without its password, for messages and logs. */
export function safeUrl(databaseUrl: string): string {
  try {
    const url = new URL(databaseUrl);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return '(an unparsable database URL)';
  }
}

/**
 * A connection of the pool for a caller that holds it across several queries. The pool listens for
 * the errors of idle connections only: a connection the server drops while it is checked out (a
 * restart, a failover, pg_terminate_backend) emits an error nobody would hear, which ends the
 * process. Here it is heard and logged; the query in flight, or the next one, fails and the caller
 * answers for it (a write: 503, retry with the same key). Released, the connection is the pool's
 * again, and so are its errors.
 */
export async function checkOut(pool: pg.Pool, warn: (message: string) => void): Promise<pg.PoolClient> {
  const client = await pool.connect();
  const heard = (err: Error) => warn(`A database connection failed while in use (${err.message}); what it was doing fails and is answered as such.`);
  client.on('error', heard);
  const release = client.release.bind(client);
  client.release = (err?: Error | boolean) => {
    client.removeListener('error', heard);
    release(err);
  };
  return client;
}

export async function openPgStore(options: PgStoreOptions): Promise<PgStore> {
  const { warn } = options;
  const poolSize = options.poolSize ?? 8;
  const pool = new pg.Pool(pgConfig(options.databaseUrl, poolSize));
  // An idle client's error (the server restarted) must not crash the process: the next query reconnects.
  pool.on('error', (err) => warn(`A database connection failed while idle (${err.message}); it is replaced on the next query.`));
  try {
    const client = await checkOut(pool, warn).catch((err: unknown) => {
      throw unreachable(options.databaseUrl, err);
    });
    try {
      await assertMigrated(client);
    } finally {
      client.release();
    }
  } catch (err) {
    await pool.end().catch(() => {});
    throw err;
  }
  const ownsCacheDir = options.cacheDir === undefined;
  const cacheDir = options.cacheDir ?? mkdtempSync(join(tmpdir(), 'gov-serve-'));
  const indexPath = join(cacheDir, 'index.sqlite');
  let index: ReturnType<typeof indexHandle>;
  try {
    index = indexHandle(await loadIndex(pool, indexPath));
  } catch (err) {
    await pool.end().catch(() => {});
    if (ownsCacheDir) rmSync(cacheDir, { recursive: true, force: true });
    throw err;
  }
  const gate = createWriteGate(committedReads(index.db));
  let indexed = { seq: index.lastSeq(), hash: index.lastHash() ?? ZERO_HASH, recordedAt: '' };
  const listeners = indexListeners(warn);
  const announce = listeners.indexedTo;
  let corrupt: AppError | null = null;

  /**
   * Applies committed rows in seq order, skipping what the index holds already (a catch-up and
   * this process's own commit may fetch the same rows). A gap or a broken link is a corrupt log.
   */
  const apply = (rows: SealedRow[], foreign: boolean): void => {
    const fresh = rows.filter((r) => r.event.seq > indexed.seq);
    if (fresh.length === 0) return;
    checkLinks(fresh, indexed);
    index.applyBatch(fresh, 0);
    const last = fresh[fresh.length - 1]!.event;
    indexed = { seq: last.seq, hash: last.event_hash, recordedAt: last.recorded_at };
    // Another process's events may have moved streams this process holds in its cache.
    if (foreign) gate.forgetStreams(fresh.flatMap(({ event }) => streamsOf(event)));
    gate.indexed(last.seq);
    announce(last.seq);
  };

  /**
   * Fetches and applies every committed event after the index's last one, up to `upTo` (the head
   * when omitted). One fetch at a time: a catch-up under way (another process's NOTIFY) is waited
   * for first, so the same rows are not fetched and parsed twice.
   */
  let fetching: Promise<void> | null = null;
  const catchUp = async (client: pg.ClientBase | pg.Pool, upTo?: number): Promise<void> => {
    while (fetching !== null) await fetching;
    const run = fetchAndApply(client, upTo);
    // Waiters only wait: the caller of this run gets its failure.
    const settledRun: Promise<void> = run.then(
      () => {},
      () => {},
    ).finally(() => {
      if (fetching === settledRun) fetching = null;
    });
    fetching = settledRun;
    return run;
  };
  const fetchAndApply = async (client: pg.ClientBase | pg.Pool, upTo?: number): Promise<void> => {
    for (;;) {
      const after = indexed.seq;
      if (upTo !== undefined && after >= upTo) return;
      const { rows } = await client.query<{ line: string }>('SELECT line FROM gov_events WHERE seq > $1 ORDER BY seq LIMIT $2', [after, PAGE]);
      if (rows.length === 0) return;
      apply(rows.map(({ line }) => ({ event: JSON.parse(line) as StoredEvent, line })), true);
      if (rows.length < PAGE) return;
    }
  };

  let queue: Queued[] = [];
  /** A transaction of this process is under way (it catches up with the others' appends itself). */
  let committing = false;
  /** The highest head seq another process announced (NOTIFY). */
  let knownHead = 0;

  // Other processes' commits, announced by NOTIFY: catch up so event streams see them promptly.
  let listener: pg.Client | null = null;
  let catchingUp: Promise<void> | null = null;
  const catchUpSoon = (): void => {
    catchingUp ??= catchUp(pool)
      .catch((err: unknown) => warn(`Catching up with the database's log failed (${(err as Error).message}); the next read tries again.`))
      .finally(() => {
        catchingUp = null;
      });
  };
  const listen = async (): Promise<void> => {
    const client = new pg.Client(pgConfig(options.databaseUrl));
    client.on('notification', (msg) => {
      knownHead = Math.max(knownHead, Number(msg.payload) || 0);
      // Appends queued here catch up before their own transaction anyway: no second fetch meanwhile.
      if (knownHead > indexed.seq && queue.length === 0 && !committing) catchUpSoon();
    });
    client.on('error', (err) => {
      warn(`The database listener failed (${err.message}); other processes' events reach this one at its next read until it reconnects.`);
      listener = null;
      if (!closed) setTimeout(() => void listen().catch(() => {}), 1_000).unref();
    });
    await client.connect();
    await client.query(`LISTEN ${CHANNEL}`);
    listener = client;
    catchUpSoon();
  };
  let closed = false;
  try {
    await listen();
  } catch (err) {
    warn(`Could not LISTEN for other processes' appends (${(err as Error).message}); they reach this process at its next read.`);
  }

  /**
   * One transaction: lock the head, catch up, seal through the gate, insert, move the head, commit.
   * A pooled connection the database dropped while it sat idle (a restart, an administrator's
   * pg_terminate_backend) may be handed out before the pool hears of it: if it fails in the first
   * round trip, before anything of the batch was sent, the batch is tried again on another, at most
   * once per pooled connection and one more (each dead one is discarded).
   */
  const commit = async (batch: Queued[]): Promise<void> => {
    committing = true;
    try {
      let tries = 1;
      while ((await commitBatch(batch, tries <= poolSize)) === 'unsent') tries++;
    } finally {
      committing = false;
    }
  };
  /** 'unsent': the connection failed before anything was sent, and `mayRetry`: nothing was answered. */
  const commitBatch = async (batch: Queued[], mayRetry: boolean): Promise<'done' | 'unsent'> => {
    let client: pg.PoolClient;
    try {
      client = await checkOut(pool, warn);
    } catch (err) {
      for (const item of batch) item.reject(new AppError('store_unavailable', 'The database cannot be reached; nothing was recorded. Try again.', { cause: err }));
      return 'done';
    }
    let sealed: SealedBatch | null = null;
    let began = false;
    let before = 0;
    try {
      // Three round trips hold the head row: this one (begin, lock, and whatever was appended
      // since this process last looked, read after the lock so nothing committed is missed), the
      // insert, the commit.
      began = true;
      const from = indexed.seq;
      const opened = (await client.query(
        `BEGIN; SELECT seq, event_hash, recorded_at FROM gov_head WHERE id = 1 FOR UPDATE; SELECT line FROM gov_events WHERE seq > ${from} ORDER BY seq LIMIT ${PAGE}`,
      )) as unknown as pg.QueryResult[];
      const head = opened[1]!.rows[0] as { seq: string; event_hash: string; recorded_at: string };
      before = Number(head.seq);
      const delta = opened[2]!.rows as Array<{ line: string }>;
      apply(delta.map(({ line }) => ({ event: JSON.parse(line) as StoredEvent, line })), true);
      await catchUp(client, before);
      if (indexed.seq !== before || (before > 0 && indexed.hash !== head.event_hash)) {
        throw new AppError('store_corrupt', `The database's head (seq ${before}) does not match its log (seq ${indexed.seq}); run gov events verify --database-url.`);
      }
      const recordedAt = nextRecordedAt(options.clock, head.recorded_at);
      gate.beginBatch(before + 1, recordedAt);
      sealed = sealBatch(gate, batch, { seq: before, hash: head.event_hash }, recordedAt);
      if (sealed.accepted.length === 0) {
        gate.abortBatch();
        await client.query('ROLLBACK');
        client.release();
        for (const { item, error } of sealed.refusals) item.reject(error);
        return 'done';
      }
      options.onBatch?.(sealed.accepted.length, sealed.rows.length);
      const rows = sealed.rows;
      // One statement inserts the rows, moves the head and notifies the other processes (a
      // data-modifying WITH runs whether or not the outer query reads it).
      await client.query(
        `WITH inserted AS (${INSERT_EVENTS}), moved AS (
           UPDATE gov_head SET seq = $9, event_hash = $10, recorded_at = $11 WHERE id = 1
         )
         SELECT pg_notify('${CHANNEL}', $12)`,
        [...eventColumns(rows), sealed.seq, sealed.hash, recordedAt, String(sealed.seq)],
      );
      await client.query('COMMIT');
      began = false;
    } catch (err) {
      if (began) await client.query('ROLLBACK').catch(() => {});
      client.release(err instanceof AppError ? undefined : (err as Error));
      if (sealed !== null) gate.abortBatch();
      // Before the batch was sealed only reads were sent (the head's lock, the catch-up): a failed
      // connection then recorded nothing, and another connection may take the batch.
      const unsent = sealed === null && !(err instanceof AppError);
      if (unsent && mayRetry && !closed) return 'unsent';
      const error = err instanceof AppError
        ? err
        : unsent
          ? new AppError('store_unavailable', 'The database connection failed before the write was sent; nothing was recorded. Try again.', { cause: err })
          : new AppError('store_write_failed', 'The database did not confirm the write, so it may or may not be recorded; retry with the same Idempotency-Key (a recorded one is answered as a replay).', { cause: err });
      if (sealed === null) for (const item of batch) item.reject(error);
      else failBatch(sealed, error);
      return 'done';
    }
    client.release();
    gate.batchDurable();
    try {
      apply(sealed.rows, false);
    } catch (err) {
      // Durable in the database but not in this process's index: later reads catch it up again.
      warn(`The index could not take batch ${before + 1}–${sealed.seq} (${(err as Error).message}); it is read again from the database.`);
      gate.forgetIndexed();
    }
    settleBatch(sealed, before);
    return 'done';
  };

  const flush = async (): Promise<void> => {
    while (queue.length > 0) {
      const batch = queue;
      queue = [];
      await commit(batch);
    }
  };

  const loop = flushLoop(flush, () => queue.length > 0);

  const refuseIfCorrupt = (): void => {
    if (corrupt !== null) throw corrupt;
  };

  /** Builds the index afresh from the database under a new name and reads from it once complete. */
  let rebuilding: Promise<void> | null = null;
  let generation = 0;
  let currentPath = indexPath;
  const rebuildIndex = async (why: string): Promise<void> => {
    const path = join(cacheDir, `index-${++generation}.sqlite`);
    try {
      const fresh = await loadIndex(pool, path);
      if (closed) {
        fresh.close();
        return;
      }
      index.attach(fresh);
      removeIndexFiles(currentPath);
      currentPath = path;
      // Events appended meanwhile by other processes come with the next catch-up.
      indexed = { seq: fresh.lastSeq(), hash: fresh.lastHash() ?? ZERO_HASH, recordedAt: '' };
      gate.forgetIndexed();
      corrupt = null;
      announce(indexed.seq);
      warn(`Rebuilt this process's index from the database (${indexed.seq} events); it answers again.`);
    } catch (err) {
      removeIndexFiles(path);
      corrupt = new AppError('index_unavailable', `This process's index is damaged (${why}) and rebuilding it from the database failed (${(err as Error).message}); every acknowledged event is safe there. Restart this gov serve process; other processes answer meanwhile.`);
      warn(corrupt.message);
    }
  };

  /** Indexes what the database's head holds beyond this process's index (read with `headQuery`). */
  const caughtUp = async (headQuery: string): Promise<void> => {
    refuseIfCorrupt();
    // Another process may have acknowledged a write this one has not indexed: a read sees it.
    let head: number;
    try {
      head = Number((await pool.query<{ seq: string }>(headQuery)).rows[0]!.seq);
    } catch (err) {
      throw new AppError('store_unavailable', 'The database cannot be reached; try again.', { cause: err });
    }
    if (head > indexed.seq) await catchUp(pool, head);
  };

  let closing: Promise<void> | null = null;
  return {
    dataDir: cacheDir,
    index,
    pool,
    tail: () => ({ seq: indexed.seq, hash: indexed.hash, recordedAt: indexed.recordedAt, size: 0 }),
    append(unit: PendingEvent[], expect: readonly Expectation[] = [], appendOptions: AppendOptions = {}): Promise<AppendResult> {
      if (closed) return Promise.reject(new AppError('store_closed', 'The server is shutting down; retry against another process.'));
      if (unit.length === 0) return Promise.reject(new Error('an append needs at least one event'));
      return new Promise<AppendResult>((resolve, reject) => {
        queue.push(queued(unit, expect, appendOptions, resolve, reject));
        loop.kick();
      });
    },
    settled: () => caughtUp('SELECT seq FROM gov_head WHERE id = 1'),
    async settledAsOf(asOfMs) {
      await pastInstant(options.clock, asOfMs);
      // A batch being written holds the head's row (FOR UPDATE) from before it is recorded until
      // it commits; FOR SHARE waits for that commit, in this process or another.
      await caughtUp('SELECT seq FROM gov_head WHERE id = 1 FOR SHARE');
    },
    indexedSeq: () => indexed.seq,
    onIndexed: (fn) => listeners.add(fn),
    indexStatus: (): IndexStatus => (corrupt === null ? { state: 'current', indexed_seq: indexed.seq, last_error: null } : { state: 'unavailable', indexed_seq: indexed.seq, last_error: corrupt.message }),
    markIndexCorrupt(message) {
      if (corrupt !== null || closed) return;
      // The index is this process's cache: it is built afresh from the database beside the old one.
      corrupt = new AppError('index_unavailable', `This process's index is damaged (${message}) and is being rebuilt from the database, where every acknowledged event is safe. Try again in a few seconds; other gov serve processes answer meanwhile.`);
      warn(corrupt.message);
      index.detach(corrupt);
      rebuilding = rebuildIndex(message).finally(() => {
        rebuilding = null;
      });
    },
    rebuilt: async () => {
      await rebuilding;
      return corrupt === null;
    },
    stream: (id) => gate.indexedStream(id),
    idempotency: (tenantId, key) => gate.indexedKey(tenantId, key),
    close() {
      closing ??= (async () => {
        closed = true;
        await loop.idle();
        await rebuilding;
        await catchingUp;
        const l = listener;
        listener = null;
        await l?.end().catch(() => {});
        await pool.end().catch(() => {});
        index.close();
        if (ownsCacheDir) rmSync(cacheDir, { recursive: true, force: true });
      })();
      return closing;
    },
  };
}

/**
 * Rows of the log follow the last one applied (`after`): consecutive seqs, each prev_hash the
 * event_hash before it. Anything else is a log changed behind the service's back.
 */
function checkLinks(rows: readonly SealedRow[], after: { seq: number; hash: string }): void {
  let { seq, hash } = after;
  for (const { event } of rows) {
    if (event.seq !== seq + 1) throw new AppError('store_corrupt', `The database's log has seq ${event.seq} where ${seq + 1} was expected; run gov events verify --database-url.`);
    if (event.prev_hash !== hash) throw new AppError('store_corrupt', `The database's log breaks its hash chain at seq ${event.seq}; run gov events verify --database-url.`);
    seq = event.seq;
    hash = event.event_hash;
  }
}

/**
 * A fresh index in `path` with every event of the database's log, read in pages and checked link
 * by link. Whatever was at `path` (a cache dir used before) is deleted first.
 */
async function loadIndex(pool: pg.Pool, path: string): Promise<ReturnType<typeof openIndexDb>> {
  removeIndexFiles(path);
  const index = openIndexDb(path, EXTRA_PROJECTIONS);
  try {
    beginBulkLoad(index);
    let last = { seq: 0, hash: ZERO_HASH };
    for (;;) {
      const { rows } = await pool.query<{ line: string }>('SELECT line FROM gov_events WHERE seq > $1 ORDER BY seq LIMIT $2', [last.seq, PAGE * 4]);
      if (rows.length === 0) break;
      const batch = rows.map(({ line }) => ({ event: JSON.parse(line) as StoredEvent, line }));
      checkLinks(batch, last);
      index.applyBatch(batch, 0);
      const end = batch[batch.length - 1]!.event;
      last = { seq: end.seq, hash: end.event_hash };
    }
    endBulkLoad(index);
    // This cache is built afresh at every start, so nothing is gained by syncing it to disk: its
    // commits and checkpoints skip the fsync (the database's own durability is PostgreSQL's).
    index.db.pragma('synchronous = OFF');
    return index;
  } catch (err) {
    index.close();
    throw err;
  }
}
