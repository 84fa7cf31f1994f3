/**
 * The statements of write transactions (../db/transactions.ts), built like the reads': table and
 * column names from the registry only (quoted), every value a parameter. Rows are written under
 * their column names (`name_en`, `unit_id`), as ./validate.ts `attributeData` makes them.
 */
import type { DataSource } from '../db/reads.ts';
import type { WriteTx } from '../db/transactions.ts';
import { selectList, type Column } from './columns.ts';
import { type Row, rowsByIds } from './load.ts';
import { id, Sql } from '../db/sql.ts';

/**
 * Rows of `type` by id, `null` where there is none, locked until the transaction ends
 * (PostgreSQL: FOR NO KEY UPDATE, which still lets other transactions insert rows that refer to
 * them; SQLite has one writer).
 */
export async function lockedRows(
  tx: WriteTx,
  type: string,
  ids: readonly number[],
  columns: readonly Column[],
): Promise<(Row | null)[]> {
  if (ids.length === 0) return [];
  if (tx.provider === 'sqlite') return rowsByIds(tx, type, ids, columns);
  // A row that another transaction changed while this one waited for its lock is read as that
  // transaction left it, but the subqueries of the select list (a relationship's ids) still see
  // the statement's snapshot, from before. Every write that changes those ids also moves the
  // row's version: a version unlike the one the snapshot saw means the row is read again, now
  // that the lock is held.
  const seen: Column = {
    name: SEEN_VERSION,
    type: 'integer',
    expression: (_p, a) => `(SELECT s."version" FROM ${id(type)} s WHERE s."id" = ${a}."id")`,
  };
  const sql = new Sql(tx.provider)
    .text(`SELECT ${selectList(tx.provider, [...columns, seen], 't')} FROM ${id(type)} t WHERE t."id"`)
    .in(ids)
    .text(' FOR NO KEY UPDATE');
  const rows = await tx.query<Row>(sql);
  if (rows.some((row) => row[SEEN_VERSION] !== row.version)) return rowsByIds(tx, type, ids, columns);
  const byId = new Map<number, Row>();
  for (const row of rows) {
    delete row[SEEN_VERSION];
    byId.set(row.id, row);
  }
  return ids.map((key) => byId.get(key) ?? null);
}

const SEEN_VERSION = '__seen_version';

/** `INSERT ... RETURNING "id"`: the new row's id. */
export async function insertRow(tx: WriteTx, table: string, data: Record<string, unknown>): Promise<number> {
  const names = Object.keys(data);
  const sql = new Sql(tx.provider).text(`INSERT INTO ${id(table)} `);
  if (names.length === 0) sql.text('DEFAULT VALUES');
  else {
    sql.text(`(${names.map(id).join(', ')}) VALUES (`);
    names.forEach((name, i) => {
      if (i > 0) sql.text(', ');
      sql.value(data[name]);
    });
    sql.text(')');
  }
  sql.text(' RETURNING "id"');
  const [row] = await tx.query<{ id: number }>(sql);
  return Number(row!.id);
}

/**
 * Several rows with the same columns, in one statement per 500 (PostgreSQL takes at most 65,535
 * parameters a statement; a product has 37 columns).
 */
export async function insertRows(tx: WriteTx, table: string, rows: readonly Record<string, unknown>[]): Promise<void> {
  for (let i = 0; i < rows.length; i += INSERT_ROWS)
    await tx.execute(appendInsert(new Sql(tx.provider), table, rows.slice(i, i + INSERT_ROWS)));
}

const INSERT_ROWS = 500;

/** Appends `INSERT INTO table (...) VALUES (...), (...)` of rows with the same columns to `sql`. */
export function appendInsert(sql: Sql, table: string, rows: readonly Record<string, unknown>[]): Sql {
  const names = Object.keys(rows[0]!);
  sql.text(`INSERT INTO ${id(table)} (${names.map(id).join(', ')}) VALUES `);
  rows.forEach((row, r) => {
    sql.text(r > 0 ? ', (' : '(');
    appendValues(sql, names, row);
    sql.text(')');
  });
  return sql;
}

/**
 * Appends `INSERT INTO table (...) SELECT ... FROM source` of one row to `sql`: inserted once per
 * row of `source` (a statement's earlier CTE, whose rows say whether to insert it).
 */
export function appendInsertFrom(sql: Sql, table: string, row: Record<string, unknown>, source: string): Sql {
  const names = Object.keys(row);
  sql.text(`INSERT INTO ${id(table)} (${names.map(id).join(', ')}) SELECT `);
  return appendValues(sql, names, row).text(` FROM ${id(source)}`);
}

function appendValues(sql: Sql, names: readonly string[], row: Record<string, unknown>): Sql {
  names.forEach((name, i) => {
    if (i > 0) sql.text(', ');
    sql.value(row[name]);
  });
  return sql;
}

/** Sets `data` on the row with `rowId`. */
export async function updateRow(
  tx: WriteTx,
  table: string,
  rowId: number,
  data: Record<string, unknown>,
): Promise<void> {
  await tx.execute(appendUpdate(new Sql(tx.provider), table, rowId, data));
}

/** Appends `UPDATE table SET ... WHERE "id" = rowId` to `sql`. */
export function appendUpdate(sql: Sql, table: string, rowId: number, data: Record<string, unknown>): Sql {
  sql.text(`UPDATE ${id(table)} SET `);
  Object.entries(data).forEach(([name, value], i) => {
    sql.text(`${i > 0 ? ', ' : ''}${id(name)} = `).value(value);
  });
  return sql.text(' WHERE "id" = ').value(rowId);
}

/** `column = value` conditions, and `column IN (values)` for an array. */
type Where = Record<string, unknown>;

function where(sql: Sql, conditions: Where): Sql {
  Object.entries(conditions).forEach(([name, value], i) => {
    sql.text(`${i > 0 ? ' AND ' : ' WHERE '}${id(name)}`);
    if (Array.isArray(value)) sql.in(value);
    else sql.text(' = ').value(value);
  });
  return sql;
}

/** Deletes the rows that match; answers how many. */
export async function deleteRows(tx: WriteTx, table: string, conditions: Where): Promise<number> {
  return tx.execute(where(new Sql(tx.provider).text(`DELETE FROM ${id(table)}`), conditions));
}

/** The values of `column` in the rows that match, ascending. */
export async function valuesWhere(tx: DataSource, table: string, column: string, conditions: Where): Promise<number[]> {
  const sql = where(new Sql(tx.provider).text(`SELECT ${id(column)} AS "v" FROM ${id(table)}`), conditions);
  sql.text(' ORDER BY 1');
  return (await tx.query<{ v: unknown }>(sql)).map((r) => Number(r.v));
}

/** PostgreSQL types of the change-log columns a SELECT list gives (its parameters have none of their own). */
const CHANGE_CASTS: Record<string, string> = { resource_id: '::int', version: '::int' };

/**
 * PostgreSQL, one statement: the row's new values, on the condition that it is still at the version
 * it was read at, and the change-log entry that says so, written only when the row was. Answers
 * whether it was (false: another write came first). An autocommit statement is its own
 * transaction: the row and its entry commit together.
 */
export async function casUpdate(
  source: DataSource,
  table: string,
  current: Row,
  data: Record<string, unknown>,
  entry: Record<string, unknown>,
): Promise<boolean> {
  const sql = new Sql(source.provider).text('WITH "write" AS (');
  appendUpdate(sql, table, current.id, data)
    .text(' AND "version" = ')
    .value(current.version)
    .text(` RETURNING 1) INSERT INTO "changes" (${Object.keys(entry).map(id).join(', ')}) SELECT `);
  Object.entries(entry).forEach(([name, value], i) => {
    sql
      .text(i > 0 ? ', ' : '')
      .value(value)
      .text(CHANGE_CASTS[name] ?? '');
  });
  sql.text(' FROM "write" RETURNING 1');
  return (await source.query(sql)).length > 0;
}
