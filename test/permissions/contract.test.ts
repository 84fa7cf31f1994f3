/**
 * The roles contract, generated from the registry: for every resource type and every operation a
 * role can allow (read, create, update, delete), over REST and over GraphQL, a role that allows it
 * and one that does not. Allowed works; refused answers the documented status (403 `forbidden`, shape B) and
 * writes nothing (GraphQL: what the role may not do does not exist in its schema, so the
 * operation fails validation before any statement). Both databases.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { getNamedType } from 'graphql';
import { schema } from '../../src/graphql/schema.ts';
import { camel, typeName } from '../../src/resources/names.ts';
import { attributeField } from '../../src/resources/names.ts';
import { resources } from '../../src/resources/registry.ts';
import { providers } from '../support/databases.ts';
import { applyTestRoles, tokenWithRole } from '../support/roles.ts';
import { expectShapeB, expectStatus, restSuite } from '../rest/support.ts';

const TYPES = resources.map((r) => r.type);
const ITEMS = 'product_structure_items';
/** Types whose rows a write deletes (structure items): the only ones `delete` applies to. */
const DELETABLE = resources.flatMap((r) =>
  Object.values(r.relationships).flatMap((rel) => (rel.storage.kind === 'children' ? [rel.target] : [])),
);

/** Read everything, write nothing: the role that is refused every write. */
const readsAll = Object.fromEntries(TYPES.map((t) => [t, { read: {} }]));
/** Every operation on `type`, and reads of every other type (what a write links to must be visible). */
const allows = (type: string) => ({
  ...readsAll,
  [type]: { read: {}, create: {}, update: {}, ...(DELETABLE.includes(type) ? { delete: {} } : {}) },
});
/** Reads every type but `type`. */
const hides = (type: string) => Object.fromEntries(TYPES.filter((t) => t !== type).map((t) => [t, { read: {} }]));

const ROLES = {
  reads_all: readsAll,
  ...Object.fromEntries(
    TYPES.flatMap((t) => [
      [`may_${t}`, allows(t)],
      [`not_${t}`, hides(t)],
    ]),
  ),
};

describe.each(providers)('the roles contract over REST on %s', (provider) => {
  const api = restSuite(provider);
  const tokens = new Map<string, string>();
  const as = (role: string) => ({ token: tokens.get(role)! });
  beforeAll(async () => {
    const { db } = api.env.database;
    await applyTestRoles(db, ROLES);
    for (const role of Object.keys(ROLES)) tokens.set(role, await tokenWithRole(api.env.t, db, role));
  }, 60_000);

  describe.each(TYPES)('%s', (type) => {
    const resource = resources.find((r) => r.type === type)!;
    const model = () => api.prisma[resource.model];
    const someId = async () => (await api.create(type)).id as number;

    it('read: allowed lists and gets what admin does; refused is 403 on every path of the type', async () => {
      const id = await someId();
      const admin = await api.ok('GET', `/${type}?per_page=5`);
      const allowed = await api.request('GET', `/${type}?per_page=5`, as(`may_${type}`));
      expectStatus(allowed, 200);
      expect(allowed.body.meta.total).toBe(admin.meta.total);
      expectStatus(await api.request('GET', `/${type}/${id}`, as(`may_${type}`)), 200);
      expectShapeB(await api.request('GET', `/${type}`, as(`not_${type}`)), 403, 'forbidden');
      expectShapeB(await api.request('GET', `/${type}/${id}`, as(`not_${type}`)), 403, 'forbidden');
    });

    it.runIf(resource.operations.includes('add'))('create: allowed adds; refused is 403 and adds nothing', async () => {
      const before = await model().count();
      expectShapeB(
        await api.request('POST', `/${type}`, { ...as('reads_all'), body: await api.addBody(type) }),
        403,
        'forbidden',
      );
      expectShapeB(
        await api.request('POST', `/${type}`, { ...as(`not_${type}`), body: await api.addBody(type) }),
        403,
        'forbidden',
      );
      expect(await model().count()).toBe(before);
      expectStatus(await api.request('POST', `/${type}`, { ...as(`may_${type}`), body: await api.addBody(type) }), 201);
      expect(await model().count()).toBe(before + 1);
    });

    it.runIf(resource.operations.includes('update'))(
      'update: allowed changes; refused is 403 and changes nothing',
      async () => {
        const id = await someId();
        const body = () => ({ data: { type, id, attributes: api.sampleAttributes(resource, api.next()) } });
        const version = async () => (await model().findUnique({ where: { id } })).version;
        const at = await version();
        expectShapeB(
          await api.request('PATCH', `/${type}/${id}`, { ...as('reads_all'), body: body() }),
          403,
          'forbidden',
        );
        expect(await version()).toBe(at);
        expectStatus(await api.request('PATCH', `/${type}/${id}`, { ...as(`may_${type}`), body: body() }), 200);
        // A type whose client writes only relationships is sent no change: it answers without a new version.
        const changes = Object.keys(api.sampleAttributes(resource, 0)).length > 0;
        expect(await version()).toBe(changes ? at + 1 : at);
      },
    );

    it.runIf(type === 'product_structures')('create: a structure through its product, allowed or refused', async () => {
      const product = await api.create('products');
      const body = { data: { type, attributes: { quantity: 1 }, relationships: { items: { data: [] } } } };
      const path = `/products/${product.id}/product_structure`;
      expectShapeB(await api.request('POST', path, { ...as('reads_all'), body }), 403, 'forbidden');
      expect(await model().count({ where: { product_id: product.id } })).toBe(0);
      expectStatus(await api.request('POST', path, { ...as(`may_${type}`), body }), 201);
    });

    it.runIf(type === ITEMS)('create and delete: items of a structure, allowed or refused', async () => {
      const item = await api.create(ITEMS);
      const structure = item.relationships
        ? (await model().findUnique({ where: { id: item.id } })).product_structure_id
        : 0;
      const [product] = await api.ids('products', 1);
      const added = { data: [await api.itemObject(product!)] };
      const count = () => model().count({ where: { product_structure_id: structure } });
      const before = await count();
      expectShapeB(
        await api.request('POST', `/product_structures/${structure}/items`, { ...as('reads_all'), body: added }),
        403,
        'forbidden',
      );
      expect(await count()).toBe(before);
      expectStatus(
        await api.request('POST', `/product_structures/${structure}/items`, { ...as(`may_${type}`), body: added }),
        201,
      );
      const removed = { data: [{ type: ITEMS, id: item.id }] };
      const path = `/product_structures/${structure}/relationships/items`;
      expectShapeB(await api.request('DELETE', path, { ...as('reads_all'), body: removed }), 403, 'forbidden');
      expect(await model().count({ where: { id: item.id } })).toBe(1);
      expectStatus(await api.request('DELETE', path, { ...as(`may_${type}`), body: removed }), 200);
      expect(await model().count({ where: { id: item.id } })).toBe(0);
    });
  });
});

/** A GraphQL create input of `type` from a REST ADD body (the same values, GraphQL's names). */
function graphqlInput(
  type: string,
  body: { data: { attributes: Record<string, unknown>; relationships: Record<string, any> } },
) {
  const resource = resources.find((r) => r.type === type)!;
  const input: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(body.data.attributes)) {
    const attribute = resource.attributes[name]!;
    if (value === undefined) continue;
    input[attributeField(resource, name, attribute.column)] =
      typeof attribute.type === 'object' && value
        ? Object.fromEntries(Object.entries(value as object).map(([k, v]) => [camel(k), v]))
        : value;
  }
  for (const [name, { data }] of Object.entries(body.data.relationships)) {
    if (Array.isArray(data)) input[camel(name)] = { set: data.map((d: { id: number }) => d.id) };
    else input[`${camel(name)}Id`] = data?.id ?? null;
  }
  return input;
}

/** The root list field of a type's rows in the full schema (`products`, `productStructureItems`). */
function listField(type: string): string {
  const connection = `${typeName(type)}Connection`;
  const fields = schema.getQueryType()!.getFields();
  return Object.keys(fields).find(
    (name) => (getNamedType(fields[name]!.type) as { name: string }).name === connection,
  )!;
}

describe.each(providers)('the roles contract over GraphQL on %s', (provider) => {
  const api = restSuite(provider);
  const tokens = new Map<string, string>();
  beforeAll(async () => {
    const { db } = api.env.database;
    await applyTestRoles(db, ROLES);
    for (const role of Object.keys(ROLES)) {
      tokens.set(role, await tokenWithRole(api.env.t, db, role));
      // The token and the role read once: a refusal below then costs no statement at all.
      await api.env.gql('{ __typename }', undefined, { token: tokens.get(role)! });
    }
  }, 60_000);
  const gql = (role: string, query: string, variables?: Record<string, unknown>) =>
    api.env.gql(query, variables, { token: tokens.get(role)! });
  /**
   * The operation under `role` fails validation, at no statement. The token and the role are
   * trusted for 5 s once checked, and one may run out between two requests (a file of this size
   * takes longer than that under parallel test files): a request that checked them again is sent
   * once more, right after, with both fresh. What is counted is the operation's own cost.
   */
  const refusedByValidation = async (role: string, query: string, variables?: Record<string, unknown>) => {
    let res = await gql(role, query, variables);
    if (res.statements > 0) res = await gql(role, query, variables);
    expect(res.body.errors?.[0]?.extensions?.code, JSON.stringify(res.body)).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(res.statements).toBe(0);
  };

  describe.each(TYPES)('%s', (type) => {
    const resource = resources.find((r) => r.type === type)!;
    const model = () => api.prisma[resource.model];
    const name = typeName(type);

    it('read: allowed lists what admin does; refused does not exist in the role schema', async () => {
      const query = `{ ${listField(type)} { totalCount } }`;
      const admin = await api.env.gql(query);
      const allowed = await gql(`may_${type}`, query);
      expect(allowed.body.data, JSON.stringify(allowed.body)).toEqual(admin.body.data);
      await refusedByValidation(`not_${type}`, query);
    });

    it.runIf(resource.operations.includes('add'))(
      'create: allowed creates; refused does not exist, creates nothing',
      async () => {
        // A type whose client sets nothing on create (a supplier evaluation's role user) takes no input.
        const takesInput = schema.getType(`Create${name}Input`) !== undefined;
        const mutation = takesInput
          ? `mutation ($input: Create${name}Input!) { create${name}(input: $input) { id } }`
          : `mutation { create${name} { id } }`;
        const before = await model().count();
        await refusedByValidation('reads_all', mutation, { input: graphqlInput(type, await api.addBody(type)) });
        expect(await model().count()).toBe(before);
        const created = await gql(`may_${type}`, mutation, { input: graphqlInput(type, await api.addBody(type)) });
        expect(created.body.errors, JSON.stringify(created.body.errors)).toBeUndefined();
        expect(await model().count()).toBe(before + 1);
      },
    );

    it.runIf(
      resource.operations.includes('update') && schema.getMutationType()!.getFields()[`update${name}`] !== undefined,
    )('update: allowed updates; refused does not exist, changes nothing', async () => {
      const id = (await api.create(type)).id as number;
      const mutation = `mutation ($id: Int!, $input: Update${name}Input!) { update${name}(id: $id, input: $input) { id } }`;
      const input = graphqlInput(type, {
        data: { attributes: api.sampleAttributes(resource, api.next()), relationships: {} },
      });
      const version = async () => (await model().findUnique({ where: { id } })).version;
      const at = await version();
      await refusedByValidation('reads_all', mutation, { id, input });
      expect(await version()).toBe(at);
      const updated = await gql(`may_${type}`, mutation, { id, input });
      expect(updated.body.errors, JSON.stringify(updated.body.errors)).toBeUndefined();
      expect(updated.body.data?.[`update${name}`]?.id).toBe(id);
    });
  });
});
