/**
 * The application's Prisma client for whichever provider DATABASE_URL names, with a count of
 * the SQL statements it sends (the `db_statements_total` metric; tests assert batching with it).
 */
import { PrismaBetterSQLite3 } from '@prisma/adapter-better-sqlite3';
import { PrismaPg } from '@prisma/adapter-pg';
import type { SqlDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { PrismaClient as SqliteClient } from '../generated/sqlite/client.ts';
import { PrismaClient as PostgresClient } from '../generated/postgresql/client.ts';
import { ensureSqliteDirectory, type DatabaseTarget, type Provider } from './url.ts';

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
  prisma: PrismaDb;
  provider: Provider;
  /** SQL statements sent since start (queries and writes; transaction control not counted). */
  readonly statementCount: number;
  close(): Promise<void>;
}

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

function countingFactory(factory: SqlDriverAdapterFactory, onStatement: () => void): SqlDriverAdapterFactory {
  return {
    provider: factory.provider,
    adapterName: factory.adapterName,
    connect: async () => countStatements(await factory.connect(), onStatement),
  };
}

export function createDatabase(target: DatabaseTarget): Database {
  let statements = 0;
  const onStatement = () => {
    statements += 1;
  };
  let prisma: PrismaDb;
  if (target.provider === 'sqlite') {
    ensureSqliteDirectory(target);
    const adapter = new PrismaBetterSQLite3({ url: target.sqliteFile!, timeout: 5000 });
    prisma = new SqliteClient({ adapter: countingFactory(adapter, onStatement) });
  } else {
    const adapter = new PrismaPg({ connectionString: target.url, max: 10 });
    prisma = new PostgresClient({ adapter: countingFactory(adapter, onStatement) }) as unknown as PrismaDb;
  }
  return {
    prisma,
    provider: target.provider,
    get statementCount() {
      return statements;
    },
    close: () => prisma.$disconnect(),
  };
}
