/**
 * `tsx prisma/history-migration.ts <migration directory name>`: writes the SQL that keeps a
 * history of every row of the resource tables and join tables, for both providers, into
 * prisma/<provider>/migrations/<name>/migration.sql (appended after what is there).
 *
 * Each data table T gets `T_history`: its columns without their constraints, and the instants a
 * version held from (`valid_from`) and until (`valid_to`, HISTORY_OPEN while it is the present
 * one). Triggers of the database write it in the writing statement's transaction, whatever wrote
 * (the service, a cascade of a foreign key, an import, a seed), at `write_instant()`: the instant
 * of the write's change-log entries (src/db/history.ts). As-of reads (src/db/past.ts) read the
 * versions valid at an instant through views named as the tables.
 *
 * The columns come from the tables as migrated so far (a scratch SQLite database); a model change
 * that adds or drops a column must change its history table in the same migration (a test
 * compares them: test/history/schema.test.ts).
 */
import { appendFileSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { migrate } from '../src/db/migrate.ts';
import { parseDatabaseUrl } from '../src/db/url.ts';
import { historyTables, HISTORY_OPEN, pastChangesView, validAt } from '../src/db/history.ts';
import { projectPath } from '../src/project.ts';
import { SEARCHED } from '../src/query/search.ts';

const name = process.argv[2];
if (!name) {
  console.error('usage: tsx prisma/history-migration.ts <migration directory name>');
  process.exit(2);
}

const file = join(mkdtempSync(join(tmpdir(), 'history-')), 'scratch.db');
await migrate(parseDatabaseUrl(`file:${file}`));
const db = new Sqlite(file, { readonly: true });

interface ColumnInfo {
  name: string;
  type: string;
  pk: number;
}

const q = (identifier: string) => `"${identifier}"`;
const sqlite: string[] = [];
const postgresql: string[] = [];

/** The rows that exist before this migration have a history from it on (src/db/past.ts, the oldest instant). */
const START = 'write_instant()';

const horizon = (
  type: string,
) => `-- The oldest instant an as-of read answers exactly: the history begins here, and the change log's
-- purge moves it later (src/db/past.ts).
CREATE TABLE "history_horizon" ("id" INTEGER NOT NULL PRIMARY KEY, "oldest" ${type} NOT NULL);
INSERT INTO "history_horizon" ("id", "oldest") VALUES (1, write_instant());
`;
sqlite.push(horizon('DATETIME'));
postgresql.push(`-- The instant of a write: its transaction's start, in UTC to the millisecond, as the change log's
-- "at" (src/db/history.ts). SQLite's is a function of the service's connections.
CREATE FUNCTION write_instant() RETURNS timestamp(3) LANGUAGE sql STABLE
  AS $$ SELECT (now() AT TIME ZONE 'UTC')::timestamp(3) $$;
ALTER TABLE "changes" ALTER COLUMN "at" SET DEFAULT write_instant();

-- The instant an as-of read reads at (src/db/past.ts sets it for its transaction).
CREATE FUNCTION as_of_instant() RETURNS timestamp(3) LANGUAGE sql STABLE
  AS $$ SELECT current_setting('mdg.as_of')::timestamp(3) $$;

-- Views named as the data tables, over the versions valid at as_of_instant(): an as-of read puts
-- this schema first in its search_path, and the reads of the present read the past unchanged.
CREATE SCHEMA "mdg_past";
CREATE VIEW "mdg_past"."changes" AS ${pastChangesView('')};
`);
postgresql.push(horizon('TIMESTAMP(3)'));

/** PostgreSQL's search documents (migration *_search_indexes): SQLite has FTS5 tables instead, below. */
const searchDocuments = Object.keys(SEARCHED).map((type) => `${type}_search_documents`);
const pgSearchDocumentColumns: ColumnInfo[] = [
  { name: 'id', type: 'INTEGER', pk: 1 },
  { name: 'document', type: 'TSVECTOR', pk: 0 },
];

for (const table of [...historyTables(), ...searchDocuments]) {
  const pgOnly = searchDocuments.includes(table);
  const columns = pgOnly
    ? pgSearchDocumentColumns
    : (db.prepare(`PRAGMA table_info(${q(table)})`).all() as ColumnInfo[]);
  if (columns.length === 0) throw new Error(`no table ${table}`);
  const history = `${table}_history`;
  const names = columns.map((c) => q(c.name)).join(', ');
  const key = columns.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk);
  const indexes = (db.prepare(`PRAGMA index_list(${q(table)})`).all() as { name: string }[]).map((index) =>
    (db.prepare(`PRAGMA index_info(${q(index.name)})`).all() as { name: string }[]).map((c) => c.name),
  );
  // Lookups by key (an id, a join's two ids, with valid_from: a row's versions in order) and the
  // table's indexes of foreign keys (relationships, reverse links, a structure's items); not its
  // other indexes (a reference, a flag, a date): every index is written with each version, and an
  // as-of list reads the versions of its type whatever filters it. No index holds valid_to, which
  // a write changes in the version it closes: that change then touches no index (PostgreSQL
  // updates the row in place, HOT; measured with valid_to indexed: 12 index entries a write).
  const historyIndexes = [
    [...key.map((c) => c.name), 'valid_from'],
    ...indexes.filter((cols) => cols[0]!.endsWith('_id')),
  ].filter((cols, i, all) => all.findIndex((other) => other.join() === cols.join()) === i);
  const matchOld = key.map((c) => `${q(c.name)} = OLD.${q(c.name)}`).join(' AND ');
  const values = columns.map((c) => `NEW.${q(c.name)}`).join(', ');

  for (const provider of pgOnly ? (['postgresql'] as const) : (['sqlite', 'postgresql'] as const)) {
    const out = provider === 'sqlite' ? sqlite : postgresql;
    const open = provider === 'sqlite' ? `'${HISTORY_OPEN}+00:00'` : `'${HISTORY_OPEN}'`;
    const instant = 'write_instant()';
    out.push(`-- ${table}`);
    if (provider === 'sqlite') {
      const defs = columns.map((c) => `${q(c.name)} ${c.type}`).join(', ');
      out.push(`CREATE TABLE ${q(history)} (${defs}, "valid_from" DATETIME NOT NULL, "valid_to" DATETIME NOT NULL);`);
    } else {
      // Room on each page for the version a write closes (its valid_to, in no index, changes in
      // place: HOT). The instants first, read at a fixed offset of every version (migration
      // *_history_validity_first moved them there in the tables made before).
      out.push(
        `CREATE TABLE ${q(history)} ("valid_from" TIMESTAMP(3) NOT NULL, "valid_to" TIMESTAMP(3) NOT NULL, LIKE ${q(table)}) WITH (fillfactor = 80);`,
      );
    }
    for (const [i, cols] of historyIndexes.entries())
      out.push(`CREATE INDEX ${q(`${history}_${i}`)} ON ${q(history)} (${cols.map(q).join(', ')});`);
    out.push(
      `INSERT INTO ${q(history)} (${names}, "valid_from", "valid_to") SELECT ${names}, ${START}, ${open} FROM ${q(table)};`,
    );
    // The open version is the newest: found by the key's index whatever the row's number of
    // versions (a scan of them all cost 0.4 µs a version, 1 ms a write at 3,000 versions).
    const newest = `(SELECT MAX("valid_from") FROM ${q(history)} WHERE ${matchOld})`;
    const close = `UPDATE ${q(history)} SET "valid_to" = ${instant} WHERE ${matchOld} AND "valid_from" = ${newest} AND "valid_to" = ${open};`;
    const insert = `INSERT INTO ${q(history)} (${names}, "valid_from", "valid_to") VALUES (${values}, ${instant}, ${open});`;
    // PostgreSQL: a write that began before the version it closes (it waited for that write's lock)
    // closes it no earlier than it began, and starts its own there (migration
    // *_history_versions_in_order; SQLite's one writer takes its instant once it holds the lock).
    const pgClose = close
      .replace(`"valid_to" = ${instant}`, `"valid_to" = GREATEST(${instant}, "valid_from")`)
      .replace(/;$/, ' RETURNING "valid_to" INTO since;');
    const pgInsert = insert.replace(`${instant}, ${open})`, `COALESCE(since, ${instant}), ${open})`);
    if (provider === 'sqlite') {
      out.push(`CREATE TRIGGER ${q(`${history}_insert`)} AFTER INSERT ON ${q(table)} BEGIN\n  ${insert}\nEND;`);
      out.push(
        `CREATE TRIGGER ${q(`${history}_update`)} AFTER UPDATE ON ${q(table)} BEGIN\n  ${close}\n  ${insert}\nEND;`,
      );
      out.push(`CREATE TRIGGER ${q(`${history}_delete`)} AFTER DELETE ON ${q(table)} BEGIN\n  ${close}\nEND;`);
    } else {
      out.push(`CREATE FUNCTION ${q(`${history}_write`)}() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  since timestamp(3);
BEGIN
  IF TG_OP <> 'INSERT' THEN
    ${pgClose}
  END IF;
  IF TG_OP <> 'DELETE' THEN
    ${pgInsert}
  END IF;
  RETURN NULL;
END $$;`);
      out.push(
        `CREATE TRIGGER ${q(`${history}_write`)} AFTER INSERT OR UPDATE OR DELETE ON ${q(table)} FOR EACH ROW EXECUTE FUNCTION ${q(`${history}_write`)}();`,
      );
      out.push(`CREATE VIEW "mdg_past".${q(table)} AS SELECT ${names} FROM ${q(history)} WHERE ${validAt()};`);
    }
    out.push('');
  }
}

// SQLite: every version of a searchable row indexed in an FTS5 table of its own, by the version's
// rowid; an as-of search matches it and keeps the versions valid at the instant (src/query/search.ts).
for (const [type, columns] of Object.entries(SEARCHED)) {
  const fts = (db.prepare(`PRAGMA table_info(${q(`${type}_search`)})`).all() as { name: string }[]).map((c) => c.name);
  const weights = [...new Set(columns.map(([, weight]) => weight))];
  if (weights.length !== fts.length) throw new Error(`${type}_search has not one column per weight`);
  const folded = (row: string) =>
    weights
      .map(
        (weight) =>
          `search_fold(${columns
            .filter(([, w]) => w === weight)
            .map(([c]) => `${row}.${q(c)}`)
            .join(', ')})`,
      )
      .join(', ');
  const table = `${type}_search_history`;
  const ftsColumns = fts.map(q).join(', ');
  sqlite.push(`-- ${table}
CREATE VIRTUAL TABLE ${q(table)} USING fts5(${ftsColumns}, content = '', contentless_delete = 1, tokenize = 'ascii');
INSERT INTO ${q(table)} ("rowid", ${ftsColumns}) SELECT h."rowid", ${folded('h')} FROM ${q(`${type}_history`)} h;
CREATE TRIGGER ${q(`${table}_insert`)} AFTER INSERT ON ${q(`${type}_history`)} BEGIN
  INSERT INTO ${q(table)} ("rowid", ${ftsColumns}) VALUES (NEW."rowid", ${folded('NEW')});
END;
CREATE TRIGGER ${q(`${table}_delete`)} AFTER DELETE ON ${q(`${type}_history`)} BEGIN
  DELETE FROM ${q(table)} WHERE "rowid" = OLD."rowid";
END;
`);
}

const header = `
-- History of every row (prisma/history-migration.ts wrote what follows; src/db/history.ts says why).
`;
for (const [provider, lines] of [
  ['sqlite', sqlite],
  ['postgresql', postgresql],
] as const) {
  const dir = projectPath('prisma', provider, 'migrations', name);
  mkdirSync(dir, { recursive: true });
  appendFileSync(join(dir, 'migration.sql'), header + lines.join('\n'));
}
console.log(`wrote the history of ${historyTables().length} tables into ${name}`);
