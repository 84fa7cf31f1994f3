/**
 * The application's Prisma client for whichever provider DATABASE_URL names, with a count of
 * the SQL statements it sends (the `db_statements_total` metric; tests assert batching with it).
 */
import { PrismaBetterSQLite3 } from '@prisma/adapter-better-sqlite3';
import { PrismaPg } from '@prisma/adapter-pg';
import type { SqlDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import type Sqlite from 'better-sqlite3';
import pg from 'pg';
import { PrismaClient as SqliteClient } from '../generated/sqlite/client.ts';
import { PrismaClient as PostgresClient } from '../generated/postgresql/client.ts';
import { NamedStatements, postgresReads, SqliteStatements, sqliteReads, type DataSource } from './reads.ts';
import { postgresTransactions, sqliteTransactions, type Transact } from './transactions.ts';
import {
  DEFAULT_DATABASE_TIMEOUTS,
  ensureSqliteDirectory,
  type DatabaseTarget,
  type DatabaseTimeouts,
  type Provider,
} from './url.ts';

/**
 * Both generated clients come from the same models (prisma/models.prisma), so their model APIs
 * are the same; the SQLite client's type stands for both. Provider-only features (such as
 * case-insensitive `mode` filters on PostgreSQL) must not be used.
 */
export type PrismaDb = SqliteClient;
export { Prisma } from '../generated/sqlite/client.ts';

/** The client handed to an interactive `$transaction` callback. */
export type PrismaTx = Parameters<Parameters<PrismaDb['$transaction']>[0]>[0];

export interface Database {
  /** Writes, transactions, and everything outside the data layer's hot reads. */
  prisma: PrismaDb;
  provider: Provider;
  /** The data layer's reads, on the same pool or connection as Prisma (see ./reads.ts). */
  reads: DataSource;
  /** A write transaction in SQL on the same pool or connection (see ./transactions.ts). */
  transaction: Transact;
  /** Statements each in a transaction of its own, on the database that takes writes. */
  primary: DataSource;
  /** SQL statements sent since start (queries and writes; transaction control not counted). */
  readonly statementCount: number;
  close(): Promise<void>;
}

/** Connections per replica to PostgreSQL. */
const POOL_SIZE = 10;

const COUNTED_METHODS = new Set<PropertyKey>(['queryRaw', 'executeRaw', 'executeScript']);

/** Wraps a driver adapter (or a transaction of one) so that every statement it sends is counted. */
function countStatements<T extends object>(target: T, onStatement: () => void): T {
  return new Proxy(target, {
    get(object, property) {
      const value = Reflect.get(object, property, object);
      if (typeof value !== 'function') return value;
      if (COUNTED_METHODS.has(property)) {
        return (...args: unknown[]) => {
          onStatement();
          return value.apply(object, args);
        };
      }
      if (property === 'startTransaction') {
        return async (...args: unknown[]) => countStatements(await value.apply(object, args), onStatement);
      }
      return value.bind(object);
    },
  });
}

/**
 * SQLite has one connection, shared by every request. While an interactive transaction is open
 * on it, a statement from another request would run inside that transaction: committed or
 * rolled back with it, and seeing its uncommitted rows. Statements outside the transaction wait
 * until it ends. (The Prisma adapter serialises transactions among themselves, not this.)
 */
class TransactionGate {
  private open: Promise<void> | null = null;

  /** Resolves when no transaction holds the connection. */
  async whenIdle(): Promise<void> {
    while (this.open) await this.open;
  }

  /**
   * Takes the connection for a transaction: answers how to give it back. The check and the
   * taking happen with nothing awaited in between, so that two waiters woken together cannot
   * both take it.
   */
  async claim(): Promise<() => void> {
    while (this.open) await this.open;
    let end!: () => void;
    this.open = new Promise((resolve) => (end = resolve));
    return () => {
      this.open = null;
      end();
    };
  }

  /** Runs `work` (a transaction of ours, ./transactions.ts) with the connection to itself. */
  async exclusive<T>(work: () => Promise<T>): Promise<T> {
    const release = await this.claim();
    try {
      return await work();
    } finally {
      release();
    }
  }

  wrap<T extends object>(adapter: T): T {
    const gate = this;
    const outside =
      (run: (...args: unknown[]) => unknown) =>
      async (...args: unknown[]) => {
        await gate.whenIdle();
        return run(...args);
      };
    return new Proxy(adapter, {
      get(object, property) {
        const value = Reflect.get(object, property, object);
        if (typeof value !== 'function') return value;
        if (COUNTED_METHODS.has(property)) return outside(value.bind(object));
        if (property !== 'startTransaction') return value.bind(object);
        return async (...args: unknown[]) => {
          // Closed before BEGIN runs, so that nothing slips in between.
          const finish = await gate.claim();
          let transaction: { commit(): Promise<void>; rollback(): Promise<void> };
          try {
            transaction = await value.apply(object, args);
          } catch (error) {
            finish();
            throw error;
          }
          return new Proxy(transaction, {
            get(tx, name) {
              const member = Reflect.get(tx, name, tx);
              if (name !== 'commit' && name !== 'rollback')
                return typeof member === 'function' ? member.bind(tx) : member;
              return async () => {
                try {
                  await member.call(tx);
                } finally {
                  finish();
                }
              };
            },
          });
        };
      },
    });
  }
}

/**
 * Wraps a driver adapter factory so that its connections count statements, and runs a
 * connection's set-up script (not counted) right after connecting.
 */
function countingFactory(
  factory: SqlDriverAdapterFactory,
  onStatement: () => void,
  { setUp, gate, onConnect }: { setUp?: string; gate?: TransactionGate; onConnect?: (adapter: object) => void } = {},
): SqlDriverAdapterFactory {
  return {
    provider: factory.provider,
    adapterName: factory.adapterName,
    connect: async () => {
      const adapter = await factory.connect();
      if (setUp) await adapter.executeScript(setUp);
      onConnect?.(adapter);
      const counted = countStatements(adapter, onStatement);
      return gate ? gate.wrap(counted) : counted;
    },
  };
}

/**
 * PostgreSQL pool settings that bound every wait: connecting and waiting for a pooled
 * connection, the server-side statement timeout, and a client-side read timeout a little longer
 * than it, which only fires when the server itself stops answering.
 */
export function postgresPoolOptions(timeouts: DatabaseTimeouts) {
  return {
    connectionTimeoutMillis: timeouts.connectMs,
    statement_timeout: timeouts.statementMs,
    query_timeout: timeouts.statementMs + 1000,
    idle_in_transaction_session_timeout: timeouts.statementMs * 2,
    keepAlive: true,
  };
}

/**
 * SQLite runs in WAL mode (set by the migrator; it persists in the file), where NORMAL
 * synchronisation is safe against corruption and spares an fsync per commit: a crash of the
 * machine (not of the process) may lose the last commits.
 */
const SQLITE_CONNECTION_SETUP = 'PRAGMA synchronous = NORMAL';

/**
 * Makes the adapter open its transactions with BEGIN IMMEDIATE instead of BEGIN: the write lock
 * is taken at the start, waiting for it as long as the busy timeout allows. With a deferred BEGIN,
 * a transaction that has read and then writes fails at once (SQLITE_BUSY, or SQLITE_BUSY_SNAPSHOT
 * when the other writer committed meanwhile: its snapshot is stale and cannot become a write)
 * whenever another process (the client CLI, a second server on the file) wrote in between.
 * Measured: 20 writers over HTTP while the CLI created 5 clients, 1 to 4 of 4,000 writes answered
 * 503 with BEGIN, none with BEGIN IMMEDIATE. Every interactive transaction here writes.
 */
function beginImmediately(connection: Sqlite.Database): Sqlite.Database {
  const prepare = connection.prepare.bind(connection);
  connection.prepare = ((sql: string) =>
    prepare(sql === 'BEGIN' ? 'BEGIN IMMEDIATE' : sql)) as typeof connection.prepare;
  return connection;
}

export function createDatabase(
  target: DatabaseTarget,
  timeouts: DatabaseTimeouts = DEFAULT_DATABASE_TIMEOUTS,
): Database {
  let statements = 0;
  const onStatement = () => {
    statements += 1;
  };
  // Waiting to start an interactive transaction is waiting for a connection.
  const transactionOptions = { maxWait: timeouts.connectMs };
  if (target.provider === 'sqlite') {
    ensureSqliteDirectory(target);
    const gate = new TransactionGate();
    let connection: Sqlite.Database | undefined;
    const adapter = new PrismaBetterSQLite3({ url: target.sqliteFile!, timeout: timeouts.statementMs });
    const prisma = new SqliteClient({
      adapter: countingFactory(adapter, onStatement, {
        setUp: SQLITE_CONNECTION_SETUP,
        gate,
        // The adapter's better-sqlite3 connection: the data layer reads on it too.
        onConnect: (a) => (connection = beginImmediately((a as { client: Sqlite.Database }).client)),
      }),
      transactionOptions,
    });
    const connected = async () => {
      if (!connection) await prisma.$connect();
      return connection!;
    };
    const statements = new SqliteStatements();
    const reads = sqliteReads(connected, statements, () => gate.whenIdle(), onStatement);
    return database(
      prisma,
      'sqlite',
      reads,
      sqliteTransactions(connected, statements, (work) => gate.exclusive(work), onStatement),
      reads,
      () => prisma.$disconnect(),
    );
  }
  // One pool for Prisma and the data layer's reads: one connection budget per replica.
  const pool = new pg.Pool({ connectionString: target.url, max: POOL_SIZE, ...postgresPoolOptions(timeouts) });
  // An idle connection that the server ends (a restart, a failover, pg_terminate_backend) is
  // dropped from the pool by pg, and the next request opens a new one. pg re-emits the error on
  // the pool, where an unheard 'error' is an uncaught exception that ends the process. Prisma's
  // adapter listens only while connected: between its $disconnect and the end of pool.end()
  // (connections closing during shutdown) nobody else would.
  pool.on('error', () => undefined);
  const prisma = new PostgresClient({
    adapter: countingFactory(new PrismaPg(pool), onStatement),
    transactionOptions,
  }) as unknown as PrismaDb;
  const names = new NamedStatements();
  const onPool = postgresReads(pool, names, onStatement);
  return database(prisma, 'postgresql', onPool, postgresTransactions(pool, names, onStatement), onPool, async () => {
    await prisma.$disconnect();
    await pool.end();
  });

  function database(
    prisma: PrismaDb,
    provider: Provider,
    reads: DataSource,
    transaction: Transact,
    primary: DataSource,
    close: () => Promise<void>,
  ): Database {
    return {
      prisma,
      provider,
      reads,
      transaction,
      primary,
      get statementCount() {
        return statements;
      },
      close,
    };
  }
}
