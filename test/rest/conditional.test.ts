/**
 * Versions and conditional requests on the REST layer (RFC 9110 §13): strong ETags on every GET
 * answer, If-None-Match -> 304, If-Match on every write to a resource and its relationship
 * paths -> 412 `precondition_failed` with nothing written, and versions that move exactly when a
 * document changes.
 */
import { describe, expect, it } from 'vitest';
import { providers } from '../support/databases.ts';
import {
  expectShapeA,
  expectShapeB,
  expectStatus,
  identifier,
  MISSING_ID,
  restSuite,
  type RestResponse,
} from './support.ts';

const USERS = 'commercial_resolve_responsible_users';

describe.each(providers)('REST conditional requests on %s', (provider) => {
  const api = restSuite(provider);

  const etag = (res: RestResponse) => {
    const tag = res.headers.get('etag');
    expect(tag, `an ETag on ${res.status}`).toMatch(/^"[^"]+"$/);
    return tag!;
  };
  const ifMatch = (tag: string) => ({ headers: { 'If-Match': tag } });
  const ifNoneMatch = (tag: string) => ({ headers: { 'If-None-Match': tag } });
  const renamed = (n: number) => ({ data: { type: 'products', attributes: { name: { en: `Renamed ${n}` } } } });

  /** 304: no body, the same tag, nothing a cache would need to refresh. */
  async function expectNotModified(path: string, tag: string) {
    const res = await api.get(path, ifNoneMatch(tag));
    expect(res.status, `${path} with its current tag`).toBe(304);
    expect(res.text).toBe('');
    expect(res.headers.get('etag')).toBe(tag);
  }

  describe('If-Match on writes: two clients that read the same version', () => {
    it('UPDATE: the first wins (200), the second gets 412 and changes nothing', async () => {
      const product = await api.create('products');
      const read = await api.get(`/products/${product.id}`);
      const tag = etag(read);
      const first = await api.patch(`/products/${product.id}`, renamed(1), ifMatch(tag));
      expectStatus(first, 200);
      expect(first.body.data.meta.version).toBe(read.body.data.meta.version + 1);
      const second = await api.patch(`/products/${product.id}`, renamed(2), ifMatch(tag));
      expectShapeB(second, 412, 'precondition_failed');
      expect(second.body.error.message).toMatch(
        new RegExp(`products ${product.id} is at version ${first.body.data.meta.version}`),
      );
      const now = await api.get(`/products/${product.id}`);
      expect(now.body.data).toEqual(first.body.data);
      expect(now.body.data.attributes.name.en).toBe('Renamed 1');
    });

    it('UPDATE sent by ten clients at the same moment: exactly one 200, nine 412', async () => {
      const product = await api.create('products');
      const tag = etag(await api.get(`/products/${product.id}`));
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, n) => api.patch(`/products/${product.id}`, renamed(n), ifMatch(tag))),
      );
      expect(answers.map((a) => a.status).sort()).toEqual([200, ...Array(9).fill(412)]);
      const winner = answers.find((a) => a.status === 200)!;
      expect(winner.body.data.meta.version).toBe(product.meta.version + 1);
      expect((await api.get(`/products/${product.id}`)).body.data).toEqual(winner.body.data);
    });

    it('a to-many relationship write (REL-ADD): the first wins, the second gets 412 and adds nothing', async () => {
      const customer = await api.create('customers', { relationships: { [USERS]: { data: [] } } });
      const [u1, u2] = await api.ids('users', 2);
      const tag = etag(await api.get(`/customers/${customer.id}`));
      const path = `/customers/${customer.id}/relationships/${USERS}`;
      expectStatus(await api.post(path, { data: [identifier('users', u1!)] }, ifMatch(tag)), 200);
      expectShapeB(
        await api.post(path, { data: [identifier('users', u2!)] }, ifMatch(tag)),
        412,
        'precondition_failed',
      );
      expect((await api.get(path)).body.data).toEqual([identifier('users', u1!)]);
    });

    it("REL-REPLACE, REL-REMOVE and REL-SET check the resource's tag too", async () => {
      const customer = await api.create('customers');
      const stale = etag(await api.get(`/customers/${customer.id}`));
      expectStatus(
        await api.patch(`/customers/${customer.id}`, { data: { type: 'customers', attributes: { name: 'moved on' } } }),
        200,
      );
      const before = (await api.get(`/customers/${customer.id}`)).body.data;
      const [type] = await api.ids('customer_types', 2).then((ids) => ids.slice(1));
      expectShapeB(
        await api.patch(`/customers/${customer.id}/relationships/${USERS}`, { data: [] }, ifMatch(stale)),
        412,
        'precondition_failed',
      );
      expectShapeB(
        await api.delete(
          `/customers/${customer.id}/relationships/${USERS}`,
          { data: before.relationships[USERS].data },
          ifMatch(stale),
        ),
        412,
        'precondition_failed',
      );
      expectShapeB(
        await api.patch(
          `/customers/${customer.id}/relationships/customer_type`,
          { data: identifier('customer_types', type!) },
          ifMatch(stale),
        ),
        412,
        'precondition_failed',
      );
      expect((await api.get(`/customers/${customer.id}`)).body.data).toEqual(before);
    });

    it("bills of material: adding items checks the structure's tag, adding a structure the product's", async () => {
      const product = await api.create('products');
      const productTag = etag(await api.get(`/products/${product.id}`));
      const { data: structure } = await api.createStructure(product.id);
      // The product's document changed (its product_structure): its old tag no longer holds.
      const productNow = await api.get(`/products/${product.id}`);
      expect(productNow.body.data.meta.version).toBe(product.meta.version + 1);
      expect(etag(productNow)).not.toBe(productTag);
      const other = await api.create('products');
      const structureTag = etag(await api.get(`/product_structures/${structure.id}`));
      const item = await api.itemObject(other.id);
      expectStatus(
        await api.post(`/product_structures/${structure.id}/items`, { data: [item] }, ifMatch(structureTag)),
        201,
      );
      const before = await api.count('product_structure_items', { product_structure_id: structure.id });
      expectShapeB(
        await api.post(`/product_structures/${structure.id}/items`, { data: [item] }, ifMatch(structureTag)),
        412,
        'precondition_failed',
      );
      expect(await api.count('product_structure_items', { product_structure_id: structure.id })).toBe(before);
      const third = await api.create('products');
      expectShapeB(
        await api.post(
          `/products/${third.id}/product_structure`,
          { data: { type: 'product_structures', attributes: { quantity: 1 } } },
          ifMatch(`"999-${productTag.split('-')[1]}`),
        ),
        412,
        'precondition_failed',
      );
      expect(await api.count('product_structures', { product_id: third.id })).toBe(0);
    });

    it('the tag of an ADD and of a PATCH answer is the one GET gives, and works for the next write', async () => {
      const added = await api.post('/units', {
        data: { type: 'units', attributes: { reference: api.unique('crate') } },
      });
      expectStatus(added, 201);
      const id = added.body.data.id;
      expect(etag(added)).toBe(etag(await api.get(`/units/${id}`)));
      const patched = await api.patch(
        `/units/${id}`,
        { data: { type: 'units', attributes: { description: { en: 'Crate' } } } },
        ifMatch(etag(added)),
      );
      expectStatus(patched, 200);
      expect(etag(patched)).toBe(etag(await api.get(`/units/${id}`)));
      expectStatus(
        await api.patch(
          `/units/${id}`,
          { data: { type: 'units', attributes: { description: { fr: 'Caisse' } } } },
          ifMatch(etag(patched)),
        ),
        200,
      );
    });

    it('If-Match: * goes ahead; a weak tag, the tag of another answer or of a missing resource do not', async () => {
      const unit = await api.create('units');
      const path = `/units/${unit.id}`;
      const tag = etag(await api.get(path));
      const change = { data: { type: 'units', attributes: { description: { de: 'Kiste' } } } };
      expectShapeB(await api.patch(path, change, ifMatch(`W/${tag}`)), 412, 'precondition_failed');
      expectShapeB(await api.patch(path, change, ifMatch(etag(await api.get('/units')))), 412, 'precondition_failed');
      expectStatus(await api.patch(path, change, ifMatch('*')), 200);
      expectStatus(await api.patch(path, change, ifMatch(`"1-nothing", ${etag(await api.get(path))}`)), 200);
      // A write to a missing resource is a 404 whatever the condition (RFC 9110 §13.2.1).
      expectShapeA(await api.patch(`/units/${MISSING_ID}`, change, ifMatch(tag)), 'units', MISSING_ID, 'PATCH');
    });

    it('a malformed If-Match or If-None-Match is 400 naming the header; If-Match other than * on ADD is 412', async () => {
      const bad = await api.patch('/units/1', { data: { type: 'units' } }, ifMatch('3-abc'));
      expectShapeB(bad, 400, 'invalid_parameter');
      expect(bad.body.error.message).toMatch(/If-Match/);
      const badNone = await api.get('/units/1', ifNoneMatch('not a tag'));
      expectShapeB(badNone, 400, 'invalid_parameter');
      expect(badNone.body.error.message).toMatch(/If-None-Match/);
      const before = await api.count('units');
      expectShapeB(
        await api.post(
          '/units',
          { data: { type: 'units', attributes: { reference: api.unique('u') } } },
          ifMatch('"1-abcdef01"'),
        ),
        412,
        'precondition_failed',
      );
      expect(await api.count('units')).toBe(before);
      expectStatus(
        await api.post('/units', { data: { type: 'units', attributes: { reference: api.unique('u') } } }, ifMatch('*')),
        201,
      );
    });
  });

  describe('If-None-Match on reads', () => {
    it('the current tag: 304 without a body for a resource, a LIST page, a relationship, related resources and a GET with include', async () => {
      const customer = await api.create('customers');
      for (const path of [
        `/customers/${customer.id}`,
        '/customers?page=1&per_page=5',
        `/customers/${customer.id}/relationships/${USERS}`,
        `/customers/${customer.id}/${USERS}`,
        `/customers/${customer.id}?include=customer_type,language`,
        `/customers?per_page=3&include=${USERS}`,
      ]) {
        const res = await api.get(path);
        expectStatus(res, 200, path);
        expect(res.headers.get('cache-control')).toBe('private, no-cache');
        await expectNotModified(path, etag(res));
        // Weak comparison (RFC 9110 §13.1.2), and a list of tags.
        expect((await api.get(path, ifNoneMatch(`"x", W/${etag(res)}`))).status).toBe(304);
        expect((await api.get(path, ifNoneMatch('"something-else"'))).status).toBe(200);
      }
    });

    it('HEAD answers 304 too', async () => {
      const res = await api.get('/units/1');
      const head = await api.env.t.request('/units/1', {
        method: 'HEAD',
        headers: { Authorization: `Bearer ${api.env.token}`, 'If-None-Match': etag(res) },
      });
      expect(head.status).toBe(304);
    });

    it('after a write that changes a body: 200 and a new tag, for the resource, a page that shows it and its relationship', async () => {
      const customer = await api.create('customers', { relationships: { [USERS]: { data: [] } } });
      const paths = [
        `/customers/${customer.id}`,
        `/customers?per_page=50&page=${Math.ceil(customer.id / 50)}`,
        `/customers/${customer.id}/relationships/${USERS}`,
      ];
      const before = await Promise.all(paths.map(async (path) => etag(await api.get(path))));
      const [user] = await api.ids('users', 1);
      expectStatus(
        await api.post(`/customers/${customer.id}/relationships/${USERS}`, { data: [identifier('users', user!)] }),
        200,
      );
      for (const [i, path] of paths.entries()) {
        const res = await api.get(path, ifNoneMatch(before[i]!));
        expectStatus(res, 200, path);
        expect(etag(res), path).not.toBe(before[i]);
      }
    });

    it('a write that changes nothing keeps the version, modified_date and every tag', async () => {
      const customer = await api.create('customers');
      const paths = [
        `/customers/${customer.id}`,
        `/customers?per_page=50&page=${Math.ceil(customer.id / 50)}`,
        `/customers/${customer.id}/relationships/${USERS}`,
      ];
      const before = await Promise.all(paths.map(async (path) => etag(await api.get(path))));
      const document = (await api.get(`/customers/${customer.id}`)).body.data;
      // The document sent back as it is, and each relationship set to what it holds.
      expectStatus(await api.patch(`/customers/${customer.id}`, { data: document }), 200);
      expectStatus(
        await api.patch(`/customers/${customer.id}/relationships/${USERS}`, {
          data: document.relationships[USERS].data,
        }),
        200,
      );
      expectStatus(
        await api.post(`/customers/${customer.id}/relationships/${USERS}`, {
          data: document.relationships[USERS].data,
        }),
        200,
      );
      expectStatus(await api.delete(`/customers/${customer.id}/relationships/${USERS}`, { data: [] }), 200);
      for (const [i, path] of paths.entries()) await expectNotModified(path, before[i]!);
      expect((await api.get(`/customers/${customer.id}`)).body.data).toEqual(document);
    });
  });

  describe('every precondition of RFC 9110 §13 a client may send on a write', () => {
    const OLD = 'Sun, 06 Nov 1994 08:49:37 GMT';
    const future = () => new Date(Date.now() + 86_400_000).toUTCString();
    const change = (n: number) => ({ data: { type: 'units', attributes: { description: { en: `Crate ${n}` } } } });

    /** A 412 that wrote nothing: the resource's version and tag as they were. */
    async function expectRefused(res: RestResponse, path: string, tag: string) {
      expectShapeB(res, 412, 'precondition_failed');
      expect(etag(await api.get(path))).toBe(tag);
    }

    it('If-None-Match: * or the current tag (weak comparison) is 412 and writes nothing; an older tag goes ahead', async () => {
      const unit = await api.create('units');
      const path = `/units/${unit.id}`;
      const first = etag(await api.get(path));
      await expectRefused(await api.patch(path, change(1), ifNoneMatch('*')), path, first);
      await expectRefused(await api.patch(path, change(2), ifNoneMatch(first)), path, first);
      await expectRefused(await api.patch(path, change(3), ifNoneMatch(`"0-x", W/${first}`)), path, first);
      expectStatus(await api.patch(path, change(4), ifNoneMatch('"999-x"')), 200);
      const second = etag(await api.get(path));
      expectStatus(await api.patch(path, change(5), ifNoneMatch(first)), 200);
      expect(etag(await api.get(path))).not.toBe(second);
    });

    it('If-None-Match on relationship paths and bill-of-material writes names the resource written', async () => {
      const customer = await api.create('customers');
      const path = `/customers/${customer.id}`;
      const tag = etag(await api.get(path));
      const [user] = await api.ids('users', 1);
      const links = { data: [identifier('users', user!)] };
      await expectRefused(await api.post(`${path}/relationships/${USERS}`, links, ifNoneMatch(tag)), path, tag);
      await expectRefused(await api.patch(`${path}/relationships/${USERS}`, links, ifNoneMatch('*')), path, tag);
      const product = await api.create('products');
      const productPath = `/products/${product.id}`;
      const productTag = etag(await api.get(productPath));
      const [component] = await api.ids('products', 1);
      const structure = {
        data: {
          type: 'product_structures',
          attributes: { quantity: 1 },
          relationships: { items: { data: [await api.itemObject(component!)] } },
        },
      };
      await expectRefused(
        await api.post(`${productPath}/product_structure`, structure, ifNoneMatch(productTag)),
        productPath,
        productTag,
      );
    });

    it('If-Unmodified-Since: an earlier date is 412 and writes nothing; a later one, or one that is no HTTP-date, goes ahead', async () => {
      const unit = await api.create('units');
      const path = `/units/${unit.id}`;
      const read = await api.get(path);
      expect(new Date(read.headers.get('last-modified')!).toISOString().slice(0, 19)).toBe(
        read.body.data.attributes.modified_date.slice(0, 19),
      );
      const tag = etag(read);
      await expectRefused(await api.patch(path, change(1), { headers: { 'If-Unmodified-Since': OLD } }), path, tag);
      // The obsolete forms RFC 9110 §5.6.7 still asks recipients to read.
      for (const old of ['Sunday, 06-Nov-94 08:49:37 GMT', 'Sun Nov  6 08:49:37 1994'])
        await expectRefused(await api.patch(path, change(2), { headers: { 'If-Unmodified-Since': old } }), path, tag);
      expectStatus(await api.patch(path, change(3), { headers: { 'If-Unmodified-Since': future() } }), 200);
      // Not an HTTP-date: ignored (§13.1.4), not a reason to refuse.
      expectStatus(await api.patch(path, change(4), { headers: { 'If-Unmodified-Since': '1994-11-06' } }), 200);
      // With If-Match, If-Unmodified-Since is not evaluated (§13.2.2).
      const now = etag(await api.get(path));
      expectStatus(await api.patch(path, change(5), { headers: { 'If-Match': now, 'If-Unmodified-Since': OLD } }), 200);
    });

    it('ADD: If-None-Match: * is 412 (the collection exists); If-Modified-Since and If-Range apply to GET only', async () => {
      const before = await api.count('units');
      const body = () => ({ data: { type: 'units', attributes: { reference: api.unique('u') } } });
      expectShapeB(await api.post('/units', body(), ifNoneMatch('*')), 412, 'precondition_failed');
      expect(await api.count('units')).toBe(before);
      expectStatus(await api.post('/units', body(), ifNoneMatch('"1-x"')), 201);
      const unit = await api.create('units');
      for (const headers of [{ 'If-Modified-Since': future() }, { 'If-Range': '"0-x"', Range: 'bytes=0-1' }] as Record<
        string,
        string
      >[])
        expectStatus(await api.patch(`/units/${unit.id}`, change(9), { headers }), 200);
    });

    it('GET: If-Match with another tag is 412; If-Modified-Since at Last-Modified is 304; an earlier If-Unmodified-Since 412', async () => {
      const unit = await api.create('units');
      const path = `/units/${unit.id}`;
      const read = await api.get(path);
      const modified = read.headers.get('last-modified')!;
      expectShapeB(await api.get(path, ifMatch('"1-nothing"')), 412, 'precondition_failed');
      expectStatus(await api.get(path, ifMatch(etag(read))), 200);
      expectShapeB(await api.get('/units', ifMatch('"1-nothing"')), 412, 'precondition_failed');
      const notModified = await api.get(path, { headers: { 'If-Modified-Since': modified } });
      expect(notModified.status).toBe(304);
      expect(notModified.headers.get('last-modified')).toBe(modified);
      expectStatus(await api.get(path, { headers: { 'If-Modified-Since': OLD } }), 200);
      // If-None-Match decides alone when both are sent (§13.2.2).
      expectStatus(await api.get(path, { headers: { 'If-Modified-Since': modified, 'If-None-Match': '"x"' } }), 200);
      expectShapeB(await api.get(path, { headers: { 'If-Unmodified-Since': OLD } }), 412, 'precondition_failed');
    });
  });

  describe('versions', () => {
    it('start at 1 and move by one with each write that changes the document, items included', async () => {
      const product = await api.create('products');
      expect(product.meta.version).toBe(1);
      const { data: structure, included } = await api.createStructure(product.id);
      expect(structure.meta.version).toBe(1);
      expect(included.map((i: any) => i.meta.version)).toEqual([1, 1]);
      const version = async () => (await api.get(`/product_structures/${structure.id}`)).body.data.meta.version;
      // Removing items the structure does not hold changes nothing.
      expectStatus(
        await api.delete(`/product_structures/${structure.id}/relationships/items`, {
          data: [identifier('product_structure_items', MISSING_ID)],
        }),
        200,
      );
      expect(await version()).toBe(1);
      expectStatus(
        await api.delete(`/product_structures/${structure.id}/relationships/items`, {
          data: [identifier('product_structure_items', included[0].id)],
        }),
        200,
      );
      expect(await version()).toBe(2);
      const [other] = await api.ids('products', 1);
      expectStatus(
        await api.post(`/product_structures/${structure.id}/items`, { data: [await api.itemObject(other!)] }),
        201,
      );
      expect(await version()).toBe(3);
      // An item's own change is its own version, not its structure's (whose document lists only ids).
      const kept = included[1];
      const updated = await api.patch(`/product_structure_items/${kept.id}`, {
        data: { type: 'product_structure_items', attributes: { net_quantity: 9 } },
      });
      expect(updated.body.data.meta.version).toBe(2);
      expect(await version()).toBe(3);
      expectStatus(await api.patch(`/product_structures/${structure.id}/relationships/items`, { data: [] }), 200);
      expect(await version()).toBe(4);
      expectShapeA(await api.get(`/product_structure_items/${kept.id}`), 'product_structure_items', kept.id);
    });

    it('meta.version in a request body is ignored', async () => {
      const unit = await api.create('units');
      const res = await api.patch(`/units/${unit.id}`, {
        data: { type: 'units', meta: { version: 42 }, attributes: { description: { en: 'Box' } } },
      });
      expectStatus(res, 200);
      expect(res.body.data.meta.version).toBe(2);
    });
  });
});
