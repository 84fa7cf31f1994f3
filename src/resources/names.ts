/**
 * The names both APIs derive from the spec's: GraphQL types are the PascalCase singular of the
 * resource type (`ProductStructureItem`), fields the camelCase of attribute and relationship names,
 * and the OpenAPI document's schemas are named after the same singulars. A description states its
 * singular where the rule below would guess wrong (`boxes` would otherwise become `boxe`).
 */
import { resourceByType } from './registry.ts';

/** `gross_weight_in_kilogram` -> `grossWeightInKilogram`, `alpha_2_code` -> `alpha2Code`. */
export function camel(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

export function pascal(name: string): string {
  const c = camel(name);
  return c[0]!.toUpperCase() + c.slice(1);
}

/**
 * The singular of a resource type: the one its description states, else by rule
 * (`product_structure_items` -> `product_structure_item`, `currencies` -> `currency`, `addresses` -> `address`).
 */
export function singularOf(resource: { type: string; singular?: string }): string {
  const { type } = resource;
  if (resource.singular) return resource.singular;
  if (type.endsWith('ies')) return `${type.slice(0, -3)}y`;
  if (type.endsWith('sses')) return type.slice(0, -2);
  return type.endsWith('s') ? type.slice(0, -1) : type;
}

/** The singular of a resource type of the registry (see singularOf). */
export function singular(type: string): string {
  return singularOf(resourceByType(type) ?? { type });
}

/** The object type of a resource type: `product_structure_items` -> `ProductStructureItem`. */
export function typeName(type: string): string {
  return pascal(singular(type));
}

/** `GROSS_WEIGHT_IN_KILOGRAM` for enum values. */
export function constant(name: string): string {
  return name.toUpperCase();
}

/**
 * The GraphQL field of an attribute. Where the spec gives an attribute and a relationship the
 * same name (a supplier's `currency`: a free-text code and a link to a currency), the
 * relationship keeps the name and the attribute is named after its storage (`currencyText`).
 */
export function attributeField(
  resource: { relationships: Record<string, unknown> },
  name: string,
  column: string,
): string {
  return name in resource.relationships ? camel(column) : camel(name);
}
