/**
 * The service's decimal policy, for both surfaces: values carry at most 15 significant digits.
 * That is what SQLite stores exactly and what a JSON number (an IEEE double) carries without
 * drift, so every stored value reads back exactly as written, on either provider and either API.
 * A value with more digits is refused, never rounded silently.
 */
import { Decimal } from 'decimal.js';

export const MAX_SIGNIFICANT_DIGITS = 15;
/** The columns are NUMERIC(65,30) on PostgreSQL. */
const MAX_SCALE = 30;
const MAX_INTEGER_DIGITS = 35;

export class DecimalInputError extends Error {}

const NUMERIC = /^-?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/** A number or numeric string as a canonical decimal string (no exponent), or DecimalInputError. */
export function parseDecimal(value: unknown): string {
  const text =
    typeof value === 'number'
      ? Number.isFinite(value)
        ? String(value)
        : ''
      : typeof value === 'string'
        ? value.trim()
        : '';
  if (!NUMERIC.test(text)) throw new DecimalInputError(`must be a number (got ${JSON.stringify(value)})`);
  const decimal = new Decimal(text);
  if (decimal.precision(false) > MAX_SIGNIFICANT_DIGITS) {
    throw new DecimalInputError(`may have at most ${MAX_SIGNIFICANT_DIGITS} significant digits (got ${text})`);
  }
  if (decimal.decimalPlaces() > MAX_SCALE || decimal.abs().gte(new Decimal(10).pow(MAX_INTEGER_DIGITS))) {
    throw new DecimalInputError(
      `is out of range (at most ${MAX_INTEGER_DIGITS} digits before and ${MAX_SCALE} after the point; got ${text})`,
    );
  }
  return decimal.toFixed();
}

/** A computed quantity (bill-of-material arithmetic) cut to what the API carries exactly. */
export function toOutputNumber(value: Decimal): number {
  return value.toSignificantDigits(MAX_SIGNIFICANT_DIGITS).toNumber();
}

export { Decimal };
