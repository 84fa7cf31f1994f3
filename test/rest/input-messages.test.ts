/**
 * Values of the wrong type or out of range inside nested inputs (localized text, small objects
 * such as `shelf_life`, relationship identifiers) are 400s whose message names the field, by its
 * path in the body, and what it must be: never a generic "Invalid input", nor words about the
 * attribute's own type where a field inside it is at fault. Nothing is written.
 *
 * Numbers a client computed in floating point: a JSON number is a double, read at the 15
 * significant digits it holds (JavaScript's and PHP's 1 + 0.03 + 1 is 2.0300000000000002, which
 * goes in as 2.03), the same on every write path (REST ADD and UPDATE, `/operations`, a
 * structure's items, GraphQL variables and number literals, bulk mutations and upserts) and in a
 * filter's operands; what is stored is what the answer says. Text (GraphQL's Decimal takes a
 * numeric string) is exact: more digits are refused. A double with more than the 30 digits after
 * the point a column keeps is rounded to 30; text with more is refused.
 */
import { describe, expect, it } from 'vitest';
import { providers } from '../support/databases.ts';
import { Decimal } from '../../src/db/decimal.ts';
import { expectShapeB, restSuite } from './support.ts';

type Case = [what: string, attributes: Record<string, unknown>, message: string];

const PRODUCT_CASES: Case[] = [
  ['a number in localized text', { name: { en: 5 } }, 'name.en must be a string (got 5)'],
  ['text for localized text', { name: 'Bread' }, 'name must be an object with keys nl, fr, en, de (got "Bread")'],
  ['an unknown language', { name: { es: 'Pan' } }, 'name has no "es": its keys are nl, fr, en, de'],
  [
    'too long a text',
    { name: { fr: 'x'.repeat(4001) } },
    'name.fr must be at most 4000 characters (got a string of 4001 characters)',
  ],
  ['true for a decimal in an object', { shelf_life: { value: true } }, 'shelf_life.value must be a number (got true)'],
  [
    'an object for a decimal in an object',
    { shelf_life: { value: {} } },
    'shelf_life.value must be a number (got an object)',
  ],
  ['a number for text in an object', { shelf_life: { interval: 5 } }, 'shelf_life.interval must be a string (got 5)'],
  ['a number for an object', { shelf_life: 7 }, 'shelf_life must be an object (got 7)'],
  [
    'an unknown field of an object',
    { shelf_life: { days: 7 } },
    'shelf_life has no "days": its keys are value, interval',
  ],
  ['a decimal past what is stored', { shelf_life: { value: 1e300 } }, 'shelf_life.value is out of range'],
  ['a list for a decimal', { consumer_price: [1] }, 'consumer_price must be a number (got a list of 1 item)'],
];

const ATOMIC = 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"';

/** What clients compute: each is a double whose shortest form has 16 or 17 significant digits. */
const PRICE = 1 + 0.03 + 1; // 2.0300000000000002
const NLC = 0.1 + 0.2; // 0.30000000000000004
const SHELF = 1.1 * 3; // 3.3000000000000003
/** 1.23456789012345e-20: 15 significant digits, 34 after the point; the column keeps 30. */
const TINY = 1.23456789012345e-20;
const TINY_STORED = '0.000000000000000000012345678901';

/** A stored decimal (Prisma's Decimal, which may print an exponent) in plain notation, without trailing zeros. */
const plain = (value: unknown) => new Decimal(String(value)).toFixed();

describe.each(providers)('messages of bad nested input on %s', (provider) => {
  const api = restSuite(provider);

  it.each(PRODUCT_CASES)('%s: 400 invalid_attribute, naming it', async (_what, attributes, message) => {
    const product = await api.create('products');
    const res = await api.patch(`/products/${product.id}`, { data: { type: 'products', attributes } });
    expectShapeB(res, 400, 'invalid_attribute');
    expect(res.body.error.message).toContain(message);
    expect((await api.get(`/products/${product.id}`)).body.data.meta.version).toBe(1);
  });

  it('an object nested thousands deep is said without being written out', async () => {
    const product = await api.create('products');
    const deep = `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`;
    const res = await api.request('PATCH', `/products/${product.id}`, {
      raw: `{"data":{"type":"products","attributes":{"name":${deep}}}}`,
    });
    expectShapeB(res, 400, 'invalid_attribute');
    expect(res.body.error.message).toBe('name has no "a": its keys are nl, fr, en, de');
  });

  it('an integer attribute out of range says the range and what it got', async () => {
    const group = await api.create('product_groups');
    const res = await api.patch(`/product_groups/${group.id}`, {
      data: { type: 'product_groups', attributes: { inform_days_bbd: 1.5 } },
    });
    expectShapeB(res, 400, 'invalid_attribute');
    expect(res.body.error.message).toBe('inform_days_bbd must be an integer (got 1.5)');
    const big = await api.patch(`/product_groups/${group.id}`, {
      data: { type: 'product_groups', attributes: { inform_days_bbd: 2 ** 31 } },
    });
    expect(big.body.error.message).toBe(
      'inform_days_bbd must be an integer from -2147483648 to 2147483647 (got 2147483648)',
    );
  });

  it.each([
    [
      { type: 'units', id: true },
      'data.relationships.unit.data.id must be a whole number from 1 to 2147483647 (got true)',
    ],
    [{ type: 'units', id: 0 }, 'data.relationships.unit.data.id must be a whole number from 1 to 2147483647 (got 0)'],
    ['units', 'data.relationships.unit.data must be a resource identifier'],
  ])('a relationship identifier %j: 400 invalid_relationship naming its path', async (data, message) => {
    const product = await api.create('products');
    const res = await api.patch(`/products/${product.id}`, {
      data: { type: 'products', relationships: { unit: { data } } },
    });
    expectShapeB(res, 400, 'invalid_relationship');
    expect(res.body.error.message).toContain(message);
  });

  it('a JSON number past a double (1e400) is out of range, in the words GraphQL says it in', async () => {
    const product = await api.create('products');
    const rest = await api.request('PATCH', `/products/${product.id}`, {
      raw: '{"data":{"type":"products","attributes":{"nlc":1e400}}}',
    });
    expectShapeB(rest, 400, 'invalid_attribute');
    const range = 'is out of range (at most 35 digits before and 30 after the point; got ';
    expect(rest.body.error.message).toBe(`nlc ${range}Infinity)`);
    const gql = await api.env.gql(`mutation { updateProduct(id: ${product.id}, input: { nlc: 1e400 }) { id } }`);
    expect(gql.body.errors?.[0]?.message).toContain(`${range}1e400)`);
    expect((await api.get(`/products/${product.id}`)).body.data.meta.version).toBe(1);
  });

  it('a long value is quoted in a message by its first 40 characters, not whole', async () => {
    const long = `${'1'.repeat(10_000)}x`;
    const cut = `"${'1'.repeat(40)}..."`;
    for (const path of [`/products?gtin=${long}`, `/products?page=${long}`, `/products?include=${long}`]) {
      const res = await api.request('GET', path);
      expectShapeB(res, 400, 'invalid_parameter');
      expect(res.body.error.message).toContain(cut);
      expect(res.body.error.message.length).toBeLessThan(300);
    }
    // A parameter's name too: it is not a value, but a client sent it.
    const named = await api.request('GET', `/products?${'q'.repeat(10_000)}=1`);
    expectShapeB(named, 400, 'invalid_parameter');
    expect(named.body.error.message).toBe(`unknown query parameter ${'q'.repeat(40)}...`);
    const product = await api.create('products');
    const body = await api.patch(`/products/${product.id}`, {
      data: { type: 'products', attributes: { consumer_price: long } },
    });
    expectShapeB(body, 400, 'invalid_attribute');
    expect(body.body.error.message).toBe(
      `data.attributes.consumer_price must be a JSON number (got the string ${cut})`,
    );
    const digits = await api.env.gql(
      `mutation($v: Decimal) { updateProduct(id: ${product.id}, input: { nlc: $v }) { id } }`,
      { v: long.slice(0, -1) },
    );
    const [error] = digits.body.errors ?? [];
    expect(error?.message).toContain(`at most 15 significant digits (got ${'1'.repeat(40)}...)`);
    expect(error!.message.length).toBeLessThan(300);
  });

  describe('numbers computed in floating point', () => {
    const gql = (query: string, variables?: Record<string, unknown>) => api.env.gql(query, variables);

    /** The product's decimals as stored, as decimal text. */
    async function stored(id: number) {
      const row = await api.prisma.product.findUniqueOrThrow({ where: { id } });
      const text = (value: unknown) => (value === null ? null : plain(value));
      return {
        consumer_price: text(row.consumer_price),
        nlc: text(row.nlc),
        shelf_life_value: text(row.shelf_life_value),
      };
    }

    it('REST ADD and UPDATE read each number at 15 significant digits, store it so and answer it', async () => {
      expect(String(PRICE)).toBe('2.0300000000000002');
      const body = await api.addBody('products', {
        attributes: { consumer_price: PRICE, nlc: NLC, shelf_life: { value: SHELF, interval: 'Days' } },
      });
      const created = await api.ok('POST', '/products', body, 201);
      expect(created.data.attributes).toMatchObject({ consumer_price: 2.03, nlc: 0.3, shelf_life: { value: 3.3 } });
      expect(await stored(created.data.id)).toEqual({ consumer_price: '2.03', nlc: '0.3', shelf_life_value: '3.3' });

      const updated = await api.ok('PATCH', `/products/${created.data.id}`, {
        data: { type: 'products', attributes: { consumer_price: 0.7 * 3, nlc: TINY } },
      });
      expect(updated.data.attributes).toMatchObject({ consumer_price: 2.1, nlc: Number(TINY_STORED) });
      expect(await stored(created.data.id)).toMatchObject({ consumer_price: '2.1', nlc: TINY_STORED });
      expect((await api.ok('GET', `/products/${created.data.id}`)).data.attributes.nlc).toBe(Number(TINY_STORED));
    });

    it('/operations and a structure’s items read them the same way', async () => {
      const reference = api.unique('F');
      const res = await api.post(
        '/operations',
        {
          'atomic:operations': [
            {
              op: 'add',
              data: {
                type: 'products',
                lid: 'p',
                attributes: { reference, consumer_price: PRICE },
                relationships: { unit: { data: { type: 'units', id: 1 } } },
              },
            },
            { op: 'update', data: { type: 'products', lid: 'p', attributes: { nlc: NLC } } },
          ],
        },
        { contentType: ATOMIC },
      );
      expect(res.status, res.text).toBe(200);
      const [, updated] = res.body['atomic:results'];
      expect(updated.data.attributes).toMatchObject({ consumer_price: 2.03, nlc: 0.3 });
      expect(await stored(updated.data.id)).toMatchObject({ consumer_price: '2.03', nlc: '0.3' });

      const product = await api.create('products');
      const [part] = await api.ids('products', 1);
      const structure = await api.createStructure(product.id, [await api.itemObject(part!)]);
      const items = await api.ok(
        'POST',
        `/product_structures/${structure.data.id}/items`,
        { data: [await api.itemObject(part!, { net_quantity: NLC, gross_quantity: SHELF })] },
        201,
      );
      const item = items.included.at(-1);
      expect(item.attributes).toMatchObject({ net_quantity: 0.3, gross_quantity: 3.3 });
      const row = await api.prisma.productStructureItem.findUniqueOrThrow({ where: { id: item.id } });
      expect([plain(row.net_quantity), plain(row.gross_quantity)]).toEqual(['0.3', '3.3']);
    });

    it('GraphQL: a number variable and a number literal alike; a string keeps the strict check', async () => {
      const create = (fields: string, variables?: Record<string, unknown>) =>
        gql(
          `mutation${variables ? '($v: Decimal)' : ''} { createProduct(input: { reference: "${api.unique('G')}", unitId: 1, ${fields} }) { id consumerPrice } }`,
          variables,
        );
      for (const res of [await create('consumerPrice: $v', { v: PRICE }), await create(`consumerPrice: ${PRICE}`)]) {
        expect(res.body.errors, JSON.stringify(res.body)).toBeUndefined();
        const { id, consumerPrice } = res.body.data!.createProduct;
        expect(consumerPrice).toBe(2.03);
        expect((await stored(id)).consumer_price).toBe('2.03');
      }
      const text = await create('consumerPrice: $v', { v: String(PRICE) });
      expect(text.body.errors?.[0]?.message).toMatch(/at most 15 significant digits \(got 2\.0300000000000002\)/);
      const places = await create('consumerPrice: $v', { v: `0.${'0'.repeat(30)}1` });
      expect(places.body.errors?.[0]?.message).toMatch(/is out of range \(at most 35 digits before and 30 after/);
      const tiny = await create('consumerPrice: $v', { v: TINY });
      expect(tiny.body.data?.createProduct.consumerPrice, JSON.stringify(tiny.body)).toBe(Number(TINY_STORED));
      expect((await stored(tiny.body.data!.createProduct.id)).consumer_price).toBe(TINY_STORED);
    });

    it('GraphQL bulk mutations and upserts, and a filter’s operand', async () => {
      const [a, b] = [api.unique('H'), api.unique('H')];
      const created = await gql(
        'mutation($inputs: [CreateProductInput!]!) { createProducts(inputs: $inputs) { id consumerPrice nlc } }',
        {
          inputs: [
            { reference: a, unitId: 1, consumerPrice: PRICE },
            { reference: b, unitId: 1, nlc: NLC },
          ],
        },
      );
      expect(created.body.errors, JSON.stringify(created.body)).toBeUndefined();
      expect(created.body.data!.createProducts.map((p: any) => [p.consumerPrice, p.nlc])).toEqual([
        [2.03, null],
        [null, 0.3],
      ]);
      const upserted = await gql(
        'mutation($inputs: [CreateProductInput!]!) { upsertProducts(inputs: $inputs) { outcome product { id consumerPrice } } }',
        {
          inputs: [
            { reference: a, unitId: 1, consumerPrice: PRICE },
            { reference: b, unitId: 1, consumerPrice: SHELF },
          ],
        },
      );
      expect(upserted.body.errors, JSON.stringify(upserted.body)).toBeUndefined();
      // The first is as stored (2.03): unchanged, not a new version.
      expect(upserted.body.data!.upsertProducts.map((r: any) => [r.outcome, r.product.consumerPrice])).toEqual([
        ['UNCHANGED', 2.03],
        ['UPDATED', 3.3],
      ]);
      const found = await gql(
        'query($v: Decimal) { products(where: { consumerPrice: { equals: $v } }) { nodes { reference } } }',
        { v: PRICE },
      );
      expect(found.body.data?.products.nodes, JSON.stringify(found.body)).toContainEqual({ reference: a });
    });

    it('REST still refuses a decimal given as text, and a number past what a column holds', async () => {
      const product = await api.create('products');
      const text = await api.patch(`/products/${product.id}`, {
        data: { type: 'products', attributes: { consumer_price: '2.03' } },
      });
      expectShapeB(text, 400, 'invalid_attribute');
      const huge = await api.patch(`/products/${product.id}`, {
        data: { type: 'products', attributes: { consumer_price: 1e35 } },
      });
      expectShapeB(huge, 400, 'invalid_attribute');
      expect(huge.body.error.message).toMatch(/^consumer_price is out of range/);
    });
  });
});
