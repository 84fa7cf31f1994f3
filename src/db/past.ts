/**
 * As-of reads: the hub as committed at an instant, read by the same SQL as the present.
 *
 * The versions of every row valid at the instant (./history.ts) are read through views that bear
 * the data tables' names, so that every read of the data layer (lookups, lists, `where`, counts,
 * aggregates, relationships, bills of material) reads the past without a line of its own:
 * - PostgreSQL: the views of the schema `mdg_past` (the migration `*_row_history`), first in the
 *   search_path of a read-only transaction that sets `mdg.as_of` (and `mdg.as_of_seq`, where the
 *   log as of the instant ends: ./postgresql.ts); one transaction per as-of read
 *   (a GraphQL `asOf` field, a REST request), on a connection of the pool, REPEATABLE READ so
 *   that all its statements see one state of the history.
 * - SQLite: a read-only connection of its own (WAL: it reads while the writer writes), on which
 *   TEMP views named as the tables hide them; `as_of_instant()` answers the instant of the
 *   statement being run (statements on SQLite run one at a time, synchronously).
 *
 * How far back: from `history_horizon.oldest`, the instant the history began (the migration, or
 * the database's creation) or, once the change log was purged, the oldest instant it keeps.
 * Before it, HistoryPurgedError.
 */
import type Sqlite from 'better-sqlite3';
import { historyTables, pastChangesView, sqliteInstant, validAt } from './history.ts';
import { type DataSource, SqliteStatements } from './reads.ts';
import { registerSqliteFunctions } from './sqlite-functions.ts';

/** Runs `work` with reads of the hub as committed at `at`. */
export type PastReads = <T>(at: Date, work: (source: DataSource) => Promise<T>) => Promise<T>;

/** An as-of read of an instant before the oldest the hub can answer exactly. */
export class HistoryPurgedError extends Error {
  override name = 'HistoryPurgedError';
  constructor(readonly oldest: string) {
    super(
      `the hub's history begins at ${oldest} (older entries were purged, or the database did not exist): ask for an instant at or after it`,
    );
  }
}

/** The oldest instant as the drivers read it (ISO 8601, UTC), and whether `at` is before it. */
export function checkOldest(oldest: string, at: Date): void {
  const instant = new Date(Date.parse(oldest));
  if (at < instant) throw new HistoryPurgedError(instant.toISOString());
}

/**
 * The instant to read at: a later one than now reads the present (the present versions' valid_to
 * is HISTORY_OPEN, which an instant in its last day would pass: read as now, it finds them).
 */
export function readAt(at: Date): Date {
  const now = new Date();
  return at > now ? now : at;
}

export const OLDEST_INSTANT = 'SELECT "oldest" FROM "history_horizon" WHERE "id" = 1';

/** As-of reads on SQLite: a read-only connection to the same file, opened on first use. */
export function sqlitePast(file: string, onStatement: () => void): { past: PastReads; close(): void } {
  let connection: Sqlite.Database | undefined;
  const statements = new SqliteStatements();
  let instant = '';
  const open = async () => {
    if (connection) return connection;
    const { default: Sqlite } = await import('better-sqlite3');
    const db = new Sqlite(file, { readonly: true });
    registerSqliteFunctions(db);
    db.function('as_of_instant', { deterministic: false }, () => instant);
    db.exec(`CREATE TEMP VIEW "changes" AS ${pastChangesView('main.')}`);
    for (const table of historyTables()) {
      const columns = (db.prepare(`PRAGMA main.table_info("${table}")`).all() as { name: string }[])
        .map((c) => `"${c.name}"`)
        .join(', ');
      db.exec(`CREATE TEMP VIEW "${table}" AS SELECT ${columns} FROM main."${table}_history" WHERE ${validAt()}`);
    }
    connection = db;
    return db;
  };
  return {
    async past(at, work) {
      const db = await open();
      const { oldest } = db.prepare(OLDEST_INSTANT).get() as { oldest: string };
      checkOldest(oldest, at);
      const iso = sqliteInstant(readAt(at));
      return work({
        provider: 'sqlite',
        asOf: at.toISOString(),
        async query<T>(s: Parameters<DataSource['query']>[0]): Promise<T[]> {
          onStatement();
          instant = iso;
          return statements.all<T>(db, s);
        },
      });
    },
    close: () => connection?.close(),
  };
}
