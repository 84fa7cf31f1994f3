/** Bills of material: product structures, their items, item types and calculation methods. */
import { attr, attributes, lookup, operations, toOne } from '../define.ts';
import type { ResourceDefinition } from '../types.ts';

export const productStructures: ResourceDefinition = {
  type: 'product_structures',
  model: 'productStructure',
  group: 'structures',
  attributes: attributes({
    quantity: attr.decimal({ nullable: false, exclusiveMinimum: 0 }),
    modified_date: attr.serverDate(),
  }),
  relationships: {
    items: {
      target: 'product_structure_items',
      cardinality: 'to-many',
      storage: { kind: 'children', relation: 'items', targetColumn: 'product_structure_id' },
      removable: true,
      required: false,
      // REL-REPLACE takes full item objects and REL-REMOVE deletes the items: items belong to
      // one structure. New items come through POST /product_structures/{id}/items.
      operations: ['get', 'replace', 'remove', 'related'],
      forbidden: {
        operations: ['add'],
        message:
          'items cannot be linked by identifier: add them through their structure (POST /product_structures/{id}/items, or addProductStructureItems in GraphQL)',
      },
    },
  },
  operations: ['list', 'get', 'update'],
  forbidden: {
    operations: ['add'],
    message:
      'a product structure is added through its product (POST /products/{id}/product_structure, or createProductStructure in GraphQL)',
  },
  filters: { modified_after: { kind: 'after', column: 'modified_date' } },
  // GET documents `type` as an include value; it is taken as a harmless alias of `items`. The
  // spec shows UPDATE answering with the items included.
  includes: { list: ['items'], get: ['items'], aliases: { get: { type: 'items' } }, update: ['items'] },
  ownerLinks: { product: { target: 'products', column: 'product_id' } },
};

export const productStructureItems: ResourceDefinition = {
  type: 'product_structure_items',
  model: 'productStructureItem',
  group: 'structures',
  attributes: attributes({
    net_quantity: attr.decimal({ minimum: 0 }),
    gross_quantity: attr.decimal({ minimum: 0 }),
    loss_percentage: attr.decimal({ minimum: 0, maximum: 100 }),
    is_phantom: attr.boolean(),
    is_processing_agent: attr.boolean(),
    skip_grain_component_calculation: attr.boolean(),
    modified_date: attr.serverDate(),
  }),
  relationships: {
    product: toOne('product', 'products', ['get', 'related'], {
      removable: false,
      required: true,
      forbidden: {
        operations: ['set'],
        message: 'the product of a structure item cannot be changed; remove the item and add a new one',
      },
    }),
    unit: toOne('unit', 'units'),
    type: toOne('type', 'product_structure_item_types', ['get', 'related'], {
      forbidden: {
        operations: ['set'],
        message: 'the type of a structure item cannot be changed; remove the item and add a new one',
      },
    }),
    calculation_method: toOne('calculation_method', 'product_structure_item_calculation_methods', operations.toOne),
  },
  operations: ['list', 'get', 'update'],
  forbidden: {
    operations: ['add'],
    message:
      'structure items are added through their structure (POST /product_structures/{id}/items, or addProductStructureItems in GraphQL)',
  },
  filters: {},
  includes: {
    list: ['product', 'unit', 'type', 'calculation_method'],
    get: ['product', 'unit', 'type', 'calculation_method'],
  },
  ownerLinks: { product_structure: { target: 'product_structures', column: 'product_structure_id' } },
};

export const productStructureItemTypes = lookup(
  'product_structure_item_types',
  'productStructureItemType',
  'structures',
  attributes({ description: attr.localized() }),
);

export const productStructureItemCalculationMethods = lookup(
  'product_structure_item_calculation_methods',
  'productStructureItemCalculationMethod',
  'structures',
  attributes({ description: attr.localized() }),
);
