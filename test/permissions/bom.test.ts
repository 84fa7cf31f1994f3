/**
 * Bill-of-material explosion and where-used under a role, on both databases: no line names a
 * product the role cannot see, and a hidden component takes its own subtree along (its structure
 * is not followed); what admin sees of the same product is the same tree with those lines.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { providers } from '../support/databases.ts';
import { graphqlEnv, type GraphQLTestEnv } from '../support/graphql.ts';
import { applyTestRoles, tokenWithRole } from '../support/roles.ts';

const ROLES = {
  // Semi-finished and finished products only (their references start with SF and FG), with their structures.
  planner: {
    products: {
      read: { fields: ['reference', 'product_structure'], where: { NOT: { reference: { startsWith: 'RM' } } } },
    },
    product_structures: { read: {} },
    product_structure_items: { read: {} },
    units: { read: {} },
  },
};

const BOM = `query Bom($id: Int!) { product(id: $id) { bom(levels: 5) { level product { reference } path { reference } } } }`;
const USED = `query Used($id: Int!) { product(id: $id) { whereUsed(levels: 5) { level product { reference } path { reference } } } }`;

describe.each(providers)('bills of material under a role on %s', (provider) => {
  let env: GraphQLTestEnv;
  let token: string;
  beforeAll(async () => {
    env = await graphqlEnv(provider);
    await applyTestRoles(env.database.db, ROLES);
    token = await tokenWithRole(env.t, env.database.db, 'planner');
  });
  afterAll(() => env?.database.cleanup());

  it('explodes only into products the role sees, and where-used names only those', async () => {
    const prisma = env.database.db.prisma;
    // A finished product whose structure holds raw materials and semi-finished products.
    const finished = await prisma.product.findFirst({
      where: {
        reference: { startsWith: 'FG' },
        product_structure: { items: { some: { product: { reference: { startsWith: 'SF' } } } } },
      },
    });
    const admin = (await env.gql(BOM, { id: finished!.id })).body.data!.product.bom as any[];
    const role = await env.gql(BOM, { id: finished!.id }, { token });
    expect(role.body.errors).toBeUndefined();
    const lines = role.body.data!.product.bom as any[];
    expect(admin.some((l) => l.product.reference.startsWith('RM'))).toBe(true);
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      expect(line.product.reference).not.toMatch(/^RM/);
      for (const step of line.path) expect(step.reference).not.toMatch(/^RM/);
    }
    // The same tree, without the raw materials (they have no structure of their own to hide more).
    expect(lines.map((l) => l.product.reference)).toEqual(
      admin.filter((l) => !l.product.reference.startsWith('RM')).map((l) => l.product.reference),
    );
    const raw = await prisma.product.findFirst({ where: { reference: { startsWith: 'SF' }, used_in: { some: {} } } });
    const used = await env.gql(USED, { id: raw!.id }, { token });
    expect(used.body.errors).toBeUndefined();
    for (const line of used.body.data!.product.whereUsed as any[]) expect(line.product.reference).not.toMatch(/^RM/);
    // A raw material is not there at all for the role.
    const hidden = await prisma.product.findFirst({ where: { reference: { startsWith: 'RM' } } });
    expect((await env.gql(BOM, { id: hidden!.id }, { token })).body.data!.product).toBeNull();
  });
});
