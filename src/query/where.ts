/**
 * The filter language of the service (docs/reference/graphql.md, "Asking questions"): GraphQL's `where`, the REST
 * filters, and the row filters of roles and webhooks to come are all read here, into one tree of
 * conditions that ./compile.ts turns into SQL. A value is checked here, whatever surface it came
 * from, so that the same value is refused alike everywhere.
 *
 * The shape (Prisma's vocabulary): `{ AND: [..], OR: [..], NOT: {..}, <field>: <condition> }`,
 * every field given must hold. A scalar field takes operators (`equals`, `not`, `in`, `notIn`,
 * `isNull`; `lt`, `lte`, `gt`, `gte` on numbers, decimals and date-times; `contains`,
 * `startsWith`, `endsWith` on text, case-insensitive); localized text takes a language or `any`;
 * a to-one relationship the target's where (and `isNull`); a to-many one `some`, `every`, `none`.
 */
import { DecimalInputError, parseDecimal } from '../db/decimal.ts';
import { INT32_MAX, INT32_MIN, INT32_RANGE } from '../db/integers.ts';
import { unstorableText } from '../db/text.ts';
import { camel } from '../resources/names.ts';
import type { ScalarType } from '../resources/types.ts';
import { type ScalarField, type ToManyLink, type ToOneLink, type WhereField, whereFields } from './fields.ts';
import { quoted } from '../words.ts';

export type Operator =
  | 'equals'
  | 'in'
  | 'isNull'
  | 'lt'
  | 'lte'
  | 'gt'
  | 'gte'
  | 'contains'
  | 'startsWith'
  | 'endsWith';

/** A value compared with: decimals as canonical strings (exact), date-times as Dates. */
export type Operand = string | number | boolean | Date;

export type WhereNode =
  | { kind: 'and' | 'or'; items: WhereNode[] }
  | { kind: 'not'; item: WhereNode }
  | { kind: 'compare'; field: ScalarField; op: Operator; value: Operand | Operand[] }
  /** A to-one relationship is empty (`isNull: true`). */
  | { kind: 'empty'; link: ToOneLink }
  | { kind: 'toOne'; link: ToOneLink; where: WhereNode }
  | { kind: 'toMany'; link: ToManyLink; quantifier: 'some' | 'every' | 'none'; where: WhereNode };

/** Matches every row. */
export const EVERY_ROW: WhereNode = { kind: 'and', items: [] };

/** Input the language refuses, said after where in the input it is (`where.OR[1].name.any.contains must be text`). */
export class WhereInputError extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${path} ${reason}`);
  }
}

export const WHERE_LIMITS = {
  /** Levels of nesting: each AND/OR/NOT element, relationship and some/every/none is one. */
  depth: 10,
  /**
   * Conditions in one where, counting every object, operator, relationship and value of `in`:
   * what bounds the work of reading it and the parameters of its SQL (SQLite takes 32,766).
   */
  conditions: 500,
  /** Values in `in` and `notIn`, and conditions in `AND` and `OR`. */
  values: 100,
  /** Characters of a text operand. */
  textLength: 1000,
} as const;

/** How field names are spelled in the input: the spec's snake_case, or GraphQL's camelCase. */
export type Spelling = 'spec' | 'graphql';

const OPERATORS: Record<ScalarType, readonly string[]> = {
  string: ['equals', 'not', 'in', 'notIn', 'isNull', 'contains', 'startsWith', 'endsWith'],
  integer: ['equals', 'not', 'in', 'notIn', 'isNull', 'lt', 'lte', 'gt', 'gte'],
  decimal: ['equals', 'not', 'in', 'notIn', 'isNull', 'lt', 'lte', 'gt', 'gte'],
  datetime: ['equals', 'not', 'in', 'notIn', 'isNull', 'lt', 'lte', 'gt', 'gte'],
  boolean: ['equals', 'not', 'isNull'],
};

const names = new Map<string, Map<string, string>>();

/** The input names of a type's fields, mapped to their spec names. */
function namesOf(type: string, spelling: Spelling): Map<string, string> {
  const key = `${spelling}:${type}`;
  let found = names.get(key);
  if (!found) {
    found = new Map([...whereFields(type).keys()].map((name) => [spelling === 'graphql' ? camel(name) : name, name]));
    names.set(key, found);
  }
  return found;
}

/**
 * Whether the one who wrote a where may name the field `key` of `type` (Access.mayName, for a
 * client with a role). A field it may not name is refused as one that does not exist.
 */
export type MayName = (type: string, key: string) => boolean;

interface Reading {
  spelling: Spelling;
  conditions: number;
  mayName?: MayName;
}

/**
 * The where of `type` that `input` says, or WhereInputError naming the first problem by its path
 * under `path`. Fields whose value is undefined are not given (GraphQL leaves them so). With
 * `mayName`, only the fields it allows can be named, at any depth.
 */
export function parseWhere(
  type: string,
  input: unknown,
  path: string,
  spelling: Spelling = 'spec',
  mayName?: MayName,
): WhereNode {
  const node = readWhere(type, input, path, { spelling, conditions: 0, mayName }, 0, 'top');
  parsed.add(node);
  return node;
}

/** Wheres read from input: their SQL is shaped by whoever wrote them (Statement.shaped, src/db/reads.ts). */
const parsed = new WeakSet<WhereNode>();

export function isParsed(node: WhereNode): boolean {
  return parsed.has(node);
}

type Place = 'top' | 'toOne' | 'quantified';

function objectAt(input: unknown, path: string, what: string): Record<string, unknown> {
  if (input === null || typeof input !== 'object' || Array.isArray(input))
    throw new WhereInputError(path, `must be ${what} (got ${quoted(input)})`);
  return input as Record<string, unknown>;
}

function readWhere(
  type: string,
  input: unknown,
  path: string,
  reading: Reading,
  depth: number,
  place: Place,
): WhereNode {
  if (depth > WHERE_LIMITS.depth)
    throw new WhereInputError(path, `is nested more than ${WHERE_LIMITS.depth} levels deep`);
  const object = objectAt(input, path, 'an object of conditions');
  count(reading, path);
  const items: WhereNode[] = [];
  const fields = whereFields(type);
  const spelled = namesOf(type, reading.spelling);
  for (const [key, value] of Object.entries(object)) {
    if (value === undefined) continue;
    const at = `${path}.${key}`;
    if (key === 'AND' || key === 'OR') {
      if (!Array.isArray(value)) throw new WhereInputError(at, `must be a list of conditions (got ${quoted(value)})`);
      if (value.length > WHERE_LIMITS.values)
        throw new WhereInputError(at, `holds ${value.length} conditions: at most ${WHERE_LIMITS.values}`);
      items.push({
        kind: key === 'AND' ? 'and' : 'or',
        items: value.map((item, i) => readWhere(type, item, `${at}[${i}]`, reading, depth + 1, 'quantified')),
      });
    } else if (key === 'NOT') {
      items.push({ kind: 'not', item: readWhere(type, value, at, reading, depth + 1, 'quantified') });
    } else if (key === 'isNull') {
      if (place !== 'toOne') throw new WhereInputError(at, 'applies only to a to-one relationship');
    } else {
      const name = spelled.get(key);
      if (!name || (reading.mayName && !reading.mayName(type, name)))
        throw new WhereInputError(at, `is not a field of ${type} one can filter on`);
      items.push(readField(fields.get(name)!, value, at, reading, depth));
    }
  }
  return items.length === 1 ? items[0]! : { kind: 'and', items };
}

function readField(field: WhereField, value: unknown, path: string, reading: Reading, depth: number): WhereNode {
  switch (field.kind) {
    case 'scalar':
      return readScalar(field, value, path, reading);
    case 'localized': {
      const object = objectAt(value, path, 'an object of languages (any, nl, fr, en, de)');
      const items: WhereNode[] = [];
      for (const [key, conditions] of Object.entries(object)) {
        if (conditions === undefined) continue;
        if (key === 'any')
          items.push({
            kind: 'or',
            items: Object.values(field.columns).map((column) => readScalar(column, conditions, `${path}.any`, reading)),
          });
        else if (key in field.columns)
          items.push(
            readScalar(field.columns[key as keyof typeof field.columns], conditions, `${path}.${key}`, reading),
          );
        else throw new WhereInputError(`${path}.${key}`, 'is not a language: any, nl, fr, en or de');
      }
      return { kind: 'and', items };
    }
    case 'object': {
      const object = objectAt(value, path, 'an object of conditions on its fields');
      const items: WhereNode[] = [];
      const spelled = new Map([...field.fields.keys()].map((k) => [reading.spelling === 'graphql' ? camel(k) : k, k]));
      for (const [key, conditions] of Object.entries(object)) {
        if (conditions === undefined) continue;
        const name = spelled.get(key);
        if (!name) throw new WhereInputError(`${path}.${key}`, `is not a field: ${[...spelled.keys()].join(', ')}`);
        items.push(readScalar(field.fields.get(name)!, conditions, `${path}.${key}`, reading));
      }
      return { kind: 'and', items };
    }
    case 'toOne':
      return readToOne(field.link, value, path, reading, depth);
    case 'toMany': {
      const object = objectAt(value, path, 'an object with some, every or none');
      const items: WhereNode[] = [];
      for (const [key, where] of Object.entries(object)) {
        if (where === undefined) continue;
        if (key !== 'some' && key !== 'every' && key !== 'none')
          throw new WhereInputError(`${path}.${key}`, 'is not some, every or none');
        count(reading, path);
        const inner = readWhere(field.link.target, where, `${path}.${key}`, reading, depth + 2, 'quantified');
        items.push({ kind: 'toMany', link: field.link, quantifier: key, where: inner });
      }
      return { kind: 'and', items };
    }
  }
}

function readToOne(link: ToOneLink, value: unknown, path: string, reading: Reading, depth: number): WhereNode {
  const object = objectAt(value, path, `an object of conditions on ${link.target}`);
  count(reading, path);
  const where = readWhere(link.target, object, path, reading, depth + 1, 'toOne');
  const isNull = object.isNull;
  if (isNull === undefined) return { kind: 'toOne', link, where };
  if (typeof isNull !== 'boolean')
    throw new WhereInputError(`${path}.isNull`, `must be true or false (got ${quoted(isNull)})`);
  const empty: WhereNode = { kind: 'empty', link };
  const rest = Object.entries(object).filter(([k, v]) => k !== 'isNull' && v !== undefined);
  if (isNull) {
    if (rest.length > 0)
      throw new WhereInputError(path, 'isNull: true cannot go with conditions on the related row (none can hold)');
    return empty;
  }
  return {
    kind: 'and',
    items: [{ kind: 'not', item: empty }, ...(rest.length > 0 ? [{ kind: 'toOne', link, where } as WhereNode] : [])],
  };
}

function count(reading: Reading, path: string): void {
  if (++reading.conditions > WHERE_LIMITS.conditions)
    throw new WhereInputError(path, `the where holds more than ${WHERE_LIMITS.conditions} conditions`);
}

function readScalar(field: ScalarField, input: unknown, path: string, reading: Reading): WhereNode {
  const object = objectAt(input, path, `an object of operators (${OPERATORS[field.type].join(', ')})`);
  const items: WhereNode[] = [];
  for (const [op, value] of Object.entries(object)) {
    if (value === undefined) continue;
    const at = `${path}.${op}`;
    if (!OPERATORS[field.type].includes(op))
      throw new WhereInputError(at, `is not an operator here: ${OPERATORS[field.type].join(', ')}`);
    count(reading, at);
    if (value === null) throw new WhereInputError(at, 'must not be null (isNull tests for a missing value)');
    items.push(readOperator(field, op, value, at, reading));
  }
  return items.length === 1 ? items[0]! : { kind: 'and', items };
}

function readOperator(field: ScalarField, op: string, value: unknown, path: string, reading: Reading): WhereNode {
  switch (op) {
    case 'isNull':
      if (typeof value !== 'boolean') throw new WhereInputError(path, `must be true or false (got ${quoted(value)})`);
      return value
        ? { kind: 'compare', field, op: 'isNull', value }
        : not({ kind: 'compare', field, op: 'isNull', value: true });
    case 'not':
      return not({ kind: 'compare', field, op: 'equals', value: operand(field.type, value, path) });
    case 'in':
    case 'notIn': {
      if (!Array.isArray(value)) throw new WhereInputError(path, `must be a list (got ${quoted(value)})`);
      if (value.length > WHERE_LIMITS.values)
        throw new WhereInputError(path, `holds ${value.length} values: at most ${WHERE_LIMITS.values}`);
      const values = value.map((v, i) => {
        count(reading, `${path}[${i}]`);
        if (v === null)
          throw new WhereInputError(`${path}[${i}]`, 'must not be null (isNull tests for a missing value)');
        return operand(field.type, v, `${path}[${i}]`);
      });
      const node: WhereNode = { kind: 'compare', field, op: 'in', value: values };
      return op === 'in' ? node : not(node);
    }
    case 'contains':
    case 'startsWith':
    case 'endsWith':
      // Case-insensitive: compared lowercased, as the SQL lowercases the column (./compile.ts).
      return { kind: 'compare', field, op, value: (operand('string', value, path) as string).toLowerCase() };
    default:
      return { kind: 'compare', field, op: op as Operator, value: operand(field.type, value, path) };
  }
}

function not(item: WhereNode): WhereNode {
  return { kind: 'not', item };
}

/** A value of `type` as SQL compares it, or WhereInputError saying what it must be. */
export function operand(type: ScalarType, value: unknown, path: string): Operand {
  switch (type) {
    case 'string': {
      if (typeof value !== 'string') throw new WhereInputError(path, `must be text (got ${quoted(value)})`);
      if (value.length > WHERE_LIMITS.textLength)
        throw new WhereInputError(path, `is ${value.length} characters long: at most ${WHERE_LIMITS.textLength}`);
      const problem = unstorableText(value);
      if (problem) throw new WhereInputError(path, problem);
      return value;
    }
    case 'integer':
      if (typeof value !== 'number' || !Number.isInteger(value) || value < INT32_MIN || value > INT32_MAX)
        throw new WhereInputError(path, `must be ${INT32_RANGE} (got ${quoted(value)})`);
      return value;
    case 'decimal':
      try {
        return parseDecimal(value);
      } catch (error) {
        if (error instanceof DecimalInputError) throw new WhereInputError(path, error.message);
        throw error;
      }
    case 'boolean':
      if (typeof value !== 'boolean') throw new WhereInputError(path, `must be true or false (got ${quoted(value)})`);
      return value;
    case 'datetime':
      return dateOperand(value, path);
  }
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i;

export function dateOperand(value: unknown, path: string): Date {
  if (value instanceof Date && !Number.isNaN(value.getTime())) return value;
  if (typeof value === 'string' && RFC3339.test(value) && !Number.isNaN(Date.parse(value))) return new Date(value);
  throw new WhereInputError(
    path,
    `must be an RFC 3339 date-time with a time zone, e.g. 2026-01-31T12:00:00Z (got ${quoted(value)})`,
  );
}

/**
 * The cost of reaching other rows for one row: a to-one condition costs 1 and what it asks of
 * the related row; a to-many one `relatedRows` times that (the rows a list of related rows is
 * priced at: the way a cost model prices nested fields). Conditions on the row's own fields cost
 * nothing.
 */
export function relationshipCost(node: WhereNode, relatedRows: number): number {
  switch (node.kind) {
    case 'and':
    case 'or':
      return node.items.reduce((sum, item) => sum + relationshipCost(item, relatedRows), 0);
    case 'not':
      return relationshipCost(node.item, relatedRows);
    case 'compare':
      return 0;
    case 'empty':
      return node.link.via === 'inverse' ? 1 : 0;
    case 'toOne':
      return 1 + relationshipCost(node.where, relatedRows);
    case 'toMany':
      return relatedRows * (1 + relationshipCost(node.where, relatedRows));
  }
}

/** Whether a where asks only about the row's id (`productGroup: { id: { equals: 3 } }`). */
export function onlyOnId(node: WhereNode): boolean {
  if (node.kind === 'and' || node.kind === 'or') return node.items.every(onlyOnId);
  if (node.kind === 'not') return onlyOnId(node.item);
  return node.kind === 'compare' && node.field.column === 'id';
}

/**
 * Whether a where reads the row alone: its own fields, and the ids its to-one relationships hold
 * (its foreign keys). Whether such a row matches changes only when the row itself is written.
 */
export function ownRowOnly(node: WhereNode): boolean {
  switch (node.kind) {
    case 'and':
    case 'or':
      return node.items.every(ownRowOnly);
    case 'not':
      return ownRowOnly(node.item);
    case 'compare':
      return true;
    case 'empty':
      return node.link.via === 'column';
    case 'toOne':
      return node.link.via === 'column' && onlyOnId(node.where);
    case 'toMany':
      return false;
  }
}
