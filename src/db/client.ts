/**
 * The application's database for whichever provider DATABASE_URL names, with a count of the SQL
 * statements it sends (the `db_statements_total` metric; tests assert batching with it). The
 * provider's module (./sqlite.ts or ./postgresql.ts) is loaded when the database is opened: a
 * process loads one driver and one generated Prisma client, not both.
 */
import type { OpenedDatabase } from './provider.ts';
import { DEFAULT_DATABASE_TIMEOUTS, type DatabaseTarget, type DatabaseTimeouts, type Provider } from './url.ts';

export type { PrismaDb, PrismaTx } from './provider.ts';

export interface Database extends OpenedDatabase {
  provider: Provider;
  /** SQL statements sent since start (queries and writes; transaction control not counted). */
  readonly statementCount: number;
}

export async function createDatabase(
  target: DatabaseTarget,
  timeouts: DatabaseTimeouts = DEFAULT_DATABASE_TIMEOUTS,
): Promise<Database> {
  let statements = 0;
  const onStatement = () => {
    statements += 1;
  };
  const opened =
    target.provider === 'sqlite'
      ? (await import('./sqlite.ts')).openSqlite(target, timeouts, onStatement)
      : (await import('./postgresql.ts')).openPostgres(target, timeouts, onStatement);
  return {
    ...opened,
    provider: target.provider,
    get statementCount() {
      return statements;
    },
  };
}
