/**
 * The SQLite provider: better-sqlite3 under Prisma's adapter, one connection shared by Prisma and
 * the data layer (./reads.ts, ./transactions.ts). Loaded only when DATABASE_URL names SQLite.
 */
import { PrismaBetterSQLite3 } from '@prisma/adapter-better-sqlite3';
import type Sqlite from 'better-sqlite3';
import { PrismaClient } from '../generated/sqlite/client.ts';
import { COUNTED_METHODS, countingFactory, type OpenedDatabase } from './provider.ts';
import { sqlitePast } from './past.ts';
import { SqliteStatements, sqliteReads } from './reads.ts';
import { sqliteTransactions } from './transactions.ts';
import { registerSqliteFunctions } from './sqlite-functions.ts';
import { type DatabaseTarget, type DatabaseTimeouts, ensureSqliteDirectory } from './url.ts';

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

export function openSqlite(
  target: DatabaseTarget,
  timeouts: DatabaseTimeouts,
  onStatement: () => void,
): OpenedDatabase {
  ensureSqliteDirectory(target);
  const gate = new TransactionGate();
  let connection: Sqlite.Database | undefined;
  const adapter = new PrismaBetterSQLite3({ url: target.sqliteFile!, timeout: timeouts.statementMs });
  const prisma = new PrismaClient({
    adapter: countingFactory(adapter, onStatement, {
      setUp: SQLITE_CONNECTION_SETUP,
      gate,
      // The adapter's better-sqlite3 connection: the data layer reads on it too.
      onConnect: (a) => {
        const client = (a as { client: Sqlite.Database }).client;
        registerSqliteFunctions(client);
        connection = beginImmediately(client);
      },
    }),
    // Waiting to start an interactive transaction is waiting for the connection.
    transactionOptions: { maxWait: timeouts.connectMs },
  });
  const connected = async () => {
    if (!connection) await prisma.$connect();
    return connection!;
  };
  const statements = new SqliteStatements();
  const reads = sqliteReads(connected, statements, () => gate.whenIdle(), onStatement);
  const past = sqlitePast(target.sqliteFile!, onStatement);
  return {
    prisma,
    readsFor: () => reads,
    transaction: sqliteTransactions(connected, statements, (work) => gate.exclusive(work), onStatement),
    primary: reads,
    past: past.past,
    close: () => {
      past.close();
      return prisma.$disconnect();
    },
  };
}
