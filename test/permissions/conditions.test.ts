/**
 * What a condition may name under a role, and what it finds, on both databases: one place
 * (Access.mayName) decides for every surface. A filter on a foreign key finds what the same
 * condition through the relationship finds (a link to a row the role cannot see is empty, never
 * compared as stored); a filter on a relationship the role reads is offered on REST as on
 * GraphQL; one on a relationship it does not read is refused alike, as if it did not exist.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { providers } from '../support/databases.ts';
import { applyTestRoles, tokenWithRole } from '../support/roles.ts';
import { restSuite } from '../rest/support.ts';

describe.each(providers)('conditions under a role (%s)', (provider) => {
  const api = restSuite(provider);
  const tokens: Record<string, string> = {};
  /** Product group types: one the role sees, one it does not, each with groups. */
  let seenType: number;
  let hiddenType: number;
  /** A product group the role does not see, with products. */
  let hiddenGroup: number;
  let seenGroup: number;

  beforeAll(async () => {
    const groups: { id: number; type_id: number }[] = await api.prisma.productGroup.findMany({
      select: { id: true, type_id: true },
      orderBy: { id: 'asc' },
    });
    const types = [...new Set(groups.map((g) => g.type_id))];
    expect(types.length).toBeGreaterThan(1);
    [seenType, hiddenType] = types as [number, number];
    const withProducts: { product_group_id: number | null }[] = await api.prisma.product.findMany({
      where: { product_group_id: { not: null } },
      select: { product_group_id: true },
      distinct: ['product_group_id'],
      orderBy: { product_group_id: 'asc' },
    });
    [seenGroup, hiddenGroup] = withProducts.map((p) => p.product_group_id!) as [number, number];
    await applyTestRoles(api.env.database.db, {
      grouper: {
        products: { read: { fields: ['reference', 'product_group'] } },
        product_groups: {
          read: { fields: ['description', 'type'], where: { id: { notIn: [hiddenGroup] } } },
        },
        product_group_types: { read: { where: { id: { equals: seenType } } } },
      },
      // Reads product groups, but not their type.
      untyped: {
        product_groups: { read: { fields: ['description'] } },
        product_group_types: { read: {} },
      },
    });
    for (const role of ['grouper', 'untyped']) tokens[role] = await tokenWithRole(api.env.t, api.env.database.db, role);
  });

  const groupsOfType = (type: number) => api.count('product_groups', { type_id: type, NOT: { id: hiddenGroup } });

  it('a GraphQL filter on a to-one id finds what the same condition through the relationship finds', async () => {
    expect(await api.count('product_groups', { type_id: hiddenType })).toBeGreaterThan(0);
    const totals = async (argument: string) => {
      const res = await api.env.gql(`{ productGroups(${argument}) { totalCount } }`, undefined, {
        token: tokens.grouper,
      });
      expect(res.body.errors, JSON.stringify(res.body)).toBeUndefined();
      return res.body.data!.productGroups.totalCount;
    };
    for (const [type, expected] of [
      [hiddenType, 0],
      [seenType, await groupsOfType(seenType)],
    ] as const) {
      expect(await totals(`filter: { productGroupTypeId: ${type} }`), `productGroupTypeId ${type}`).toBe(expected);
      expect(await totals(`filter: { typeId: ${type} }`), `typeId ${type}`).toBe(expected);
      expect(await totals(`where: { type: { id: { equals: ${type} } } }`), `where ${type}`).toBe(expected);
    }
    // A link to a row the role cannot see reads as empty: such groups count as having no type.
    expect(await totals('where: { type: { isNull: true } }')).toBe(
      await api.count('product_groups', { NOT: [{ type_id: seenType }, { id: hiddenGroup }] }),
    );
  });

  it('a REST filter on a foreign key is offered where the role reads the relationship, and finds only what it sees', async () => {
    const total = async (path: string) => {
      const res = await api.get(path, { token: tokens.grouper });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.meta.total;
    };
    expect(await total(`/product_groups?product_group_type_id=${seenType}`)).toBe(await groupsOfType(seenType));
    expect(await total(`/product_groups?product_group_type_id=${hiddenType}`)).toBe(0);
    expect(await api.count('products', { product_group_id: hiddenGroup })).toBeGreaterThan(0);
    expect(await total(`/products?product_group_id=${hiddenGroup}`)).toBe(0);
    expect(await total(`/products?product_group_id=${seenGroup}`)).toBe(
      await api.count('products', { product_group_id: seenGroup }),
    );
  });

  it('refuses a filter or include on a relationship the role does not read, as if it did not exist', async () => {
    const filter = await api.get(`/product_groups?product_group_type_id=${seenType}`, { token: tokens.untyped });
    expect(filter.status).toBe(400);
    expect(filter.body.error.message).toBe('unknown query parameter product_group_type_id');
    const include = await api.get('/product_groups?include=type', { token: tokens.untyped });
    expect(include.status).toBe(400);
    expect(include.body.error.message).toBe('include "type" is not allowed here; nothing can be included here');
    const gql = await api.env.gql(
      `{ productGroups(filter: { productGroupTypeId: ${seenType} }) { totalCount } }`,
      undefined,
      {
        token: tokens.untyped,
      },
    );
    expect(gql.body.errors?.[0]).toMatchObject({
      message: 'filter.productGroupTypeId is not a field of ProductGroupFilter (its fields: idIn)',
      extensions: { code: 'BAD_USER_INPUT' },
    });
  });
});
