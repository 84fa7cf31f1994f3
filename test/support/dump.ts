/**
 * A digest of every table of a database, deterministic (tables by name, rows sorted), so that
 * two digests are equal exactly when the data is: what "a refused write changes nothing" is
 * checked against, thousands of times by the fuzzers. One line per table, with its row count,
 * so that a failure names the tables that changed. One statement: a statement per table took
 * 50 ms a dump on PostgreSQL, most of the fuzzers' time.
 */
import { createHash } from 'node:crypto';
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

/**
 * The part of the statement that reads table number `i`: its row count, and its rows as text,
 * sorted and joined. PostgreSQL writes a row as its own text form (every column, of any type)
 * and hashes them; SQLite quotes each cell (which tells types apart: text is quoted, blobs are
 * hex, numbers bare), and the rows are hashed here.
 */
async function tablePart(db: Database, table: string, i: number): Promise<string> {
  if (db.provider === 'postgresql')
    return `SELECT ${i} AS i, COUNT(*)::int AS n, md5(COALESCE(string_agg(r::text, E'\\n' ORDER BY r::text), '')) AS d FROM "${table}" r`;
  const columns = await db.prisma.$queryRawUnsafe<{ name: string }[]>(
    `SELECT name FROM pragma_table_info('${table}') ORDER BY cid`,
  );
  const row = columns.map(({ name }) => `quote("${name}")`).join(` || ',' || `);
  return `SELECT ${i} AS i, COUNT(*) AS n, COALESCE(group_concat(r, char(10) ORDER BY r), '') AS d FROM (SELECT ${row} AS r FROM "${table}")`;
}

interface DigestStatement {
  tables: string[];
  text: string;
}

const statements = new WeakMap<Database, Map<string, Promise<DigestStatement>>>();

async function digestStatement(db: Database, except: readonly string[]): Promise<DigestStatement> {
  const tables = (await tableNames(db)).filter((table) => !except.includes(table));
  const parts = await Promise.all(tables.map((table, i) => tablePart(db, table, i)));
  return { tables, text: parts.join(' UNION ALL ') };
}

/** Every table's digest, but those of the tables `except` names. */
export async function dumpDatabase(db: Database, { except = [] as readonly string[] } = {}): Promise<string> {
  let byExcept = statements.get(db);
  if (!byExcept) statements.set(db, (byExcept = new Map()));
  const key = except.join(',');
  let statement = byExcept.get(key);
  if (!statement) byExcept.set(key, (statement = digestStatement(db, except)));
  const { tables, text } = await statement;
  const rows = await db.prisma.$queryRawUnsafe<{ i: number | bigint; n: number | bigint; d: string }[]>(text);
  return rows
    .sort((a, b) => Number(a.i) - Number(b.i))
    .map((row) => {
      const digest = db.provider === 'postgresql' ? row.d : createHash('md5').update(row.d).digest('hex');
      return `# ${tables[Number(row.i)]} (${row.n}) ${digest}`;
    })
    .join('\n');
}
