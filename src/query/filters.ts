/**
 * The shorthand filters, as conditions of the filter language: REST's LIST parameters of the spec
 * (`filter[gtin]`, `is_active`, `modified_after`...) and GraphQL's `filter` argument, which offers
 * them too. Their values are checked here, once for both APIs: a GTIN of letters is refused by
 * either, not a 400 in one and an empty list in the other.
 */
import type { Filter } from '../resources/types.ts';
import { keyOfColumn, type ScalarField, whereFields } from './fields.ts';
import { type Operand, type Operator, type WhereNode, WhereInputError, operand } from './where.ts';
import { quoted } from '../words.ts';

/** The scalar field stored in `column` of `type`; a foreign key counts as a nullable integer. */
function fieldOf(type: string, column: string): ScalarField {
  for (const field of whereFields(type).values()) {
    if (field.kind === 'scalar' && field.column === column) return field;
    if (field.kind === 'toOne' && field.link.via === 'column' && field.link.column === column)
      return { kind: 'scalar', column, type: 'integer', nullable: field.link.nullable };
  }
  throw new Error(`${type} has no column ${column}`);
}

/**
 * `column` compared with `value` by `op` (equals, lt, gt...), the value checked for the column's
 * type; `equals` null is `isNull`. `path` names the value in the request, for the error.
 */
export function columnCondition(type: string, column: string, op: Operator, value: unknown, path: string): WhereNode {
  const field = fieldOf(type, column);
  if (value === null) {
    if (op !== 'equals') throw new WhereInputError(path, 'must not be null');
    return { kind: 'compare', field, op: 'isNull', value: true };
  }
  if (op === 'in') {
    if (!Array.isArray(value)) throw new WhereInputError(path, 'must be a list');
    return { kind: 'compare', field, op, value: value.map((v, i) => operand(field.type, v, `${path}[${i}]`)) };
  }
  return { kind: 'compare', field, op, value: operand(field.type, value, path) };
}

/**
 * `<relationship>Id` of GraphQL's filter: the row whose foreign key points at the row `value`
 * (null: at none), as a condition on the relationship, so that a role's rows on the other side
 * bound it (a row pointing at one the role cannot see does not match, and counts as pointing at
 * none). Without a role it is a test of the foreign key (src/query/compile.ts).
 */
export function relationshipIdCondition(type: string, relationship: string, value: unknown, path: string): WhereNode {
  const field = whereFields(type).get(relationship);
  if (field?.kind !== 'toOne') throw new Error(`${type}.${relationship} is not a to-one relationship`);
  if (value === null) return { kind: 'empty', link: field.link };
  const id: ScalarField = { kind: 'scalar', column: 'id', type: 'integer', nullable: false };
  return {
    kind: 'toOne',
    link: field.link,
    where: { kind: 'compare', field: id, op: 'equals', value: operand('integer', value, path) },
  };
}

/** A field a condition names: a type and one of its where fields' keys (src/query/fields.ts). */
export type NamedField = readonly [type: string, key: string];

/**
 * The where fields a shorthand filter of `type` reads: what a role must see to use it
 * (Access.mayName). A filter on a foreign key reads the relationship.
 */
export function filterReads(type: string, filter: Filter): NamedField[] {
  if (filter.kind === 'relatedReference') {
    const field = whereFields(type).get(filter.relationship);
    if (field?.kind !== 'toOne') throw new Error(`${type}.${filter.relationship} is not to-one`);
    return [
      [type, filter.relationship],
      [field.link.target, 'reference'],
    ];
  }
  const key = keyOfColumn(type, filter.column);
  if (!key) throw new Error(`${type} has no field in the column ${filter.column}`);
  return [[type, key]];
}

const GTIN = /^\d{1,14}$/;

/**
 * The condition a filter of the spec sets, given its value as the surface read it (a number for
 * `integer`, a boolean for `flag`, a Date for `after`, the text otherwise).
 */
export function filterWhere(type: string, filter: Filter, value: Operand, path: string): WhereNode {
  switch (filter.kind) {
    case 'equals':
    case 'integer':
    case 'flag': {
      // A foreign key is compared through its relationship, so that a role's rows on the other
      // side bound it, as the same condition through GraphQL's where is.
      const key = keyOfColumn(type, filter.column)!;
      if (whereFields(type).get(key)?.kind === 'toOne') return relationshipIdCondition(type, key, value, path);
      return columnCondition(type, filter.column, 'equals', value, path);
    }
    case 'after':
      return columnCondition(type, filter.column, 'gt', value, path);
    case 'gtin': {
      if (typeof value !== 'string' || !GTIN.test(value))
        throw new WhereInputError(path, `must be a GTIN: 1 to 14 digits (got ${quoted(value)})`);
      // Stored with or without leading zeros: every spelling of the same number.
      const digits = value.replace(/^0+/, '');
      const spellings = Array.from(
        { length: Math.max(1, 15 - digits.length) },
        (_, zeros) => '0'.repeat(zeros) + digits,
      );
      return columnCondition(type, filter.column, 'in', spellings, path);
    }
    case 'relatedReference': {
      const field = whereFields(type).get(filter.relationship);
      if (field?.kind !== 'toOne') throw new Error(`${type}.${filter.relationship} is not to-one`);
      return {
        kind: 'toOne',
        link: field.link,
        where: columnCondition(field.link.target, 'reference', 'equals', value, path),
      };
    }
  }
}
