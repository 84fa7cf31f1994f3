/**
 * The committed migrations, applied by the service's migrator, on each provider: they build the
 * whole model with the indexes the spec's filters and foreign keys need, and re-running is a no-op.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, readMigrations } from '../src/db/migrate.ts';
import { resources } from '../src/resources/registry.ts';
import { emptyDatabase, providers, type TestDatabase } from './support/databases.ts';
import { createDatabase, type Database } from '../src/db/client.ts';
import { runScript } from './support/process.ts';

/** Index name and its columns in order, per table. */
async function indexes(db: Database, table: string): Promise<{ columns: string[]; unique: boolean }[]> {
  if (db.provider === 'sqlite') {
    const list = await db.prisma.$queryRawUnsafe<{ name: string; unique: bigint | number }[]>(
      `PRAGMA index_list("${table}")`,
    );
    return Promise.all(
      list.map(async (index) => ({
        unique: Number(index.unique) === 1,
        columns: (await db.prisma.$queryRawUnsafe<{ name: string }[]>(`PRAGMA index_info("${index.name}")`)).map(
          (c) => c.name,
        ),
      })),
    );
  }
  const rows = await db.prisma.$queryRawUnsafe<{ indexdef: string }[]>(
    `SELECT indexdef FROM pg_indexes WHERE tablename = $1`,
    table,
  );
  return rows.map((r) => ({
    unique: r.indexdef.startsWith('CREATE UNIQUE'),
    columns: r.indexdef
      .replace(/^.*\((.*)\)$/, '$1')
      .split(',')
      .map((c) => c.trim().replace(/"/g, '')),
  }));
}

describe.each(providers)('migrations on %s', (provider) => {
  let database: TestDatabase;
  let db: Database;
  let applied: string[];

  beforeAll(async () => {
    database = await emptyDatabase(provider);
    applied = await migrate(database.target);
    db = await createDatabase(database.target);
  });
  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  it('applies every committed migration to an empty database, and none the second time', async () => {
    expect(applied).toEqual(readMigrations(provider).map((m) => m.name));
    expect(await migrate(database.target)).toEqual([]);
  });

  it.runIf(provider === 'sqlite')(
    'records them where the Prisma CLI finds them (`prisma migrate status` agrees)',
    async () => {
      // Only on SQLite: on PostgreSQL the CLI's WebAssembly engine idles 10 s before exiting.
      const result = await runScript(
        'node_modules/prisma/build/index.js',
        ['migrate', 'status', '--config', 'prisma/sqlite.config.ts'],
        {
          DATABASE_URL: database.target.url,
        },
      );
      expect(result.stdout).toContain('Database schema is up to date');
    },
  );

  it('creates a table per resource type', async () => {
    for (const resource of resources) {
      await expect(db.prisma.$queryRawUnsafe(`SELECT COUNT(*) AS n FROM "${resource.type}"`)).resolves.toBeDefined();
    }
  });

  it('indexes every foreign key column and the filtered columns; reference, gtin and username are unique', async () => {
    for (const resource of resources) {
      const list = await indexes(db, resource.type);
      const leading = new Set(list.map((i) => i.columns[0]));
      const uniqueColumns = new Set(list.filter((i) => i.unique && i.columns.length === 1).map((i) => i.columns[0]));
      for (const relationship of Object.values(resource.relationships)) {
        if (relationship.storage.kind === 'foreignKey')
          expect(leading, `${resource.type}.${relationship.storage.column}`).toContain(relationship.storage.column);
      }
      for (const column of ['modified_date', 'is_active', 'is_sales']) {
        if (column in resource.attributes) expect(leading, `${resource.type}.${column}`).toContain(column);
      }
      for (const [name, attribute] of Object.entries(resource.attributes)) {
        if (attribute.unique) expect(uniqueColumns, `${resource.type}.${name}`).toContain(attribute.column);
      }
    }
  });

  it('refuses to go on when an applied migration was modified afterwards', async () => {
    await db.prisma.$executeRawUnsafe(`UPDATE "_prisma_migrations" SET checksum = 'tampered'`);
    await expect(migrate(database.target)).rejects.toThrow(/was modified after it was applied/);
  });
});
