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
import { fileURLToPath } from 'node:url';
import Sqlite from 'better-sqlite3';
import pg from 'pg';
import { ensureSqliteDirectory, type DatabaseTarget, type Provider } from './url.ts';

const PRISMA_ADVISORY_LOCK_KEY = 72707369;

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

export function migrationsDirectory(provider: Provider): string {
  return fileURLToPath(new URL(`../../prisma/${provider}/migrations`, import.meta.url));
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
    if (file.checksum !== row.checksum) throw new Error(`migration ${row.migration_name} was modified after it was applied`);
  }
  const done = new Set(live.map((row) => row.migration_name));
  return all.filter((m) => !done.has(m.name));
}

/** Applies pending migrations; returns the names of those it applied. */
export async function migrate(target: DatabaseTarget): Promise<string[]> {
  const migrations = readMigrations(target.provider);
  return target.provider === 'sqlite' ? migrateSqlite(target, migrations) : migratePostgres(target.url, migrations);
}

function migrateSqlite(target: DatabaseTarget, migrations: Migration[]): string[] {
  ensureSqliteDirectory(target);
  const db = new Sqlite(target.sqliteFile!, { timeout: 10_000 });
  try {
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
    return applied;
  } finally {
    db.pragma('foreign_keys = ON');
    db.close();
  }
}

async function migratePostgres(url: string, migrations: Migration[]): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [PRISMA_ADVISORY_LOCK_KEY]);
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
        await client.query(migration.sql);
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
    return applied;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [PRISMA_ADVISORY_LOCK_KEY]).catch(() => undefined);
    await client.end();
  }
}
