/**
 * Each role its own GraphQL schema (docs/reference/roles.md), on both
 * databases: introspection, the SDL and validation show only what the role may use; the rows are
 * the role's, in as many statements as admin's; a to-one to a row the role cannot see is null; an
 * operation prepared for one role never answers for another.
 */
import { parse, print } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schemaFor, sdlOf } from '../../src/graphql/role-schema.ts';
import { printSdl, schema } from '../../src/graphql/schema.ts';
import { accessOf } from '../../src/permissions/access.ts';
import { parseRoleFile } from '../../src/permissions/roles.ts';
import { resources } from '../../src/resources/registry.ts';
import { providers } from '../support/databases.ts';
import { graphqlEnv, type GraphQLTestEnv } from '../support/graphql.ts';
import { applyTestRoles, EXAMPLE_ROLES, tokenWithRole } from '../support/roles.ts';

/** A client's own webhook endpoints: in the schema of every role that reads something (they send what it sees). */
const WEBHOOK_MUTATIONS = ['createWebhook', 'deleteWebhook', 'replayWebhook', 'rotateWebhookSecret', 'updateWebhook'];
/** What every role that writes has: it may propose change requests, and withdraw its own. */
const PROPOSING_MUTATIONS = ['createChangeRequest', 'withdrawChangeRequest'];

const ROLES = {
  ...EXAMPLE_ROLES,
  // Items with all their components' ids, but only the sales products themselves.
  mes: {
    product_structure_items: { read: {} },
    products: { read: { where: { is_sales: { equals: true } } } },
  },
  // Suppliers, and of their types only those that ask for certificates.
  auditor: {
    suppliers: { read: {} },
    supplier_types: { read: { where: { request_certificates: { equals: true } } } },
  },
  nothing: {},
};

/** A role's schema without a database: the role file as `roles apply` reads it. */
function roleSchema(rules: Record<string, unknown>) {
  const [role] = parseRoleFile({ roles: { some_role: rules } });
  return schemaFor(accessOf(role!));
}

describe('role schemas, made from the full schema', () => {
  it('a role allowed everything has the full schema, field for field', () => {
    const everything = Object.fromEntries(
      resources.map((r) => [
        r.type,
        {
          read: {},
          create: {},
          update: {},
          approve: {},
          ...(r.type === 'product_structure_items' ? { delete: {} } : {}),
        },
      ]),
    );
    expect(sdlOf(roleSchema(everything))).toBe(printSdl());
  });

  it('is made once per rules: the roles read again unchanged keep it; admin (no Access) has the full schema itself', () => {
    const read = (rules: unknown) => accessOf(parseRoleFile({ roles: { web_shop: rules } })[0]!)!;
    const access = read(EXAMPLE_ROLES.web_shop);
    expect(schemaFor(access)).toBe(schemaFor(access));
    expect(schemaFor(read(EXAMPLE_ROLES.web_shop))).toBe(schemaFor(access));
    const { brands: _brands, ...withoutBrands } = EXAMPLE_ROLES.web_shop;
    const changed = read(withoutBrands);
    expect(schemaFor(changed)).not.toBe(schemaFor(access));
    expect(schemaFor(changed).getType('Brand')).toBeUndefined();
    expect(schemaFor(undefined)).toBe(schema);
  });

  it('a hidden field takes its filters, orderBy values, aggregates and search along', () => {
    const sdl = sdlOf(roleSchema(EXAMPLE_ROLES.web_shop));
    const block = (kind: string, name: string) => new RegExp(`\\n${kind} ${name} \\{[^}]*\\}`).exec(sdl)?.[0] ?? '';
    expect(block('input', 'ProductFilter')).not.toMatch(/isSales|isActive|preferredSupplier/);
    expect(block('input', 'ProductFilter')).toMatch(/gtin/);
    expect(block('enum', 'ProductOrderBy')).not.toMatch(/NLC|IS_SALES/);
    expect(block('enum', 'ProductOrderBy')).toMatch(/CONSUMER_PRICE_ASC/);
    expect(block('type', 'ProductSums')).toMatch(/consumerPrice/);
    expect(block('type', 'ProductSums')).not.toMatch(/nlc|depositPrice/);
    expect(block('input', 'ProductWhere')).not.toMatch(/isSales|customerProducts|usedIn|productStructure/);
    // legal names are searched, and hidden: no search at all.
    expect(sdl).not.toMatch(/search: String/);
    expect(
      block('enum', 'ResourceType')
        .match(/[A-Z_]+$/gm)
        ?.sort(),
      // The types it reads, and change requests (shown to their author and approvers, whatever the role).
    ).toEqual(['BRANDS', 'CHANGE_REQUESTS', 'PRODUCTS', 'PRODUCT_GROUPS', 'UNITS']);
    expect(sdlOf(roleSchema(EXAMPLE_ROLES.supplier_quality))).toMatch(/search: String/);
  });

  it('a mutation whose input keeps nothing the role may set is left out, with its input type', () => {
    const made = roleSchema({ brands: { read: {}, create: {}, update: { fields: [] } } });
    const mutations = Object.keys(made.getMutationType()!.getFields());
    // The bulk forms too: createBrands and upsertBrands (which creates, and leaves a row as it is)
    // stay; updateBrands, whose rows' input keeps nothing, goes.
    expect(mutations.sort()).toEqual(
      ['createBrand', 'createBrands', 'upsertBrands', ...WEBHOOK_MUTATIONS, ...PROPOSING_MUTATIONS].sort(),
    );
    expect(made.getType('UpdateBrandInput')).toBeUndefined();
  });

  it('bom and whereUsed need structures and items', () => {
    const products = { products: { read: {} }, units: { read: {} } };
    const fields = (rules: Record<string, unknown>) =>
      Object.keys((roleSchema(rules).getType('Product') as import('graphql').GraphQLObjectType).getFields());
    expect(fields(products)).not.toContain('bom');
    const all = fields({ ...products, product_structures: { read: {} }, product_structure_items: { read: {} } });
    expect(all).toEqual(expect.arrayContaining(['bom', 'whereUsed', 'productStructure', 'usedIn']));
  });
});

describe.each(providers)('GraphQL per role on %s', (provider) => {
  let env: GraphQLTestEnv;
  const tokens: Record<string, string> = {};
  beforeAll(async () => {
    env = await graphqlEnv(provider);
    await applyTestRoles(env.database.db, ROLES);
    for (const role of Object.keys(ROLES)) tokens[role] = await tokenWithRole(env.t, env.database.db, role);
  });
  afterAll(async () => env?.database.cleanup());

  /** An operation as `role` (admin: the env's token). */
  const as = (role: string, query: string, variables?: Record<string, unknown>) =>
    env.gql(query, variables, { token: role === 'admin' ? env.token : tokens[role] });
  /** The data of an operation that must succeed as `role`. */
  const data = async (role: string, query: string, variables?: Record<string, unknown>) => {
    const res = await as(role, query, variables);
    expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
    return res.body.data as any;
  };
  /** The statements an operation costs once its token and role are known (a first request reads them). */
  const warm = async (role: string) => void (await as(role, '{ __typename }'));

  it('introspection shows web_shop its Product without hidden fields, no Customer, no mutations but its webhooks', async () => {
    const result = await data(
      'web_shop',
      `{ product: __type(name: "Product") { fields { name } }
         customer: __type(name: "Customer") { name }
         __schema { mutationType { fields { name } } types { name } } }`,
    );
    expect(result.product.fields.map((f: { name: string }) => f.name).sort()).toEqual(
      [
        'brand',
        'consumerPrice',
        'gtin',
        'history',
        'id',
        'name',
        'productGroup',
        'reference',
        'unit',
        'version',
      ].sort(),
    );
    expect(result.customer).toBeNull();
    expect(result.__schema.mutationType.fields.map((f: { name: string }) => f.name).sort()).toEqual(
      [...WEBHOOK_MUTATIONS].sort(),
    );
    const types = result.__schema.types.map((t: { name: string }) => t.name);
    expect(types).not.toContain('CreateProductInput');
    expect(types).not.toContain('Supplier');
    const admin = await data('admin', '{ __schema { mutationType { fields { name } } } }');
    expect(admin.__schema.mutationType.fields.map((f: { name: string }) => f.name)).toContain('createProduct');
  });

  it('a query naming a hidden field or type fails validation, as if it did not exist, without SQL', async () => {
    await warm('web_shop');
    await warm('admin');
    const code = async (role: string, query: string) => {
      const res = await as(role, query);
      expect(res.status, query).toBe(400);
      expect(res.statements, query).toBe(0);
      return res.body.errors?.[0]?.extensions?.code;
    };
    for (const query of [
      '{ products { nodes { id isSales } } }',
      '{ customers { totalCount } }',
      '{ products(search: "cheese") { totalCount } }',
      'mutation { createBrand(input: { reference: "x" }) { id } }',
    ])
      expect(await code('web_shop', query), query).toBe('GRAPHQL_VALIDATION_FAILED');
    // A hidden input field is refused as one that exists for no one.
    expect(await code('web_shop', '{ products(filter: { isSales: true }) { totalCount } }')).toBe(
      await code('admin', '{ products(filter: { isNothing: true }) { totalCount } }'),
    );
    // The same field, for admin.
    expect((await as('admin', '{ products { nodes { id isSales } } }')).body.errors).toBeUndefined();
    // Subscriptions are checked against the role's schema too (admin's is refused over plain HTTP only).
    const subscription = 'subscription { changes { id node { ... on Customer { id } } } }';
    expect(await code('web_shop', subscription)).toBe('GRAPHQL_VALIDATION_FAILED');
    expect((await as('admin', subscription)).body.errors?.[0]?.extensions?.code).toBe(
      'OPERATION_NOT_SUPPORTED_BY_TRANSPORT',
    );
  });

  it("web_shop lists only the active sales products, in admin's statements for the same query", async () => {
    const all = await data(
      'admin',
      `{ products(first: 100, where: { isSales: { equals: true }, isActive: { equals: true } }) {
           totalCount nodes { id } } }`,
    );
    const query = '{ products(first: 100) { totalCount nodes { id reference name { text } unit { reference } } } }';
    await warm('admin');
    await warm('web_shop');
    const admin = await as('admin', query);
    const shop = await as('web_shop', query);
    expect(shop.body.errors).toBeUndefined();
    const list = (shop.body.data as any).products;
    expect(list.totalCount).toBe(all.products.totalCount);
    expect(list.nodes.map((n: { id: number }) => n.id)).toEqual(all.products.nodes.map((n: { id: number }) => n.id));
    expect((admin.body.data as any).products.totalCount).toBeGreaterThan(list.totalCount);
    expect(shop.statements).toBe(admin.statements);
  });

  it('a to-one relationship to a row the role cannot see is null (and nullable)', async () => {
    const query = '{ productStructureItems(first: 100) { nodes { id product { id } } } }';
    const admin = await data('admin', query.replace('product { id }', 'product { id isSales }'));
    await warm('admin');
    await warm('mes');
    const mes = await as('mes', query);
    expect(mes.body.errors).toBeUndefined();
    const seen = new Map<number, unknown>(
      (mes.body.data as any).productStructureItems.nodes.map((n: any) => [n.id, n.product]),
    );
    const hidden = admin.productStructureItems.nodes.filter((n: any) => !n.product.isSales);
    expect(hidden.length).toBeGreaterThan(0);
    for (const item of admin.productStructureItems.nodes)
      expect(seen.get(item.id), `item ${item.id}`).toEqual(item.product.isSales ? { id: item.product.id } : null);
    expect(mes.statements).toBe((await as('admin', query)).statements);
    const type = await data('mes', '{ __type(name: "ProductStructureItem") { fields { name type { kind } } } }');
    expect(type.__type.fields.find((f: { name: string }) => f.name === 'product').type.kind).toBe('OBJECT');
  });

  it('a filter by a related id finds nothing through a row the role cannot see', async () => {
    const admin = await data('admin', '{ productStructureItems(first: 100) { nodes { product { id isSales } } } }');
    const hidden = admin.productStructureItems.nodes.find((n: any) => !n.product.isSales).product.id;
    const count = (role: string, id: number | null) =>
      data(role, `{ productStructureItems(filter: { productId: ${id} }) { totalCount } }`);
    expect((await count('admin', hidden)).productStructureItems.totalCount).toBeGreaterThan(0);
    // Neither the items of a hidden product nor, by their absence, whether it is linked at all.
    expect((await count('mes', hidden)).productStructureItems.totalCount).toBe(0);
    expect((await count('mes', null)).productStructureItems.totalCount).toBe(
      (await data('mes', '{ productStructureItems { totalCount } }')).productStructureItems.totalCount -
        (await data('mes', '{ productStructureItems(where: { product: { isNull: false } }) { totalCount } }'))
          .productStructureItems.totalCount,
    );
  });

  it('a to-many relationship leaves out the rows the role cannot see, in as many statements', async () => {
    const query = '{ suppliers(first: 100) { nodes { id types { id } } } }';
    const admin = await data(
      'admin',
      '{ suppliers(first: 100) { nodes { id types(where: { requestCertificates: { equals: true } }) { id } } } }',
    );
    await warm('admin');
    await warm('auditor');
    const auditor = await as('auditor', query);
    expect(auditor.body.data).toEqual(admin);
    expect(admin.suppliers.nodes.some((s: { types: unknown[] }) => s.types.length > 0)).toBe(true);
    expect(auditor.statements).toBe((await as('admin', query)).statements);
  });

  it('supplier_quality updates a supplier in the fields it may set, and has no others', async () => {
    const [supplier] = (await data('admin', '{ suppliers(first: 1) { nodes { id name } } }')).suppliers.nodes;
    const updated = await data(
      'supplier_quality',
      'mutation($id: Int!) { updateSupplier(id: $id, input: { emergencyContact: "Q. Uality" }) { id emergencyContact } }',
      { id: supplier.id },
    );
    expect(updated.updateSupplier).toEqual({ id: supplier.id, emergencyContact: 'Q. Uality' });
    const refused = await as(
      'supplier_quality',
      'mutation($id: Int!) { updateSupplier(id: $id, input: { name: "Renamed" }) { id } }',
      { id: supplier.id },
    );
    expect(refused.status).toBe(400);
    expect(refused.body.errors?.[0]?.message).toMatch(/^input\.name is not a field of UpdateSupplierInput/);
    expect((await data('admin', `{ supplier(id: ${supplier.id}) { name } }`)).supplier.name).toBe(supplier.name);
    const types = await data(
      'supplier_quality',
      '{ __schema { mutationType { fields { name } } } __type(name: "UpdateSupplierInput") { inputFields { name } } }',
    );
    expect(types.__schema.mutationType.fields.map((f: { name: string }) => f.name).sort()).toEqual(
      [
        'createSupplierType',
        'createSupplierTypes',
        'updateSupplier',
        'updateSupplierType',
        'updateSupplierTypes',
        'updateSuppliers',
        ...WEBHOOK_MUTATIONS,
        ...PROPOSING_MUTATIONS,
      ].sort(),
    );
    expect(types.__type.inputFields.map((f: { name: string }) => f.name).sort()).toEqual([
      'emergencyContact',
      'emergencyNumber',
      'isActive',
      'types',
    ]);
  });

  it("serves the SDL of the token's role; without a token the published one; a bad token is refused", async () => {
    const sdl = async (token?: string) => {
      const res = await env.t.request('/graphql/schema.graphql', {
        headers: token === undefined ? {} : { Authorization: `Bearer ${token}` },
      });
      return { status: res.status, text: await res.text() };
    };
    const published = await sdl();
    expect(published).toEqual({ status: 200, text: printSdl() });
    expect(await sdl(env.token)).toEqual(published);
    const shop = await sdl(tokens.web_shop);
    expect(shop.status).toBe(200);
    expect(shop.text).not.toBe(published.text);
    expect(shop.text).toMatch(/\ntype Product \{/);
    expect(shop.text).not.toMatch(/\ntype Customer \{|createProduct|isSales/);
    // As introspection shows it.
    expect(shop.text).toBe(sdlOf(schemaFor((await roleAccess('web_shop'))!)));
    const bad = await sdl('not-a-token');
    expect(bad.status).toBe(401);
    expect(JSON.parse(bad.text).error).toBe('invalid_token');
  });

  /** The Access the service holds for a role now. */
  async function roleAccess(role: string) {
    const [parsed] = parseRoleFile({ roles: { [role]: ROLES[role as keyof typeof ROLES] } });
    return accessOf(parsed!);
  }

  it('one document under two roles: each its own validation, plan and answer, in any order', async () => {
    const query = '{ products(first: 100) { totalCount nodes { id } } }';
    const counts = async () => ({
      admin: (await data('admin', query)).products.totalCount,
      shop: (await data('web_shop', query)).products.totalCount,
    });
    const first = await counts();
    expect(first.admin).toBeGreaterThan(first.shop);
    expect((await data('web_shop', query)).products.totalCount).toBe(first.shop);
    expect((await data('admin', query)).products.totalCount).toBe(first.admin);
    // The text parsed once is the same document for both: validity is per role, whoever came first.
    const hidden = `{ products(first: 3) { nodes { id nlc } } }`;
    expect((await as('web_shop', hidden)).body.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect((await as('admin', hidden)).body.errors).toBeUndefined();
    expect((await as('web_shop', hidden)).body.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    const visibleFirst = print(parse('{ units(first: 2) { nodes { id reference } } }'));
    expect(await data('web_shop', visibleFirst)).toEqual(await data('admin', visibleFirst));
  });

  it('a role that reads nothing has a Query of one field, its role', async () => {
    expect(await data('nothing', '{ role }')).toEqual({ role: 'nothing' });
    const res = await as('nothing', '{ changes { nodes { id } } }');
    expect(res.body.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect((await as('admin', '{ role }')).body.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });
});
