/**
 * The history of every row, from which as-of reads (./past.ts) answer "what did the hub say at
 * this instant". Why a history of row versions, and not the change log replayed:
 *
 * - The change log holds documents in REST's forms and, for an update, only the fields that
 *   changed: a row's state at an instant is a fold over its entries, which SQL cannot filter,
 *   sort, search or count without rebuilding every row of a type first.
 * - A history table per data table (`T_history`: T's columns, `valid_from`, `valid_to`) holds
 *   each version of a row with the instants it held between. The versions valid at an instant
 *   are a table of the same shape as T: every read of the present (lookups, lists with `where`,
 *   search, counts, aggregates, relationships, reverse links, bills of material) reads them
 *   unchanged, one statement per type and level, through views named as the tables.
 * - It is written by triggers of the database (prisma/history-migration.ts) in the writing
 *   transaction, so that no kind of write escapes it: the service's writes, a foreign key's
 *   cascade, an import, a seed.
 *
 * A write's versions and its change-log entries carry one instant, `write_instant()`: on
 * PostgreSQL the transaction's start (`now()`), in UTC to the millisecond, a function of the
 * migration and the `changes.at` default; on SQLite, which has no such clock, a function every
 * connection of the service registers (registerWriteInstant): the instant a write transaction of
 * ours took when it began (./transactions.ts), else the moment it is called. A transaction may
 * move its instant later (WriteTx.writesAt; PostgreSQL's setting `mdg.write_instant`): the
 * scheduled changes a replica makes ready before their instant are written at that instant.
 */
import type Sqlite from 'better-sqlite3';
import { resources } from '../resources/registry.ts';

/** `valid_to` of a row's present version (a date no write reaches; comparable as text on SQLite). */
export const HISTORY_OPEN = '9999-12-31T00:00:00.000';

/**
 * The versions valid at the instant an as-of read reads (`as_of_instant()`, src/db/past.ts), of a
 * history table aliased `alias` ('' for none). The instant is a subquery, evaluated once per
 * statement: as a plain call, PostgreSQL inlines the function and reads and parses its setting
 * again for every row (measured: a count of 15,000 versions 11.9 ms against 2.9 ms).
 */
export function validAt(alias = ''): string {
  const a = alias ? `${alias}.` : '';
  return `${a}"valid_from" <= (SELECT as_of_instant()) AND ${a}"valid_to" > (SELECT as_of_instant())`;
}

/** The tables whose rows have a history: every resource type's and every join table. */
export function historyTables(): string[] {
  const joins = resources.flatMap((resource) =>
    Object.values(resource.relationships).flatMap((r) => (r.storage.kind === 'join' ? [r.storage.joinTable] : [])),
  );
  return [...resources.map((resource) => resource.type), ...new Set(joins)];
}

/**
 * The change log as of as_of_instant(): its entries up to the last one before the first entry
 * written after the instant. Not "every entry at or before it": an entry numbered later may have
 * an earlier instant (a transaction's instant is its start, its number its commit), and a reader
 * that follows the log from this view's newest position must miss nothing that came after.
 * PostgreSQL's view compares with that bound found once per read instead (migration
 * *_as_of_log_bound); this one is SQLite's.
 */
export function pastChangesView(schema: string): string {
  return `SELECT * FROM ${schema}"changes" WHERE "seq" IS NOT NULL AND "seq" < COALESCE((SELECT MIN("seq") FROM ${schema}"changes" WHERE "at" > as_of_instant()), 9007199254740991)`;
}

/** The instant of the write transaction open on each SQLite connection of ours. */
const writeInstants = new WeakMap<Sqlite.Database, Date>();

/** SQLite stores date-times as Prisma writes them: `2026-01-31T12:00:00.000+00:00`. */
export function sqliteInstant(date: Date): string {
  return date.toISOString().replace('Z', '+00:00');
}

/**
 * Registers `write_instant()` on a SQLite connection. Outside a write transaction of ours (a
 * statement of Prisma's, a migration), the instant of the statement: its triggers all run in the
 * same synchronous call of better-sqlite3, before any microtask, so one instant is kept until then.
 */
export function registerWriteInstant(connection: Sqlite.Database): void {
  let statementInstant: Date | undefined;
  connection.function('write_instant', { deterministic: false }, () => {
    let instant = writeInstants.get(connection) ?? statementInstant;
    if (!instant) {
      instant = statementInstant = new Date();
      queueMicrotask(() => (statementInstant = undefined));
    }
    return sqliteInstant(instant);
  });
}

/** The write transaction now beginning on `connection` writes at this instant, until it ends. */
export function beginWriteInstant(connection: Sqlite.Database): void {
  writeInstants.set(connection, new Date());
}

/** The write transaction open on `connection` writes at `instant` if that is later than its own (WriteTx.writesAt). */
export function laterWriteInstant(connection: Sqlite.Database, instant: Date): void {
  const own = writeInstants.get(connection);
  if (own && instant.getTime() > own.getTime()) writeInstants.set(connection, instant);
}

export function endWriteInstant(connection: Sqlite.Database): void {
  writeInstants.delete(connection);
}
