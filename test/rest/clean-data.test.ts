/**
 * Clean data (the registry's `format`, `minimum`, `exclusiveMinimum` and `maximum`): a GTIN or GLN
 * with a wrong GS1 check digit, an e-mail that is not an address, a code outside its ISO list, a
 * negative weight, price or quantity, a loss percentage outside 0..100 are refused on ADD and
 * UPDATE over REST, on GraphQL's writes and by an import, naming the field, and nothing is written; the values
 * the rules allow go through. Registry-driven: every attribute with a rule.
 */
import { describe, expect, it } from 'vitest';
import { withCheckDigit } from '../../src/data/formats.ts';
import { attributeField, typeName } from '../../src/resources/names.ts';
import { importData } from '../../src/transfer/import.ts';
import { fromFlat } from '../../src/transfer/records.ts';
import type { ImportSource } from '../../src/transfer/sources.ts';
import { resources } from '../../src/resources/registry.ts';
import type { Attribute } from '../../src/resources/types.ts';
import { providers } from '../support/databases.ts';
import { expectShapeB, restSuite } from './support.ts';

/** A valid GS1 number with its check digit changed. */
const wrongCheckDigit = (digits: string) => {
  const valid = withCheckDigit(digits);
  return valid.slice(0, -1) + String((Number(valid.at(-1)) + 1) % 10);
};

/** Values each rule refuses, and values it takes. */
function cases(attribute: Attribute): { bad: unknown[]; good: unknown[] } {
  switch (attribute.format) {
    case 'gtin':
      return {
        bad: [wrongCheckDigit('400638133393'), '12345', 'ABCDEFGHIJKLM', '123456789012345', '4006381 33393'],
        good: [withCheckDigit('9638507'), withCheckDigit('03600029145'), withCheckDigit('1400638133393')],
      };
    case 'gln':
      return {
        bad: [wrongCheckDigit('541234500001'), '541234500001', '54123450000123'],
        good: [withCheckDigit('541234500009')],
      };
    case 'email':
      return { bad: ['not an address', 'sales@', '@example.com', 'a@b'], good: ['sales@example.be'] };
    case 'country':
      return { bad: ['XX', 'be', 'BEL', 'B'], good: ['NL', 'LU'] };
    case 'language':
      return { bad: ['xx', 'NL', 'nld'], good: [] };
    case 'currency':
      return { bad: ['XYZ', 'eur', 'EURO'], good: [] };
    case undefined:
      break;
  }
  if (attribute.maximum !== undefined) return { bad: [-1, 100.5, 250], good: [0, 12.5, 100] };
  if (attribute.exclusiveMinimum !== undefined) return { bad: [0, -3], good: [0.001] };
  return { bad: [-1, -0.001], good: [0, 3.25] };
}

const RULED = resources.flatMap((r) =>
  Object.entries(r.attributes)
    .filter(
      ([, a]) =>
        a.write === 'client' &&
        (a.format !== undefined ||
          a.minimum !== undefined ||
          a.exclusiveMinimum !== undefined ||
          a.maximum !== undefined),
    )
    .map(([name, a]) => [`${r.type}.${name}`, r, name, a] as const),
);

describe.each(providers)('clean data on %s', (provider) => {
  const api = restSuite(provider);

  it('covers the rules the data-in contract names', () => {
    expect(RULED.map(([label]) => label)).toEqual(
      expect.arrayContaining([
        'products.gtin',
        'suppliers.gln',
        'suppliers.email',
        'customers.email',
        'addresses.country_code',
        'languages.alpha_2_code',
        'currencies.alpha_3_code',
        'products.consumer_price',
        'products.net_weight_in_kilogram',
        'product_structure_items.net_quantity',
        'product_structure_items.loss_percentage',
        'product_structures.quantity',
      ]),
    );
  });

  it.each(RULED)(
    '%s: REST ADD and UPDATE refuse what the rule does not allow, naming it',
    async (_l, resource, name, attribute) => {
      const type = resource.type;
      const addable = !resource.forbidden?.operations.includes('add') && resource.operations.includes('add');
      const existing = addable
        ? await api.create(type)
        : (await api.ok('GET', `/${type}/${(await api.ids(type, 1))[0]}`)).data;
      const before = await api.count(type);
      for (const bad of cases(attribute).bad) {
        const what = `${name} = ${JSON.stringify(bad)}`;
        if (addable) {
          const add = await api.post(`/${type}`, await api.addBody(type, { attributes: { [name]: bad } }));
          expectShapeB(add, 400, 'invalid_attribute', `ADD ${what}`);
          expect(add.body.error.message, what).toMatch(new RegExp(`^${name} `));
        }
        const update = await api.patch(`/${type}/${existing.id}`, { data: { type, attributes: { [name]: bad } } });
        expectShapeB(update, 400, 'invalid_attribute', `UPDATE ${what}`);
        expect(update.body.error.message, what).toMatch(new RegExp(`^${name} `));
      }
      expect(await api.count(type)).toBe(before);
      const stored = await api.ok('GET', `/${type}/${existing.id}`);
      expect(stored.data.attributes[name]).toEqual(existing.attributes[name]);
      expect(stored.data.meta.version).toBe(existing.meta.version);
      for (const good of cases(attribute).good) {
        const update = await api.patch(`/${type}/${existing.id}`, { data: { type, attributes: { [name]: good } } });
        expect(update.status, `${name} = ${JSON.stringify(good)}: ${update.text}`).toBe(200);
      }
    },
  );

  it.each(RULED)(
    '%s: an import refuses it too, naming the record and field, and writes nothing',
    async (_l, resource, name, attribute) => {
      const type = resource.type;
      const id = (await api.ids(type, 1))[0]!;
      const stored = (await api.ok('GET', `/${type}/${id}`)).data;
      const entries = await api.prisma.change.count();
      for (const bad of cases(attribute).bad) {
        // The resource as a source holds it, with the bad value: every link as the document shows it.
        const flat: Record<string, unknown> = { id, ...stored.attributes, [name]: bad };
        for (const [rel, { data }] of Object.entries(stored.relationships as Record<string, { data: any }>)) {
          const storage = resource.relationships[rel]!.storage.kind;
          if (storage === 'foreignKey') flat[`${rel}_id`] = data?.id ?? null;
          if (storage === 'join') flat[`${rel}_ids`] = data.map((d: { id: number }) => d.id);
        }
        for (const [owner, link] of Object.entries(resource.ownerLinks ?? {}))
          flat[`${owner}_id`] = (await api.prisma[resource.model].findUnique({ where: { id } }))[link.column];
        const source: ImportSource = {
          name: 'test',
          types: [type],
          keyed: false,
          total: async () => 1,
          async *pages() {
            yield { records: [fromFlat(type, flat)], places: ['test:1'] };
          },
        };
        const summary = await importData(api.env.database.db, source);
        const what = `${name} = ${JSON.stringify(bad)}`;
        expect(
          summary.problems.map((p) => [p.type, p.id, p.field]),
          what,
        ).toEqual([[type, id, name]]);
        expect(summary.problems[0]!.message, what).toMatch(new RegExp(`^${name} `));
      }
      expect(await api.prisma.change.count()).toBe(entries);
      expect((await api.ok('GET', `/${type}/${id}`)).data).toEqual(stored);
    },
  );

  it('a value stored before the rules may be sent back as it is, and the row stays writable; another bad value may not', async () => {
    const product = await api.create('products');
    await api.prisma.product.update({ where: { id: product.id }, data: { gtin: '4006381333932' } });
    const stored = await api.ok('GET', `/products/${product.id}`);
    const sentBack = await api.patch(`/products/${product.id}`, {
      data: { ...stored.data, attributes: { ...stored.data.attributes, nlc: 4 } },
    });
    expect(sentBack.status, sentBack.text).toBe(200);
    expect(sentBack.body.data.attributes).toMatchObject({ gtin: '4006381333932', nlc: 4 });
    const other = await api.patch(`/products/${product.id}`, {
      data: { type: 'products', attributes: { gtin: '4006381333933' } },
    });
    expectShapeB(other, 400, 'invalid_attribute');
  });

  it.each(RULED.filter(([, r]) => !r.forbidden?.operations.includes('add')))(
    '%s: GraphQL update refuses it the same way',
    async (_l, resource, name, attribute) => {
      const existing = await api.create(resource.type);
      const field = attributeField(resource, name, attribute.column);
      const mutation = `mutation($id: Int!, $input: Update${typeName(resource.type)}Input!) { update${typeName(resource.type)}(id: $id, input: $input) { id } }`;
      for (const bad of cases(attribute).bad) {
        const res = await api.env.gql(mutation, { id: existing.id, input: { [field]: bad } });
        const [error] = res.body.errors ?? [];
        expect(error?.extensions?.code, JSON.stringify(res.body)).toBe('BAD_USER_INPUT');
        expect(error!.message).toMatch(new RegExp(`^${field} `));
      }
    },
  );

  it('GraphQL structure items: a loss percentage over 100 or a negative quantity is refused, naming the item', async () => {
    const [product, component] = await api.ids('products', 2);
    const created = await api.env.gql(
      'mutation($p: Int!, $c: Int!) { createProductStructure(productId: $p, input: { quantity: "10", items: [{ productId: $c, netQuantity: "1" }] }) { id version } }',
      { p: (await api.create('products')).id, c: component },
    );
    const structure = created.body.data?.createProductStructure;
    expect(structure, JSON.stringify(created.body)).toBeTruthy();
    for (const [item, message] of [
      [{ productId: product, lossPercentage: '101' }, /^items\[1\]\.lossPercentage must be from 0 to 100/],
      [{ productId: product, grossQuantity: '-2' }, /^items\[1\]\.grossQuantity must not be negative/],
    ] as const) {
      const res = await api.env.gql(
        'mutation($s: Int!, $items: [ProductStructureItemInput!]!) { addProductStructureItems(structureId: $s, items: $items) { version } }',
        { s: structure.id, items: [{ productId: component, netQuantity: '2' }, item] },
      );
      const [error] = res.body.errors ?? [];
      expect(error?.extensions?.code, JSON.stringify(res.body)).toBe('BAD_USER_INPUT');
      expect(error!.message).toMatch(message);
    }
    const after = await api.ok('GET', `/product_structures/${structure.id}`);
    expect(after.data.meta.version).toBe(structure.version);
  });
});
