/**
 * Applies the committed migrations (prisma/<provider>/migrations) at start-up, the way
 * `prisma migrate deploy` does and into the same `_prisma_migrations` table, so the Prisma CLI
 * (`migrate status`, `migrate deploy`) agrees with what the service did.
 *
 * Why not spawn the CLI: it costs a child process and about a second per start, and on
 * PostgreSQL its WebAssembly engine keeps the process alive 10 s after finishing (a pending
 * advisory-lock timer). This does the same in-process: each migration in one transaction, on
 * PostgreSQL under the advisory lock Prisma itself takes, so replicas starting together and a
 * concurrent `prisma migrate deploy` take turns.
 */
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type pg from 'pg';
import {
  DEFAULT_DATABASE_TIMEOUTS,
  ensureSqliteDirectory,
  type DatabaseTarget,
  type DatabaseTimeouts,
  type Provider,
  sessionUrl,
} from './url.ts';
import { registerSqliteFunctions } from './sqlite-functions.ts';
import { projectPath } from '../project.ts';
import { withTimeout } from '../timeout.ts';

const PRISMA_ADVISORY_LOCK_KEY = 72707369;

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

export function migrationsDirectory(provider: Provider): string {
  return projectPath('prisma', provider, 'migrations');
}

export function readMigrations(provider: Provider): Migration[] {
  const dir = migrationsDirectory(provider);
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(dir, entry.name, 'migration.sql')))
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

interface AppliedMigration {
  migration_name: string;
  checksum: string;
  finished_at: unknown;
  rolled_back_at: unknown;
}

/** Refuses to go on when the history in the database and the files disagree. */
function pendingMigrations(all: Migration[], applied: AppliedMigration[]): Migration[] {
  const live = applied.filter((row) => row.rolled_back_at == null);
  const failed = live.find((row) => row.finished_at == null);
  if (failed) {
    throw new Error(
      `migration ${failed.migration_name} failed earlier; fix the database, then mark it with \`prisma migrate resolve\``,
    );
  }
  const byName = new Map(all.map((m) => [m.name, m]));
  for (const row of live) {
    const file = byName.get(row.migration_name);
    if (!file) throw new Error(`migration ${row.migration_name} is applied but missing from the migrations folder`);
    if (file.checksum !== row.checksum)
      throw new Error(`migration ${row.migration_name} was modified after it was applied`);
  }
  const done = new Set(live.map((row) => row.migration_name));
  return all.filter((m) => !done.has(m.name));
}

/**
 * Applies pending migrations and checks that the database takes writes; returns the names of
 * the migrations it applied. Every wait is bounded by `timeouts` except the migration
 * statements themselves, which may legitimately take long on a large database.
 */
export async function migrate(
  target: DatabaseTarget,
  timeouts: DatabaseTimeouts = DEFAULT_DATABASE_TIMEOUTS,
): Promise<string[]> {
  const migrations = readMigrations(target.provider);
  try {
    return target.provider === 'sqlite'
      ? await migrateSqlite(target, migrations, timeouts)
      : await migratePostgres(sessionUrl(target), migrations, timeouts);
  } catch (error) {
    throw notWritable(error, target.provider) ?? error;
  }
}

/** A failure that means the database cannot be written to, said plainly; undefined for any other failure. */
function notWritable(error: unknown, provider: Provider): DatabaseNotWritableError | undefined {
  if (error instanceof DatabaseNotWritableError) return error;
  const { code, message } = error as { code?: string; message?: string };
  if (provider === 'sqlite' && /^SQLITE_(READONLY|CANTOPEN|PERM)/.test(code ?? '')) {
    return new DatabaseNotWritableError(
      `the database does not take writes (${message}): the file and its directory must be writable`,
    );
  }
  if (provider === 'postgresql' && code === '25006')
    return new DatabaseNotWritableError(`the database does not take writes (${message})`);
  return undefined;
}

/**
 * A write that is rolled back: a read-only file, directory or server fails here, at start-up,
 * rather than on the first request that writes. Any table would do; this one always exists.
 */
const WRITE_PROBE = `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, applied_steps_count) VALUES ('write-probe', '', 'write-probe', 0)`;

export class DatabaseNotWritableError extends Error {
  override name = 'DatabaseNotWritableError';
}

/** The drivers are loaded for the provider that is migrated (a process loads one of them). */
async function migrateSqlite(target: DatabaseTarget, migrations: Migration[], timeouts: DatabaseTimeouts) {
  const { default: Sqlite } = await import('better-sqlite3');
  ensureSqliteDirectory(target);
  const db = new Sqlite(target.sqliteFile!, { timeout: Math.max(timeouts.statementMs, 10_000) });
  // Migrations index text with the service's own functions (search_fold: *_search_folding).
  registerSqliteFunctions(db);
  try {
    // WAL: readers never wait for the writer, and commits cost no fsync at synchronous=NORMAL
    // (see db/client.ts). The mode is stored in the file; it needs a writable directory.
    db.pragma('journal_mode = WAL');
    db.exec(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
      "id" TEXT PRIMARY KEY NOT NULL, "checksum" TEXT NOT NULL, "finished_at" DATETIME,
      "migration_name" TEXT NOT NULL, "logs" TEXT, "rolled_back_at" DATETIME,
      "started_at" DATETIME NOT NULL DEFAULT current_timestamp,
      "applied_steps_count" INTEGER UNSIGNED NOT NULL DEFAULT 0)`);
    // Prisma's table-redefinition scripts switch foreign keys off, which SQLite ignores inside a
    // transaction: switch them off around it and check them before committing instead.
    db.pragma('foreign_keys = OFF');
    const applied: string[] = [];
    const apply = db.transaction((migration: Migration) => {
      const startedAt = new Date().toISOString();
      db.exec(migration.sql);
      const violations = db.pragma('foreign_key_check') as unknown[];
      if (violations.length > 0) throw new Error(`migration ${migration.name} leaves broken foreign keys`);
      db.prepare(
        `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, started_at, applied_steps_count)
         VALUES (?, ?, ?, ?, ?, 1)`,
      ).run(randomUUID(), migration.checksum, new Date().toISOString(), migration.name, startedAt);
    });
    // BEGIN IMMEDIATE semantics: read the history and apply under one write lock.
    db.transaction(() => {
      const rows = db.prepare('SELECT * FROM "_prisma_migrations"').all() as AppliedMigration[];
      for (const migration of pendingMigrations(migrations, rows)) {
        apply(migration);
        applied.push(migration.name);
      }
    }).immediate();
    try {
      db.transaction(() => {
        db.exec(WRITE_PROBE);
        throw new RolledBack();
      })();
    } catch (error) {
      if (!(error instanceof RolledBack))
        throw (
          notWritable(error, 'sqlite') ??
          new DatabaseNotWritableError(`the database does not take writes (${(error as Error).message})`)
        );
    }
    return applied;
  } finally {
    db.pragma('foreign_keys = ON');
    db.close();
  }
}

class RolledBack extends Error {}

/** One migration's SQL may rewrite big tables: bounded, but generously. */
const MIGRATION_TIMEOUT_MS = 10 * 60 * 1000;

async function migratePostgres(url: string, migrations: Migration[], timeouts: DatabaseTimeouts): Promise<string[]> {
  // Another replica may be migrating: wait for its lock, but not forever.
  const lockWaitMs = Math.max(timeouts.statementMs, 30_000);
  const { default: pg } = await import('pg');
  const client = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: timeouts.connectMs,
    keepAlive: true,
    // A server that stops answering half-way must not hang start-up: every statement has a
    // client-side bound (the lock wait is the longest; a migration's own SQL has its own, below).
    query_timeout: lockWaitMs + timeouts.statementMs,
  });
  // A connection cut under the migrations fails the statement under way (start-up then fails
  // cleanly); unheard, its 'error' event would end the process first.
  client.on('error', () => undefined);
  // pg's connection timeout covers only the TCP and start-up exchange; the first statement is
  // bounded tighter than the rest, so that a stalled server fails start-up quickly.
  await withTimeout(client.connect(), timeouts.connectMs, 'connecting timed out');
  try {
    await withTimeout(
      client.query(`SET lock_timeout = ${lockWaitMs}`),
      timeouts.statementMs,
      'the server does not answer',
    );
    await client.query('SELECT pg_advisory_lock($1)', [PRISMA_ADVISORY_LOCK_KEY]);
    await client.query('SET lock_timeout = 0');
    await client.query(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
      "id" VARCHAR(36) PRIMARY KEY NOT NULL, "checksum" VARCHAR(64) NOT NULL, "finished_at" TIMESTAMPTZ,
      "migration_name" VARCHAR(255) NOT NULL, "logs" TEXT, "rolled_back_at" TIMESTAMPTZ,
      "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(), "applied_steps_count" INTEGER NOT NULL DEFAULT 0)`);
    const { rows } = await client.query<AppliedMigration>('SELECT * FROM "_prisma_migrations"');
    const applied: string[] = [];
    for (const migration of pendingMigrations(migrations, rows)) {
      try {
        await client.query('BEGIN');
        const startedAt = new Date();
        // pg reads a per-statement query_timeout that its types do not declare.
        await client.query({ text: migration.sql, query_timeout: MIGRATION_TIMEOUT_MS } as pg.QueryConfig);
        await client.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, started_at, applied_steps_count)
           VALUES ($1, $2, now(), $3, $4, 1)`,
          [randomUUID(), migration.checksum, migration.name, startedAt],
        );
        await client.query('COMMIT');
        applied.push(migration.name);
      } catch (error) {
        await client.query('ROLLBACK');
        throw new Error(`migration ${migration.name} failed: ${(error as Error).message}`);
      }
    }
    await client.query('BEGIN');
    try {
      await client.query(WRITE_PROBE);
    } catch (error) {
      throw (
        notWritable(error, 'postgresql') ??
        new DatabaseNotWritableError(`the database does not take writes (${(error as Error).message})`)
      );
    } finally {
      await client.query('ROLLBACK');
    }
    return applied;
  } finally {
    await withTimeout(
      client.query('SELECT pg_advisory_unlock($1)', [PRISMA_ADVISORY_LOCK_KEY]),
      timeouts.statementMs,
      '',
    ).catch(() => undefined);
    await withTimeout(client.end(), timeouts.statementMs, '').catch(() => undefined);
  }
}
