/**
 * The GraphQL contract's names, derived from the spec's: types are the PascalCase singular of the
 * resource type, fields the camelCase of attribute and relationship names.
 */

/** `gross_weight_in_kilogram` -> `grossWeightInKilogram`, `alpha_2_code` -> `alpha2Code`. */
export function camel(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

export function pascal(name: string): string {
  const c = camel(name);
  return c[0]!.toUpperCase() + c.slice(1);
}

/** `product_structure_items` -> `product_structure_item`, `currencies` -> `currency`, `addresses` -> `address`. */
export function singular(type: string): string {
  if (type.endsWith('ies')) return `${type.slice(0, -3)}y`;
  if (type.endsWith('sses')) return type.slice(0, -2);
  return type.endsWith('s') ? type.slice(0, -1) : type;
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
