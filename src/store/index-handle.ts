// The main thread's connection to the index, which a rebuild while the preview runs replaces. The
// store hands out one IndexDb whose connection is detached (closed, every read refused) while the
// index is rebuilt and attached again to the rebuilt file; a query set built on any connection it
// ever held prepares its statements again on the current one (`preparedOn`), so the services'
// queries, the quota queries and the write gate's reads follow the swap without being rebuilt.
import type Database from 'better-sqlite3';
import type { AppError } from '../errors.ts';
import type { IndexDb } from './index-db.ts';

/** What a connection of a handle follows: the handle's current connection and how often it changed. */
type Follow = { generation: number; current(): Database.Database };

const following = new WeakMap<Database.Database, Follow>();

export type IndexHandle = IndexDb & {
  /**
   * Closes the current connection; until `attach`, every read through the handle (and every query
   * prepared on it) throws `refusal` (the latest one, when detached again). False when the
   * connection could not be closed.
   */
  detach(refusal: AppError): boolean;
  /** The rebuilt index: reads go to its connection from now on. */
  attach(index: IndexDb): void;
};

export function indexHandle(initial: IndexDb): IndexHandle {
  let index: IndexDb = initial;
  let refusal: AppError | null = null;
  const live = (): IndexDb => {
    if (refusal !== null) throw refusal;
    return index;
  };
  const follow: Follow = { generation: 0, current: () => live().db };
  following.set(initial.db, follow);
  return {
    get db() {
      return live().db;
    },
    lastSeq: () => live().lastSeq(),
    logOffset: () => live().logOffset(),
    lastHash: () => live().lastHash(),
    applyBatch: (events, endOffset) => live().applyBatch(events, endOffset),
    close() {
      if (refusal === null) index.close();
    },
    detach(why) {
      const attached = refusal === null;
      refusal = why;
      if (!attached) return true;
      follow.generation++;
      try {
        index.close();
        return true;
      } catch {
        return false;
      }
    },
    attach(next) {
      following.set(next.db, follow);
      index = next;
      refusal = null;
      follow.generation++;
    },
  };
}

/**
 * Prepares a query set on `db` now, and again on the current connection whenever the handle that
 * `db` belongs to has swapped it (a plain connection keeps its statements). Call the returned
 * function for the statements at every use: while the handle is detached it throws its refusal.
 */
export function preparedOn<T>(db: Database.Database, prepare: (db: Database.Database) => T): () => T {
  const follow = following.get(db);
  if (follow === undefined) {
    const made = prepare(db);
    return () => made;
  }
  let generation = follow.generation;
  let made = prepare(follow.current());
  return () => {
    if (generation !== follow.generation) {
      made = prepare(follow.current());
      generation = follow.generation;
    }
    return made;
  };
}
