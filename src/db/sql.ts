/**
 * Building parameterised SQL for both providers. Identifiers come only from the resource
 * registry (never from a request) and are quoted; every value is a parameter.
 */
import type { Provider } from './url.ts';

/** A statement under construction: text with placeholders, and the values they stand for. */
export class Sql {
  readonly values: unknown[] = [];
  private readonly parts: string[] = [];
  /** A client shaped the text (see Statement.shaped in ./reads.ts). */
  shaped = false;

  /**
   * `inline`: values are written into the text as literals instead of placeholders, for SQL that
   * must be one string made once (a computed column of a select list, src/data/columns.ts). Only
   * for values the service itself holds (a role's conditions, checked when the role was applied),
   * never for a request's.
   */
  constructor(
    readonly provider: Provider,
    private readonly inline = false,
  ) {}

  /** Appends SQL text (identifiers from the registry only, quoted with `id`). */
  text(sql: string): this {
    this.parts.push(sql);
    return this;
  }

  /** Appends a placeholder for `value` (an SqlCall is written as it is). */
  value(value: unknown): this {
    if (value instanceof SqlCall) return this.text(value.sql);
    if (this.inline) return this.text(literal(this.provider, value));
    this.values.push(value);
    this.parts.push(this.provider === 'postgresql' ? `$${this.values.length}` : '?');
    return this;
  }

  /**
   * Appends a membership test of the expression before it. One value: ` = $n` (` = ?`). More on
   * PostgreSQL: ` = ANY($n)` with one array parameter, so that the text does not change with the
   * number of values and one prepared statement serves every batch (src/db/reads.ts); ` IN (?, ?,
   * ...)` on SQLite, which has no arrays (its statements are prepared per text, and batches have
   * few distinct sizes).
   *
   * Why one value apart: PostgreSQL plans `= ANY($n)` anew on every execution of a prepared
   * statement when it is called with one value (its generic plan, costed for an array of unknown
   * length, never beats the custom plan for one element), and `= $n` once. A loader's batch of one
   * (a lookup by id, a to-one of one resource) is the commonest: measured, PostgreSQL's CPU for a
   * GraphQL lookup by id went from 100-116 to 54-77 µs.
   */
  in(values: readonly unknown[]): this {
    if (values.length === 1) return this.text(' = ').value(values[0]);
    if (this.provider === 'postgresql' && !this.inline) return this.text(' = ANY(').value(values).text(')');
    return this.text(' IN ').list(values);
  }

  /**
   * Appends `unnest($1::type1[], $2::type2[], ...)` (PostgreSQL): rows as one array per column,
   * so that the text is the same for any number of rows (one prepared statement for every batch).
   */
  unnest(columns: readonly (readonly [type: string, values: readonly unknown[]])[]): this {
    this.text('unnest(');
    columns.forEach(([type, values], i) => {
      this.text(i > 0 ? ', ' : '')
        .value(values)
        .text(`::${type}[]`);
    });
    return this.text(')');
  }

  /** Appends `(p1, p2, ...)` for the values. */
  private list(values: readonly unknown[]): this {
    this.parts.push('(');
    values.forEach((v, i) => {
      if (i > 0) this.parts.push(', ');
      this.value(v);
    });
    this.parts.push(')');
    return this;
  }

  toString(): string {
    return this.parts.join('');
  }
}

/**
 * A value as an SQL literal, read by each database as its placeholder would be: text quoted (a
 * quote doubled; PostgreSQL's standard_conforming_strings keeps backslashes as they are), numbers
 * as they are, booleans and date-times as the drivers send them (./reads.ts, ./named-statements.ts).
 */
function literal(provider: Provider, value: unknown): string {
  if (value === null) return 'NULL';
  if (typeof value === 'boolean') return provider === 'postgresql' ? String(value).toUpperCase() : value ? '1' : '0';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error('an SQL literal must be a finite number');
    return String(value);
  }
  if (value instanceof Date) {
    const iso = value.toISOString();
    return literal(provider, provider === 'postgresql' ? iso.replace('Z', '') : iso.replace('Z', '+00:00'));
  }
  if (typeof value === 'string') {
    if (value.includes('\0')) throw new Error('an SQL literal cannot hold NUL');
    return `'${value.replaceAll("'", "''")}'`;
  }
  throw new Error(`no SQL literal for ${typeof value}`);
}

/** A value computed by the database where it is written: a call of one of the migrations' functions. */
export class SqlCall {
  constructor(readonly sql: string) {}
}

/**
 * The instant of the write in progress (../db/history.ts): what its change-log entries and row
 * versions both carry.
 */
export const WRITE_INSTANT = new SqlCall('write_instant()');

/** A quoted identifier. Only ever called with names from the registry or this module. */
export function id(name: string): string {
  return `"${name}"`;
}

/**
 * A decimal column read as a double, which the driver hands over as a JS number without a
 * Decimal object. Exact for the values this service stores: decimals are limited to 15
 * significant digits on write, and every such value survives the round trip through a double.
 */
export function decimalAsNumber(provider: Provider, column: string, alias: string): string {
  return provider === 'postgresql' ? `${column}::float8 AS ${id(alias)}` : `CAST(${column} AS REAL) AS ${id(alias)}`;
}

/** `COUNT(*)` comes back as a bigint: numbers of rows here are far below 2^53. */
export function countValue(row: { n: unknown } | undefined): number {
  return Number(row?.n ?? 0);
}
