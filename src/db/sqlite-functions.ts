/**
 * Functions registered on every SQLite connection (./sqlite.ts), where SQLite's own fall short of
 * what the filter language and aggregates promise on both providers alike.
 */
import type Sqlite from 'better-sqlite3';
import { Decimal } from './decimal.ts';
import { registerWriteInstant } from './history.ts';
import { searchFold } from './search-fold.ts';

/**
 * Lowercases text as JavaScript does: SQLite's own `lower` changes ASCII letters only,
 * PostgreSQL's (under a UTF-8 ctype) every letter, and a case-insensitive filter must find
 * "ÉCLAIR" by "écl" on both.
 */
export const SQLITE_LOWER = 'unicode_lower';

/**
 * Sums decimals exactly, as text: SQLite keeps them as doubles, whose sum drifts (0.1 + 0.2).
 * Each double is read back as the decimal it was written as (at most 15 significant digits
 * survive the round trip, ./decimal.ts) and added as a decimal.
 */
export const SQLITE_DECIMAL_SUM = 'decimal_sum';

/**
 * The words of the search index for its arguments' text (NULLs skipped), folded as
 * ./search-fold.ts says: what the triggers of the FTS5 search tables write (migration
 * `*_search_folding`). A connection without it reads those tables, but cannot write the rows
 * they index (products, customers, suppliers): every connection of the service has it.
 */
const SQLITE_SEARCH_FOLD = 'search_fold';

export function registerSqliteFunctions(connection: Sqlite.Database): void {
  registerWriteInstant(connection);
  connection.function(SQLITE_LOWER, { deterministic: true }, (value: unknown) =>
    typeof value === 'string' ? value.toLowerCase() : value,
  );
  connection.function(SQLITE_SEARCH_FOLD, { deterministic: true, varargs: true }, (...values: unknown[]) =>
    searchFold(values.filter((value) => value !== null && value !== undefined).join(' ')),
  );
  connection.aggregate(SQLITE_DECIMAL_SUM, {
    start: () => null as Decimal | null,
    step: (total: Decimal | null, value: unknown) =>
      value === null || value === undefined ? total : (total ?? new Decimal(0)).plus(new Decimal(String(value))),
    result: (total: Decimal | null) => (total === null ? null : total.toFixed()),
  });
}
