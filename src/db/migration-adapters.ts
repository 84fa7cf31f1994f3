/**
 * Driver adapters for the Prisma CLI's WebAssembly schema engine (migrate deploy, migrate diff).
 * The application's own client is built in ./client.ts.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { PrismaBetterSQLite3 } from '@prisma/adapter-better-sqlite3';
import { PrismaPg } from '@prisma/adapter-pg';
import type Sqlite from 'better-sqlite3';
import pg from 'pg';
import { registerSqliteFunctions } from './sqlite-functions.ts';
import { ensureSqliteDirectory, parseDatabaseUrl } from './url.ts';

export function sqliteMigrationAdapter(url: string): PrismaBetterSQLite3 {
  const target = parseDatabaseUrl(url);
  ensureSqliteDirectory(target);
  const factory = new PrismaBetterSQLite3({ url: target.sqliteFile ?? url });
  // Migrations index text with the service's own functions (search_fold: *_search_folding).
  const connect = factory.connect.bind(factory);
  factory.connect = async () => {
    const adapter = await connect();
    registerSqliteFunctions(sqliteConnectionOf(adapter));
    return adapter;
  };
  return factory;
}

/**
 * The better-sqlite3 connection a connected adapter of @prisma/adapter-better-sqlite3 holds. The
 * package gives no way to it: it is the adapter's private `client` (6.19), so it is checked, and
 * an upgrade that renamed it fails `prisma migrate` with a message that says so, not a TypeError.
 */
export function sqliteConnectionOf(adapter: unknown): Sqlite.Database {
  const client = (adapter as { client?: Partial<Sqlite.Database> } | undefined)?.client;
  if (typeof client?.function !== 'function' || typeof client.aggregate !== 'function')
    throw new Error(
      `@prisma/adapter-better-sqlite3 ${adapterVersion()} keeps its better-sqlite3 connection elsewhere than the ` +
        '`client` member 6.19 had: src/db/migration-adapters.ts cannot register the functions migrations use (search_fold)',
    );
  return client as Sqlite.Database;
}

/** The installed adapter's version (its package.json, which the package does not export: found beside its entry point). */
function adapterVersion(): string {
  const entry = createRequire(import.meta.url).resolve('@prisma/adapter-better-sqlite3');
  const file = join(dirname(entry), '..', 'package.json');
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

const PG_NAME_OID = 19;
const PG_TEXT_OID = 25;

/**
 * @prisma/adapter-pg 6.19 cannot deserialize the catalog type `name` (OID 19), which the schema
 * engine reads while migrating. Reporting those columns as text (OID 25) is exact: `name` is a
 * string type. Only migrations need this; application queries never select catalog columns.
 */
class CatalogNameAsTextPool extends pg.Pool {
  // biome-ignore lint/suspicious/noExplicitAny: pg's overloads make a precise signature impossible; the result is only post-processed
  override query(...args: unknown[]): any {
    const result = (super.query as (...a: unknown[]) => unknown)(...args);
    if (result instanceof Promise) {
      return result.then((res: pg.QueryResult) => {
        for (const field of res?.fields ?? []) {
          if (field.dataTypeID === PG_NAME_OID) field.dataTypeID = PG_TEXT_OID;
        }
        return res;
      });
    }
    return result;
  }
}

export function postgresMigrationAdapter(url: string): PrismaPg {
  return new PrismaPg(new CatalogNameAsTextPool({ connectionString: url, max: 2 }), { disposeExternalPool: true });
}
