/**
 * How the data layer's reads reach the database: registry-generated, parameterised SQL sent
 * straight to the driver that Prisma's adapter runs on, on the same pool (PostgreSQL, whose reads
 * are in ./postgresql.ts with its driver) or the same connection (SQLite).
 *
 * Why not Prisma's `$queryRawUnsafe` for reads: measured here, a one-row statement costs about
 * 0.21 ms of CPU through it on PostgreSQL against 0.06 ms on the pool, and 0.10 ms against
 * 0.004 ms for a cached prepared statement on SQLite; a nested GraphQL query or a REST list with
 * includes sends several. Rows come back in one representation on both providers: booleans as
 * booleans, integers as numbers, date-times as ISO 8601 strings in UTC (`...T01:02:03.004Z`).
 */
import type Sqlite from 'better-sqlite3';
import { tracedSync } from '../observability/tracing.ts';
import type { Provider } from './url.ts';

/** A statement: its text with placeholders and the values they stand for (see ./sql.ts). */
export interface Statement {
  toString(): string;
  readonly values: readonly unknown[];
  /**
   * The text was shaped by a client (a `where` of its own making): texts without end, which take
   * a bounded share of the prepared statements (./named-statements.ts, SqliteStatements).
   */
  readonly shaped?: boolean;
}

/** Where the data layer reads from. */
export interface DataSource {
  provider: Provider;
  /** Reads the hub as of this instant (ISO 8601, ./past.ts): the tables it names are views of their history. */
  readonly asOf?: string;
  query<T = Record<string, unknown>>(statement: Statement): Promise<T[]>;
}

/** Reads through a Prisma client or interactive transaction: inside a write, its own connection. */
export function prismaReads(
  provider: Provider,
  prisma: { $queryRawUnsafe<T>(sql: string, ...values: unknown[]): Promise<T> },
): DataSource {
  return { provider, query: <T>(s: Statement) => prisma.$queryRawUnsafe<T[]>(s.toString(), ...s.values) };
}

/** Statements prepared once per text, most of which differ only by the length of their IN lists... */
const MAX_PREPARED = 2000;
/** ...and at most this many of them texts a client shaped (Statement.shaped), the latest. */
const MAX_PREPARED_SHAPED = 200;

type Convert = (value: unknown) => unknown;
const BOOLEAN: Convert = (v) => (v === null ? null : v !== 0);
/** Prisma writes SQLite date-times as `2026-01-31T12:00:00.000+00:00`. */
const DATETIME: Convert = (v) => (typeof v === 'string' ? v.replace('+00:00', 'Z') : v);

/** SQLite parameters: booleans as 0/1, dates as Prisma stores them. */
function sqliteValue(value: unknown): unknown {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value instanceof Date) return value.toISOString().replace('Z', '+00:00');
  return value;
}

/**
 * Statements prepared once per text on the SQLite connection, with how to convert what they
 * read; reads and writes (./transactions.ts) share them.
 */
type Prepared = { statement: Sqlite.Statement; converters: [string, Convert][] };

export class SqliteStatements {
  private readonly prepared = new Map<string, Prepared>();
  private readonly preparedShaped = new Map<string, Prepared>();

  private prepare(db: Sqlite.Database, text: string, shaped = false) {
    const cache = shaped ? this.preparedShaped : this.prepared;
    let entry = cache.get(text);
    if (entry) return entry;
    const statement = db.prepare(text).safeIntegers(false);
    // Values are converted by the columns' declared types, which SQLite reports for plain column
    // references (also through subqueries); computed columns have none and stay as they are.
    const converters = statement.reader
      ? statement
          .columns()
          .flatMap((c): [string, Convert][] =>
            /^BOOLEAN$/i.test(c.type ?? '')
              ? [[c.name, BOOLEAN]]
              : /^DATETIME$/i.test(c.type ?? '')
                ? [[c.name, DATETIME]]
                : [],
          )
      : [];
    if (cache.size >= (shaped ? MAX_PREPARED_SHAPED : MAX_PREPARED)) cache.delete(cache.keys().next().value!);
    cache.set(text, (entry = { statement, converters }));
    return entry;
  }

  /** Rows of a statement that returns some (a SELECT, or a write with RETURNING). */
  all<T>(db: Sqlite.Database, s: Statement): T[] {
    const text = s.toString();
    const { statement, converters } = this.prepare(db, text, s.shaped);
    const rows = tracedSync('db.query', { 'db.system': 'sqlite', 'db.statement': text }, () =>
      statement.all(...s.values.map(sqliteValue)),
    ) as Record<string, unknown>[];
    if (converters.length > 0) {
      for (const row of rows) for (const [name, convert] of converters) row[name] = convert(row[name]);
    }
    return rows as T[];
  }

  /** Rows changed by a statement that returns none. */
  run(db: Sqlite.Database, s: Statement): number {
    const text = s.toString();
    const { statement } = this.prepare(db, text, s.shaped);
    return tracedSync('db.query', { 'db.system': 'sqlite', 'db.statement': text }, () =>
      statement.run(...s.values.map(sqliteValue)),
    ).changes;
  }

  /** Whether the statement returns rows. */
  reads(db: Sqlite.Database, s: Statement): boolean {
    return this.prepare(db, s.toString(), s.shaped).statement.reader;
  }
}

/**
 * Reads on the SQLite connection Prisma's adapter opened. They wait while an interactive
 * transaction holds that connection (`whenIdle`), as every other statement does (./client.ts).
 */
export function sqliteReads(
  connection: () => Promise<Sqlite.Database>,
  statements: SqliteStatements,
  whenIdle: () => Promise<void>,
  onStatement: () => void,
): DataSource {
  return {
    provider: 'sqlite',
    async query<T>(s: Statement): Promise<T[]> {
      await whenIdle();
      const db = await connection();
      onStatement();
      return statements.all<T>(db, s);
    },
  };
}
