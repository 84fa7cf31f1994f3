/**
 * The roles contract, generated from the registry: for every resource type and every operation a
 * role can allow (read, create, update, delete), over REST, a role that allows it and one that
 * does not. Allowed works; refused answers the documented status (403 `forbidden`, shape B) and
 * writes nothing. Both databases.
 */
import { beforeAll, describe, expect, it } from 'vitest';
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
