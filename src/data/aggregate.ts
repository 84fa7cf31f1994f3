/**
 * Aggregates over a whole filtered list (not a page): count, and sum, average, least and greatest
 * of numeric and date-time columns, in one statement. Decimals stay exact: PostgreSQL sums
 * NUMERIC exactly and hands the sum over as text; SQLite, which keeps decimals as doubles, sums
 * them with `decimal_sum` (./decimal-sum.ts: each double read back as the decimal it was written
 * as, at most 15 significant digits, and added exactly). The average is the exact sum divided by
 * the count of values, to 15 significant digits, on both.
 */
import { Decimal, MAX_SIGNIFICANT_DIGITS } from '../db/decimal.ts';
import { SQLITE_DECIMAL_SUM } from '../db/sqlite-functions.ts';
import { id, Sql } from '../db/sql.ts';
import { appendWhere } from '../query/compile.ts';
import type { ScalarField } from '../query/fields.ts';
import type { WhereNode } from '../query/where.ts';
import type { DataSource } from './load.ts';
import { appendRows, type ListRows } from './list.ts';

export type AggregateFunction = 'sum' | 'avg' | 'min' | 'max';

/** Which columns each aggregate is asked of. */
export type AggregateRequest = Record<AggregateFunction, readonly ScalarField[]>;

export type AggregateValue = number | string | Date | null;

export interface Aggregates {
  count: number;
  /** By function, then column: decimals as exact strings, integers as numbers, date-times as Dates. */
  values: Record<AggregateFunction, Record<string, AggregateValue>>;
}

/** The aggregates of the rows of a list. */
export async function aggregateRows(
  db: DataSource,
  type: string,
  rows: ListRows,
  request: AggregateRequest,
): Promise<Aggregates> {
  const sql = new Sql(db.provider).text('SELECT COUNT(*) AS "n"');
  const wanted = selectAggregates(sql, request);
  appendRows(sql, type, rows);
  const [row] = await db.query<Record<string, unknown>>(sql);
  return aggregatesOf(row!, wanted);
}

/**
 * The aggregates of the rows of `type` whose `column` holds each key (a reverse link's rows per
 * owner), in one statement, in the order of the keys.
 */
export async function aggregateRowsByColumn(
  db: DataSource,
  type: string,
  column: string,
  keys: readonly number[],
  where: WhereNode,
  request: AggregateRequest,
): Promise<Aggregates[]> {
  const sql = new Sql(db.provider).text(`SELECT t.${id(column)} AS "__key", COUNT(*) AS "n"`);
  const wanted = selectAggregates(sql, request);
  sql
    .text(` FROM ${id(type)} t WHERE t.${id(column)}`)
    .in(keys)
    .text(' AND ');
  appendWhere(sql, where, 't');
  sql.text(` GROUP BY t.${id(column)}`);
  const rows = new Map((await db.query<Record<string, unknown>>(sql)).map((row) => [row.__key, row]));
  return keys.map((key) => aggregatesOf(rows.get(key) ?? { n: 0 }, wanted));
}

interface Wanted {
  fn: AggregateFunction;
  field: ScalarField;
  alias: string;
}

/** Appends the select list of the request; each average reads a sum and a count of values. */
function selectAggregates(sql: Sql, request: AggregateRequest): Wanted[] {
  const wanted: Wanted[] = [];
  const postgres = sql.provider === 'postgresql';
  const seen = new Set<string>();
  const add = (alias: string, expression: string) => {
    if (seen.has(alias)) return;
    seen.add(alias);
    sql.text(`, ${expression} AS ${id(alias)}`);
  };
  for (const fn of ['sum', 'avg', 'min', 'max'] as const) {
    for (const field of request[fn]) {
      const column = `t.${id(field.column)}`;
      const decimal = field.type === 'decimal';
      if (fn === 'sum' || fn === 'avg') {
        add(
          `sum:${field.column}`,
          decimal ? (postgres ? `SUM(${column})::text` : `${SQLITE_DECIMAL_SUM}(${column})`) : `SUM(${column})`,
        );
        if (fn === 'avg') add(`values:${field.column}`, `COUNT(${column})`);
      } else {
        add(
          `${fn}:${field.column}`,
          decimal && postgres ? `${fn.toUpperCase()}(${column})::float8` : `${fn.toUpperCase()}(${column})`,
        );
      }
      wanted.push({ fn, field, alias: fn === 'avg' || fn === 'sum' ? `sum:${field.column}` : `${fn}:${field.column}` });
    }
  }
  return wanted;
}

function aggregatesOf(row: Record<string, unknown>, wanted: readonly Wanted[]): Aggregates {
  const values: Aggregates['values'] = { sum: {}, avg: {}, min: {}, max: {} };
  for (const { fn, field, alias } of wanted) {
    const raw = row[alias];
    let value: AggregateValue = null;
    if (raw !== null && raw !== undefined) {
      if (fn === 'avg') {
        const average = new Decimal(String(raw)).div(Number(row[`values:${field.column}`]));
        value = average.toSignificantDigits(MAX_SIGNIFICANT_DIGITS).toFixed();
      } else if (field.type === 'datetime') value = new Date(raw as string | Date);
      else if (field.type === 'decimal') value = fn === 'sum' ? new Decimal(String(raw)).toFixed() : Number(raw);
      else value = Number(raw);
      if (fn === 'avg' && field.type === 'integer') value = Number(value);
    }
    values[fn][field.column] = value;
  }
  return { count: Number(row.n ?? 0), values };
}
