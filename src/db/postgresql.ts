/**
 * The PostgreSQL provider: one node-postgres pool under Prisma's adapter and the data layer's
 * reads and transactions (./reads.ts, ./transactions.ts). Loaded only when DATABASE_URL names
 * PostgreSQL.
 */
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from '../generated/postgresql/client.ts';
import { isDatabaseUnavailable } from './errors.ts';
import { countingFactory, type OpenedDatabase, type PrismaDb } from './provider.ts';
import { NamedStatements } from './named-statements.ts';
import { checkOldest, OLDEST_INSTANT, type PastReads, readAt } from './past.ts';
import { CHANGES_CHANNEL, listen } from './notifications.ts';
import { ReadReplica } from './read-replica.ts';
import type { DataSource, Statement } from './reads.ts';
import { inPooledTransaction, postgresTransactions } from './transactions.ts';
import { type DatabaseTarget, type DatabaseTimeouts, sessionUrl } from './url.ts';

/** Connections per replica to PostgreSQL. */
const POOL_SIZE = 10;

/** Statement texts of as-of reads kept prepared per connection (beside the present's, NamedStatements). */
const PAST_NAMED_STATEMENTS = 100;

/**
 * PostgreSQL pool settings that bound every wait: connecting and waiting for a pooled
 * connection, the server-side statement timeout, and a client-side read timeout a little longer
 * than it, which only fires when the server itself stops answering.
 */
export function postgresPoolOptions(timeouts: DatabaseTimeouts, { transactionPooler = false } = {}) {
  const bounds = {
    connectionTimeoutMillis: timeouts.connectMs,
    query_timeout: timeouts.statementMs + 1000,
    keepAlive: true,
  };
  // Sent as start-up parameters, which PgBouncer refuses ("unsupported startup parameter"): behind
  // it the server-side bounds are set on the role or in its connect_query (docs/operations/postgresql.md, "Behind PgBouncer").
  if (transactionPooler) return bounds;
  return {
    ...bounds,
    statement_timeout: timeouts.statementMs,
    idle_in_transaction_session_timeout: timeouts.statementMs * 2,
  };
}

/**
 * The number of the first entry of the change log written after the instant $1 (the largest
 * integer when there is none): the view mdg_past.changes ends before it (migration
 * *_as_of_log_bound). Found once per as-of read, with the cheaper of two walks: PostgreSQL's own
 * plan for MIN("seq") WHERE "at" > $1 walks the log by number from its start, whatever the
 * instant (it takes the two columns as unrelated), reading every entry before it (41 ms on the
 * bench's log of 128,540 entries as of a day before, 10,000 after it). Where the first entry by
 * time after the instant lies closer to the log's end, the entries after the instant are read by
 * the index on "at" instead (6 ms there). Both answer exactly the smallest number after it.
 */
const FIRST_ENTRY_AFTER = `COALESCE((SELECT CASE
  WHEN (SELECT MAX("seq") FROM "changes") - f."seq" < f."seq" - (SELECT MIN("seq") FROM "changes")
  THEN (SELECT MIN(a."seq") FROM (SELECT "seq" FROM "changes" WHERE "at" > $1::timestamp(3) OFFSET 0) a)
  ELSE (SELECT "seq" FROM "changes" WHERE "at" > $1::timestamp(3) AND "seq" IS NOT NULL ORDER BY "seq" LIMIT 1) END
  FROM (SELECT "seq" FROM "changes" WHERE "at" > $1::timestamp(3) AND "seq" IS NOT NULL ORDER BY "at" LIMIT 1) f),
  9007199254740991)`;

/** PostgreSQL's earliest instant of the calendar RFC 3339 spells: it has no year 0. */
const YEAR_ONE = Date.parse('0001-01-01T00:00:00Z');

/**
 * An as-of read's instant as PostgreSQL takes it, in UTC. One before year 1 (year 0, which a
 * client may spell) is read as year 1: PostgreSQL refuses year 0, and either is before the hub's
 * history, whose first instant the read checks before it uses the instant (history_purged).
 */
function postgresInstant(at: Date): string {
  return new Date(Math.max(at.getTime(), YEAR_ONE)).toISOString().replace('Z', '');
}

/**
 * As-of reads (./past.ts): a read-only transaction on a connection of the pool whose search_path
 * puts the views of the past first. Its statements have names of their own (`names`), never run
 * under the present's search_path: a name shared by both would be planned again on every
 * alternation. Unnamed, each was parsed, rewritten through the views and planned on every request:
 * with this and the history's validity read at a fixed offset (migration *_history_validity_first),
 * PostgreSQL's CPU for the bench's REST W2 as of a day before went from 10.7 to 2.8 ms a request.
 */
function postgresPast(pool: pg.Pool, names: NamedStatements, onStatement: () => void): PastReads {
  return (at, work) =>
    inPooledTransaction(pool, 'BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY', async (client) => {
      const { rows } = await client.query<{ oldest: string }>({
        text: `SELECT set_config('search_path', 'mdg_past, ' || current_setting('search_path'), true), set_config('mdg.as_of', $1::text, true), set_config('mdg.as_of_seq', (${FIRST_ENTRY_AFTER})::text, true), (${OLDEST_INSTANT}) AS "oldest"`,
        values: [postgresInstant(readAt(at))],
        types: { getTypeParser: () => (value: string) => `${value.replace(' ', 'T')}Z` } as never,
      });
      checkOldest(rows[0]!.oldest, at);
      // One connection, one statement at a time: the loaders of a request ask in parallel.
      let queue: Promise<unknown> = Promise.resolve();
      return work({
        provider: 'postgresql',
        asOf: at.toISOString(),
        query<T>(s: Statement): Promise<T[]> {
          const run = queue.then(() => {
            onStatement();
            return names.run(client, s);
          });
          queue = run.catch(() => undefined);
          return run.then((r) => r.rows as T[]);
        },
      });
    });
}

/** Reads on the pool, as named statements (NamedStatements). */
export function postgresReads(pool: pg.Pool, names: NamedStatements, onStatement: () => void): DataSource {
  return {
    provider: 'postgresql',
    async query<T>(s: Statement): Promise<T[]> {
      onStatement();
      return (await names.run(pool, s)).rows as T[];
    },
  };
}

export function openPostgres(
  target: DatabaseTarget,
  timeouts: DatabaseTimeouts,
  onStatement: () => void,
): OpenedDatabase {
  // One pool for Prisma and the data layer's reads: one connection budget per replica.
  const pool = openPool(target.url, target, timeouts);
  const prisma = new PrismaClient({
    adapter: countingFactory(new PrismaPg(pool), onStatement),
    // Waiting to start an interactive transaction is waiting for a connection.
    transactionOptions: { maxWait: timeouts.connectMs },
  }) as unknown as PrismaDb;
  // Behind a pooler in transaction mode a name would be prepared on one server connection and
  // used on another: every statement goes unnamed (parsed and planned each time).
  const names = new NamedStatements(target.transactionPooler ? 0 : undefined);
  const primary = postgresReads(pool, names, onStatement);
  const replica = target.replica && openReplica(target, timeouts, pool, primary, names, onStatement);
  return {
    prisma,
    readsFor: replica ? (apiClientId) => replica.router.readsFor(apiClientId) : () => primary,
    transaction: postgresTransactions(pool, names, onStatement),
    past: postgresPast(
      pool,
      new NamedStatements(target.transactionPooler ? 0 : PAST_NAMED_STATEMENTS, 'mdg_past'),
      onStatement,
    ),
    primary,
    replica: replica?.router,
    close: async () => {
      await replica?.close();
      await prisma.$disconnect();
      await pool.end();
    },
  };
}

function openPool(url: string, target: DatabaseTarget, timeouts: DatabaseTimeouts): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: POOL_SIZE,
    ...postgresPoolOptions(timeouts, { transactionPooler: target.transactionPooler }),
  });
  // An idle connection that the server ends (a restart, a failover, pg_terminate_backend) is
  // dropped from the pool by pg, and the next request opens a new one. pg re-emits the error on
  // the pool, where an unheard 'error' is an uncaught exception that ends the process. Prisma's
  // adapter listens only while connected: between its $disconnect and the end of pool.end()
  // (connections closing during shutdown) nobody else would.
  pool.on('error', () => undefined);
  return pool;
}

/**
 * The read replica: a pool of its own, the router that picks it or the primary per statement,
 * its position poll, and a listening connection (direct URL) for the numbering's notifications.
 */
function openReplica(
  target: DatabaseTarget,
  timeouts: DatabaseTimeouts,
  primaryPool: pg.Pool,
  primary: ReturnType<typeof postgresReads>,
  names: NamedStatements,
  onStatement: () => void,
) {
  const { url, maxLagMs } = target.replica!;
  const replicaPool = openPool(url, target, timeouts);
  const position = async (on: pg.Pool, text: string) => (await on.query<{ lsn: string | null }>(text)).rows[0]!.lsn;
  const router = new ReadReplica(
    primary,
    postgresReads(replicaPool, names, onStatement),
    {
      // A primary given as its own replica (not in recovery) has replayed everything it wrote.
      replayPosition: () =>
        position(
          replicaPool,
          'SELECT (CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_insert_lsn() END)::text AS lsn',
        ),
      primaryPosition: async () => (await position(primaryPool, 'SELECT pg_current_wal_insert_lsn()::text AS lsn'))!,
      // Not a statement timeout: the primary would take as long again.
      unavailable: (error) => (error as { code?: string }).code !== '57014' && isDatabaseUnavailable(error),
    },
    maxLagMs,
  );
  const listener = listen(
    sessionUrl(target),
    CHANGES_CHANNEL,
    {
      onNotification: (payload) => router.notified(payload),
      onConnected: () => void router.listening(),
      onError: () => router.deaf(),
    },
    timeouts.connectMs,
  );
  router.start();
  return {
    router,
    close: async () => {
      router.stop();
      await listener.close();
      await replicaPool.end();
    },
  };
}
