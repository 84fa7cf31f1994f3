/**
 * List queries: filters, order and pagination over one resource type, shared by GraphQL
 * connections and REST LIST. Conditions are data, so each surface maps its own parameters to
 * them and the SQL is written once.
 */
import { appendWhere } from '../query/compile.ts';
import { visible } from './visible.ts';
import { appendSearchJoin } from '../query/search.ts';
import type { WhereNode } from '../query/where.ts';
import { selectList, type Column } from './columns.ts';
import type { DataSource, Row } from './load.ts';
import {
  LOG_POSITION_COLUMNS,
  type LogState,
  appendLogStandsAt,
  logPosition,
  logSettledColumn,
  positionIn,
  settledLogIn,
} from './changes.ts';
import { Sql, countValue, id } from '../db/sql.ts';
import { BoundedCache } from '../bounded-cache.ts';

export interface Order {
  column: string;
  direction: 'asc' | 'desc';
}

/** The rows of a list: those `where` matches (the filter language, src/query), and `search` if given. */
export interface ListRows {
  where: WhereNode;
  /** The words of a search (src/query/search.ts): only rows matching all, by relevance unless ordered otherwise. */
  search?: readonly string[];
}

export interface ListQuery extends ListRows {
  /** `id` is always added last, so that pages are stable. */
  orderBy: readonly Order[];
  limit: number;
  offset: number;
}

/** Appends ` FROM <type> t` and what restricts it to the rows: the search's join, the where, the reader's role's rows. */
export function appendRows(sql: Sql, db: DataSource, type: string, rows: ListRows): void {
  sql.text(` FROM ${id(type)} t`);
  if (rows.search) appendSearchJoin(sql, type, rows.search, 't', 's', db.asOf !== undefined);
  const where = visible(db, type, rows.where)!;
  if (where.kind === 'and' && where.items.length === 0) return;
  sql.text(' WHERE ');
  appendWhere(sql, where, 't');
}

/** The column a page read with its total carries it in (listPage). */
const TOTAL = '__total';

/** A list's total, counted in a snapshot whose log stood at `log`. */
interface KeptTotal {
  total: number;
  log: LogState;
}

/**
 * Totals of filtered lists kept between pages, keyed by the list's SQL (its type, the client's
 * filters and the role's row filter, with their values): a page statement counts its list again
 * only when the log has moved since the total was counted, and otherwise answers the kept one
 * (appendLogStandsAt says when that is exact). The count was most of a REST page's time in
 * PostgreSQL: 0.8 of 1 ms for 10,000 products, and 1.1 ms under a role's row filter.
 */
export class KeptTotals {
  // A key is an SQL text and its values, a few hundred bytes: about 4 MB at most.
  private readonly totals = new BoundedCache<string, KeptTotal>((key) => key.length + 100, 4_000_000, 10_000);

  get(key: string): KeptTotal | undefined {
    return this.totals.get(key);
  }

  set(key: string, total: KeptTotal): void {
    this.totals.set(key, total);
  }
}

/** One page of rows, in order. */
export async function listRows(
  db: DataSource,
  type: string,
  query: ListQuery,
  columns: readonly Column[],
): Promise<Row[]> {
  return db.query<Row>(pageStatement(db, type, query, columns));
}

/**
 * One page of rows and the number of rows in the whole filtered list, in one statement where the
 * page has rows: the count is an uncorrelated subquery, evaluated once (a window count would be
 * evaluated over every row of the list and its relationship subqueries; measured: a third of the
 * throughput on PostgreSQL at scale 20). Against a separate count statement, measured in paired
 * runs: one round trip less saves our server 0.08 to 0.18 ms of CPU per REST page (W4 1.47 ->
 * 1.39 ms, W1 3.40 -> 3.22 ms), 2% to 6% more pages per second. A page past
 * the end has no row to carry the total: then, and only then, it is counted apart. Rows keep the
 * total in a column of their own, which no document reads.
 *
 * With `kept`, a total counted earlier is answered again while the log stands where it stood
 * (KeptTotals): the same one statement, without the count.
 *
 * The change log's position (REST's `meta.changes_cursor`) comes with the rows too, of the same
 * snapshot. An empty page has no row to carry it: the position is read first and the page read
 * again, so that the position is never ahead of the rows (a write between the two reads shows in
 * the second).
 */
export async function listPage(
  db: DataSource,
  type: string,
  query: ListQuery,
  columns: readonly Column[],
  kept?: KeptTotals,
): Promise<{ rows: Row[]; total: number; logPosition: number }> {
  const key = kept && totalKey(db, type, query);
  const page = async () => {
    const known = key === undefined ? undefined : kept!.get(key);
    const rows = await db.query<Row>(pageStatement(db, type, query, columns, { known }));
    const first = rows[0];
    if (first && first[TOTAL] === null) first[TOTAL] = known!.total;
    else if (first && key !== undefined) {
      // Only a page with rows keeps its total. Seeding, the one write without entries, goes only
      // into a database without master data, whose pages have none: no total outlives a seed.
      const log = settledLogIn(first);
      if (log) kept!.set(key, { total: Number(first[TOTAL]), log });
    }
    return rows;
  };
  const withPosition = (rows: Row[]) => ({ rows, total: Number(rows[0]![TOTAL]), logPosition: positionIn(rows[0]!) });
  const rows = await page();
  if (rows.length > 0) return withPosition(rows);
  const position = await logPosition(db);
  const again = await page();
  if (again.length > 0) return withPosition(again);
  return {
    rows: again,
    total: query.offset === 0 ? 0 : await countRows(db, type, query),
    logPosition: position,
  };
}

/**
 * ` ORDER BY ...` of a list's rows aliased `alias`: the order asked for, by relevance when a
 * search is not ordered otherwise (its rank in `searchAlias`), and by id last, so that pages are
 * stable. NULLS LAST on both providers (their defaults differ), so that a page means the same on
 * either.
 */
export function orderClause(query: Pick<ListQuery, 'orderBy' | 'search'>, alias: string, searchAlias: string): string {
  const order = [
    ...query.orderBy.filter((o) => o.column !== 'id'),
    query.orderBy.find((o) => o.column === 'id') ?? { column: 'id', direction: 'asc' },
  ];
  const direction = (o: Order) => (o.direction === 'asc' ? 'ASC' : 'DESC') + (o.column === 'id' ? '' : ' NULLS LAST');
  const byRelevance = query.search && query.orderBy.length === 0 ? `${searchAlias}."rank" DESC, ` : '';
  return ` ORDER BY ${byRelevance}${order.map((o) => `${alias}.${id(o.column)} ${direction(o)}`).join(', ')}`;
}

/** What KeptTotals keeps a list's total under: the SQL that counts it. */
function totalKey(db: DataSource, type: string, rows: ListRows): string {
  const count = new Sql(db.provider);
  appendRows(count, db, type, rows);
  // As of an instant, the same text counts other rows.
  return `${db.asOf ?? ''}\0${count}\0${JSON.stringify(count.values)}`;
}

/**
 * A page's statement; with `totals`, it also reads the list's total and the log's position, and,
 * where a total counted earlier is `known`, reads NULL in place of the total while the log stands
 * where it stood then (both databases evaluate the count's subquery only when asked for it).
 */
function pageStatement(
  db: DataSource,
  type: string,
  query: ListQuery,
  columns: readonly Column[],
  totals?: { known: KeptTotal | undefined },
): Sql {
  const orderBy = orderClause(query, 't', 's');
  const sql = new Sql(db.provider).text(`SELECT ${selectList(db.provider, columns, 't')}`);
  if (totals) {
    sql.text(', ');
    if (totals.known) {
      sql.text('CASE WHEN ');
      appendLogStandsAt(sql, totals.known.log);
      sql.text(' THEN NULL ELSE ');
    }
    sql.text('(SELECT COUNT(*)');
    appendRows(sql, db, type, query);
    sql.text(')');
    if (totals.known) sql.text(' END');
    sql.text(` AS ${id(TOTAL)}, ${LOG_POSITION_COLUMNS}, ${logSettledColumn(db.provider)}`);
  }
  // A page past the first is cut by ids alone, and only its rows are read.
  // PostgreSQL computes the select list for every row OFFSET skips, relationship subqueries
  // included, unless the page is cut first; and SQLite, which plans filtered lists through the
  // filter's index and then sorts by id, sorts narrow ids instead of whole rows (REST W4 on SQLite:
  // the statement 1.6 -> 1.1 ms).
  /** ` FROM <type> t WHERE ... ORDER BY ... LIMIT ... OFFSET ...`: the page. */
  const page = () => {
    appendRows(sql, db, type, query);
    sql.text(orderBy);
    // The first page's LIMIT is part of the text, with no OFFSET. PostgreSQL plans a prepared
    // statement whose LIMIT is a parameter anew at every execution (a plan for a LIMIT it cannot
    // see never looks cheaper), and planning a page's statement, with its columns' subqueries,
    // cost more than running it. Measured with the REST W2 page statement (50 of 10,000
    // products): 1.0-1.4 ms -> 0.69 ms an execution; under a role's row filter, 1.2-1.7 ->
    // 0.72 ms. Only for the usual page sizes: a text of every size a client may ask for would
    // take the prepared statements' names (src/db/named-statements.ts) from the service's own.
    if (query.offset === 0 && plannedLimit(query.limit)) sql.text(` LIMIT ${query.limit}`);
    else sql.text(' LIMIT ').value(query.limit).text(' OFFSET ').value(query.offset);
  };
  // A search's page is ordered by the search's relevance, which only its own join has.
  if (query.offset === 0 || query.search) {
    page();
  } else if (db.provider === 'postgresql') {
    // The page's ids as an array, read by the primary key: one index scan, whatever PostgreSQL
    // guesses of LIMIT (a prepared statement is planned anew with its values each time, and as
    // a join the plan was twice the work: REST W4's planning 0.36 -> 0.17 ms, its run 0.8 ->
    // 0.5 ms). The ids keep no order, hence the ORDER BY again.
    sql.text(` FROM ${id(type)} t WHERE t."id" = ANY(ARRAY(SELECT t."id"`);
    page();
    sql.text(`))${orderBy}`);
  } else {
    // CROSS JOIN: SQLite keeps the page as the outer loop (with a plain JOIN it scanned the whole
    // table and probed the page). A join keeps no order of its own, hence the ORDER BY again.
    sql.text(' FROM (SELECT t."id"');
    page();
    sql.text(`) page CROSS JOIN ${id(type)} t WHERE t."id" = page."id"${orderBy}`);
  }
  return sql;
}

export async function countRows(db: DataSource, type: string, rows: ListRows): Promise<number> {
  const sql = new Sql(db.provider).text('SELECT COUNT(*) AS "n"');
  appendRows(sql, db, type, rows);
  return countValue((await db.query<{ n: unknown }>(sql))[0]);
}

/**
 * The page sizes whose first page is planned once (pageStatement): both APIs' defaults and
 * maxima (REST 20 and 50, GraphQL 20 and 100) and round sizes between.
 */
const PLANNED_PAGE_SIZES = new Set([10, 20, 25, 50, 100]);

/** A LIMIT written into the text: a planned page size, or one more (GraphQL reads a row past the page to tell whether another follows). */
function plannedLimit(limit: number): boolean {
  return PLANNED_PAGE_SIZES.has(limit) || PLANNED_PAGE_SIZES.has(limit - 1);
}
