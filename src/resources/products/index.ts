/** Products and their classification: units, groups, group types, brands, production lines. */
import { ALL_RESOURCE_OPERATIONS, attr, attributes, lookup, operations, toOne } from '../define.ts';
import type { ResourceDefinition } from '../types.ts';

export const products: ResourceDefinition = {
  type: 'products',
  model: 'product',
  group: 'products',
  attributes: attributes({
    reference: attr.string({ required: true, unique: true }),
    is_active: attr.boolean(),
    is_sales: attr.boolean(),
    name: attr.localized(),
    legal_name: attr.localized(),
    gtin: attr.string({ unique: true, format: 'gtin' }),
    intrastat_code: attr.string(),
    gross_weight_in_kilogram: attr.decimal({ minimum: 0 }),
    net_weight_in_kilogram: attr.decimal({ minimum: 0 }),
    drained_weight_in_kilogram: attr.decimal({ minimum: 0 }),
    production_efficiency_per_hour: attr.decimal({ minimum: 0 }),
    production_report_type_component: attr.string({ observedValues: ['None'] }),
    production_report_type_byprod: attr.string({ observedValues: ['None'] }),
    product_structure_quantity: attr.decimal({ minimum: 0 }),
    is_lotcontrolled: attr.boolean(),
    nlc: attr.decimal({ minimum: 0 }),
    shelf_life: attr.object({ value: 'decimal', interval: 'string' }, { observedValues: ['Days'] }),
    price_basic_unit_ex_vat: attr.decimal({ minimum: 0 }),
    consumer_price: attr.decimal({ minimum: 0 }),
    deposit_price: attr.decimal({ minimum: 0 }),
    modified_date: attr.serverDate(),
  }),
  relationships: {
    // The spec lists no REL-SET for unit: it is set on ADD and UPDATE only.
    unit: toOne('unit', 'units', ['get', 'related'], { removable: false, required: true }),
    // RELATED-GET documents `include` = type: the group with its type.
    product_group: toOne('product_group', 'product_groups', operations.toOne, { relatedIncludes: ['type'] }),
    product_structure: {
      target: 'product_structures',
      cardinality: 'to-one',
      storage: { kind: 'inverse', relation: 'product_structure', targetColumn: 'product_id' },
      removable: false,
      required: false,
      operations: ['get', 'related'],
      // RELATED-GET documents `include` = items: the structure with its items.
      relatedIncludes: ['items'],
      forbidden: {
        operations: ['set'],
        message:
          "a product's structure cannot be linked: add one through the product (POST /products/{id}/product_structure, or createProductStructure in GraphQL) and change its items through the structure",
      },
    },
    brand: toOne('brand', 'brands'),
    production_line: toOne('production_line', 'production_lines'),
    preferred_supplier: toOne('preferred_supplier', 'suppliers', operations.toOne, {
      removable: false,
      includeAliases: ['supplier'],
    }),
  },
  operations: ALL_RESOURCE_OPERATIONS,
  filters: {
    sales: { kind: 'flag', column: 'is_sales' },
    active: { kind: 'flag', column: 'is_active' },
    gtin: { kind: 'gtin', column: 'gtin' },
    product_group_id: { kind: 'integer', column: 'product_group_id' },
    preferred_supplier: { kind: 'relatedReference', relationship: 'preferred_supplier' },
    modified_after: { kind: 'after', column: 'modified_date' },
  },
  includes: {
    list: ['unit', 'product_group', 'product_structure', 'brand', 'production_line', 'preferred_supplier'],
    get: ['unit', 'product_group', 'product_structure', 'brand', 'production_line'],
  },
  reverseLinks: {
    customer_products: { type: 'customer_products', relationship: 'product' },
    used_in: { type: 'product_structure_items', relationship: 'product' },
  },
};

export const units = lookup(
  'units',
  'unit',
  'products',
  attributes({
    reference: attr.string({ required: true, unique: true }),
    description: attr.localized(),
    modified_date: attr.serverDate(),
  }),
);

export const productGroups: ResourceDefinition = {
  type: 'product_groups',
  model: 'productGroup',
  group: 'products',
  attributes: attributes({
    is_active: attr.boolean(),
    description: attr.localized(),
    import_reference: attr.string(),
    inform_days_bbd: attr.integer(),
    allow_only_one_unit: attr.boolean(),
    remark: attr.string(),
    label_color: attr.string(),
    transport_packaging_settings: attr.object(
      { remove_stock_when_picked: 'boolean', rounding: 'string' },
      { observedValues: ['up'] },
    ),
    modified_date: attr.serverDate(),
  }),
  relationships: {
    type: toOne('type', 'product_group_types', operations.toOne, { removable: false }),
  },
  operations: ALL_RESOURCE_OPERATIONS,
  filters: {
    active: { kind: 'flag', column: 'is_active' },
    product_group_type_id: { kind: 'integer', column: 'type_id' },
  },
  includes: { list: ['type'], get: ['type'] },
  reverseLinks: { products: { type: 'products', relationship: 'product_group' } },
};

export const productGroupTypes = lookup(
  'product_group_types',
  'productGroupType',
  'products',
  attributes({ description: attr.localized() }),
);

export const brands = lookup(
  'brands',
  'brand',
  'products',
  attributes({
    reference: attr.string({ required: true, unique: true }),
    modified_date: attr.serverDate(),
  }),
);

export const productionLines = lookup(
  'production_lines',
  'productionLine',
  'products',
  attributes({
    reference: attr.string({ required: true, unique: true }),
    is_active: attr.boolean(),
    import_reference: attr.string(),
    name: attr.localized(),
    barcode: attr.string(),
    modified_date: attr.serverDate(),
  }),
);
