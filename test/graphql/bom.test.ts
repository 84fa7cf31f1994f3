/**
 * Bill-of-material explosion and where-used (graphql.md "Bill-of-material explosion") on a
 * three-level structure whose requirements are computed by hand below.
 *
 *   T  (batch 10): A net 2, loss 5 % (no gross: 2 x 1.05 = 2.1)   B net 3, gross 3.3
 *   A  (batch 4):  C net 1, loss 10 % (gross 1.1)                  D net 0.5, gross 0.6
 *   C  (batch 2):  E net 0.25
 *
 * Making 20 of T: A 20x2/10 = 4 net, 20x2.1/10 = 4.2 gross; B 6 and 6.6.
 * A is exploded with its gross 4.2: C 4.2x1/4 = 1.05 and 4.2x1.1/4 = 1.155; D 0.525 and 0.63.
 * C with 1.155: E 1.155x0.25/2 = 0.144375, net and gross alike.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphqlEnv, type GraphQLTestEnv } from '../support/graphql.ts';
import { providers } from '../support/databases.ts';

describe.each(providers)('bill of material on %s', (provider) => {
  let env: GraphQLTestEnv;
  const ids: Record<string, number> = {};
  beforeAll(async () => {
    env = await graphqlEnv(provider);
    for (const name of ['T', 'A', 'B', 'C', 'D', 'E']) {
      const { body } = await env.gql(
        `mutation { createProduct(input: { reference: "BOM-${name}", unitId: 1 }) { id } }`,
      );
      ids[name] = body.data!.createProduct.id;
    }
    const structure = async (owner: string, quantity: number, items: string) => {
      const { body } = await env.gql(
        `mutation { createProductStructure(productId: ${ids[owner]}, input: { quantity: ${quantity}, items: [${items}] }) { id } }`,
      );
      expect(body.errors).toBeUndefined();
    };
    await structure(
      'T',
      10,
      `{ productId: ${ids.A}, netQuantity: 2, lossPercentage: 5 }, { productId: ${ids.B}, netQuantity: 3, grossQuantity: 3.3 }`,
    );
    await structure(
      'A',
      4,
      `{ productId: ${ids.C}, netQuantity: 1, lossPercentage: 10 }, { productId: ${ids.D}, netQuantity: 0.5, grossQuantity: 0.6, unitId: 2 }`,
    );
    await structure('C', 2, `{ productId: ${ids.E}, netQuantity: 0.25, isPhantom: true }`);
  });
  afterAll(async () => env?.database.cleanup());

  const bom = async (args: string) => {
    const { body, statements } = await env.gql(
      `{ product(id: ${ids.T}) { bom(${args}) { level product { reference } path { reference } unit { id } netQuantity grossQuantity isPhantom } } }`,
    );
    expect(body.errors).toBeUndefined();
    return { lines: body.data!.product.bom as Record<string, unknown>[], statements };
  };

  it('explodes three levels for a quantity with the hand-computed net and gross requirements, depth first', async () => {
    const { lines } = await bom('levels: 3, quantity: 20');
    expect(lines).toEqual([
      {
        level: 1,
        product: { reference: 'BOM-A' },
        path: [{ reference: 'BOM-T' }],
        unit: { id: 1 },
        netQuantity: 4,
        grossQuantity: 4.2,
        isPhantom: false,
      },
      {
        level: 2,
        product: { reference: 'BOM-C' },
        path: [{ reference: 'BOM-T' }, { reference: 'BOM-A' }],
        unit: { id: 1 },
        netQuantity: 1.05,
        grossQuantity: 1.155,
        isPhantom: false,
      },
      {
        level: 3,
        product: { reference: 'BOM-E' },
        path: [{ reference: 'BOM-T' }, { reference: 'BOM-A' }, { reference: 'BOM-C' }],
        unit: { id: 1 },
        netQuantity: 0.144375,
        grossQuantity: 0.144375,
        isPhantom: true,
      },
      {
        level: 2,
        product: { reference: 'BOM-D' },
        path: [{ reference: 'BOM-T' }, { reference: 'BOM-A' }],
        unit: { id: 2 },
        netQuantity: 0.525,
        grossQuantity: 0.63,
        isPhantom: false,
      },
      {
        level: 1,
        product: { reference: 'BOM-B' },
        path: [{ reference: 'BOM-T' }],
        unit: { id: 1 },
        netQuantity: 6,
        grossQuantity: 6.6,
        isPhantom: false,
      },
    ]);
  });

  it('without a quantity, explodes the batch the structure describes', async () => {
    const { lines } = await bom('levels: 1');
    expect(lines.map((l) => [l.product, l.netQuantity, l.grossQuantity])).toEqual([
      [{ reference: 'BOM-A' }, 2, 2.1],
      [{ reference: 'BOM-B' }, 3, 3.3],
    ]);
  });

  it('stops at `levels`, and costs a statement per level, not per line', async () => {
    const two = await bom('levels: 2, quantity: 20');
    expect(two.lines.map((l) => (l.product as { reference: string }).reference)).toEqual([
      'BOM-A',
      'BOM-C',
      'BOM-D',
      'BOM-B',
    ]);
    const one = await bom('levels: 1, quantity: 20');
    // the product, one per level of items, then products, paths and units loaded once each
    expect(two.statements - one.statements).toBe(1);
  });

  it('explodes many products in one request with one statement per level for all of them', async () => {
    const single = await env.gql(`{ product(id: ${ids.T}) { bom(levels: 3) { product { id } } } }`);
    const many = await env.gql(
      `{ products(filter: { idIn: [${ids.T}, ${ids.A}, ${ids.C}] }) { nodes { bom(levels: 3) { product { id } } } } }`,
    );
    expect(many.body.data!.products.nodes.map((n: { bom: unknown[] }) => n.bom.length)).toEqual([5, 3, 1]);
    expect(many.statements).toBe(single.statements);
  });

  it('is empty for a product without a structure', async () => {
    const { body } = await env.gql(`{ product(id: ${ids.E}) { bom { level } } }`);
    expect(body.data!.product.bom).toEqual([]);
  });

  it('refuses levels outside 1..20 with BAD_USER_INPUT', async () => {
    for (const levels of [0, 21]) {
      const { body } = await env.gql(`{ product(id: ${ids.T}) { bom(levels: ${levels}) { level } } }`);
      expect(body.errors![0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', field: 'levels' } });
    }
  });

  it('whereUsed finds every parent, level by level, bounded by levels', async () => {
    const used = async (product: string, levels: number) =>
      (
        await env.gql(
          `{ product(id: ${ids[product]}) { whereUsed(levels: ${levels}) { level product { reference } path { reference } netQuantity structureQuantity } } }`,
        )
      ).body.data!.product.whereUsed;
    expect(await used('E', 3)).toEqual([
      {
        level: 1,
        product: { reference: 'BOM-C' },
        path: [{ reference: 'BOM-E' }],
        netQuantity: 0.25,
        structureQuantity: 2,
      },
      {
        level: 2,
        product: { reference: 'BOM-A' },
        path: [{ reference: 'BOM-E' }, { reference: 'BOM-C' }],
        netQuantity: 1,
        structureQuantity: 4,
      },
      {
        level: 3,
        product: { reference: 'BOM-T' },
        path: [{ reference: 'BOM-E' }, { reference: 'BOM-C' }, { reference: 'BOM-A' }],
        netQuantity: 2,
        structureQuantity: 10,
      },
    ]);
    expect((await used('E', 1)).map((l: { product: { reference: string } }) => l.product.reference)).toEqual(['BOM-C']);
    expect(await used('T', 5)).toEqual([]);
  });

  it('finds every parent where a product is used by several structures', async () => {
    // The seeded data: a raw material used by many structures.
    const component = await env.database.db.prisma.productStructureItem.groupBy({
      by: ['product_id'],
      _count: true,
      orderBy: { _count: { product_id: 'desc' } },
      take: 1,
    });
    const productId = component[0]!.product_id;
    const parents = await env.database.db.prisma.productStructureItem.findMany({
      where: { product_id: productId },
      select: { product_structure: { select: { product_id: true } } },
    });
    const { body } = await env.gql(`{ product(id: ${productId}) { whereUsed(levels: 1) { product { id } } } }`);
    expect(
      body
        .data!.product.whereUsed.map((l: { product: { id: number } }) => l.product.id)
        .sort((a: number, b: number) => a - b),
    ).toEqual(parents.map((p) => p.product_structure.product_id).sort((a, b) => a - b));
  });
});
