/**
 * A row's values as writes make them and as reads give them back: the server's dates on insert
 * and update, what a write changes of a stored row, and written values in the form a read of the
 * row would have (../db/reads.ts), so that a write can answer without reading its row again.
 */
import type { ResourceDefinition } from '../resources/types.ts';
import { attributeColumns } from './columns.ts';
import { Decimal } from '../db/decimal.ts';

/** The column types of each type, for asRead. */
const columnTypes = new Map<ResourceDefinition, Map<string, string>>();

/**
 * Written values as a read gives them back (./load.ts): decimals as numbers (exact, at most 15
 * significant digits), dates as ISO strings in UTC.
 */
export function asRead(resource: ResourceDefinition, written: Record<string, unknown>): Record<string, unknown> {
  let types = columnTypes.get(resource);
  if (!types) {
    types = new Map(
      Object.values(resource.attributes).flatMap((a) => attributeColumns(a).map((c) => [c.name, c.type])),
    );
    columnTypes.set(resource, types);
  }
  const read: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(written)) {
    if (value instanceof Date) read[column] = value.toISOString();
    else if (types.get(column) === 'decimal' && value !== null) read[column] = Number(value);
    else read[column] = value;
  }
  return read;
}

/** `data` with a new `modified_date`, for types that show one (an update). */
export function withModifiedDate(resource: ResourceDefinition, data: Record<string, unknown>): Record<string, unknown> {
  return resource.attributes.modified_date ? { ...data, modified_date: new Date() } : data;
}

/** `data` with every date the server sets (`modified_date`, `created_date`) at now (an insert). */
export function withServerDates(resource: ResourceDefinition, data: Record<string, unknown>): Record<string, unknown> {
  const now = new Date();
  const dates = Object.values(resource.attributes).filter((a) => a.write === 'server' && a.type === 'datetime');
  return dates.length === 0 ? data : { ...data, ...Object.fromEntries(dates.map((a) => [a.column, now])) };
}

/** The columns whose value would change: decimals compare as numbers, exactly (1.50 is 1.5). */
export function changedColumns(
  columns: Record<string, unknown>,
  current: Record<string, unknown>,
): Record<string, unknown> {
  return Object.fromEntries(Object.entries(columns).filter(([column, value]) => !sameValue(current[column], value)));
}

function sameValue(stored: unknown, given: unknown): boolean {
  if (stored === null || stored === undefined || given === null || given === undefined)
    return (stored ?? null) === (given ?? null);
  // Decimals are read as numbers (exact at 15 significant digits) and checked as canonical strings.
  if (typeof stored === 'number' && typeof given === 'string') return new Decimal(stored).equals(new Decimal(given));
  return stored === given;
}
