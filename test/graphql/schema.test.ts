/**
 * The registry and the schema side by side (graphql.md "Naming"): every type, attribute and
 * relationship of the spec is reachable in GraphQL under the contract's name, with the right
 * type; the committed SDL is the one served.
 */
import { SEARCHABLE_TYPES } from '../../src/query/search.ts';
import { readFileSync } from 'node:fs';
import {
  getNamedType,
  getNullableType,
  isListType,
  isNonNullType,
  type GraphQLField,
  type GraphQLObjectType,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { printSdl, schema } from '../../src/graphql/schema.ts';
import { attributeField, camel, singular, typeName } from '../../src/resources/names.ts';
import { resources } from '../../src/resources/registry.ts';
import { readSpecTypes } from '../support/spec.ts';

const objectType = (name: string) => schema.getType(name) as GraphQLObjectType | undefined;

describe('the GraphQL schema against the registry and the spec', () => {
  it('has an object type for each of the 21 resource types of the spec, named PascalCase singular', () => {
    const specTypes = readSpecTypes().map((t) => t.type);
    expect(specTypes).toHaveLength(21);
    for (const type of specTypes) expect(objectType(typeName(type)), type).toBeDefined();
    expect(typeName('product_structure_item_calculation_methods')).toBe('ProductStructureItemCalculationMethod');
    expect(typeName('addresses')).toBe('Address');
    expect(typeName('currencies')).toBe('Currency');
  });

  describe.each(resources.map((r) => [r.type, r] as const))('%s', (_type, resource) => {
    const type = objectType(typeName(resource.type))!;
    const fields = type.getFields();

    it('has `id: Int!`, the REST id', () => {
      expect(String(fields.id!.type)).toBe('Int!');
    });

    it('has every attribute under its camelCase name, with its type', () => {
      const expected = {
        string: 'String',
        integer: 'Int',
        decimal: 'Decimal',
        boolean: 'Boolean',
        datetime: 'DateTime',
      } as const;
      for (const [name, attribute] of Object.entries(resource.attributes)) {
        const field: GraphQLField<unknown, unknown> | undefined =
          fields[attributeField(resource, name, attribute.column)];
        expect(field, name).toBeDefined();
        const named = getNamedType(field!.type).name;
        if (attribute.type === 'localized') {
          expect(named).toBe('LocalizedText');
          expect(field!.args.map((a) => `${a.name}: ${a.type}`)).toEqual(['locale: Locale']);
        } else if (typeof attribute.type === 'object') {
          const objectFields = (getNamedType(field!.type) as GraphQLObjectType).getFields();
          expect(Object.keys(objectFields).sort()).toEqual(Object.keys(attribute.type.object).map(camel).sort());
        } else {
          expect(named, name).toBe(expected[attribute.type]);
        }
      }
    });

    it('has every relationship under its camelCase name, to the target type, a list where to-many', () => {
      for (const [name, relationship] of Object.entries(resource.relationships)) {
        const field = fields[camel(name)];
        expect(field, name).toBeDefined();
        expect(getNamedType(field!.type).name, name).toBe(typeName(relationship.target));
        expect(isListType(getNullableType(field!.type)), name).toBe(relationship.cardinality === 'to-many');
        expect(field!.deprecationReason ?? undefined, name).toEqual(
          relationship.deprecated ? expect.stringContaining('evaluationRoleUsers') : undefined,
        );
      }
    });

    it('has a root field for one and a connection for many', () => {
      const query = schema.getQueryType()!.getFields();
      const one = query[camel(singular(resource.type))]!;
      expect(one.args.map((a) => `${a.name}: ${a.type}`)).toEqual(['id: Int!']);
      expect(String(one.type)).toBe(typeName(resource.type));
      const many = query[camel(resource.type)]!;
      expect(String(many.type)).toBe(`${typeName(resource.type)}Connection!`);
      const searchable = SEARCHABLE_TYPES.has(resource.type) ? ['search'] : [];
      expect(many.args.map((a) => a.name).sort()).toEqual(
        ['after', 'before', 'filter', 'first', 'last', 'orderBy', ...searchable, 'where'].sort(),
      );
    });
  });

  it('has the reverse links of the contract, as connections', () => {
    const links = {
      Customer: { customerProducts: 'CustomerProductConnection' },
      Product: { customerProducts: 'CustomerProductConnection', usedIn: 'ProductStructureItemConnection' },
      ProductGroup: { products: 'ProductConnection' },
      Supplier: { products: 'ProductConnection' },
    };
    for (const [type, fields] of Object.entries(links)) {
      for (const [field, connection] of Object.entries(fields)) {
        const f = objectType(type)!.getFields()[field];
        expect(String(f?.type), `${type}.${field}`).toBe(`${connection}!`);
      }
    }
  });

  it("keeps a supplier's `currency` relationship and names the same-named attribute after its storage", () => {
    const fields = objectType('Supplier')!.getFields();
    expect(String(fields.currency!.type)).toBe('Currency');
    expect(String(fields.currencyText!.type)).toBe('String');
  });

  it('lists filters covering the REST filters, and an orderBy', () => {
    const inputFields = (name: string) =>
      Object.keys((schema.getType(name) as unknown as { getFields(): object }).getFields());
    expect(inputFields('CustomerFilter')).toEqual(expect.arrayContaining(['reference']));
    expect(inputFields('ProductFilter')).toEqual(
      expect.arrayContaining([
        'isActive',
        'isSales',
        'gtin',
        'productGroupId',
        'preferredSupplierReference',
        'modifiedAfter',
      ]),
    );
    expect(inputFields('ProductGroupFilter')).toEqual(expect.arrayContaining(['isActive', 'productGroupTypeId']));
    expect(inputFields('ProductStructureFilter')).toEqual(expect.arrayContaining(['modifiedAfter']));
    expect(
      String(
        schema
          .getQueryType()!
          .getFields()
          .products!.args.find((a) => a.name === 'orderBy')!.type,
      ),
    ).toBe('[ProductOrderBy!]');
  });

  it('has create and update mutations for what the spec lets clients add and update, structures through products', () => {
    const mutations = Object.keys(schema.getMutationType()!.getFields());
    expect(mutations).toEqual(
      expect.arrayContaining(['createCustomer', 'updateCustomer', 'createProduct', 'updateProduct', 'createUnit']),
    );
    expect(mutations).toEqual(
      expect.arrayContaining([
        'createProductStructure',
        'addProductStructureItems',
        'replaceProductStructureItems',
        'removeProductStructureItems',
        'updateProductStructureItem',
      ]),
    );
    expect(mutations).not.toContain('createProductStructureItem');
    // Nullable: when one mutation fails, the results of those before it still reach the client.
    expect(isNonNullType(schema.getMutationType()!.getFields().createProduct!.type)).toBe(false);
  });

  it('is committed as schema.graphql exactly as served (run `npm run codegen` after changing the schema)', () => {
    expect(readFileSync(new URL('../../schema.graphql', import.meta.url), 'utf8')).toBe(printSdl());
  });
});
