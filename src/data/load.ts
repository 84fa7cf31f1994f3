/**
 * Batch loads generated from the registry: each takes many keys and sends one statement, and
 * answers in key order, ready to be a DataLoader's batch function. Both API surfaces load
 * through these: GraphQL for every relationship, REST for `include`.
 */
import { andVisible, type DataSource } from './visible.ts';
import { LOG_POSITION_COLUMNS, positionIn } from './changes.ts';
import { selectList, type Column } from './columns.ts';
import { Sql, id } from '../db/sql.ts';
import type { ToManyLink } from '../query/fields.ts';
import type { WhereNode } from '../query/where.ts';

/** A row keyed by column name; `id` always present. */
export type Row = { id: number } & Record<string, unknown>;

export type { DataSource } from './visible.ts';

/** Groups rows by the value of `key`, in the order of `keys` (an empty group where a key has no row). */
export function groupBy<T, K extends keyof T>(rows: readonly T[], key: K, keys: readonly T[K][]): T[][] {
  const groups = new Map<T[K], T[]>();
  for (const row of rows) {
    const k = row[key];
    const group = groups.get(k);
    if (group) group.push(row);
    else groups.set(k, [row]);
  }
  return keys.map((k) => groups.get(k) ?? []);
}

/** Rows of `type` by id (those `where` matches, when given), `null` where there is none. */
export async function rowsByIds(
  db: DataSource,
  type: string,
  ids: readonly number[],
  columns: readonly Column[],
  where?: WhereNode,
): Promise<(Row | null)[]> {
  const sql = new Sql(db.provider)
    .text(`SELECT ${selectList(db.provider, columns, 't')} FROM ${id(type)} t WHERE t."id"`)
    .in(ids);
  andVisible(sql, db, type, where);
  const byId = new Map((await db.query<Row>(sql)).map((row) => [row.id, row]));
  return ids.map((key) => byId.get(key) ?? null);
}

/**
 * Rows of `type` by the values of a unique column (a business key: a product's `reference` or
 * `gtin`), `null` where there is none or the reader does not see it: one statement.
 */
export async function rowsByUnique(
  db: DataSource,
  type: string,
  column: string,
  values: readonly (string | number)[],
  columns: readonly Column[],
): Promise<(Row | null)[]> {
  const sql = new Sql(db.provider)
    .text(
      `SELECT ${selectList(db.provider, columns, 't')}, t.${id(column)} AS "__key" FROM ${id(type)} t WHERE t.${id(column)}`,
    )
    .in(values);
  andVisible(sql, db, type, undefined);
  // Keyed as text, whatever type the driver answers an integer key in.
  const byKey = new Map((await db.query<Row>(sql)).map((row) => [String(row.__key), row]));
  return values.map((value) => byKey.get(String(value)) ?? null);
}

/**
 * Every row of `type` (those the reader may see), in pages of `size` by ascending id: one
 * statement a page, each starting after the last id of the one before (so a page costs the same
 * wherever it is, and rows written meanwhile are neither skipped nor read twice).
 */
export async function* pagesById(
  db: DataSource,
  type: string,
  columns: readonly Column[],
  size: number,
): AsyncGenerator<Row[]> {
  for (let after = 0; ; ) {
    const sql = new Sql(db.provider)
      .text(`SELECT ${selectList(db.provider, columns, 't')} FROM ${id(type)} t WHERE t."id" > `)
      .value(after);
    andVisible(sql, db, type, undefined);
    sql.text(' ORDER BY t."id" LIMIT ').value(size);
    const rows = await db.query<Row>(sql);
    if (rows.length > 0) yield rows;
    if (rows.length < size) return;
    after = rows.at(-1)!.id;
  }
}

/**
 * One row of `type` (undefined when there is none) with the change log's position of the same
 * snapshot (REST's `meta.changes_cursor` of a GET), in one statement.
 */
export async function rowWithLogPosition(
  db: DataSource,
  type: string,
  rowId: number,
  columns: readonly Column[],
): Promise<{ row: Row; logPosition: number } | undefined> {
  const sql = new Sql(db.provider)
    .text(`SELECT ${selectList(db.provider, columns, 't')}, ${LOG_POSITION_COLUMNS} FROM ${id(type)} t WHERE t."id" = `)
    .value(rowId);
  andVisible(sql, db, type, undefined);
  const [row] = await db.query<Row>(sql);
  return row && { row, logPosition: positionIn(row) };
}

/**
 * Rows of `type` whose `column` holds each key, ordered by id: the children of a parent (a
 * structure's items) or the resources whose foreign key points at one (reverse links).
 */
export async function rowsByColumn(
  db: DataSource,
  type: string,
  column: string,
  keys: readonly number[],
  columns: readonly Column[],
  where?: WhereNode,
): Promise<Row[][]> {
  const withKey = columns.some((c) => c.name === column)
    ? columns
    : [...columns, { name: column, type: 'integer' as const }];
  const sql = new Sql(db.provider)
    .text(`SELECT ${selectList(db.provider, withKey, 't')} FROM ${id(type)} t WHERE t.${id(column)}`)
    .in(keys);
  andVisible(sql, db, type, where);
  sql.text(` ORDER BY t.${id(column)}, t."id"`);
  return groupBy(await db.query<Row>(sql), column, keys);
}

/** A page of rows per key: at most `first` after skipping `offset`, and how many there are in all when asked. */
export interface KeyedPage {
  rows: Row[];
  /** One more row than `first` exists (the caller asked for `first + 1`). */
  hasMore: boolean;
}

/**
 * A page of the rows of `type` whose `column` holds each key, in one statement: the rows are
 * numbered per key by a window function and cut to the page, so the cost does not grow with
 * the rows that are not shown.
 */
export async function pageByColumn(
  db: DataSource,
  type: string,
  column: string,
  keys: readonly number[],
  columns: readonly Column[],
  { first, offset, where }: { first: number; offset: number; where?: WhereNode },
): Promise<KeyedPage[]> {
  const withKey = columns.some((c) => c.name === column)
    ? columns
    : [...columns, { name: column, type: 'integer' as const }];
  // The outer select reads the inner one's output names: a column read under another key (a
  // GraphQL field name, a computed column) is known there only by that key.
  const names = withKey.map((c) => id(c.alias ?? c.name)).join(', ');
  const sql = new Sql(db.provider)
    .text(`SELECT ${names} FROM (SELECT ${selectList(db.provider, withKey, 't')}, `)
    .text(
      `ROW_NUMBER() OVER (PARTITION BY t.${id(column)} ORDER BY t."id") AS "__n" FROM ${id(type)} t WHERE t.${id(column)}`,
    )
    .in(keys);
  andVisible(sql, db, type, where);
  sql
    .text(`) p WHERE "__n" > `)
    .value(offset)
    .text(` AND "__n" <= `)
    .value(offset + first + 1)
    .text(` ORDER BY ${id(column)}, "id"`);
  return groupBy(await db.query<Row>(sql), column, keys).map((rows) => ({
    rows: rows.slice(0, first),
    hasMore: rows.length > first,
  }));
}

/** How many rows of `type` have each key in `column`. */
export async function countByColumn(
  db: DataSource,
  type: string,
  column: string,
  keys: readonly number[],
  where?: WhereNode,
): Promise<number[]> {
  const sql = new Sql(db.provider)
    .text(`SELECT t.${id(column)} AS "k", COUNT(*) AS "n" FROM ${id(type)} t WHERE t.${id(column)}`)
    .in(keys);
  andVisible(sql, db, type, where);
  sql.text(` GROUP BY t.${id(column)}`);
  const counts = new Map((await db.query<{ k: number; n: unknown }>(sql)).map((r) => [r.k, Number(r.n)]));
  return keys.map((k) => counts.get(k) ?? 0);
}

/**
 * The rows of a join relationship's target that `where` matches, for each owner id, ordered by
 * id: a to-many relationship filtered in the same one statement per level as unfiltered.
 */
export async function rowsThroughJoin(
  db: DataSource,
  link: Extract<ToManyLink, { via: 'join' }>,
  owners: readonly number[],
  columns: readonly Column[],
  where: WhereNode,
): Promise<Row[][]> {
  const sql = new Sql(db.provider)
    .text(`SELECT ${selectList(db.provider, columns, 't')}, j.${id(link.ownColumn)} AS "__owner"`)
    .text(` FROM ${id(link.joinTable)} j JOIN ${id(link.target)} t ON t."id" = j.${id(link.targetColumn)}`)
    .text(` WHERE j.${id(link.ownColumn)}`)
    .in(owners);
  andVisible(sql, db, link.target, where);
  sql.text(' ORDER BY "__owner", t."id"');
  return groupBy(await db.query<Row & { __owner: number }>(sql), '__owner', owners);
}
