/**
 * The REST contract, driven by the resource registry: every operation of every type (LIST, GET,
 * ADD, UPDATE by PATCH and PUT), and per relationship exactly the operations the registry lists
 * (REL-GET, REL-SET, RELATED-GET, REL-ADD, REL-REPLACE, REL-REMOVE); the always-refused ones
 * answer 403, every other method 405 with `Allow`. Documents are checked against the registry
 * (rest.md "Documents"); a document read with GET and sent back as an UPDATE changes nothing
 * but `modified_date`.
 */
import { describe, expect, it } from 'vitest';
import { resources } from '../../src/resources/registry.ts';
import { REST_ROUTES } from '../../src/rest/routes.ts';
import type { Relationship, RelationshipOperation, ResourceDefinition } from '../../src/resources/types.ts';
import { testApp } from '../support/app.ts';
import { providers } from '../support/databases.ts';
import { bearer } from '../support/oauth.ts';
import {
  ATOM,
  BASE,
  CURSOR,
  expectIncluded,
  expectMethodNotAllowed,
  expectResource,
  expectShapeA,
  expectShapeB,
  expectStatus,
  identifier,
  JSON_UTF8,
  MISSING_ID,
  restSuite,
  sortIds,
  withoutDates,
} from './support.ts';

const TYPES = resources.map((r) => [r.type, r] as const);
const RELATIONSHIPS = resources.flatMap((r) =>
  Object.entries(r.relationships).map(([name, rel]) => [`${r.type}.${name}`, r, name, rel] as const),
);

/** How each relationship operation is reached (rest.md "Paths and methods"). */
type Access = { method: 'GET' | 'PATCH' | 'POST' | 'DELETE'; related: boolean };
const ACCESS: Record<RelationshipOperation, Access> = {
  get: { method: 'GET', related: false },
  set: { method: 'PATCH', related: false },
  replace: { method: 'PATCH', related: false },
  add: { method: 'POST', related: false },
  remove: { method: 'DELETE', related: false },
  related: { method: 'GET', related: true },
};

/** The operations a client can reach on a relationship's two paths (PATCH is set for to-one, replace for to-many). */
function reachable(rel: Relationship): RelationshipOperation[] {
  return rel.cardinality === 'to-one'
    ? ['get', 'set', 'add', 'remove', 'related']
    : ['get', 'replace', 'add', 'remove', 'related'];
}

const ms = (atom: string) => Date.parse(atom);

/** The routes rest.md "Paths and methods" gives for the registry, derived here independently of the route table. */
function expectedRoutes(): Map<string, string | undefined> {
  const routes = new Map<string, string | undefined>();
  for (const r of resources) {
    routes.set(`GET /${r.type}`, undefined);
    routes.set(`GET /${r.type}/:id`, undefined);
    routes.set(`PATCH /${r.type}/:id`, undefined);
    routes.set(`PUT /${r.type}/:id`, undefined);
    if (r.operations.includes('add')) routes.set(`POST /${r.type}`, undefined);
    else routes.set(`POST /${r.type}`, 'refused');
    for (const [name, rel] of Object.entries(r.relationships)) {
      for (const op of [...rel.operations, ...(rel.forbidden?.operations ?? [])]) {
        const { method, related } = ACCESS[op];
        routes.set(
          `${method} /${r.type}/:id/${related ? '' : 'relationships/'}${name}`,
          rel.operations.includes(op) ? undefined : 'refused',
        );
      }
    }
  }
  routes.set('POST /products/:id/product_structure', undefined);
  routes.set('POST /product_structures/:id/items', undefined);
  return routes;
}

describe('the route table', () => {
  it('holds exactly the operations of the registry, the always-refused ones marked refused', () => {
    const expected = expectedRoutes();
    const actual = new Map(
      REST_ROUTES.map((r) => [`${r.method} ${r.path}`, r.refused === undefined ? undefined : 'refused']),
    );
    expect([...actual.keys()].sort()).toEqual([...expected.keys()].sort());
    expect(actual).toEqual(expected);
  });

  it("refuses exactly the spec's Errors table rows (403)", () => {
    const refused = REST_ROUTES.filter((r) => r.refused)
      .map((r) => `${r.method} ${r.path}`)
      .sort();
    expect(refused).toEqual(
      [
        'PATCH /customer_products/:id/relationships/customer',
        'PATCH /customer_products/:id/relationships/product',
        'POST /product_structures',
        'POST /product_structure_items',
        'PATCH /product_structure_items/:id/relationships/product',
        'PATCH /product_structure_items/:id/relationships/type',
        'PATCH /products/:id/relationships/product_structure',
        'POST /product_structures/:id/relationships/items',
      ].sort(),
    );
  });
});

describe.each(providers)('REST contract on %s', (provider) => {
  const api = restSuite(provider);

  /** Ids of the first and the last seeded row of a type (a product with and one without a structure, ...). */
  async function seeded(type: string): Promise<number[]> {
    const model = resources.find((r) => r.type === type)!.model;
    const first = await api.ids(type, 1);
    const last = await api.prisma[model].findFirst({ orderBy: { id: 'desc' }, select: { id: true } });
    return [...new Set([...first, last.id as number])];
  }

  describe.each(TYPES)('%s', (type, resource: ResourceDefinition) => {
    it('LIST: 200, every resource object complete, meta and absolute links, default per_page 20, ordered by id', async () => {
      const res = await api.get(`/${type}`);
      expectStatus(res, 200);
      expect(res.headers.get('content-type')).toBe(JSON_UTF8);
      const total = await api.count(type);
      expect(res.body.meta).toEqual({
        total,
        count: Math.min(20, total),
        pages: Math.ceil(total / 20),
        per_page: 20,
        changes_cursor: CURSOR,
      });
      expect(res.body.data.map((d: any) => d.id)).toEqual(await api.ids(type, 20));
      for (const doc of res.body.data) expectResource(doc, type);
      if (res.body.included !== undefined) expect(res.body.included).toEqual([]);
      const links = res.body.links;
      expect(Object.keys(links).sort()).toEqual(['first', 'last', 'next', 'prev', 'self']);
      const page = (link: string) => {
        const url = new URL(link);
        expect(`${url.origin}${url.pathname}`).toBe(`${BASE}/${type}`);
        return url.searchParams.get('page');
      };
      expect(page(links.self)).toBe('1');
      expect(page(links.first)).toBe('1');
      expect(links.prev).toBeNull();
      if (total > 20) expect(page(links.next)).toBe('2');
      else expect(links.next).toBeNull();
      expect(page(links.last)).toBe(String(Math.max(1, Math.ceil(total / 20))));
    });

    it('LIST pages: first, middle, last and past the end, with meta and links to the right pages', async () => {
      const total = await api.count(type);
      const perPage = Math.min(50, Math.max(1, Math.floor(total / 3)));
      const pages = Math.ceil(total / perPage);
      const all = await api.ids(type, total);
      const pageOf = (link: string | null) => (link === null ? null : Number(new URL(link).searchParams.get('page')));
      for (const page of new Set([1, Math.ceil(pages / 2), pages, pages + 1])) {
        const res = await api.get(`/${type}?per_page=${perPage}&page=${page}`);
        expectStatus(res, 200);
        const expected = all.slice((page - 1) * perPage, page * perPage);
        expect(
          res.body.data.map((d: any) => d.id),
          `page ${page}`,
        ).toEqual(expected);
        expect(res.body.meta).toEqual({
          total,
          count: expected.length,
          pages,
          per_page: perPage,
          changes_cursor: CURSOR,
        });
        const { self, first, prev, next, last } = res.body.links;
        expect([self, first, prev, next, last].map(pageOf), `links of page ${page}`).toEqual([
          page,
          1,
          page > 1 ? Math.min(page - 1, pages) : null,
          page < pages ? page + 1 : null,
          pages,
        ]);
        expect(new URL(self).searchParams.get('per_page')).toBe(String(perPage));
      }
    });

    it('GET: 200, the same resource object LIST shows', async () => {
      const list = await api.get(`/${type}?per_page=3`);
      for (const doc of list.body.data) {
        const res = await api.get(`/${type}/${doc.id}`);
        expectStatus(res, 200);
        expect(res.headers.get('content-type')).toBe(JSON_UTF8);
        expectResource(res.body.data, type, doc.id);
        expect(res.body.data).toEqual(doc);
        if (res.body.included !== undefined) expect(res.body.included).toEqual([]);
      }
    });

    it('GET of a missing id: 404 shape A naming type and id', async () => {
      expectShapeA(await api.get(`/${type}/${MISSING_ID}`), type, MISSING_ID);
    });

    if (resource.operations.includes('add')) {
      it('ADD: 201 with Location, every attribute and relationship as written (decimals exact)', async () => {
        const before = await api.count(type);
        const body = await api.addBody(type);
        const res = await api.post(`/${type}`, body);
        expectStatus(res, 201);
        expect(res.headers.get('content-type')).toBe(JSON_UTF8);
        const doc = res.body.data;
        expectResource(doc, type);
        expect(res.headers.get('location')).toBe(`${BASE}/${type}/${doc.id}`);
        for (const [name, value] of Object.entries(body.data.attributes))
          expect(doc.attributes[name], name).toEqual(value);
        for (const [name, member] of Object.entries(body.data.relationships) as [string, { data: any }][]) {
          if (Array.isArray(member.data))
            expect(sortIds(doc.relationships[name].data), name).toEqual(sortIds(member.data));
          else expect(doc.relationships[name].data, name).toEqual(member.data);
        }
        for (const date of ['modified_date', 'created_date']) {
          if (!(date in resource.attributes)) continue;
          expect(doc.attributes[date]).toMatch(ATOM);
          expect(Math.abs(ms(doc.attributes[date]) - Date.now())).toBeLessThan(120_000);
        }
        expect(await api.count(type)).toBe(before + 1);
        const read = await api.get(new URL(res.headers.get('location')!).pathname);
        expectStatus(read, 200);
        expect(read.body.data).toEqual(doc);
      });
    } else {
      it('ADD through the collection: 403 forbidden (shape B) saying what to use instead, nothing written', async () => {
        const before = await api.count(type);
        const res = await api.post(`/${type}`, { data: { type, attributes: {} } });
        expectShapeB(res, 403, 'forbidden');
        expect(await api.count(type)).toBe(before);
      });
    }

    it('UPDATE by PATCH: every attribute and writable relationship changes, 200 with the new document', async () => {
      const created = await api.create(type);
      const attributes = api.sampleAttributes(resource, api.next());
      const relationships: Record<string, { data: unknown }> = {};
      for (const [name, rel] of Object.entries(resource.relationships)) {
        if (rel.forbidden || !['foreignKey', 'join'].includes(rel.storage.kind)) continue;
        const [, second] = await api.ids(rel.target, 2);
        relationships[name] = {
          data: rel.cardinality === 'to-one' ? identifier(rel.target, second!) : [identifier(rel.target, second!)],
        };
      }
      const res = await api.patch(`/${type}/${created.id}`, {
        data: { type, id: created.id, attributes, relationships },
      });
      expectStatus(res, 200);
      expect(res.headers.get('content-type')).toBe(JSON_UTF8);
      const doc = res.body.data;
      expectResource(doc, type, created.id);
      for (const [name, value] of Object.entries(attributes)) expect(doc.attributes[name], name).toEqual(value);
      for (const [name, member] of Object.entries(relationships))
        expect(doc.relationships[name].data, name).toEqual(member.data);
      // Relationships not given are kept.
      for (const name of Object.keys(resource.relationships)) {
        if (!(name in relationships)) expect(doc.relationships[name], name).toEqual(created.relationships[name]);
      }
      if ('modified_date' in resource.attributes)
        expect(ms(doc.attributes.modified_date)).toBeGreaterThanOrEqual(ms(created.attributes.modified_date));
      const read = await api.get(`/${type}/${created.id}`);
      expect(read.body.data).toEqual(doc);
    });

    it('UPDATE by PUT: the same partial semantics (only what is given changes)', async () => {
      const created = await api.create(type);
      const [name, value] = Object.entries(api.sampleAttributes(resource, api.next()))[0] ?? [];
      const res = await api.put(`/${type}/${created.id}`, {
        data: { type, attributes: name ? { [name]: value } : {} },
      });
      expectStatus(res, 200);
      expectResource(res.body.data, type, created.id);
      const expected = withoutDates(created);
      if (name) {
        expected.attributes[name] = value;
        expected.meta.version += 1;
      }
      expect(withoutDates(res.body.data)).toEqual(expected);
    });

    it('UPDATE of a missing id: 404 shape A naming type and id', async () => {
      for (const method of ['PATCH', 'PUT'] as const) {
        const res = await api.request(method, `/${type}/${MISSING_ID}`, { body: { data: { type, attributes: {} } } });
        expectShapeA(res, type, MISSING_ID, method);
      }
    });

    it('a document read with GET and sent back unchanged as UPDATE: 200, nothing changes, not even modified_date or the version', async () => {
      const ids = [...(await seeded(type)), (await api.create(type)).id];
      for (const id of ids) {
        const before = (await api.ok('GET', `/${type}/${id}`)).data;
        for (const method of ['PATCH', 'PUT'] as const) {
          const res = await api.request(method, `/${type}/${id}`, { body: { data: before } });
          expectStatus(res, 200, `${method} /${type}/${id} with its own GET document`);
          expect(res.body.data).toEqual(before);
          const after = (await api.ok('GET', `/${type}/${id}`)).data;
          expect(after).toEqual(before);
        }
      }
    });

    it('methods not listed on the collection and its members: 405 shape B with Allow', async () => {
      const [id] = await api.ids(type, 1);
      const member = ['GET', 'PATCH', 'PUT'];
      const collection = [
        'GET',
        ...(resource.operations.includes('add') || resource.forbidden?.operations.includes('add') ? ['POST'] : []),
      ];
      // No DELETE of resources: master data is deactivated, not deleted.
      expectMethodNotAllowed(await api.delete(`/${type}/${id}`), 'DELETE', member, `DELETE /${type}/${id}`);
      expectMethodNotAllowed(
        await api.post(`/${type}/${id}`, { data: { type } }),
        'POST',
        member,
        `POST /${type}/${id}`,
      );
      expectMethodNotAllowed(await api.delete(`/${type}`), 'DELETE', collection, `DELETE /${type}`);
      expectMethodNotAllowed(await api.patch(`/${type}`, { data: { type } }), 'PATCH', collection, `PATCH /${type}`);
      expectMethodNotAllowed(await api.put(`/${type}`, { data: { type } }), 'PUT', collection, `PUT /${type}`);
      expect(await api.count(type)).toBeGreaterThan(0);
    });
  });

  describe.each(RELATIONSHIPS)(
    'relationship %s',
    (_name, resource: ResourceDefinition, name: string, rel: Relationship) => {
      const type = resource.type;
      const relPath = (id: number | string) => `/${type}/${id}/relationships/${name}`;
      const relatedPath = (id: number | string) => `/${type}/${id}/${name}`;
      const listed = (op: RelationshipOperation) => rel.operations.includes(op);
      const refused = (op: RelationshipOperation) => rel.forbidden?.operations.includes(op) ?? false;
      const methodsOn = (related: boolean) =>
        reachable(rel)
          .filter((op) => listed(op) && ACCESS[op].related === related)
          .map((op) => ACCESS[op].method);
      const links = (id: number) => ({ self: `${BASE}${relPath(id)}`, related: `${BASE}${relatedPath(id)}` });

      /** The relationship as the resource's own document shows it. */
      async function current(id: number): Promise<any> {
        return (await api.ok('GET', `/${type}/${id}`)).data.relationships[name].data;
      }

      /** A body for a write that is not listed (so that a 405 is not mistaken for a body error). */
      const someBody = async () => {
        const [target] = await api.ids(rel.target, 1);
        return {
          data: rel.cardinality === 'to-one' ? identifier(rel.target, target!) : [identifier(rel.target, target!)],
        };
      };

      for (const op of reachable(rel)) {
        const { method, related } = ACCESS[op];
        const path = related ? relatedPath : relPath;
        if (listed(op)) continue;
        if (refused(op)) {
          it(`${method} ${path(':id')} is always refused: 403 forbidden (shape B), nothing changes`, async () => {
            const owner = (await seeded(type)).at(-1)!;
            const before = await current(owner);
            const res = await api.request(method, path(owner), { body: await someBody() });
            expectShapeB(res, 403, 'forbidden');
            expect(await current(owner)).toEqual(before);
          });
        } else {
          it(`${method} ${path(':id')} is not an operation of this relationship: 405 shape B with Allow`, async () => {
            const owner = (await seeded(type))[0]!;
            const before = await current(owner);
            const res = await api.request(method, path(owner), method === 'GET' ? {} : { body: await someBody() });
            expectMethodNotAllowed(res, method, methodsOn(related), `${method} ${path(owner)}`);
            expect(await current(owner)).toEqual(before);
          });
        }
      }

      it(`other methods on ${relatedPath(':id')}: 405 shape B with Allow`, async () => {
        const owner = (await seeded(type))[0]!;
        const special =
          (type === 'products' && name === 'product_structure') || (type === 'product_structures' && name === 'items')
            ? ['POST']
            : [];
        for (const method of ['POST', 'PATCH', 'PUT', 'DELETE'] as const) {
          if (special.includes(method)) continue;
          const res = await api.request(method, relatedPath(owner), { body: { data: [] } });
          expectMethodNotAllowed(res, method, methodsOn(true), `${method} ${relatedPath(owner)}`);
        }
      });

      if (listed('get')) {
        it(`REL-GET ${relPath(':id')}: 200 {links, data} as the resource shows it; include=${name} side-loads the targets`, async () => {
          for (const owner of [...(await seeded(type)), (await api.create(type)).id]) {
            const expected = await current(owner);
            const res = await api.get(relPath(owner));
            expectStatus(res, 200);
            expect(res.headers.get('content-type')).toBe(JSON_UTF8);
            expect(res.body.links).toEqual(links(owner));
            expect(res.body.data).toEqual(expected);
            if (res.body.included !== undefined) expect(res.body.included).toEqual([]);
            const withIncluded = await api.get(`${relPath(owner)}?include=${name}`);
            expectStatus(withIncluded, 200);
            expect(withIncluded.body.data).toEqual(expected);
            const targets = Array.isArray(expected) ? expected : expected ? [expected] : [];
            if (targets.length > 0 || withIncluded.body.included !== undefined) {
              expectIncluded(
                withIncluded.body.included,
                type,
                [{ id: owner, relationships: { [name]: { data: expected } } }],
                [name],
              );
            }
          }
        });

        it(`REL-GET on a missing ${type}: 404 shape A`, async () => {
          expectShapeA(await api.get(relPath(MISSING_ID)), type, MISSING_ID);
        });
      }

      if (listed('related')) {
        it(`RELATED-GET ${relatedPath(':id')}: 200 with the related resource objects`, async () => {
          for (const owner of [...(await seeded(type)), (await api.create(type)).id]) {
            const expected = await current(owner);
            const res = await api.get(relatedPath(owner));
            expectStatus(res, 200);
            expect(res.headers.get('content-type')).toBe(JSON_UTF8);
            if (rel.cardinality === 'to-many') {
              expect(Array.isArray(res.body.data)).toBe(true);
              expect(sortIds(res.body.data)).toEqual(sortIds(expected));
              for (const doc of res.body.data) expectResource(doc, rel.target);
            } else if (expected === null) {
              expect(res.body.data).toBeNull();
            } else {
              expectResource(res.body.data, rel.target, expected.id);
              expect(res.body.data).toEqual((await api.ok('GET', `/${rel.target}/${expected.id}`)).data);
            }
          }
        });

        it(`RELATED-GET on a missing ${type}: 404 shape A`, async () => {
          expectShapeA(await api.get(relatedPath(MISSING_ID)), type, MISSING_ID);
        });
      }

      if (listed('set')) {
        it(`REL-SET ${relPath(':id')}: 200 {links, data}, the link changed`, async () => {
          const owner = await api.create(type);
          const [, second] = await api.ids(rel.target, 2);
          const res = await api.patch(relPath(owner.id), { data: identifier(rel.target, second!) });
          expectStatus(res, 200);
          expect(res.headers.get('content-type')).toBe(JSON_UTF8);
          expect(res.body).toEqual({ links: links(owner.id), data: identifier(rel.target, second!) });
          expect(await current(owner.id)).toEqual(identifier(rel.target, second!));
        });

        if (rel.removable) {
          it(`REL-SET with {data: null} and with {data: {id: null}} removes the link`, async () => {
            const owner = await api.create(type);
            const [first] = await api.ids(rel.target, 1);
            for (const body of [{ data: null }, { data: { type: rel.target, id: null } }, { data: { id: null } }]) {
              await api.ok('PATCH', relPath(owner.id), { data: identifier(rel.target, first!) });
              const res = await api.patch(relPath(owner.id), body);
              expectStatus(res, 200, JSON.stringify(body));
              expect(res.body).toEqual({ links: links(owner.id), data: null });
              expect(await current(owner.id)).toBeNull();
            }
          });
        } else {
          it(`REL-SET with {data: null}: this link cannot be removed, 400 invalid_relationship, nothing changes`, async () => {
            const owner = await api.create(type);
            const before = await current(owner.id);
            for (const body of [{ data: null }, { data: { type: rel.target, id: null } }]) {
              expectShapeB(await api.patch(relPath(owner.id), body), 400, 'invalid_relationship', JSON.stringify(body));
              expect(await current(owner.id)).toEqual(before);
            }
          });
        }

        it('REL-SET to a missing target or on a missing resource: 404 shape A naming type and id, nothing changes', async () => {
          const owner = await api.create(type);
          const before = await current(owner.id);
          expectShapeA(
            await api.patch(relPath(owner.id), { data: identifier(rel.target, MISSING_ID) }),
            rel.target,
            MISSING_ID,
          );
          expect(await current(owner.id)).toEqual(before);
          const [first] = await api.ids(rel.target, 1);
          expectShapeA(
            await api.patch(relPath(MISSING_ID), { data: identifier(rel.target, first!) }),
            type,
            MISSING_ID,
          );
        });
      }

      if (listed('add')) {
        it(`REL-ADD ${relPath(':id')}: 200 {links, data} with the full set; adding one already there keeps one`, async () => {
          const owner = await api.create(type);
          const before = await current(owner.id);
          const added = (await api.create(rel.target)).id;
          const res = await api.post(relPath(owner.id), { data: [identifier(rel.target, added)] });
          expectStatus(res, 200);
          expect(res.headers.get('content-type')).toBe(JSON_UTF8);
          expect(res.body.links).toEqual(links(owner.id));
          const expected = [...sortIds(before), added].sort((a, b) => a - b);
          expect(sortIds(res.body.data)).toEqual(expected);
          const again = await api.post(relPath(owner.id), {
            data: [identifier(rel.target, added), identifier(rel.target, added)],
          });
          expectStatus(again, 200);
          expect(sortIds(again.body.data)).toEqual(expected);
          expect(sortIds(await current(owner.id))).toEqual(expected);
        });

        it('REL-ADD of a missing target: 404 shape A, nothing added; on a missing resource: 404', async () => {
          const owner = await api.create(type);
          const before = await current(owner.id);
          const added = (await api.create(rel.target)).id;
          const res = await api.post(relPath(owner.id), {
            data: [identifier(rel.target, added), identifier(rel.target, MISSING_ID)],
          });
          expectShapeA(res, rel.target, MISSING_ID);
          expect(await current(owner.id)).toEqual(before);
          expectShapeA(
            await api.post(relPath(MISSING_ID), { data: [identifier(rel.target, added)] }),
            type,
            MISSING_ID,
          );
        });
      }

      if (listed('replace') && rel.storage.kind === 'join') {
        it(`REL-REPLACE ${relPath(':id')}: 200 {links, data}, exactly the given set`, async () => {
          const owner = await api.create(type);
          const [, second] = await api.ids(rel.target, 2);
          const added = (await api.create(rel.target)).id;
          for (const ids of [[second!, added], [added], []]) {
            const res = await api.patch(relPath(owner.id), { data: ids.map((id) => identifier(rel.target, id)) });
            expectStatus(res, 200, JSON.stringify(ids));
            expect(res.body.links).toEqual(links(owner.id));
            expect(sortIds(res.body.data)).toEqual([...ids].sort((a, b) => a - b));
            expect(sortIds(await current(owner.id))).toEqual([...ids].sort((a, b) => a - b));
          }
        });

        it('REL-REPLACE with a missing target or on a missing resource: 404 shape A, nothing changes', async () => {
          const owner = await api.create(type);
          const before = await current(owner.id);
          const [first] = await api.ids(rel.target, 1);
          const res = await api.patch(relPath(owner.id), {
            data: [identifier(rel.target, first!), identifier(rel.target, MISSING_ID)],
          });
          expectShapeA(res, rel.target, MISSING_ID);
          expect(await current(owner.id)).toEqual(before);
          expectShapeA(
            await api.patch(relPath(MISSING_ID), { data: [identifier(rel.target, first!)] }),
            type,
            MISSING_ID,
          );
        });
      }

      if (listed('replace') && rel.storage.kind === 'children') {
        it(`REL-REPLACE ${relPath(':id')} with full item objects: the old items are deleted, {links, data, included}`, async () => {
          const owner = await api.create(type);
          const old = sortIds(await current(owner.id));
          const [, , third] = await api.ids('products', 3);
          const res = await api.patch(relPath(owner.id), {
            data: [await api.itemObject(third!, { net_quantity: 0.1 })],
          });
          expectStatus(res, 200);
          expect(res.body.links).toEqual(links(owner.id));
          expect(res.body.data).toHaveLength(1);
          expectIncluded(
            res.body.included,
            type,
            [{ id: owner.id, relationships: { [name]: { data: res.body.data } } }],
            [name],
          );
          expect(res.body.included[0].attributes.net_quantity).toBe(0.1);
          expect(res.body.included[0].relationships.product.data).toEqual(identifier('products', third!));
          for (const id of old) expectShapeA(await api.get(`/${rel.target}/${id}`), rel.target, id);
        });
      }

      if (listed('remove') && rel.storage.kind === 'join') {
        it(`REL-REMOVE ${relPath(':id')}: 200 {links, data} without them; removing one not there is no error`, async () => {
          const owner = await api.create(type);
          const before = sortIds(await current(owner.id));
          expect(before.length).toBeGreaterThan(0);
          const res = await api.delete(relPath(owner.id), { data: [identifier(rel.target, before[0]!)] });
          expectStatus(res, 200);
          expect(res.headers.get('content-type')).toBe(JSON_UTF8);
          expect(res.body.links).toEqual(links(owner.id));
          expect(sortIds(res.body.data)).toEqual(before.slice(1));
          const again = await api.delete(relPath(owner.id), { data: [identifier(rel.target, before[0]!)] });
          expectStatus(again, 200);
          expect(sortIds(again.body.data)).toEqual(before.slice(1));
          expect(sortIds(await current(owner.id))).toEqual(before.slice(1));
          expectShapeA(
            await api.delete(relPath(MISSING_ID), { data: [identifier(rel.target, before[0]!)] }),
            type,
            MISSING_ID,
          );
        });
      }

      if (listed('remove') && rel.storage.kind === 'children') {
        it(`REL-REMOVE ${relPath(':id')} deletes the items: {links, data, included: remaining}`, async () => {
          const owner = await api.create(type);
          const [first, ...rest] = sortIds(await current(owner.id));
          const res = await api.delete(relPath(owner.id), { data: [identifier(rel.target, first!)] });
          expectStatus(res, 200);
          expect(res.body.links).toEqual(links(owner.id));
          expect(sortIds(res.body.data)).toEqual(rest);
          expectIncluded(
            res.body.included,
            type,
            [{ id: owner.id, relationships: { [name]: { data: res.body.data } } }],
            [name],
          );
          expectShapeA(await api.get(`/${rel.target}/${first}`), rel.target, first);
          expectStatus(await api.delete(relPath(owner.id), { data: [identifier(rel.target, first!)] }), 200);
        });
      }
    },
  );
  it('under BASE_PATH every route and every link carries the prefix', async () => {
    const t = testApp(api.env.database, { basePath: '/masterdata' });
    const list = await t.request('/masterdata/customers?per_page=2&page=2', bearer(api.env.token));
    expect(list.status).toBe(200);
    const body = await list.json();
    for (const value of Object.values(body.links))
      if (value !== null) expect(value).toMatch(/^http:\/\/localhost\/masterdata\/customers\?/);
    const customer = body.data[0];
    expect(customer.links.self).toBe(`${BASE}/masterdata/customers/${customer.id}`);
    const rel = await t.request(`/masterdata/customers/${customer.id}/relationships/language`, bearer(api.env.token));
    expect(rel.status).toBe(200);
    expect((await rel.json()).links).toEqual({
      self: `${BASE}/masterdata/customers/${customer.id}/relationships/language`,
      related: `${BASE}/masterdata/customers/${customer.id}/language`,
    });
    const added = await t.request('/masterdata/brands', {
      method: 'POST',
      headers: { ...bearer(api.env.token).headers, 'Content-Type': 'application/json' },
      body: JSON.stringify({ data: { type: 'brands', attributes: { reference: api.unique('BP') } } }),
    });
    expect(added.status).toBe(201);
    const id = (await added.json()).data.id;
    expect(added.headers.get('location')).toBe(`${BASE}/masterdata/brands/${id}`);
    expect((await t.request('/customers', bearer(api.env.token))).status).toBe(404);
  });
});
