/**
 * The `where` argument: one input type per resource type (`ProductWhere`), generated from the
 * fields the filter language knows (src/query/fields.ts), and read by that language's parser, so
 * that GraphQL, REST and roles filter with one set of rules. Names are GraphQL's (camelCase).
 */
import type { InputObjectRef } from '@pothos/core';
import { type WhereField, whereFields } from '../query/fields.ts';
import { parseWhere, relationshipCost, type WhereNode, WhereInputError } from '../query/where.ts';
import { resources } from '../resources/registry.ts';
import { LOCALES, type ScalarType } from '../resources/types.ts';
import { camel, pascal, typeName } from '../resources/names.ts';
import { builder, type Types } from './builder.ts';
import { badInput } from './errors.ts';
import { LIST_MULTIPLIER } from './limits.ts';

type WhereInput = Record<string, unknown>;
type Ref = InputObjectRef<Types, WhereInput>;

const CASE_INSENSITIVE = 'case-insensitive (Unicode)';
const MISSING = 'true: the value is missing; false: it is present.';

function comparisons(type: 'Int' | 'Decimal' | 'DateTime', description: string): Ref {
  return builder.inputType(`${type}Where`, {
    description,
    fields: (t) => ({
      equals: t.field({ type }),
      not: t.field({ type, description: 'Not equal; a missing value is not equal either.' }),
      in: t.field({ type: [type] }),
      notIn: t.field({ type: [type], description: 'None of these; a missing value is none of them.' }),
      isNull: t.boolean({ description: MISSING }),
      lt: t.field({ type }),
      lte: t.field({ type }),
      gt: t.field({ type }),
      gte: t.field({ type }),
    }),
  }) as unknown as Ref;
}

const StringWhere = builder.inputType('StringWhere', {
  description: `Conditions on text. equals, not, in and notIn compare exactly; contains, startsWith and endsWith are ${CASE_INSENSITIVE}.`,
  fields: (t) => ({
    equals: t.string({ description: 'Exactly this text (case-sensitive).' }),
    not: t.string({ description: 'Not exactly this text; a missing value is not it either.' }),
    in: t.stringList(),
    notIn: t.stringList({ description: 'None of these; a missing value is none of them.' }),
    isNull: t.boolean({ description: MISSING }),
    contains: t.string({ description: `Contains this text, ${CASE_INSENSITIVE}.` }),
    startsWith: t.string({ description: `Starts with this text, ${CASE_INSENSITIVE}.` }),
    endsWith: t.string({ description: `Ends with this text, ${CASE_INSENSITIVE}.` }),
  }),
}) as unknown as Ref;

const SCALAR_WHERE: Record<ScalarType, Ref> = {
  string: StringWhere,
  integer: comparisons('Int', 'Conditions on a whole number.'),
  decimal: comparisons('Decimal', 'Conditions on an exact decimal (compared exactly).'),
  datetime: comparisons('DateTime', 'Conditions on a date-time.'),
  boolean: builder.inputType('BooleanWhere', {
    description: 'Conditions on a flag.',
    fields: (t) => ({
      equals: t.boolean(),
      not: t.boolean({ description: 'Not this value; a missing value is not it either.' }),
      isNull: t.boolean({ description: MISSING }),
    }),
  }) as unknown as Ref,
};

const LocalizedTextWhere = builder.inputType('LocalizedTextWhere', {
  description: 'Conditions on text in the four languages: `any` holds when one language meets all its conditions.',
  fields: (t) => ({
    any: t.field({ type: StringWhere }),
    ...Object.fromEntries(LOCALES.map((l) => [l, t.field({ type: StringWhere })])),
  }),
}) as unknown as Ref;

/** The where type of each resource type, made before any is implemented (they refer to each other). */
const whereRefs = new Map(resources.map((r) => [r.type, builder.inputRef<WhereInput>(`${typeName(r.type)}Where`)]));
const listWhereRefs = new Map<string, Ref>();
const objectWhereRefs = new Map<string, Ref>();

export function whereRefOf(type: string): Ref {
  return whereRefs.get(type)! as unknown as Ref;
}

function listWhereOf(type: string): Ref {
  let ref = listWhereRefs.get(type);
  if (!ref) {
    const name = typeName(type);
    ref = builder.inputType(`${name}ListWhere`, {
      description: `Conditions on related ${type}: \`some\` holds when one matches, \`every\` when all do (or there are none), \`none\` when none does.`,
      fields: (t) => ({
        some: t.field({ type: whereRefOf(type) }),
        every: t.field({ type: whereRefOf(type) }),
        none: t.field({ type: whereRefOf(type) }),
      }),
    }) as unknown as Ref;
    listWhereRefs.set(type, ref);
  }
  return ref;
}

function objectWhereOf(name: string, field: Extract<WhereField, { kind: 'object' }>): Ref {
  let ref = objectWhereRefs.get(name);
  if (!ref) {
    ref = builder.inputType(`${pascal(name)}Where`, {
      fields: (t) =>
        Object.fromEntries([...field.fields].map(([key, f]) => [camel(key), t.field({ type: SCALAR_WHERE[f.type] })])),
    }) as unknown as Ref;
    objectWhereRefs.set(name, ref);
  }
  return ref;
}

function inputOf(name: string, field: WhereField): Ref {
  switch (field.kind) {
    case 'scalar':
      return SCALAR_WHERE[field.type];
    case 'localized':
      return LocalizedTextWhere;
    case 'object':
      return objectWhereOf(name, field);
    case 'toOne':
      return whereRefOf(field.link.target);
    case 'toMany':
      return listWhereOf(field.link.target);
  }
}

for (const resource of resources) {
  const name = typeName(resource.type);
  whereRefs.get(resource.type)!.implement({
    description: `Conditions on ${resource.type}: every field given must hold.`,
    fields: (t) => ({
      AND: t.field({ type: [whereRefOf(resource.type)], description: 'All of these hold.' }),
      OR: t.field({
        type: [whereRefOf(resource.type)],
        description: 'At least one of these holds (none given: none).',
      }),
      NOT: t.field({ type: whereRefOf(resource.type), description: 'This does not hold.' }),
      isNull: t.boolean({
        description: `Only in a to-one relationship to ${name}: true when it is empty, false when it is set.`,
      }),
      ...Object.fromEntries(
        [...whereFields(resource.type)].map(([key, field]) => [camel(key), t.field({ type: inputOf(key, field) })]),
      ),
    }),
  });
}

/** The where a `where` argument says (undefined: every row), or BAD_USER_INPUT naming the path. */
export function whereArgument(type: string, value: unknown, argument = 'where'): WhereNode | undefined {
  if (value === undefined || value === null) return undefined;
  try {
    return parseWhere(type, value, argument, 'graphql');
  } catch (error) {
    if (error instanceof WhereInputError) throw badInput(error.message, argument);
    throw error;
  }
}

/**
 * What a `where` adds to its field's cost: its conditions through relationships (priced like
 * nested fields, src/query/where.ts relationshipCost) once per row of the page (`rows`). A where that does not parse costs nothing: it is
 * refused before anything runs.
 */
export function whereCost(type: string, value: unknown, rows: number): number {
  if (value === undefined || value === null) return 0;
  try {
    return relationshipCost(parseWhere(type, value, 'where', 'graphql'), LIST_MULTIPLIER) * rows;
  } catch {
    return 0;
  }
}
