/**
 * Real databases for tests: a new SQLite file, or a new PostgreSQL database created from
 * TEST_POSTGRES_URL, migrated with the service's own migrator. Never mocks.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createDatabase, type Database } from '../../src/db/client.ts';
import { migrate } from '../../src/db/migrate.ts';
import { parseDatabaseUrl, type DatabaseTarget, type Provider } from '../../src/db/url.ts';

const postgresUrl = process.env.TEST_POSTGRES_URL;

/** The providers to run provider-parametrised suites against (PostgreSQL only when configured). */
export const providers: Provider[] = postgresUrl ? ['sqlite', 'postgresql'] : ['sqlite'];

export interface TestDatabase {
  target: DatabaseTarget;
  /** Removes the database (file or PostgreSQL database). */
  drop(): Promise<void>;
}

/** An empty database, not migrated. */
export async function emptyDatabase(provider: Provider): Promise<TestDatabase> {
  if (provider === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'mdg-test-'));
    return {
      target: parseDatabaseUrl(`file:${join(dir, 'test.db')}`),
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  if (!postgresUrl) throw new Error('TEST_POSTGRES_URL is not set');
  const name = `mdg_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: postgresUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(postgresUrl);
  url.pathname = `/${name}`;
  return {
    target: parseDatabaseUrl(url.toString()),
    drop: async () => {
      const client = new pg.Client({ connectionString: postgresUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

export interface MigratedDatabase extends TestDatabase {
  db: Database;
  /** Closes the client and drops the database. */
  cleanup(): Promise<void>;
}

/** A migrated, empty database with a connected client. */
export async function migratedDatabase(provider: Provider): Promise<MigratedDatabase> {
  const empty = await emptyDatabase(provider);
  await migrate(empty.target);
  const db = await createDatabase(empty.target);
  return {
    ...empty,
    db,
    cleanup: async () => {
      await db.close();
      await empty.drop();
    },
  };
}
