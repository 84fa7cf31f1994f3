/**
 * GraphQL mutations of bills of material on both providers (graphql.md "Writing"; rest.md
 * "Operations that are always refused" and "Product structure items"): structures only through
 * their product, items only through their structure, the refused changes, BOM cycles at any
 * depth, and failed writes that leave nothing behind.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphqlEnv, operationExpectations, type GraphQLTestEnv } from '../support/graphql.ts';
import { providers } from '../support/databases.ts';

interface Item {
  id: number;
  netQuantity: number | null;
  product: { id: number };
  [key: string]: unknown;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const ITEM_FIELDS = `id netQuantity grossQuantity lossPercentage isPhantom isProcessingAgent skipGrainComponentCalculation modifiedDate
  product { id } unit { id } type { id } calculationMethod { id }`;
const STRUCTURE_FIELDS = `id quantity modifiedDate items { ${ITEM_FIELDS} }`;
const byId = (items: Item[]) => [...items].sort((a, b) => a.id - b.id);
const productsOf = (items: Item[]) => items.map((i) => i.product.id).sort((a, b) => a - b);

describe.each(providers)('GraphQL structure mutations on %s', (provider) => {
  let env: GraphQLTestEnv;
  const prisma = () => env.database.db.prisma;
  let counter = 0;

  const { ok, refused, notFound } = operationExpectations(() => env);

  /** A new product without a structure. */
  async function product(): Promise<number> {
    return (
      await ok(`mutation { createProduct(input: { reference: "BOM-${provider}-${++counter}", unitId: 1 }) { id } }`)
    ).createProduct.id;
  }

  /** A structure for `owner` whose items use `components`; returns the structure. */
  async function structure(owner: number, components: number[], quantity = 1): Promise<{ id: number; items: Item[] }> {
    const items = components.map((c) => `{ productId: ${c}, netQuantity: 1 }`).join(', ');
    return (
      await ok(
        `mutation { createProductStructure(productId: ${owner}, input: { quantity: ${quantity}, items: [${items}] }) { id items { id product { id } } } }`,
      )
    ).createProductStructure;
  }

  const readStructure = async (id: number) =>
    (await ok(`{ productStructure(id: ${id}) { ${STRUCTURE_FIELDS} } }`)).productStructure;
  const itemsOf = async (id: number): Promise<Item[]> => byId((await readStructure(id)).items);

  beforeAll(async () => {
    env = await graphqlEnv(provider);
  });
  afterAll(async () => env?.database.cleanup());

  describe('structures are added through their product', () => {
    it('createProductStructure: quantity and items with every field, read back and re-read (structure, product, item)', async () => {
      const owner = await product();
      const [c1, c2] = [await product(), await product()];
      const created = (
        await ok(
          `mutation($items: [ProductStructureItemInput!]) { createProductStructure(productId: ${owner}, input: { quantity: 2.5, items: $items }) { ${STRUCTURE_FIELDS} } }`,
          {
            items: [
              {
                productId: c1,
                netQuantity: 0.1,
                grossQuantity: '0.12',
                lossPercentage: 2.5,
                isPhantom: true,
                isProcessingAgent: true,
                skipGrainComponentCalculation: true,
                unitId: 2,
                typeId: 1,
                calculationMethodId: 2,
              },
              { productId: c2, netQuantity: 12345.6789 },
            ],
          },
        )
      ).createProductStructure;
      expect(created.quantity).toBe(2.5);
      const items = byId(created.items);
      expect(items).toHaveLength(2);
      expect(items[0]).toMatchObject({
        netQuantity: 0.1,
        grossQuantity: 0.12,
        lossPercentage: 2.5,
        isPhantom: true,
        isProcessingAgent: true,
        skipGrainComponentCalculation: true,
        product: { id: c1 },
        unit: { id: 2 },
        type: { id: 1 },
        calculationMethod: { id: 2 },
      });
      expect(items[1]).toMatchObject({
        netQuantity: 12345.6789,
        grossQuantity: null,
        isPhantom: false,
        product: { id: c2 },
        unit: null,
        type: null,
        calculationMethod: null,
      });

      const read = await readStructure(created.id);
      expect({ ...read, items: byId(read.items) }).toEqual({ ...created, items });
      expect(
        (await ok(`{ product(id: ${owner}) { productStructure { id quantity } } }`)).product.productStructure,
      ).toEqual({ id: created.id, quantity: 2.5 });
      expect(
        (await ok(`{ productStructureItem(id: ${items[0]!.id}) { ${ITEM_FIELDS} } }`)).productStructureItem,
      ).toEqual(items[0]);
    });

    it('quantity defaults to 1, items to none', async () => {
      const owner = await product();
      const created = (
        await ok(`mutation { createProductStructure(productId: ${owner}, input: {}) { id quantity items { id } } }`)
      ).createProductStructure;
      expect(created).toMatchObject({ quantity: 1, items: [] });
    });

    it('a second structure for the same product is CONFLICT; the first stays as it was and nothing is added', async () => {
      const owner = await product();
      const component = await product();
      const first = await structure(owner, [component]);
      const structures = await prisma().productStructure.count();
      const items = await prisma().productStructureItem.count();
      await refused(
        `mutation { createProductStructure(productId: ${owner}, input: { quantity: 5, items: [{ productId: ${await product()} }] }) { id } }`,
        undefined,
        'CONFLICT',
      );
      expect(await prisma().productStructure.count()).toBe(structures);
      expect(await prisma().productStructureItem.count()).toBe(items);
      expect(
        (await ok(`{ product(id: ${owner}) { productStructure { id quantity items { product { id } } } } }`)).product
          .productStructure,
      ).toEqual({ id: first.id, quantity: 1, items: [{ product: { id: component } }] });
    });

    it('a seeded product that has a structure: CONFLICT', async () => {
      const seeded = await prisma().productStructure.findFirstOrThrow({ select: { product_id: true } });
      await refused(
        `mutation { createProductStructure(productId: ${seeded.product_id}, input: { items: [] }) { id } }`,
        undefined,
        'CONFLICT',
      );
    });

    it('concurrent creates for the same product: exactly one structure, the others CONFLICT (never an internal error)', async () => {
      const owner = await product();
      const component = await product();
      const results = await Promise.all(
        [0, 1, 2, 3].map(() =>
          env.gql(
            `mutation { createProductStructure(productId: ${owner}, input: { items: [{ productId: ${component} }] }) { id } }`,
          ),
        ),
      );
      const codes = results.map((r) => r.body.errors?.[0]?.extensions?.code ?? 'OK').sort();
      expect(codes).toEqual(['CONFLICT', 'CONFLICT', 'CONFLICT', 'OK']);
      expect(await prisma().productStructure.count({ where: { product_id: owner } })).toBe(1);
      const structureId = (await prisma().productStructure.findUniqueOrThrow({ where: { product_id: owner } })).id;
      expect(await prisma().productStructureItem.count({ where: { product_structure_id: structureId } })).toBe(1);
    });

    it('a product that does not exist: NOT_FOUND naming it', async () => {
      await notFound(
        'mutation { createProductStructure(productId: 999999, input: { items: [] }) { id } }',
        undefined,
        /products?/i,
        999999,
      );
    });

    it('an item whose product, unit, type or calculation method does not exist: NOT_FOUND naming it; nothing written', async () => {
      const cases: [string, RegExp][] = [
        ['productId: 999991', /products?/i],
        ['productId: PRODUCT, unitId: 999992', /units?/i],
        ['productId: PRODUCT, typeId: 999993', /types?/i],
        ['productId: PRODUCT, calculationMethodId: 999994', /calculation.?methods?/i],
      ];
      for (const [fields, type] of cases) {
        const owner = await product();
        const item = fields.replace('PRODUCT', String(await product()));
        const id = Number(/9999\d\d/.exec(fields)![0]);
        await notFound(
          `mutation { createProductStructure(productId: ${owner}, input: { items: [{ ${item} }] }) { id } }`,
          undefined,
          type,
          id,
        );
        expect(await prisma().productStructure.count({ where: { product_id: owner } })).toBe(0);
      }
    });

    it('updateProductStructure changes the quantity and keeps the items', async () => {
      const owner = await product();
      const created = await structure(owner, [await product()]);
      const before = await readStructure(created.id);
      await sleep(20);
      const updated = (
        await ok(
          `mutation { updateProductStructure(id: ${created.id}, input: { quantity: "0.1" }) { ${STRUCTURE_FIELDS} } }`,
        )
      ).updateProductStructure;
      expect(updated).toEqual({ ...before, quantity: 0.1, modifiedDate: updated.modifiedDate });
      expect(Date.parse(updated.modifiedDate)).toBeGreaterThan(Date.parse(before.modifiedDate));
    });

    it('updateProductStructure with quantity: null (the schema lets it through; a structure always has a quantity) is BAD_USER_INPUT naming the field', async () => {
      const created = await structure(await product(), []);
      await refused(
        `mutation { updateProductStructure(id: ${created.id}, input: { quantity: null }) { id } }`,
        undefined,
        'BAD_USER_INPUT',
        'quantity',
      );
      expect((await readStructure(created.id)).quantity).toBe(1);
    });
  });

  describe('items change only through their structure', () => {
    it('addProductStructureItems adds and keeps the existing items', async () => {
      const [c1, c2, c3] = [await product(), await product(), await product()];
      const created = await structure(await product(), [c1]);
      const result = (
        await ok(
          `mutation { addProductStructureItems(structureId: ${created.id}, items: [{ productId: ${c2}, netQuantity: 0.5 }, { productId: ${c3} }]) { id items { id product { id } } } }`,
        )
      ).addProductStructureItems;
      expect(result.id).toBe(created.id);
      expect(productsOf(result.items)).toEqual([c1, c2, c3]);
      const items = await itemsOf(created.id);
      expect(items[0]!.id).toBe(created.items[0]!.id);
      expect(productsOf(items)).toEqual([c1, c2, c3]);
    });

    it('replaceProductStructureItems replaces all items; the old ones are deleted', async () => {
      const [c1, c2, c3] = [await product(), await product(), await product()];
      const created = await structure(await product(), [c1, c2]);
      const oldIds = created.items.map((i) => i.id);
      const result = (
        await ok(
          `mutation { replaceProductStructureItems(structureId: ${created.id}, items: [{ productId: ${c3}, netQuantity: 3 }]) { items { id netQuantity product { id } } } }`,
        )
      ).replaceProductStructureItems;
      expect(result.items).toHaveLength(1);
      expect(result.items[0]).toMatchObject({ netQuantity: 3, product: { id: c3 } });
      expect(oldIds).not.toContain(result.items[0].id);
      for (const id of oldIds)
        expect((await ok(`{ productStructureItem(id: ${id}) { id } }`)).productStructureItem).toBeNull();
      expect(await prisma().productStructureItem.count({ where: { id: { in: oldIds } } })).toBe(0);
      expect(productsOf(await itemsOf(created.id))).toEqual([c3]);
    });

    it('replaceProductStructureItems with no items empties the structure', async () => {
      const created = await structure(await product(), [await product()]);
      expect(
        (await ok(`mutation { replaceProductStructureItems(structureId: ${created.id}, items: []) { items { id } } }`))
          .replaceProductStructureItems.items,
      ).toEqual([]);
      expect(await prisma().productStructureItem.count({ where: { product_structure_id: created.id } })).toBe(0);
    });

    it("removeProductStructureItems deletes the given items; ids it does not hold are ignored, another structure's item included", async () => {
      const [c1, c2, c3] = [await product(), await product(), await product()];
      const created = await structure(await product(), [c1, c2, c3]);
      const other = await structure(await product(), [c1]);
      const [i1, i2, i3] = byId(created.items).map((i) => i.id) as [number, number, number];
      const otherItem = other.items[0]!.id;
      const result = (
        await ok(
          `mutation { removeProductStructureItems(structureId: ${created.id}, itemIds: [${i2}, 999999, ${otherItem}]) { items { id } } }`,
        )
      ).removeProductStructureItems;
      expect(result.items.map((i: { id: number }) => i.id).sort((a: number, b: number) => a - b)).toEqual([i1, i3]);
      expect(await prisma().productStructureItem.count({ where: { id: i2 } })).toBe(0);
      expect(
        (await ok(`{ productStructureItem(id: ${otherItem}) { id product { id } } }`)).productStructureItem,
      ).toEqual({ id: otherItem, product: { id: c1 } });
    });

    it('several item mutations in one document: each answer shows the items as they are after it', async () => {
      const [c1, c2, c3] = [await product(), await product(), await product()];
      const created = await structure(await product(), [c1]);
      const data = await ok(`mutation {
        a: addProductStructureItems(structureId: ${created.id}, items: [{ productId: ${c2} }]) { items { product { id } } }
        b: addProductStructureItems(structureId: ${created.id}, items: [{ productId: ${c3} }]) { items { product { id } } }
        c: replaceProductStructureItems(structureId: ${created.id}, items: [{ productId: ${c1} }]) { items { product { id } } }
      }`);
      expect(productsOf(data.a.items)).toEqual([c1, c2]);
      expect(productsOf(data.b.items)).toEqual([c1, c2, c3]);
      expect(productsOf(data.c.items)).toEqual([c1]);
    });

    it("several mutations in one document: a product's structure shows once created", async () => {
      const owner = await product();
      const c = await product();
      const data = await ok(`mutation {
        a: updateProduct(id: ${owner}, input: {}) { productStructure { id } }
        b: createProductStructure(productId: ${owner}, input: { items: [{ productId: ${c} }] }) { id }
        c: updateProduct(id: ${owner}, input: {}) { productStructure { id } }
      }`);
      expect(data.a.productStructure).toBeNull();
      expect(data.c.productStructure).toEqual({ id: data.b.id });
    });

    it('structure item operations on a structure that does not exist: NOT_FOUND', async () => {
      const c = await product();
      await notFound(
        `mutation { addProductStructureItems(structureId: 999999, items: [{ productId: ${c} }]) { id } }`,
        undefined,
        /structures?/i,
        999999,
      );
      await notFound(
        `mutation { replaceProductStructureItems(structureId: 999998, items: []) { id } }`,
        undefined,
        /structures?/i,
        999998,
      );
      await notFound(
        'mutation { removeProductStructureItems(structureId: 999997, itemIds: [1]) { id } }',
        undefined,
        /structures?/i,
        999997,
      );
      await notFound(
        'mutation { updateProductStructure(id: 999996, input: { quantity: 1 }) { id } }',
        undefined,
        /structures?/i,
        999996,
      );
      await notFound(
        'mutation { updateProductStructureItem(id: 999995, input: { netQuantity: 1 }) { id } }',
        undefined,
        /items?/i,
        999995,
      );
    });

    it('updateProductStructureItem: a partial update; unit and calculation method can be removed with null', async () => {
      const owner = await product();
      const c = await product();
      const created = (
        await ok(
          `mutation { createProductStructure(productId: ${owner}, input: { items: [{ productId: ${c}, netQuantity: 1, grossQuantity: 1.1, unitId: 2, typeId: 1, calculationMethodId: 1 }] }) { items { ${ITEM_FIELDS} } } }`,
        )
      ).createProductStructure.items[0];
      await sleep(20);
      const updated = (
        await ok(
          `mutation { updateProductStructureItem(id: ${created.id}, input: { netQuantity: 0.7, isPhantom: true }) { ${ITEM_FIELDS} } }`,
        )
      ).updateProductStructureItem;
      expect(updated).toEqual({ ...created, netQuantity: 0.7, isPhantom: true, modifiedDate: updated.modifiedDate });
      expect(Date.parse(updated.modifiedDate)).toBeGreaterThan(Date.parse(created.modifiedDate));
      const cleared = (
        await ok(
          `mutation { updateProductStructureItem(id: ${created.id}, input: { unitId: null, calculationMethodId: null }) { ${ITEM_FIELDS} } }`,
        )
      ).updateProductStructureItem;
      expect(cleared).toEqual({ ...updated, unit: null, calculationMethod: null, modifiedDate: cleared.modifiedDate });
      expect((await ok(`{ productStructureItem(id: ${created.id}) { ${ITEM_FIELDS} } }`)).productStructureItem).toEqual(
        cleared,
      );
    });

    it.each([
      ['productId', 'OTHER'],
      ['productId', 'null'],
      ['typeId', '2'],
      ['typeId', 'null'],
    ])(
      'updateProductStructureItem with %s: %s is FORBIDDEN naming the field; the item stays as it was',
      async (field, value) => {
        const c = await product();
        const created = await ok(
          `mutation { createProductStructure(productId: ${await product()}, input: { items: [{ productId: ${c}, netQuantity: 1, typeId: 1 }] }) { items { id } } }`,
        );
        const itemId = created.createProductStructure.items[0].id;
        const before = (await ok(`{ productStructureItem(id: ${itemId}) { ${ITEM_FIELDS} } }`)).productStructureItem;
        const given = value === 'OTHER' ? String(await product()) : value;
        const error = await refused(
          `mutation { updateProductStructureItem(id: ${itemId}, input: { ${field}: ${given}, netQuantity: 2 }) { id } }`,
          undefined,
          'FORBIDDEN',
          field,
        );
        expect(error.message.length).toBeGreaterThan(20);
        expect((await ok(`{ productStructureItem(id: ${itemId}) { ${ITEM_FIELDS} } }`)).productStructureItem).toEqual(
          before,
        );
      },
    );
  });

  describe('bill-of-material cycles: BOM_CYCLE', () => {
    it("an item whose product is the structure's own product, on create: nothing written", async () => {
      const owner = await product();
      const other = await product();
      await refused(
        `mutation { createProductStructure(productId: ${owner}, input: { items: [{ productId: ${other} }, { productId: ${owner} }] }) { id } }`,
        undefined,
        'BOM_CYCLE',
      );
      expect(await prisma().productStructure.count({ where: { product_id: owner } })).toBe(0);
      expect((await ok(`{ product(id: ${owner}) { productStructure { id } } }`)).product.productStructure).toBeNull();
    });

    it("an item whose product is the structure's own product, on add and on replace: the items stay as they were", async () => {
      const owner = await product();
      const c = await product();
      const created = await structure(owner, [c]);
      await refused(
        `mutation { addProductStructureItems(structureId: ${created.id}, items: [{ productId: ${owner} }]) { id } }`,
        undefined,
        'BOM_CYCLE',
      );
      await refused(
        `mutation { replaceProductStructureItems(structureId: ${created.id}, items: [{ productId: ${owner} }]) { id } }`,
        undefined,
        'BOM_CYCLE',
      );
      expect((await itemsOf(created.id)).map((i) => i.id)).toEqual(created.items.map((i) => i.id));
    });

    it("depth 2: an item whose product's structure contains the structure's product", async () => {
      // A uses B; a structure for B may not use A.
      const [a, b] = [await product(), await product()];
      await structure(a, [b]);
      await refused(
        `mutation { createProductStructure(productId: ${b}, input: { items: [{ productId: ${a} }] }) { id } }`,
        undefined,
        'BOM_CYCLE',
      );
      expect(await prisma().productStructure.count({ where: { product_id: b } })).toBe(0);
    });

    it('depth 3 and 4: the product is found however deep it sits', async () => {
      // A uses B, B uses C, C uses D.
      const [a, b, c, d] = [await product(), await product(), await product(), await product()];
      await structure(a, [b]);
      await structure(b, [c]);
      const sc = await structure(c, [d]);
      // C's structure may not use A (A -> B -> C).
      await refused(
        `mutation { addProductStructureItems(structureId: ${sc.id}, items: [{ productId: ${a} }]) { id } }`,
        undefined,
        'BOM_CYCLE',
      );
      // D's structure may not use A (A -> B -> C -> D), even beside a harmless item.
      const harmless = await product();
      await refused(
        `mutation { createProductStructure(productId: ${d}, input: { items: [{ productId: ${harmless} }, { productId: ${a} }] }) { id } }`,
        undefined,
        'BOM_CYCLE',
      );
      expect(await prisma().productStructure.count({ where: { product_id: d } })).toBe(0);
      expect(productsOf(await itemsOf(sc.id))).toEqual([d]);
    });

    it('depth 2 through replace: refused, the old items kept', async () => {
      const [a, b, c] = [await product(), await product(), await product()];
      await structure(a, [b]);
      const sb = await structure(b, [c]);
      await refused(
        `mutation { replaceProductStructureItems(structureId: ${sb.id}, items: [{ productId: ${a} }]) { id } }`,
        undefined,
        'BOM_CYCLE',
      );
      expect(productsOf(await itemsOf(sb.id))).toEqual([c]);
    });

    it('a component shared by several branches (a diamond) is not a cycle', async () => {
      // A uses B and C; B and C both use D; A may also use D directly.
      const [a, b, c, d] = [await product(), await product(), await product(), await product()];
      await structure(b, [d]);
      await structure(c, [d]);
      const sa = await structure(a, [b, c]);
      const result = (
        await ok(
          `mutation { addProductStructureItems(structureId: ${sa.id}, items: [{ productId: ${d} }, { productId: ${d} }]) { items { product { id } } } }`,
        )
      ).addProductStructureItems;
      expect(productsOf(result.items)).toEqual([b, c, d, d].sort((x, y) => x - y));
    });

    it('concurrent writes cannot close a cycle between them (A adds B while B adds A)', async () => {
      const outcomes: string[][] = [];
      for (let round = 0; round < 5; round++) {
        const [a, b] = [await product(), await product()];
        const [sa, sb] = [await structure(a, []), await structure(b, [])];
        const results = await Promise.all([
          env.gql(`mutation { addProductStructureItems(structureId: ${sa.id}, items: [{ productId: ${b} }]) { id } }`),
          env.gql(`mutation { addProductStructureItems(structureId: ${sb.id}, items: [{ productId: ${a} }]) { id } }`),
        ]);
        outcomes.push(results.map((r) => r.body.errors?.[0]?.extensions?.code ?? 'OK'));
        const links = await prisma().productStructureItem.count({
          where: {
            OR: [
              { product_structure_id: sa.id, product_id: b },
              { product_structure_id: sb.id, product_id: a },
            ],
          },
        });
        expect(links, `round ${round}: ${JSON.stringify(outcomes)}`).toBeLessThanOrEqual(1);
      }
      for (const outcome of outcomes) expect(outcome.filter((o) => o === 'OK').length).toBeLessThanOrEqual(1);
    });
  });

  describe('a failed structure write leaves the database unchanged', () => {
    it('createProductStructure with a valid first item and a second whose product is missing: no structure, no items', async () => {
      const owner = await product();
      const c = await product();
      const structures = await prisma().productStructure.count();
      const items = await prisma().productStructureItem.count();
      await notFound(
        `mutation { createProductStructure(productId: ${owner}, input: { quantity: 2, items: [{ productId: ${c}, netQuantity: 1 }, { productId: 999999 }] }) { id } }`,
        undefined,
        /products?/i,
        999999,
      );
      expect((await ok(`{ product(id: ${owner}) { productStructure { id } } }`)).product.productStructure).toBeNull();
      expect(await prisma().productStructure.count({ where: { product_id: owner } })).toBe(0);
      expect(await prisma().productStructure.count()).toBe(structures);
      expect(await prisma().productStructureItem.count()).toBe(items);
      expect((await ok(`{ product(id: ${c}) { usedIn { totalCount } } }`)).product.usedIn.totalCount).toBe(0);
      // and the product can still get its structure afterwards
      await structure(owner, [c]);
    });

    it('addProductStructureItems with one bad item adds none', async () => {
      const created = await structure(await product(), [await product()]);
      const before = await itemsOf(created.id);
      const good = await product();
      await notFound(
        `mutation { addProductStructureItems(structureId: ${created.id}, items: [{ productId: ${good} }, { productId: ${good}, unitId: 999999 }]) { id } }`,
        undefined,
        /units?/i,
        999999,
      );
      expect(await itemsOf(created.id)).toEqual(before);
    });

    it('replaceProductStructureItems with one bad item deletes nothing and adds nothing', async () => {
      const created = await structure(await product(), [await product(), await product()]);
      const before = await itemsOf(created.id);
      await notFound(
        `mutation { replaceProductStructureItems(structureId: ${created.id}, items: [{ productId: ${await product()} }, { productId: 999999 }]) { id } }`,
        undefined,
        /products?/i,
        999999,
      );
      expect(await itemsOf(created.id)).toEqual(before);
    });

    it('a too-precise decimal in one item: BAD_USER_INPUT, no structure', async () => {
      const owner = await product();
      const res = await env.gql(
        `mutation($items: [ProductStructureItemInput!]) { createProductStructure(productId: ${owner}, input: { items: $items }) { id } }`,
        {
          items: [
            { productId: await product(), netQuantity: 1 },
            { productId: await product(), netQuantity: '1.234567890123456' },
          ],
        },
      );
      expect(res.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect(await prisma().productStructure.count({ where: { product_id: owner } })).toBe(0);
    });
  });
});
