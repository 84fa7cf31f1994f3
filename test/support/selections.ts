/**
 * Selections made from the executable schema: every field of a resource's object type that holds
 * a value (scalars, enums, localized text, small objects, each with all their fields), and every
 * field that leads to other resources (relationships, owner links, reverse links, a bill of
 * material's lines), so that tests and fuzzers reach every type through every link, not only
 * through the root lists.
 */
import {
  getNamedType,
  getNullableType,
  GraphQLList,
  type GraphQLObjectType,
  isLeafType,
  isNonNullType,
  isObjectType,
  type GraphQLField,
  type GraphQLSchema,
} from 'graphql';
import { camel, singular, typeName } from '../../src/resources/names.ts';
import { resources } from '../../src/resources/registry.ts';

type Field = GraphQLField<unknown, unknown>;

/** The object types of resources, by GraphQL name, with their spec type. */
export const RESOURCE_TYPES = new Map(resources.map((r) => [typeName(r.type), r.type]));

/** A field's arguments are all optional (a field with a required one is left out of generated selections). */
const optionalArgs = (field: Field) => field.args.every((a) => !isNonNullType(a.type));

/**
 * Where a field leads to resources: a resource type (to-one, or a list of them), a connection of
 * them (reverse links), or lines that hold them (bill of material, where-used).
 */
export type Link =
  | { kind: 'one' | 'list'; field: Field; type: GraphQLObjectType }
  | { kind: 'connection'; field: Field; type: GraphQLObjectType; connection: GraphQLObjectType }
  | { kind: 'lines'; field: Field; lines: GraphQLObjectType };

/** A field's link, undefined for a field that holds a value (or a connection of change-log entries). */
export function linkOf(field: Field): Link | undefined {
  if (!optionalArgs(field)) return undefined;
  const named = getNamedType(field.type);
  if (!isObjectType(named)) return undefined;
  const list = getNullableType(field.type) instanceof GraphQLList;
  if (RESOURCE_TYPES.has(named.name)) return { kind: list ? 'list' : 'one', field, type: named };
  const nodes = named.getFields().nodes;
  if (nodes) {
    const node = getNamedType(nodes.type) as GraphQLObjectType;
    return RESOURCE_TYPES.has(node.name) ? { kind: 'connection', field, type: node, connection: named } : undefined;
  }
  // Lines that carry resources (BomLine, WhereUsedLine): objects with resource fields of their own.
  if (list && Object.values(named.getFields()).some((f) => RESOURCE_TYPES.has(getNamedType(f.type).name)))
    return { kind: 'lines', field, lines: named };
  return undefined;
}

/** Every link of an object type. */
export function linksOf(type: GraphQLObjectType): Link[] {
  return Object.values(type.getFields()).flatMap((f) => linkOf(f) ?? []);
}

/** A value field's selection: its name, with every field of a small object (localized text, shelf life). */
function valueSelection(field: Field): string | undefined {
  if (!optionalArgs(field)) return undefined;
  const named = getNamedType(field.type);
  if (isLeafType(named)) return field.name;
  if (!isObjectType(named) || RESOURCE_TYPES.has(named.name) || linkOf(field)) return undefined;
  const inner = Object.values(named.getFields());
  if (!inner.every((f) => isLeafType(getNamedType(f.type)))) return undefined;
  return `${field.name} { ${inner.map((f) => f.name).join(' ')} }`;
}

/** Whether a field holds a value (a scalar, an enum, localized text, a small object). */
export function holdsValue(field: Field): boolean {
  return valueSelection(field) !== undefined;
}

/** The selections of every field of `type` that holds a value. */
export function valueSelections(type: GraphQLObjectType): string[] {
  return Object.values(type.getFields()).flatMap((f) => valueSelection(f) ?? []);
}

/** `{ ...every value field... }` of a resource type. */
export function everyValue(type: GraphQLObjectType): string {
  return `{ ${valueSelections(type).join(' ')} }`;
}

/** A resource type's root list field (`products`) and its lookup (`product`). */
export function rootFieldsOf(schema: GraphQLSchema, type: GraphQLObjectType): { list?: Field; one?: Field } {
  const spec = RESOURCE_TYPES.get(type.name)!;
  const root = schema.getQueryType()!.getFields();
  return { list: root[camel(spec)], one: root[camel(singular(spec))] };
}
