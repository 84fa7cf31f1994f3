/**
 * `DateTime` (RFC 3339), `Decimal` (as a JSON number, by the decimal policy of src/db/decimal.ts) and `JSON`
 * (output only: change-log values).
 */
import { valueFromASTUntyped, GraphQLScalarType, Kind } from 'graphql';
import {
  DecimalInputError,
  MAX_SCALE,
  MAX_SIGNIFICANT_DIGITS,
  NUMBER_RULE,
  parseDecimal,
  parseNumberLiteral,
} from '../db/decimal.ts';
import { quoted } from '../words.ts';

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i;

/**
 * A value that is not of the scalar's form. A plain error, not a GraphQLError: graphql-js then
 * wraps it with where it was found (the argument's location, or the variable and its path).
 */
function badInput(message: string): TypeError {
  return new TypeError(message);
}

function parseDateTime(value: unknown): Date {
  if (typeof value !== 'string' || !RFC3339.test(value) || Number.isNaN(Date.parse(value))) {
    throw badInput(
      `DateTime must be an RFC 3339 date-time with a time zone, e.g. 2026-01-31T12:00:00Z (got ${quoted(value)})`,
    );
  }
  return new Date(value);
}

/** How the data layer hands date-times over (src/db/reads.ts): already the output form. */
const CANONICAL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export const DateTimeScalar = new GraphQLScalarType<Date, string>({
  name: 'DateTime',
  description: 'A date-time in RFC 3339 form, always in UTC on output (2026-01-31T12:00:00.000Z).',
  serialize: (value) =>
    typeof value === 'string' && CANONICAL.test(value) ? value : new Date(value as string | Date).toISOString(),
  parseValue: parseDateTime,
  parseLiteral: (ast) => parseDateTime(ast.kind === Kind.STRING ? ast.value : undefined),
});

/** A Decimal's value by the service's decimal policy (src/db/decimal.ts), or the error that says why not. */
function toDecimal(parse: () => string): string {
  try {
    return parse();
  } catch (error) {
    if (error instanceof DecimalInputError) throw badInput(`Decimal ${error.message}`);
    throw error;
  }
}

export const DecimalScalar = new GraphQLScalarType<string, number>({
  name: 'Decimal',
  description:
    `A decimal number, written as a JSON number (a number literal is read as that double). ${NUMBER_RULE} ` +
    `A numeric string is also accepted on input, and is exact: more than ${MAX_SIGNIFICANT_DIGITS} significant digits or ${MAX_SCALE} after the point are refused.`,
  serialize: (value) => (typeof value === 'number' ? value : Number(String(value))),
  parseValue: (value) => toDecimal(() => parseDecimal(value)),
  // A number literal is the double a variable of the same text would carry; a string literal is exact text.
  parseLiteral: (ast) =>
    toDecimal(() =>
      ast.kind === Kind.FLOAT || ast.kind === Kind.INT
        ? parseNumberLiteral(ast.value)
        : parseDecimal(ast.kind === Kind.STRING ? ast.value : undefined),
    ),
});

/** Values recorded as they are (the change log's `before` and `after`); nothing takes it as input. */
export const JsonScalar = new GraphQLScalarType<never, unknown>({
  name: 'JSON',
  description: 'A JSON value, as it is (output only).',
  serialize: (value) => value,
  parseValue: () => {
    throw badInput('JSON is an output type only');
  },
  parseLiteral: () => {
    throw badInput('JSON is an output type only');
  },
});

/**
 * What a change request holds (src/change-requests): an `atomic:operations` array as REST's
 * `POST /operations` takes it, given as a JSON value (in a variable, or as a literal list of
 * objects). Its operations are checked when it is proposed, as the writes themselves would be.
 */
export const AtomicOperationsScalar = new GraphQLScalarType<unknown[], never>({
  name: 'AtomicOperations',
  description:
    'An `atomic:operations` array (JSON:API Atomic Operations, as REST’s POST /operations takes it, in REST’s names), input only.',
  serialize: () => {
    throw new Error('AtomicOperations is an input type only');
  },
  parseValue: operationsArray,
  parseLiteral: (ast, variables) => operationsArray(valueFromASTUntyped(ast, variables)),
});

function operationsArray(value: unknown): unknown[] {
  if (!Array.isArray(value)) throw badInput('AtomicOperations must be a list of operations');
  return value;
}
