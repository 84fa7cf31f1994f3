/**
 * `DateTime` (RFC 3339), `Decimal` (exact, as a JSON number) and `JSON` (output only: change-log values).
 */
import { GraphQLScalarType, Kind } from 'graphql';
import { parseDecimal, DecimalInputError } from '../db/decimal.ts';

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
      `DateTime must be an RFC 3339 date-time with a time zone, e.g. 2026-01-31T12:00:00Z (got ${JSON.stringify(value)})`,
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

function toDecimal(value: unknown): string {
  try {
    return parseDecimal(value);
  } catch (error) {
    if (error instanceof DecimalInputError) throw badInput(`Decimal ${error.message}`);
    throw error;
  }
}

export const DecimalScalar = new GraphQLScalarType<string, number>({
  name: 'Decimal',
  description:
    'An exact decimal number of up to 15 significant digits, written as a JSON number (a numeric string is accepted on input). ' +
    'Every value with up to 15 significant digits survives JSON and JavaScript numbers unchanged: 0.1 written is 0.1 read.',
  serialize: (value) => (typeof value === 'number' ? value : Number(String(value))),
  parseValue: toDecimal,
  // Literals keep their exact digits: the raw text is parsed, not a float.
  parseLiteral: (ast) =>
    toDecimal(ast.kind === Kind.FLOAT || ast.kind === Kind.INT || ast.kind === Kind.STRING ? ast.value : undefined),
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
