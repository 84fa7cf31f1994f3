/**
 * Write transactions in plain SQL, on the driver Prisma's adapter runs on: a connection of the
 * pool (PostgreSQL), or the one SQLite connection under the transaction gate (./client.ts).
 *
 * Why not Prisma's interactive transactions: measured here, a product update of four statements
 * cost 8.2 ms of CPU through Prisma's model API inside `$transaction`, 3.1 ms through its raw
 * queries inside it, and 1.1 ms as the same SQL on a pooled connection. Writes are what other
 * systems wait for; their statements are built from the registry like the reads' (./sql.ts).
 */
import type Sqlite from 'better-sqlite3';
import type pg from 'pg';
import { beginWriteInstant, endWriteInstant, laterWriteInstant } from './history.ts';
import type { NamedStatements } from './named-statements.ts';
import type { DataSource, SqliteStatements, Statement } from './reads.ts';

/** A transaction in progress: reads (`query`, also for writes with RETURNING) and writes. */
export interface WriteTx extends DataSource {
  /** Runs a statement that returns no rows; answers how many rows it changed. */
  execute(statement: Statement): Promise<number>;
  /**
   * The transaction writes at `instant` (its entries' `at`, its row versions' start:
   * ./history.ts) when that is later than its own instant: a scheduled change made ready before
   * its instant and committed once it came (src/change-requests/scheduler.ts).
   */
  writesAt(instant: Date): Promise<void>;
}

export type Transact = <T>(work: (tx: WriteTx) => Promise<T>) => Promise<T>;

/** `work` on a connection of the pool, between `begin` and COMMIT (ROLLBACK when it throws). */
export async function inPooledTransaction<T>(
  pool: pg.Pool,
  begin: string,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  // A client's errors are its holder's to hear while it is checked out (the pool listens only
  // while it is idle): a connection cut under the transaction (a failover, PgBouncer's "server
  // conn crashed?", pg_terminate_backend) emits 'error', which unheard ended the process. The
  // statement under way, or the next, fails with it, and the client is not given back.
  const lost = (error: Error) => {
    broken = error;
  };
  client.on('error', lost);
  try {
    await client.query(begin);
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    // A connection that cannot roll back is not given back to the pool.
    await client.query('ROLLBACK').catch((rollbackFailed: Error) => (broken = rollbackFailed));
    throw error;
  } finally {
    client.removeListener('error', lost);
    client.release(broken);
  }
}

/** Transactions on connections of the pool: BEGIN, the work, COMMIT (ROLLBACK when it throws). */
export function postgresTransactions(pool: pg.Pool, names: NamedStatements, onStatement: () => void): Transact {
  return (work) =>
    inPooledTransaction(pool, 'BEGIN', (client) =>
      work({
        provider: 'postgresql',
        async query<T>(s: Statement) {
          onStatement();
          return (await names.run(client, s)).rows as T[];
        },
        async execute(s: Statement) {
          onStatement();
          return (await names.run(client, s)).rowCount ?? 0;
        },
        async writesAt(instant: Date) {
          onStatement();
          await client.query(
            `SELECT set_config('mdg.write_instant', GREATEST(write_instant(), $1::timestamp(3))::text, true)`,
            [instant.toISOString().replace('Z', '')],
          );
        },
      }),
    );
}

/**
 * Transactions on the SQLite connection: the gate closed for their whole length (no other
 * statement of this process may run inside them), BEGIN IMMEDIATE (the write lock at the start,
 * waiting for another process's writer as long as the busy timeout allows).
 */
export function sqliteTransactions(
  connection: () => Promise<Sqlite.Database>,
  statements: SqliteStatements,
  exclusive: <T>(work: () => Promise<T>) => Promise<T>,
  onStatement: () => void,
): Transact {
  return (work) =>
    exclusive(async () => {
      const db = await connection();
      db.prepare('BEGIN IMMEDIATE').run();
      beginWriteInstant(db);
      const tx: WriteTx = {
        provider: 'sqlite',
        async query<T>(s: Statement) {
          onStatement();
          return statements.all<T>(db, s);
        },
        async execute(s: Statement) {
          onStatement();
          return statements.run(db, s);
        },
        async writesAt(instant: Date) {
          laterWriteInstant(db, instant);
        },
      };
      try {
        const result = await work(tx);
        db.prepare('COMMIT').run();
        return result;
      } catch (error) {
        if (db.inTransaction) db.prepare('ROLLBACK').run();
        throw error;
      } finally {
        endWriteInstant(db);
      }
    });
}
