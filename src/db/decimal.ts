/**
 * The service's decimal policy, decided here once for every path a decimal comes in by (REST
 * writes and `/operations`, GraphQL's `Decimal` and so its mutations, bulk mutations and upserts,
 * structure items, the import, and the filters' operands):
 *
 * - A JSON number is a double, whatever digits the client's JSON had: it holds 15 significant
 *   digits exactly and nothing past them is the client's. It is read at those 15 (rounded to
 *   nearest), so that a price computed in floating point (JavaScript's and PHP's 1 + 0.03 + 1 is
 *   2.0300000000000002) goes in as 2.03, the number the client meant. A GraphQL number literal is
 *   read as the same double a variable would carry, so that inline and variable values agree.
 * - Text (a numeric string, which GraphQL's `Decimal` also takes) is exact: the client wrote
 *   those digits. More than 15 significant digits are refused, never rounded silently.
 * - The columns keep 30 digits after the point (NUMERIC(65,30) on PostgreSQL): a double with
 *   more (1.23456789012345e-20 has 35) is rounded to 30, half away from zero, as PostgreSQL would
 *   store it, here, so that SQLite stores the same and the answer says what is stored; text with
 *   more is refused. At most 35 digits before the point, either way.
 *
 * What goes in, at most 15 significant digits, is what SQLite stores exactly and what a JSON
 * number carries without drift: every stored value reads back exactly as stored, on either
 * provider and either API.
 */
import { Decimal } from 'decimal.js';
import { cut, quoted } from '../words.ts';

export const MAX_SIGNIFICANT_DIGITS = 15;
/** The columns are NUMERIC(65,30) on PostgreSQL. */
export const MAX_SCALE = 30;
const MAX_INTEGER_DIGITS = 35;

/** The rule for JSON numbers in a sentence, for the API's descriptions (GraphQL's SDL, OpenAPI). */
export const NUMBER_RULE =
  `A JSON number is a double: it is read at the ${MAX_SIGNIFICANT_DIGITS} significant digits a double holds ` +
  `(2.0300000000000002, computed in floating point, is 2.03), with at most ${MAX_SCALE} digits after the point (rounded). ` +
  'What is stored reads back unchanged: 0.1 written is 0.1 read.';

export class DecimalInputError extends Error {}

const NUMERIC = /^-?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const LIMIT = new Decimal(10).pow(MAX_INTEGER_DIGITS);

function outOfRange(got: string): DecimalInputError {
  return new DecimalInputError(
    `is out of range (at most ${MAX_INTEGER_DIGITS} digits before and ${MAX_SCALE} after the point; got ${got})`,
  );
}

/**
 * A JSON number or a numeric string (the rules above) as a canonical decimal string (no
 * exponent, no trailing zeros), or DecimalInputError saying what is wrong.
 */
export function parseDecimal(value: unknown): string {
  if (typeof value === 'number') return fromDouble(value, String(value));
  const text = typeof value === 'string' ? value.trim() : '';
  if (!NUMERIC.test(text)) throw new DecimalInputError(`must be a number (got ${quoted(value)})`);
  const decimal = new Decimal(text);
  if (decimal.precision(false) > MAX_SIGNIFICANT_DIGITS) {
    throw new DecimalInputError(`may have at most ${MAX_SIGNIFICANT_DIGITS} significant digits (got ${cut(text)})`);
  }
  if (decimal.decimalPlaces() > MAX_SCALE || decimal.abs().gte(LIMIT)) throw outOfRange(cut(text));
  return decimal.toFixed();
}

/** A number written in a document (a GraphQL Int or Float literal), read as the double it stands for. */
export function parseNumberLiteral(text: string): string {
  return fromDouble(Number(text), cut(text));
}

function fromDouble(value: number, got: string): string {
  if (Number.isNaN(value)) throw new DecimalInputError(`must be a number (got ${got})`);
  if (!Number.isFinite(value)) throw outOfRange(got);
  const decimal = new Decimal(value.toPrecision(MAX_SIGNIFICANT_DIGITS)).toDecimalPlaces(
    MAX_SCALE,
    Decimal.ROUND_HALF_UP,
  );
  if (decimal.abs().gte(LIMIT)) throw outOfRange(got);
  return decimal.toFixed();
}

/** A computed quantity (bill-of-material arithmetic) cut to what the API carries exactly. */
export function toOutputNumber(value: Decimal): number {
  return value.toSignificantDigits(MAX_SIGNIFICANT_DIGITS).toNumber();
}

export { Decimal };
