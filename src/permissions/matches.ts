/**
 * A role's row filter evaluated in memory, on one row: what the change feed needs to tell whether
 * a row was in the role's view before an entry of the log and after it (src/data/role-changes.ts),
 * without a statement per entry. The row filters of roles read the row alone (ownRowOnly): its
 * own columns and its foreign keys. Anything else is refused here, as `roles apply` refuses it.
 *
 * The semantics are those of the SQL the filter compiles to (src/query/compile.ts), which
 * test/permissions/matches.test.ts checks on random rows and filters on both databases:
 * two-valued logic (a comparison on a missing value is false, its NOT true); contains, startsWith
 * and endsWith case-insensitive (the needle is lowercased when the where is read, the value here,
 * as SQLite's unicode_lower and PostgreSQL's ILIKE do); decimals compared as numbers, exactly;
 * date-times as instants.
 *
 * Rows are keyed by column (`name_en`, `unit_id`, `shelf_life_value`), as the data layer reads
 * them; values as it reads them (booleans, numbers, ISO 8601 text) or in the log's forms (ATOM
 * date-times): both are read alike.
 */
import { Decimal } from 'decimal.js';
import type { ScalarField } from '../query/fields.ts';
import { onlyOnId, type Operand, type WhereNode } from '../query/where.ts';

type Compare = Extract<WhereNode, { kind: 'compare' }>;

/** Whether `row` (keyed by column) meets `node`; a condition through other rows is a programming error. */
export function matches(node: WhereNode, row: Readonly<Record<string, unknown>>): boolean {
  switch (node.kind) {
    case 'and':
      return node.items.every((item) => matches(item, row));
    case 'or':
      return node.items.some((item) => matches(item, row));
    case 'not':
      return !matches(node.item, row);
    case 'compare':
      return compare(node, row[node.field.column]);
    case 'empty':
      if (node.link.via !== 'column') break;
      return row[node.link.column] == null;
    case 'toOne': {
      if (node.link.via !== 'column' || !onlyOnId(node.where)) break;
      // The row the key points at, known by its id alone: the key must be set.
      const key = row[node.link.column];
      return key != null && matches(node.where, { id: key });
    }
    case 'toMany':
      break;
  }
  throw new Error(`a row filter must read the row alone (its own fields and to-one ids), not ${node.kind} conditions`);
}

function compare({ field, op, value }: Compare, actual: unknown): boolean {
  if (op === 'isNull') return actual == null;
  if (actual == null) return false;
  switch (op) {
    case 'equals':
      return equal(field, actual, value as Operand);
    case 'in':
      return (value as Operand[]).some((v) => equal(field, actual, v));
    case 'lt':
      return order(field, actual, value as Operand) < 0;
    case 'lte':
      return order(field, actual, value as Operand) <= 0;
    case 'gt':
      return order(field, actual, value as Operand) > 0;
    case 'gte':
      return order(field, actual, value as Operand) >= 0;
    case 'contains':
    case 'startsWith':
    case 'endsWith':
      return text(op, String(actual), value as string);
  }
}

function equal(field: ScalarField, actual: unknown, operand: Operand): boolean {
  if (field.type === 'decimal' || field.type === 'datetime') return order(field, actual, operand) === 0;
  return actual === operand;
}

/** Negative, zero or positive as `actual` is below, at or above `operand` (numbers, decimals, date-times). */
function order(field: ScalarField, actual: unknown, operand: Operand): number {
  switch (field.type) {
    case 'decimal':
      return new Decimal(String(actual)).cmp(new Decimal(String(operand)));
    case 'datetime':
      return instant(actual) - instant(operand);
    default:
      return (actual as number) - (operand as number);
  }
}

/** Milliseconds since the epoch of a Date, ISO 8601 text (`...Z`) or ATOM text (`...+00:00`). */
function instant(value: unknown): number {
  return value instanceof Date ? value.getTime() : Date.parse(String(value));
}

/** The needle is lowercased already (src/query/where.ts); an empty one matches any value. */
function text(op: 'contains' | 'startsWith' | 'endsWith', actual: string, needle: string): boolean {
  const lower = actual.toLowerCase();
  if (op === 'contains') return lower.includes(needle);
  if (op === 'startsWith') return lower.startsWith(needle);
  return lower.endsWith(needle);
}
