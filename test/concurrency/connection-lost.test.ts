/**
 * A PostgreSQL connection cut while a transaction holds it (a failover, PgBouncer's "server conn
 * crashed?", pg_terminate_backend): the transaction fails, the process goes on, and the pool
 * serves the next one. Unheard, the client's 'error' event ended the process: the failover test
 * (test/cluster/failover.test.ts) saw both replicas exit while the scheduler held a transaction.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inPooledTransaction } from '../../src/db/transactions.ts';
import { emptyDatabase, providers, type TestDatabase } from '../support/databases.ts';

describe.skipIf(!providers.includes('postgresql'))('a connection lost inside a transaction', () => {
  let database: TestDatabase;
  let pool: pg.Pool;
  let admin: pg.Client;

  beforeAll(async () => {
    database = await emptyDatabase('postgresql');
    pool = new pg.Pool({ connectionString: database.target.url, max: 2 });
    admin = new pg.Client({ connectionString: database.target.url });
    await admin.connect();
  });

  afterAll(async () => {
    await admin?.end();
    await pool?.end();
    await database?.drop();
  });

  it('fails that transaction only: no unhandled error, and the next transaction runs', async () => {
    let backend = 0;
    let cut!: () => void;
    const wasCut = new Promise<void>((resolve) => (cut = resolve));
    const held = inPooledTransaction(pool, 'BEGIN', async (client) => {
      backend = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      // Held between statements, as the scheduler holds its claims until their instant.
      cut();
      await new Promise((resolve) => setTimeout(resolve, 500));
      return client.query('SELECT 1');
    });
    await wasCut;
    await admin.query('SELECT pg_terminate_backend($1)', [backend]);
    await expect(held).rejects.toThrow(/connection/i);
    const next = await inPooledTransaction(
      pool,
      'BEGIN',
      async (client) => (await client.query('SELECT 2 AS two')).rows,
    );
    expect(next).toEqual([{ two: 2 }]);
  });
});
