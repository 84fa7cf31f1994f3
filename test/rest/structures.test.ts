/**
 * Bills of material over REST (rest.md "Product structure items", "Paths and methods"): a
 * structure is added through its product, items through their structure; replacing the items
 * takes full item objects and deletes the old ones, removing deletes; cycles are refused with
 * 409 bom_cycle; a second structure for a product is 409 conflict. Every refused write leaves
 * the bills of material as they were.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { providers } from '../support/databases.ts';
import {
  BASE,
  expectIncluded,
  expectResource,
  expectShapeA,
  expectShapeB,
  expectStatus,
  identifier,
  JSON_UTF8,
  MISSING_ID,
  restSuite,
  sortIds,
} from './support.ts';

describe.each(providers)('REST product structures on %s', (provider) => {
  const api = restSuite(provider);
  let raw: number[];
  beforeAll(async () => {
    raw = await api.ids('products', 5);
  });

  const structureBody = async (items: unknown[], quantity: unknown = 10) => ({
    data: { type: 'product_structures', attributes: { quantity }, relationships: { items: { data: items } } },
  });

  /** The item ids of a structure as the database holds them. */
  const itemsOf = async (structure: number) =>
    api.ids('product_structure_items', 1000, { product_structure_id: structure });

  /** Runs a refused write and proves no structure or item was added, changed or deleted. */
  async function nothingChanges(write: () => Promise<void>): Promise<void> {
    const snapshot = () =>
      Promise.all([
        api.prisma.productStructure.findMany({ orderBy: { id: 'asc' } }),
        api.prisma.productStructureItem.findMany({ orderBy: { id: 'asc' } }),
      ]);
    const before = await snapshot();
    await write();
    expect(await snapshot()).toEqual(before);
  }

  /** A new product with a structure holding the given products; returns both ids. */
  async function withStructure(components: number[]): Promise<{ product: number; structure: number }> {
    const product = (await api.create('products')).id;
    const items = await Promise.all(components.map((c) => api.itemObject(c)));
    const res = await api.ok('POST', `/products/${product}/product_structure`, await structureBody(items), 201);
    return { product, structure: res.data.id };
  }

  describe('POST /products/{id}/product_structure', () => {
    it('201 {data: structure, included: its items}; the product now links to it', async () => {
      const product = (await api.create('products')).id;
      const items = [
        await api.itemObject(raw[0]!, {
          net_quantity: 0.1,
          gross_quantity: 0.3,
          loss_percentage: 2.5,
          is_phantom: true,
        }),
        await api.itemObject(raw[1]!),
      ];
      const res = await api.post(`/products/${product}/product_structure`, await structureBody(items, 12.5));
      expectStatus(res, 201);
      expect(res.headers.get('content-type')).toBe(JSON_UTF8);
      expect(Object.keys(res.body).sort()).toEqual(['data', 'included']);
      const structure = res.body.data;
      expectResource(structure, 'product_structures');
      expect(structure.attributes.quantity).toBe(12.5);
      expect(structure.relationships.items.data).toHaveLength(2);
      expectIncluded(res.body.included, 'product_structures', [structure], ['items']);
      const first = res.body.included.find((i: any) => i.relationships.product.data.id === raw[0]);
      expect(first.attributes).toMatchObject({
        net_quantity: 0.1,
        gross_quantity: 0.3,
        loss_percentage: 2.5,
        is_phantom: true,
      });
      expect(first.relationships.unit.data).toEqual(items[0].relationships.unit.data);
      expect(first.relationships.type.data).toEqual(items[0].relationships.type.data);
      expect(first.relationships.calculation_method.data).toEqual(items[0].relationships.calculation_method.data);
      const link = await api.ok('GET', `/products/${product}/relationships/product_structure`);
      expect(link.data).toEqual(identifier('product_structures', structure.id));
      expect((await api.ok('GET', `/products/${product}/product_structure`)).data).toEqual(structure);
      if (res.headers.get('location') !== null)
        expect(res.headers.get('location')).toBe(`${BASE}/product_structures/${structure.id}`);
    });

    it('without items: 201 with an empty items relationship', async () => {
      const product = (await api.create('products')).id;
      const res = await api.post(`/products/${product}/product_structure`, {
        data: { type: 'product_structures', attributes: { quantity: 1 } },
      });
      expectStatus(res, 201);
      expect(res.body.data.relationships.items.data).toEqual([]);
      expect(res.body.included).toEqual([]);
    });

    it('a second structure for the product: 409 conflict, nothing written', async () => {
      const { product } = await withStructure([raw[0]!]);
      await nothingChanges(async () => {
        expectShapeB(
          await api.post(
            `/products/${product}/product_structure`,
            await structureBody([await api.itemObject(raw[1]!)]),
          ),
          409,
          'conflict',
        );
      });
      // A seeded product with a structure too.
      const seeded = await api.prisma.productStructure.findFirst({ orderBy: { id: 'asc' } });
      await nothingChanges(async () => {
        expectShapeB(
          await api.post(`/products/${seeded.product_id}/product_structure`, await structureBody([])),
          409,
          'conflict',
        );
      });
    });

    it('a missing product: 404 shape A; a missing item product or unit: 404 naming it; nothing written', async () => {
      await nothingChanges(async () => {
        expectShapeA(
          await api.post(`/products/${MISSING_ID}/product_structure`, await structureBody([])),
          'products',
          MISSING_ID,
        );
      });
      const product = (await api.create('products')).id;
      await nothingChanges(async () => {
        const res = await api.post(
          `/products/${product}/product_structure`,
          await structureBody([await api.itemObject(raw[0]!), await api.itemObject(MISSING_ID)]),
        );
        expectShapeA(res, 'products', MISSING_ID);
        const item = await api.itemObject(raw[0]!);
        item.relationships.unit.data.id = MISSING_ID;
        expectShapeA(
          await api.post(`/products/${product}/product_structure`, await structureBody([item])),
          'units',
          MISSING_ID,
        );
      });
      expect((await api.ok('GET', `/products/${product}/relationships/product_structure`)).data).toBeNull();
    });

    it('invalid values: quantity 0 or negative 400 invalid_attribute, wrong types 409, an item without product 400; nothing written', async () => {
      const product = (await api.create('products')).id;
      await nothingChanges(async () => {
        for (const quantity of [0, -1, 'ten']) {
          expectShapeB(
            await api.post(`/products/${product}/product_structure`, await structureBody([], quantity)),
            400,
            'invalid_attribute',
            `quantity ${quantity}`,
          );
        }
        const wrongType = await structureBody([]);
        wrongType.data.type = 'products';
        expectShapeB(await api.post(`/products/${product}/product_structure`, wrongType), 409, 'type_mismatch');
        const item = await api.itemObject(raw[0]!);
        item.type = 'products';
        expectShapeB(
          await api.post(`/products/${product}/product_structure`, await structureBody([item])),
          409,
          'type_mismatch',
        );
        const noProduct = await api.itemObject(raw[0]!);
        delete noProduct.relationships.product;
        expectShapeB(
          await api.post(`/products/${product}/product_structure`, await structureBody([noProduct])),
          400,
          'missing_field',
        );
        const unknown = await api.itemObject(raw[0]!, { colour: 'red' });
        expectShapeB(
          await api.post(`/products/${product}/product_structure`, await structureBody([unknown])),
          400,
          'unknown_field',
        );
      });
    });

    it('an item of the product itself: 409 bom_cycle, nothing written', async () => {
      const product = (await api.create('products')).id;
      await nothingChanges(async () => {
        expectShapeB(
          await api.post(
            `/products/${product}/product_structure`,
            await structureBody([await api.itemObject(raw[0]!), await api.itemObject(product)]),
          ),
          409,
          'bom_cycle',
        );
      });
    });

    it('an item whose structure contains the product at any depth: 409 bom_cycle', async () => {
      const top = (await api.create('products')).id;
      const middle = await withStructure([top]);
      const upper = await withStructure([middle.product]);
      await nothingChanges(async () => {
        expectShapeB(
          await api.post(
            `/products/${top}/product_structure`,
            await structureBody([await api.itemObject(upper.product)]),
          ),
          409,
          'bom_cycle',
        );
        expectShapeB(
          await api.post(
            `/products/${top}/product_structure`,
            await structureBody([await api.itemObject(middle.product)]),
          ),
          409,
          'bom_cycle',
        );
      });
    });
  });

  describe('POST /product_structures/{id}/items', () => {
    it('201 {links, data: identifiers of all items, included: all items}; existing items kept', async () => {
      const { structure } = await withStructure([raw[0]!]);
      const before = await itemsOf(structure);
      const res = await api.post(`/product_structures/${structure}/items`, {
        data: [await api.itemObject(raw[1]!, { net_quantity: 0.7 }), await api.itemObject(raw[2]!)],
      });
      expectStatus(res, 201);
      expect(res.headers.get('content-type')).toBe(JSON_UTF8);
      expect(res.body.links).toEqual({
        self: `${BASE}/product_structures/${structure}/relationships/items`,
        related: `${BASE}/product_structures/${structure}/items`,
      });
      const after = await itemsOf(structure);
      expect(after).toHaveLength(3);
      expect(after).toEqual(expect.arrayContaining(before));
      expect(sortIds(res.body.data)).toEqual(after);
      expect(res.body.data.every((d: any) => d.type === 'product_structure_items')).toBe(true);
      expectIncluded(
        res.body.included,
        'product_structures',
        [{ id: structure, relationships: { items: { data: res.body.data } } }],
        ['items'],
      );
      expect(
        res.body.included.find((i: any) => i.relationships.product.data.id === raw[1]).attributes.net_quantity,
      ).toBe(0.7);
    });

    it("the items' products, units and types are checked together: each further item costs only its INSERT", async () => {
      const statements = async (count: number) => {
        const { structure } = await withStructure([raw[0]!]);
        const items = await Promise.all(raw.slice(0, count).map((p) => api.itemObject(p)));
        const before = api.env.database.db.statementCount;
        expectStatus(await api.post(`/product_structures/${structure}/items`, { data: items }), 201);
        return api.env.database.db.statementCount - before;
      };
      expect(await statements(5)).toBe((await statements(1)) + 4);
    });

    it('a missing structure: 404 shape A; a missing product: 404 naming it; a cycle: 409 bom_cycle; nothing written', async () => {
      const { product, structure } = await withStructure([raw[0]!]);
      const parent = await withStructure([product]);
      await nothingChanges(async () => {
        expectShapeA(
          await api.post(`/product_structures/${MISSING_ID}/items`, { data: [await api.itemObject(raw[1]!)] }),
          'product_structures',
          MISSING_ID,
        );
        expectShapeA(
          await api.post(`/product_structures/${structure}/items`, {
            data: [await api.itemObject(raw[1]!), await api.itemObject(MISSING_ID)],
          }),
          'products',
          MISSING_ID,
        );
        expectShapeB(
          await api.post(`/product_structures/${structure}/items`, {
            data: [await api.itemObject(raw[1]!), await api.itemObject(product)],
          }),
          409,
          'bom_cycle',
        );
        expectShapeB(
          await api.post(`/product_structures/${structure}/items`, {
            data: [await api.itemObject(raw[1]!), await api.itemObject(parent.product)],
          }),
          409,
          'bom_cycle',
        );
        expectStatus(
          await api.post(`/product_structures/${structure}/items`, { data: { type: 'product_structure_items' } }),
          400,
        );
      });
    });
  });

  describe('cycles made by two writes at once', () => {
    it('A into B and B into A at the same time: one is refused with 409 bom_cycle', async () => {
      for (let round = 0; round < 3; round++) {
        const a = await withStructure([raw[0]!]);
        const b = await withStructure([raw[1]!]);
        const [intoA, intoB] = await Promise.all([
          api.post(`/product_structures/${a.structure}/items`, { data: [await api.itemObject(b.product)] }),
          api.patch(`/product_structures/${b.structure}/relationships/items`, {
            data: [await api.itemObject(raw[1]!), await api.itemObject(a.product)],
          }),
        ]);
        const what = `${intoA.status} ${intoA.text.slice(0, 200)} / ${intoB.status} ${intoB.text.slice(0, 200)}`;
        if (intoA.status === 409) {
          expectShapeB(intoA, 409, 'bom_cycle', what);
          expectStatus(intoB, 200, what);
        } else {
          expectStatus(intoA, 201, what);
          expectShapeB(intoB, 409, 'bom_cycle', what);
        }
      }
    });
  });

  describe('PATCH /product_structures/{id}/relationships/items (REL-REPLACE with full item objects)', () => {
    it('replaces all items: the old ones are deleted; {links, data, included: the items}', async () => {
      const { structure } = await withStructure([raw[0]!, raw[1]!]);
      const old = await itemsOf(structure);
      const count = await api.count('product_structure_items');
      const res = await api.patch(`/product_structures/${structure}/relationships/items`, {
        data: [await api.itemObject(raw[2]!), await api.itemObject(raw[3]!), await api.itemObject(raw[4]!)],
      });
      expectStatus(res, 200);
      expect(Object.keys(res.body).sort()).toEqual(['data', 'included', 'links']);
      const now = await itemsOf(structure);
      expect(now).toHaveLength(3);
      expect(now.filter((id) => old.includes(id))).toEqual([]);
      expect(sortIds(res.body.data)).toEqual(now);
      expectIncluded(
        res.body.included,
        'product_structures',
        [{ id: structure, relationships: { items: { data: res.body.data } } }],
        ['items'],
      );
      expect(res.body.included.map((i: any) => i.relationships.product.data.id).sort()).toEqual(
        [raw[2], raw[3], raw[4]].sort(),
      );
      expect(await api.count('product_structure_items')).toBe(count + 1);
      for (const id of old)
        expectShapeA(await api.get(`/product_structure_items/${id}`), 'product_structure_items', id);
    });

    it('concurrent replacements: the structure ends with the items of one of them, never a mix', async () => {
      const { structure } = await withStructure([raw[0]!, raw[1]!]);
      const bodies = await Promise.all(
        [2, 3, 4, 2].map(async (c) => ({ data: [await api.itemObject(raw[0]!), await api.itemObject(raw[c]!)] })),
      );
      const responses = await Promise.all(
        bodies.map((body) => api.patch(`/product_structures/${structure}/relationships/items`, body)),
      );
      for (const res of responses) expectStatus(res, 200);
      const now = await itemsOf(structure);
      expect(now, `items of structure ${structure} after 4 concurrent replacements of 2 items each`).toHaveLength(2);
      expect(responses.map((r) => sortIds(r.body.data))).toContainEqual(now);
    });

    it('with an empty list: no items left', async () => {
      const { structure } = await withStructure([raw[0]!]);
      const res = await api.patch(`/product_structures/${structure}/relationships/items`, { data: [] });
      expectStatus(res, 200);
      expect(res.body.data).toEqual([]);
      expect(res.body.included).toEqual([]);
      expect(await itemsOf(structure)).toEqual([]);
    });

    it('refused replacements keep the old items: missing structure or product 404, cycle 409, identifiers only 400', async () => {
      const { product, structure } = await withStructure([raw[0]!]);
      await nothingChanges(async () => {
        expectShapeA(
          await api.patch(`/product_structures/${MISSING_ID}/relationships/items`, {
            data: [await api.itemObject(raw[1]!)],
          }),
          'product_structures',
          MISSING_ID,
        );
        expectShapeA(
          await api.patch(`/product_structures/${structure}/relationships/items`, {
            data: [await api.itemObject(raw[1]!), await api.itemObject(MISSING_ID)],
          }),
          'products',
          MISSING_ID,
        );
        expectShapeB(
          await api.patch(`/product_structures/${structure}/relationships/items`, {
            data: [await api.itemObject(product)],
          }),
          409,
          'bom_cycle',
        );
        const identifiersOnly = await api.patch(`/product_structures/${structure}/relationships/items`, {
          data: [identifier('product_structure_items', (await itemsOf(structure))[0]!)],
        });
        expect(identifiersOnly.status, identifiersOnly.text).toBe(400);
      });
    });
  });

  describe('DELETE /product_structures/{id}/relationships/items (REL-REMOVE)', () => {
    it('deletes the given items; {links, data, included: the remaining items}', async () => {
      const { structure } = await withStructure([raw[0]!, raw[1]!, raw[2]!]);
      const [first, second, third] = await itemsOf(structure);
      const res = await api.delete(`/product_structures/${structure}/relationships/items`, {
        data: [identifier('product_structure_items', second!)],
      });
      expectStatus(res, 200);
      expect(res.body.links.self).toBe(`${BASE}/product_structures/${structure}/relationships/items`);
      expect(sortIds(res.body.data)).toEqual([first, third]);
      expect(sortIds(res.body.included)).toEqual([first, third]);
      expectShapeA(await api.get(`/product_structure_items/${second}`), 'product_structure_items', second);
    });

    it("an identifier not in the structure is no error and deletes nothing (not another structure's item)", async () => {
      const a = await withStructure([raw[0]!]);
      const b = await withStructure([raw[1]!]);
      const [itemOfB] = await itemsOf(b.structure);
      const res = await api.delete(`/product_structures/${a.structure}/relationships/items`, {
        data: [identifier('product_structure_items', itemOfB!), identifier('product_structure_items', MISSING_ID)],
      });
      expectStatus(res, 200);
      expect(sortIds(res.body.data)).toEqual(await itemsOf(a.structure));
      expect(await itemsOf(b.structure)).toEqual([itemOfB]);
      expectStatus(await api.get(`/product_structure_items/${itemOfB}`), 200);
    });

    it('on a missing structure: 404 shape A', async () => {
      expectShapeA(
        await api.delete(`/product_structures/${MISSING_ID}/relationships/items`, { data: [] }),
        'product_structures',
        MISSING_ID,
      );
    });
  });

  describe('UPDATE product structure', () => {
    it("answers {data, included: [items]} as the spec's operation table gives it", async () => {
      const { structure } = await withStructure([raw[0]!, raw[1]!]);
      const res = await api.patch(`/product_structures/${structure}`, {
        data: { type: 'product_structures', attributes: { quantity: 4 } },
      });
      expectStatus(res, 200);
      expect(res.body.data.attributes.quantity).toBe(4);
      expect(res.body.included, 'included items').toBeDefined();
      expectIncluded(res.body.included, 'product_structures', [res.body.data], ['items']);
    });
  });

  describe('items keep their structure', () => {
    it('an UPDATE of an item changes its values; unit and calculation_method by REL-SET', async () => {
      const { structure } = await withStructure([raw[0]!]);
      const [item] = await itemsOf(structure);
      const res = await api.patch(`/product_structure_items/${item}`, {
        data: { type: 'product_structure_items', attributes: { net_quantity: 4.25, is_phantom: true } },
      });
      expectStatus(res, 200);
      expect(res.body.data.attributes).toMatchObject({ net_quantity: 4.25, is_phantom: true });
      const [, unit] = await api.ids('units', 2);
      expectStatus(
        await api.patch(`/product_structure_items/${item}/relationships/unit`, { data: identifier('units', unit!) }),
        200,
      );
      expect((await api.ok('GET', `/product_structure_items/${item}`)).data.relationships.unit.data).toEqual(
        identifier('units', unit!),
      );
      expect(await itemsOf(structure)).toEqual([item]);
    });
  });
});
