/**
 * Attribute values checked against the registry with zod, for both surfaces: a value of the
 * wrong type, out of range, or not storable (NUL, invalid Unicode) is a `bad_input` error naming
 * the attribute, and so is a blank business key (a unique attribute, such as `reference`) or
 * required text. Dates the server maintains are not writable.
 */
import { z } from 'zod';
import { unstorableText } from '../db/text.ts';
import {
  type Attribute,
  type AttributeType,
  LOCALES,
  type ResourceDefinition,
  type ScalarType,
} from '../resources/types.ts';
import { attributeParts } from './columns.ts';
import { DecimalInputError, parseDecimal } from '../db/decimal.ts';
import { DomainError } from './errors.ts';
import { formatNote, formatProblem } from './formats.ts';
import { INT32_MAX, INT32_MIN, INT32_RANGE } from '../db/integers.ts';
import { count, quoted } from '../words.ts';

/** Longest text accepted in a string attribute (the spec gives none; this keeps master data sane). */
export const MAX_TEXT_LENGTH = 4000;

const text = z
  .string()
  .max(MAX_TEXT_LENGTH, `must be at most ${MAX_TEXT_LENGTH} characters`)
  .superRefine((value, ctx) => {
    const problem = unstorableText(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

// Any value, so that parseDecimal words every refusal (Infinity, a JSON number past a double, is
// out of range as over GraphQL, not "not a number").
const decimal = z.unknown().transform((value, ctx) => {
  try {
    return parseDecimal(value);
  } catch (error) {
    if (!(error instanceof DecimalInputError)) throw error;
    ctx.addIssue({ code: 'custom', message: error.message });
    return z.NEVER;
  }
});

const INTEGER_RANGE = `must be ${INT32_RANGE}`;

function scalar(type: ScalarType): z.ZodType {
  switch (type) {
    case 'string':
      return text;
    case 'integer':
      return z.number().int('must be an integer').min(INT32_MIN, INTEGER_RANGE).max(INT32_MAX, INTEGER_RANGE);
    case 'decimal':
      return decimal;
    case 'boolean':
      return z.boolean();
    case 'datetime':
      return z.date();
  }
}

/** The schema of one attribute's value (null allowed: it clears the attribute). */
function attributeSchema(attribute: Attribute): z.ZodType {
  if (attribute.type === 'localized') {
    return z.strictObject(Object.fromEntries(LOCALES.map((l) => [l, text.nullable().optional()])));
  }
  if (typeof attribute.type === 'object') {
    return z.strictObject(
      Object.fromEntries(Object.entries(attribute.type.object).map(([f, t]) => [f, scalar(t).nullable().optional()])),
    );
  }
  return scalar(attribute.type);
}

const schemas = new Map<Attribute, z.ZodType>();

/**
 * A client-written attribute value, checked and converted (decimals to canonical strings). A
 * value the clean-data rules refuse is taken when it is the one `current` (the stored row, on
 * update) already holds: a document read and sent back is accepted, and rows stored before the
 * rules stay writable in their other fields. `takeRuleBreaks` (an import with `--accept-invalid`,
 * which lists them): taken whatever it is.
 */
export function checkAttribute(
  resource: ResourceDefinition,
  name: string,
  value: unknown,
  field = name,
  current?: Record<string, unknown>,
  takeRuleBreaks = false,
): unknown {
  const attribute = resource.attributes[name]!;
  const parsed = parseAttribute(attribute, value, field);
  const problem = ruleProblem(attribute, parsed);
  if (problem && !takeRuleBreaks && !(current && sameValue(parsed, current[attribute.column])))
    throw new DomainError('bad_input', `${field} ${problem}`, field, undefined, 'invalid_attribute');
  return parsed;
}

/**
 * An attribute value checked for its type alone (null where allowed, decimals to canonical
 * strings), not against the clean-data rules: what an import takes with `--accept-invalid`.
 */
export function parseAttribute(attribute: Attribute, value: unknown, field: string): unknown {
  if (value === null) {
    if (!attribute.nullable)
      throw new DomainError('bad_input', `${field} cannot be null`, field, undefined, 'invalid_attribute');
    return null;
  }
  let schema = schemas.get(attribute);
  if (!schema) schemas.set(attribute, (schema = attributeSchema(attribute)));
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const where = issue.path.length > 0 ? `${field}.${issue.path.join('.')}` : field;
  const message = problemOf(attribute, issue, value);
  throw new DomainError('bad_input', `${where} ${message}`, where, undefined, 'invalid_attribute');
}

/** A checked value and a stored one alike (decimals compared as numbers: stored ones are read as such). */
function sameValue(given: unknown, stored: unknown): boolean {
  if (stored === undefined || stored === null) return false;
  return typeof stored === 'number' ? Number(given) === stored : given === stored;
}

/**
 * What a checked value breaks of its attribute's clean-data rules (a blank business key or
 * required text, bounds, a standard form), or undefined. Also what `npm run check-data` asks of stored rows.
 */
export function ruleProblem(attribute: Attribute, value: unknown): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (attribute.type === 'string' && (attribute.unique || attribute.required) && isBlank(value as string))
    return `must not be blank${attribute.unique ? ': it identifies the resource' : ''}${attribute.nullable ? ' (null clears it)' : ''}`;
  if (attribute.format && typeof value === 'string') {
    const problem = formatProblem(attribute.format, value);
    return problem && `${problem} (got ${quoted(value)})`;
  }
  const { minimum, exclusiveMinimum, maximum } = attribute;
  if (minimum === undefined && exclusiveMinimum === undefined && maximum === undefined) return undefined;
  // Decimals are canonical strings here: a Number is exact enough to compare with small bounds.
  const number = Number(value);
  const got = ` (got ${value})`;
  if (exclusiveMinimum !== undefined && !(number > exclusiveMinimum))
    return `must be greater than ${exclusiveMinimum}${got}`;
  const between = minimum !== undefined && maximum !== undefined ? `must be from ${minimum} to ${maximum}` : undefined;
  if (minimum !== undefined && number < minimum)
    return `${between ?? (minimum === 0 ? 'must not be negative' : `must be at least ${minimum}`)}${got}`;
  if (maximum !== undefined && number > maximum) return `${between ?? `must be at most ${maximum}`}${got}`;
  return undefined;
}

/** An attribute's clean-data rules in a sentence (OpenAPI and the SDL show it), or undefined. */
export function ruleNote(attribute: Attribute): string | undefined {
  if (attribute.format) return formatNote(attribute.format);
  const { minimum, exclusiveMinimum, maximum } = attribute;
  if (exclusiveMinimum !== undefined) return `Greater than ${exclusiveMinimum}.`;
  if (minimum !== undefined && maximum !== undefined) return `From ${minimum} to ${maximum}.`;
  if (minimum === 0) return 'Not negative.';
  return undefined;
}

/** Nothing but white space and invisible format characters (zero-width spaces, a BOM). */
function isBlank(text: string): boolean {
  return /^[\s\p{Cf}]*$/u.test(text);
}

/** The value's type, said where it is at `path` inside an attribute's value. */
function typeAt(attribute: Attribute, path: readonly PropertyKey[]): AttributeType | undefined {
  if (path.length === 0) return attribute.type;
  if (attribute.type === 'localized') return 'string';
  return typeof attribute.type === 'object' ? attribute.type.object[String(path[0])] : undefined;
}

/**
 * What is wrong with a value zod refused, in words that name what the value at the issue's place
 * must be (zod's own say "Invalid input" for a decimal of the wrong type, and speak of the
 * attribute's type where a field inside it is at fault); our own rules' messages as they are.
 */
function problemOf(attribute: Attribute, issue: z.core.$ZodIssue, value: unknown): string {
  const type = typeAt(attribute, issue.path);
  const given = issue.path.reduce<unknown>((v, key) => (v as Record<PropertyKey, unknown>)?.[key], value);
  const got = ` (got ${quoted(given)})`;
  if (issue.code === 'unrecognized_keys') {
    const keys = attribute.type === 'localized' ? LOCALES : Object.keys((attribute.type as { object: object }).object);
    return `has no ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}: its keys are ${keys.join(', ')}`;
  }
  if ((issue.code === 'invalid_type' || issue.code === 'invalid_union') && type !== undefined)
    return `must be ${article(typeof type === 'object' ? 'object' : type === 'localized' ? 'localized text' : type)}${got}`;
  // Text too long is said by its length.
  if (issue.code === 'too_big' && typeof given === 'string')
    return `${issue.message} (got a string of ${count(given.length, 'character')})`;
  if (issue.code === 'too_big' || issue.code === 'too_small') return `${issue.message}${got}`;
  return issue.message;
}

function article(type: string): string {
  const expected: Record<string, string> = {
    string: 'a string',
    integer: 'an integer',
    decimal: 'a number',
    boolean: 'true or false',
    datetime: 'a date-time',
    'localized text': 'an object with keys nl, fr, en, de',
    object: 'an object',
  };
  return expected[type] ?? type;
}

/**
 * The columns to write for checked attribute values. Localized text and small objects are
 * merged key by key with `current` (the stored row, on update): keys given are set, others kept.
 */
export function attributeData(
  resource: ResourceDefinition,
  values: Record<string, unknown>,
  current?: Record<string, unknown>,
): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(values)) {
    const attribute = resource.attributes[name]!;
    if (attribute.type === 'localized' || typeof attribute.type === 'object') {
      for (const [key, column] of attributeParts(attribute)) {
        const given = value === null ? null : (value as Record<string, unknown>)[key];
        if (given !== undefined) data[column] = given;
        else if (current === undefined) data[column] = null;
      }
    } else {
      data[attribute.column] = value;
    }
  }
  return data;
}
