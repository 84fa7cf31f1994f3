/**
 * Roles over REST, on both databases: a role sees only its types, fields and rows (documents,
 * includes, relationship data, filters), may write only what it is allowed (403 naming the field,
 * 404 for rows outside its where, 403 for a failed check, nothing written), and costs the same
 * statements as admin.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { providers } from '../support/databases.ts';
import { applyTestRoles, EXAMPLE_ROLES, tokenWithRole } from '../support/roles.ts';
import { expectShapeA, expectShapeB, restSuite } from '../rest/support.ts';

const ROLES = {
  ...EXAMPLE_ROLES,
  // Structures of sales products only, through their product's id; items fully.
  planner: {
    products: {
      read: { fields: ['reference', 'name', 'product_structure', 'is_sales'], where: { is_sales: { equals: true } } },
    },
    product_structures: { read: {}, create: {} },
    product_structure_items: { read: {}, create: { check: { net_quantity: { gt: 0 } } }, delete: {} },
    units: { read: {} },
  },
  // Suppliers' types, of which it sees only those that ask for certificates.
  type_keeper: {
    suppliers: { read: {}, update: { fields: ['types', 'email'] } },
    supplier_types: { read: { where: { request_certificates: { equals: true } } } },
  },
  brand_keeper: {
    brands: {
      read: { where: { reference: { startsWith: 'KEEP' } } },
      update: {
        fields: ['reference'],
        where: { reference: { startsWith: 'KEEP-W' } },
        check: { reference: { startsWith: 'KEEP' } },
      },
      create: { check: { reference: { startsWith: 'KEEP' } } },
    },
  },
};

describe.each(providers)('roles over REST on %s', (provider) => {
  const api = restSuite(provider);
  const tokens: Record<string, string> = {};
  beforeAll(async () => {
    await applyTestRoles(api.env.database.db, ROLES);
    for (const role of Object.keys(ROLES)) tokens[role] = await tokenWithRole(api.env.t, api.env.database.db, role);
  });
  const as = (role: string) => ({ token: tokens[role] });

  it('lists only the rows of the role, with only its fields, at the statements admin pays', async () => {
    const admin = await api.request('GET', '/products?sales=1&active=1&per_page=50');
    await api.request('GET', '/units', as('web_shop')); // the token and the roles, read once
    const db = api.env.database.db;
    const before = db.statementCount;
    const shop = await api.request('GET', '/products?per_page=50', as('web_shop'));
    const statements = db.statementCount - before;
    expect(shop.status).toBe(200);
    expect(shop.body.meta.total).toBe(admin.body.meta.total);
    expect(shop.body.data.map((p: any) => p.id)).toEqual(admin.body.data.map((p: any) => p.id));
    for (const product of shop.body.data) {
      expect(Object.keys(product.attributes).sort()).toEqual(['consumer_price', 'gtin', 'name', 'reference']);
      expect(Object.keys(product.relationships).sort()).toEqual(['brand', 'product_group', 'unit']);
    }
    const adminBefore = db.statementCount;
    await api.request('GET', '/products?sales=1&active=1&per_page=50');
    expect(statements).toBe(db.statementCount - adminBefore);
  });

  it('leaves out related rows the role cannot see, with no statement more than admin', async () => {
    const path = '/product_structure_items?per_page=50&include=product';
    await api.request('GET', '/units', as('planner'));
    const db = api.env.database.db;
    const count = async (options = {}) => {
      const before = db.statementCount;
      const res = await api.request('GET', path, options);
      return { res, statements: db.statementCount - before };
    };
    const admin = await count();
    const planner = await count(as('planner'));
    // No statement more (one fewer when no related row of the page is visible: nothing to include).
    expect(planner.statements).toBeLessThanOrEqual(admin.statements);
    expect(planner.statements).toBeGreaterThanOrEqual(admin.statements - 1);
    const sales = new Set(
      (await api.prisma.product.findMany({ where: { is_sales: true }, select: { id: true } })).map((p: any) => p.id),
    );
    const linked = planner.res.body.data.map((item: any) => item.relationships.product.data);
    expect(linked.some((d: unknown) => d === null)).toBe(true);
    for (const d of linked) if (d) expect(sales.has(d.id)).toBe(true);
    for (const p of planner.res.body.included) expect(sales.has(p.id)).toBe(true);
  });

  it('answers 404 for a row outside the where, 403 for a type it may not read', async () => {
    const hidden = await api.prisma.product.findFirst({ where: { is_sales: false } });
    expectShapeA(await api.request('GET', `/products/${hidden.id}`, as('web_shop')), 'products', hidden.id);
    expectShapeB(await api.request('GET', '/customers', as('web_shop')), 403, 'forbidden');
    expectShapeB(await api.request('GET', '/suppliers/1', as('web_shop')), 403, 'forbidden');
  });

  it('refuses an include or filter on a hidden field as if it did not exist', async () => {
    expectShapeB(
      await api.request('GET', '/products?include=production_line', as('web_shop')),
      400,
      'invalid_parameter',
    );
    expectShapeB(await api.request('GET', '/products?active=1', as('web_shop')), 400, 'invalid_parameter');
    const ok = await api.request('GET', '/products?include=product_group&per_page=5', as('web_shop'));
    expect(ok.status).toBe(200);
    for (const group of ok.body.included ?? []) expect(Object.keys(group.attributes).sort()).toEqual(['description']);
  });

  it('shows a relationship to a row the role cannot see as null, and tags the document per role', async () => {
    const item = await api.prisma.productStructureItem.findFirst({ where: { product: { is_sales: false } } });
    const res = await api.request('GET', `/product_structure_items/${item.id}`, as('planner'));
    expect(res.status).toBe(200);
    expect(res.body.data.relationships.product.data).toBeNull();
    const admin = await api.request('GET', `/product_structure_items/${item.id}`);
    expect(admin.body.data.relationships.product.data).toEqual({ type: 'products', id: item.product_id });
    expect(res.headers.get('etag')).not.toBe(admin.headers.get('etag'));
    // The role's tag works for a conditional GET.
    const again = await api.request('GET', `/product_structure_items/${item.id}`, {
      ...as('planner'),
      headers: { 'If-None-Match': res.headers.get('etag')! },
    });
    expect(again.status).toBe(304);
  });

  it('refuses a field the role may not set, naming it, and writes nothing', async () => {
    const supplier = await api.prisma.supplier.findFirst();
    const refused = await api.request('PATCH', `/suppliers/${supplier.id}`, {
      ...as('supplier_quality'),
      body: { data: { type: 'suppliers', id: supplier.id, attributes: { is_active: false, name: 'Renamed' } } },
    });
    expectShapeB(refused, 403, 'forbidden');
    expect(JSON.stringify(refused.body)).toContain('name');
    expect((await api.prisma.supplier.findUnique({ where: { id: supplier.id } })).version).toBe(supplier.version);
    const allowed = await api.request('PATCH', `/suppliers/${supplier.id}`, {
      ...as('supplier_quality'),
      body: { data: { type: 'suppliers', id: supplier.id, attributes: { emergency_number: '+32 9 999 99 99' } } },
    });
    expect(allowed.status).toBe(200);
    expect(allowed.body.data.attributes.emergency_number).toBe('+32 9 999 99 99');
    expectShapeB(
      await api.request('PATCH', `/products/1`, {
        ...as('web_shop'),
        body: { data: { type: 'products', id: 1, attributes: { gtin: null } } },
      }),
      403,
      'forbidden',
    );
  });

  it('writes only rows inside the where (404 outside) and results that pass the check (403, nothing written)', async () => {
    const write = await api.prisma.brand.create({ data: { reference: api.unique('KEEP-W') } });
    const readOnly = await api.prisma.brand.create({ data: { reference: api.unique('KEEP-R') } });
    const hidden = await api.prisma.brand.create({ data: { reference: api.unique('OTHER') } });
    const patch = (id: number, reference: string) =>
      api.request('PATCH', `/brands/${id}`, {
        ...as('brand_keeper'),
        body: { data: { type: 'brands', id, attributes: { reference } } },
      });
    expect((await patch(write.id, `${write.reference}-2`)).status).toBe(200);
    expectShapeB(await patch(write.id, api.unique('GONE')), 403, 'forbidden');
    expect((await api.prisma.brand.findUnique({ where: { id: write.id } })).reference).toBe(`${write.reference}-2`);
    expectShapeA(await patch(readOnly.id, api.unique('KEEP-R')), 'brands', readOnly.id);
    // A version precondition says nothing of a row the role may not write: 404 all the same.
    const stale = await api.request('PATCH', `/brands/${readOnly.id}`, {
      ...as('brand_keeper'),
      headers: { 'If-Match': '"99-00000000"' },
      body: { data: { type: 'brands', id: readOnly.id, attributes: { reference: api.unique('KEEP-R') } } },
    });
    expectShapeA(stale, 'brands', readOnly.id);
    expectShapeA(await patch(hidden.id, api.unique('KEEP-H')), 'brands', hidden.id);
    const add = (reference: string) =>
      api.request('POST', '/brands', {
        ...as('brand_keeper'),
        body: { data: { type: 'brands', attributes: { reference } } },
      });
    const outside = api.unique('NOPE');
    expectShapeB(await add(outside), 403, 'forbidden');
    expect(await api.prisma.brand.count({ where: { reference: outside } })).toBe(0);
    expect((await add(api.unique('KEEP-N'))).status).toBe(201);
  });

  it("updates at the statements admin's cost, and writes at once only those of its writes that pass its rules", async () => {
    const db = api.env.database.db;
    const brands = await Promise.all(
      Array.from({ length: 8 }, () => api.prisma.brand.create({ data: { reference: api.unique('KEEP-W') } })),
    );
    const patch = (id: number, reference: string, token?: string) =>
      api.request('PATCH', `/brands/${id}`, {
        ...(token ? { token } : {}),
        body: { data: { type: 'brands', id, attributes: { reference } } },
      });
    const cost = async (id: number, token?: string) => {
      const before = db.statementCount;
      expect((await patch(id, api.unique('KEEP-W'), token)).status).toBe(200);
      return db.statementCount - before;
    };
    // Each token, and the roles, read once before.
    await cost(brands[0]!.id, tokens.brand_keeper);
    await cost(brands[0]!.id);
    // PostgreSQL batches a role's update as admin's, its checks inside the batch's read and
    // statement; SQLite writes it in a transaction that checks the row before and after.
    const role = await cost(brands[1]!.id, tokens.brand_keeper);
    expect(role).toBe((await cost(brands[2]!.id)) + (provider === 'postgresql' ? 0 : 2));
    // A row whose document depends on rows the role may not see (a supplier's types): the
    // answer shows only those it sees, at admin's cost all the same.
    const seen = await api.prisma.supplierType.findFirst({ where: { request_certificates: true } });
    const hidden = await api.prisma.supplierType.findFirst({ where: { request_certificates: false } });
    const supplier = await api.prisma.supplier.create({
      data: {
        reference: api.unique('SUP'),
        name: 'Costs',
        types: { create: [{ supplier_type_id: seen.id }, { supplier_type_id: hidden.id }] },
      },
    });
    const email = (token?: string) =>
      api.request('PATCH', `/suppliers/${supplier.id}`, {
        ...(token ? { token } : {}),
        body: { data: { type: 'suppliers', id: supplier.id, attributes: { email: `${api.unique('e')}@example.com` } } },
      });
    await email(tokens.type_keeper);
    let before = db.statementCount;
    const keeper = await email(tokens.type_keeper);
    const keeperCost = db.statementCount - before;
    expect(keeper.status).toBe(200);
    expect(keeper.body.data.relationships.types.data).toEqual([{ type: 'supplier_types', id: seen.id }]);
    before = db.statementCount;
    expect((await email()).status).toBe(200);
    // SQLite reads it again for the answer (its role has no where or check here to run).
    expect(keeperCost).toBe(db.statementCount - before + (provider === 'postgresql' ? 0 : 1));
    // At once, as a batch would take them: each write stands or falls by its own row.
    const wanted = brands.slice(3).map((brand, i) => ({
      brand,
      reference: i % 2 === 0 ? api.unique('KEEP-W') : api.unique('GONE'),
    }));
    const answers = await Promise.all(
      wanted.map(({ brand, reference }) => patch(brand.id, reference, tokens.brand_keeper)),
    );
    for (const [i, { brand, reference }] of wanted.entries()) {
      const now = (await api.prisma.brand.findUnique({ where: { id: brand.id } })).reference;
      if (reference.startsWith('KEEP')) {
        expect(answers[i]!.status).toBe(200);
        expect(now).toBe(reference);
      } else {
        expectShapeB(answers[i]!, 403, 'forbidden');
        expect(now).toBe(brand.reference);
      }
    }
  });

  it('keeps links to rows the role cannot see: a document sent back, a removal naming one', async () => {
    const prisma = api.prisma;
    const seen = await prisma.supplierType.findFirst({ where: { request_certificates: true } });
    const hidden = await prisma.supplierType.findFirst({ where: { request_certificates: false } });
    const supplier = await prisma.supplier.create({
      data: {
        reference: api.unique('SUP'),
        name: 'Links',
        types: { create: [{ supplier_type_id: seen.id }, { supplier_type_id: hidden.id }] },
      },
    });
    const links = async () =>
      (await prisma.supplierTypeLink.findMany({ where: { supplier_id: supplier.id } }))
        .map((l: any) => l.supplier_type_id)
        .sort();
    const read = await api.request('GET', `/suppliers/${supplier.id}`, as('type_keeper'));
    expect(read.body.data.relationships.types.data).toEqual([{ type: 'supplier_types', id: seen.id }]);
    // What it read, sent back: the hidden link stays.
    const back = await api.request('PATCH', `/suppliers/${supplier.id}/relationships/types`, {
      ...as('type_keeper'),
      body: { data: read.body.data.relationships.types.data },
    });
    expect(back.status).toBe(200);
    expect(await links()).toEqual([seen.id, hidden.id].sort());
    // A removal naming the hidden link changes nothing: no new version, nothing to tell that it was linked.
    const version = (await prisma.supplier.findUnique({ where: { id: supplier.id } })).version;
    const removed = await api.request('DELETE', `/suppliers/${supplier.id}/relationships/types`, {
      ...as('type_keeper'),
      body: { data: [{ type: 'supplier_types', id: hidden.id }] },
    });
    expect(removed.status).toBe(200);
    expect(await links()).toEqual([seen.id, hidden.id].sort());
    expect((await prisma.supplier.findUnique({ where: { id: supplier.id } })).version).toBe(version);
    // Its own view: replacing with none removes the link it sees, and only that one.
    await api.request('PATCH', `/suppliers/${supplier.id}/relationships/types`, {
      ...as('type_keeper'),
      body: { data: [] },
    });
    expect(await links()).toEqual([hidden.id]);
  });

  it('checks every item of a bill-of-material write, and deletes only what the role may', async () => {
    const product = await api.prisma.product.findFirst({
      where: { is_sales: true, product_structure: { isNot: null } },
      include: { product_structure: true },
    });
    const component = await api.prisma.product.findFirst({
      where: { is_sales: true, id: { not: product.id }, product_structure: null },
    });
    const add = (net: number) =>
      api.request('POST', `/product_structures/${product.product_structure.id}/items`, {
        ...as('planner'),
        body: {
          data: [
            {
              type: 'product_structure_items',
              attributes: { net_quantity: net },
              relationships: { product: { data: { type: 'products', id: component.id } } },
            },
          ],
        },
      });
    const before = await api.prisma.productStructureItem.count();
    // 0 is clean data (not negative), but not what the role's check allows.
    expectShapeB(await add(0), 403, 'forbidden');
    expect(await api.prisma.productStructureItem.count()).toBe(before);
    expect((await add(2)).status).toBe(201);
  });
});
