/**
 * A dump of every table of a database as one string, deterministic (tables by name, rows sorted),
 * so that two dumps are equal exactly when the data is: what "a refused write changes nothing"
 * is checked against.
 */
import type { Database } from '../../src/db/client.ts';

/**
 * The tables of the database. On SQLite, ordinary tables only: not the FTS5 search indexes (a
 * virtual table and its shadow tables, which hold blobs of the index's own format, derived from
 * the base tables: prisma/sqlite/migrations/*_search_indexes).
 */
async function tableNames(db: Database): Promise<string[]> {
  const rows =
    db.provider === 'sqlite'
      ? await db.prisma.$queryRawUnsafe<{ name: string }[]>(
          `SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'table' AND name NOT LIKE 'sqlite_%'`,
        )
      : await db.prisma.$queryRawUnsafe<{ name: string }[]>(
          `SELECT tablename::text AS name FROM pg_tables WHERE schemaname = current_schema()`,
        );
  return rows.map((r) => r.name).sort();
}

/** A value as text that tells every stored value apart (numbers, decimals, dates, bytes, bigints). */
function cell(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (value instanceof Date) return `date:${value.toISOString()}`;
  if (value instanceof Uint8Array) return `bytes:${Buffer.from(value).toString('hex')}`;
  if (typeof value === 'bigint') return `int:${value}`;
  if (typeof value === 'object') return `${value.constructor?.name}:${String(value)}`;
  return `${typeof value}:${JSON.stringify(value)}`;
}

const names = new WeakMap<Database, Promise<string[]>>();

/**
 * What `SELECT` reads from a table: every column, those of types Prisma's PostgreSQL adapter
 * cannot read (the tsvector of the search documents, prisma/postgresql/migrations/*_search_indexes)
 * as their text.
 */
async function selectList(db: Database, table: string): Promise<string> {
  if (db.provider === 'sqlite') return '*';
  const columns = await db.prisma.$queryRawUnsafe<{ name: string; type: string }[]>(
    `SELECT column_name::text AS name, data_type::text AS type FROM information_schema.columns
     WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`,
    table,
  );
  return columns
    .map(({ name, type }) => (type === 'tsvector' ? `"${name}"::text AS "${name}"` : `"${name}"`))
    .join(', ');
}

/** Every table's rows, but those of the tables `except` names. */
export async function dumpDatabase(db: Database, { except = [] as readonly string[] } = {}): Promise<string> {
  let tables = names.get(db);
  if (!tables) names.set(db, (tables = tableNames(db)));
  const parts = await Promise.all(
    (await tables)
      .filter((table) => !except.includes(table))
      .map(async (table) => {
        const rows = await db.prisma.$queryRawUnsafe<Record<string, unknown>[]>(
          `SELECT ${await selectList(db, table)} FROM "${table}"`,
        );
        const lines = rows
          .map((row) =>
            Object.keys(row)
              .sort()
              .map((column) => `${column}=${cell(row[column])}`)
              .join('|'),
          )
          .sort();
        return `# ${table} (${rows.length})\n${lines.join('\n')}`;
      }),
  );
  return parts.join('\n');
}
