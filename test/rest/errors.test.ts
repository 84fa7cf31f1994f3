/**
 * The spec's Errors table, row by row (and rest.md "Operations that are always refused", "Error
 * bodies"), and authentication on the REST layer (auth.md "Protected resources"): no token 401,
 * a read-only token on a write 403 insufficient_scope.
 */
import { describe, expect, it } from 'vitest';
import { REST_ROUTES } from '../../src/rest/routes.ts';
import { providers } from '../support/databases.ts';
import {
  expectShapeA,
  expectShapeB,
  expectStatus,
  identifier,
  JSON_UTF8,
  type Method,
  MISSING_ID,
  restSuite,
} from './support.ts';

describe.each(providers)('REST errors on %s', (provider) => {
  const api = restSuite(provider);

  const read = async (type: string, id: number) => (await api.ok('GET', `/${type}/${id}`)).data;

  /** A refused request leaves the resource and the row counts as they were. */
  async function unchanged(type: string, id: number, write: () => Promise<void>): Promise<void> {
    const tables = ['customer_products', 'product_structures', 'product_structure_items', 'products'];
    const before = await read(type, id);
    const counts = await Promise.all(tables.map((t) => api.count(t)));
    await write();
    expect(await read(type, id)).toEqual(before);
    expect(await Promise.all(tables.map((t) => api.count(t)))).toEqual(counts);
  }

  /** A product with a structure of two items; its items. */
  async function structure() {
    const product = (await api.create('products')).id;
    const [a, b] = await api.ids('products', 2);
    const res = await api.ok(
      'POST',
      `/products/${product}/product_structure`,
      {
        data: {
          type: 'product_structures',
          attributes: { quantity: 1 },
          relationships: { items: { data: [await api.itemObject(a!), await api.itemObject(b!)] } },
        },
      },
      201,
    );
    return {
      product,
      structure: res.data.id as number,
      items: res.data.relationships.items.data.map((d: any) => d.id) as number[],
    };
  }

  describe('Errors table', () => {
    it('REL-SET on a resource that does not exist: 404 shape A (detail: not found)', async () => {
      const res = await api.patch(`/products/${MISSING_ID}/relationships/brand`, { data: identifier('brands', 1) });
      expectShapeA(res, 'products', MISSING_ID);
      expect(res.body.errors.detail).toMatch(/not found/);
      expectShapeA(
        await api.patch(`/customers/${MISSING_ID}/relationships/language`, { data: identifier('languages', 1) }),
        'customers',
        MISSING_ID,
      );
    });

    it('REL-SET to a relation (target) that does not exist: 404 shape A, nothing changes', async () => {
      const product = await api.create('products');
      await unchanged('products', product.id, async () => {
        const res = await api.patch(`/products/${product.id}/relationships/brand`, {
          data: identifier('brands', MISSING_ID),
        });
        expectShapeA(res, 'brands', MISSING_ID);
        expect(res.body.errors.detail).toMatch(/not found/);
      });
    });

    it('REL-REPLACE on a resource or with a target that does not exist: 404 shape A, nothing changes', async () => {
      expectShapeA(
        await api.patch(`/suppliers/${MISSING_ID}/relationships/types`, { data: [identifier('supplier_types', 1)] }),
        'suppliers',
        MISSING_ID,
      );
      const supplier = await api.create('suppliers');
      await unchanged('suppliers', supplier.id, async () => {
        expectShapeA(
          await api.patch(`/suppliers/${supplier.id}/relationships/types`, {
            data: [identifier('supplier_types', 1), identifier('supplier_types', MISSING_ID)],
          }),
          'supplier_types',
          MISSING_ID,
        );
        expectShapeA(
          await api.patch(`/customers/${MISSING_ID}/relationships/inform_on_complaint_users`, { data: [] }),
          'customers',
          MISSING_ID,
        );
      });
    });

    it('updating the customer relation of a customer product: 403 shape B forbidden', async () => {
      const cp = await api.create('customer_products');
      const [, other] = await api.ids('customers', 2);
      await unchanged('customer_products', cp.id, async () => {
        expectShapeB(
          await api.patch(`/customer_products/${cp.id}/relationships/customer`, {
            data: identifier('customers', other!),
          }),
          403,
          'forbidden',
        );
      });
    });

    it('updating the product relation of a customer product: 403 shape B forbidden', async () => {
      const cp = await api.create('customer_products');
      const [, other] = await api.ids('products', 2);
      await unchanged('customer_products', cp.id, async () => {
        expectShapeB(
          await api.patch(`/customer_products/${cp.id}/relationships/product`, {
            data: identifier('products', other!),
          }),
          403,
          'forbidden',
        );
      });
    });

    it('adding a product structure through the product structures collection: 403 shape B forbidden, nothing written', async () => {
      const product = await api.create('products');
      await unchanged('products', product.id, async () => {
        const res = await api.post('/product_structures', {
          data: { type: 'product_structures', attributes: { quantity: 1 } },
        });
        expectShapeB(res, 403, 'forbidden');
        expect(res.body.error.message).toMatch(/product_structure/);
      });
    });

    it('adding a product structure item through the items collection: 403 shape B forbidden, nothing written', async () => {
      const { structure: id } = await structure();
      await unchanged('product_structures', id, async () => {
        const [a] = await api.ids('products', 1);
        const res = await api.post('/product_structure_items', { data: await api.itemObject(a!) });
        expectShapeB(res, 403, 'forbidden');
        expect(res.body.error.message).toMatch(/items/);
      });
    });

    it('updating the product relation of a product structure item: 403 shape B forbidden', async () => {
      const { items } = await structure();
      const [, , c] = await api.ids('products', 3);
      await unchanged('product_structure_items', items[0]!, async () => {
        expectShapeB(
          await api.patch(`/product_structure_items/${items[0]}/relationships/product`, {
            data: identifier('products', c!),
          }),
          403,
          'forbidden',
        );
      });
    });

    it('updating the product_structure relation of a product: 403 shape B forbidden', async () => {
      const a = await structure();
      const b = await structure();
      await unchanged('products', a.product, async () => {
        expectShapeB(
          await api.patch(`/products/${a.product}/relationships/product_structure`, {
            data: identifier('product_structures', b.structure),
          }),
          403,
          'forbidden',
        );
        expectShapeB(
          await api.patch(`/products/${a.product}/relationships/product_structure`, { data: null }),
          403,
          'forbidden',
        );
      });
    });

    it('adding items relations (identifiers) to a product structure: 403 shape B forbidden', async () => {
      const a = await structure();
      const b = await structure();
      await unchanged('product_structures', a.structure, async () => {
        expectShapeB(
          await api.post(`/product_structures/${a.structure}/relationships/items`, {
            data: [identifier('product_structure_items', b.items[0]!)],
          }),
          403,
          'forbidden',
        );
      });
      expect((await read('product_structure_items', b.items[0]!)).id).toBe(b.items[0]);
    });

    it('updating the type relation of a product structure item: 403 shape B forbidden', async () => {
      const { items } = await structure();
      const [, other] = await api.ids('product_structure_item_types', 2);
      await unchanged('product_structure_items', items[0]!, async () => {
        expectShapeB(
          await api.patch(`/product_structure_items/${items[0]}/relationships/type`, {
            data: identifier('product_structure_item_types', other!),
          }),
          403,
          'forbidden',
        );
      });
    });

    it('an invalid access token: 401 invalid_token', async () => {
      const res = await api.get('/customers', { token: 'mda_not-a-real-token' });
      expect(res.status).toBe(401);
      expect(res.body.error).toBe('invalid_token');
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="master-data", error="invalid_token"/);
    });
  });

  describe('the same changes inside an UPDATE body: 403 forbidden, nothing written (attributes given with them neither)', () => {
    it('customer_products: customer, product', async () => {
      const cp = await api.create('customer_products');
      const [, customer] = await api.ids('customers', 2);
      const [, product] = await api.ids('products', 2);
      for (const [name, data] of [
        ['customer', identifier('customers', customer!)],
        ['product', identifier('products', product!)],
      ] as const) {
        await unchanged('customer_products', cp.id, async () => {
          const res = await api.patch(`/customer_products/${cp.id}`, {
            data: {
              type: 'customer_products',
              attributes: { external_reference: 'not written' },
              relationships: { [name]: { data } },
            },
          });
          expectShapeB(res, 403, 'forbidden', name);
        });
      }
    });

    it('product_structure_items: product, type', async () => {
      const { items } = await structure();
      const [, , product] = await api.ids('products', 3);
      const [, type] = await api.ids('product_structure_item_types', 2);
      for (const [name, data] of [
        ['product', identifier('products', product!)],
        ['type', identifier('product_structure_item_types', type!)],
      ] as const) {
        await unchanged('product_structure_items', items[0]!, async () => {
          const res = await api.patch(`/product_structure_items/${items[0]}`, {
            data: {
              type: 'product_structure_items',
              attributes: { net_quantity: 99 },
              relationships: { [name]: { data } },
            },
          });
          expectShapeB(res, 403, 'forbidden', name);
        });
      }
    });

    it('products: product_structure', async () => {
      const a = await structure();
      const b = await structure();
      const plain = await api.create('products');
      for (const [product, data] of [
        [a.product, identifier('product_structures', b.structure)],
        [a.product, null],
        [plain.id, identifier('product_structures', b.structure)],
      ] as const) {
        await unchanged('products', product, async () => {
          const res = await api.patch(`/products/${product}`, {
            data: {
              type: 'products',
              attributes: { intrastat_code: 'not written' },
              relationships: { product_structure: { data } },
            },
          });
          expectShapeB(res, 403, 'forbidden', JSON.stringify(data));
        });
      }
    });

    it('product_structures: items as identifiers', async () => {
      const a = await structure();
      const b = await structure();
      for (const data of [
        [...a.items, b.items[0]].map((id) => identifier('product_structure_items', id!)),
        [identifier('product_structure_items', a.items[0]!)],
      ]) {
        await unchanged('product_structures', a.structure, async () => {
          const res = await api.patch(`/product_structures/${a.structure}`, {
            data: { type: 'product_structures', attributes: { quantity: 77 }, relationships: { items: { data } } },
          });
          expectShapeB(res, 403, 'forbidden', JSON.stringify(data));
        });
      }
      expect((await read('product_structure_items', b.items[0]!)).id).toBe(b.items[0]);
    });

    it('given as they are, the same relationships are accepted (a GET sent back)', async () => {
      const cp = await api.create('customer_products');
      const res = await api.patch(`/customer_products/${cp.id}`, {
        data: {
          type: 'customer_products',
          attributes: { external_reference: 'written' },
          relationships: cp.relationships,
        },
      });
      expectStatus(res, 200);
      expect(res.body.data.attributes.external_reference).toBe('written');
    });
  });

  describe('error bodies', () => {
    it('an unknown path: 404 shape A', async () => {
      for (const path of ['/nothing-here', '/customers/1/nothing', '/customers/1/relationships/nothing', '/customer']) {
        expectShapeA(await api.get(path), undefined, undefined, path);
      }
    });

    it('a member id that is not an integer: 404 shape A', async () => {
      for (const id of ['abc', '1.5', '-1', '0', '99999999999999999999']) {
        const res = await api.get(`/customers/${id}`);
        expectShapeA(res, undefined, undefined, id);
      }
    });

    it('errors carry the JSON media type and never a stack, SQL or file path', async () => {
      const responses = [
        await api.get('/products?page=0'),
        await api.post('/customers', { data: { type: 'customers', attributes: { reference: 5 } } }),
        await api.request('POST', '/customers', { raw: '{' }),
        await api.patch('/customers/1/relationships/language', { data: null }),
        await api.post('/customers', {
          data: { type: 'customers', attributes: { reference: 'CUS000001', name: 'dup' } },
        }),
      ];
      for (const res of responses) {
        expect(res.headers.get('content-type')).toBe(JSON_UTF8);
        expect(res.text).not.toMatch(/\bat .*\.ts:\d+|SELECT |INSERT |UPDATE "|\/work\/|node_modules|prisma/i);
      }
    });
  });

  describe('authentication', () => {
    /** One concrete request per route of the route table, with a plausible body for writes. */
    const requests: { method: Method; path: string }[] = REST_ROUTES.map((r) => ({
      method: r.method,
      path: r.path.replace(':id', '1'),
    }));

    it('no token: 401 with the Bearer challenge on every REST route, nothing written', async () => {
      const before = await api.count('customers');
      for (const { method, path } of requests) {
        const res = await api.request(method, path, {
          token: null,
          body:
            method === 'GET'
              ? undefined
              : { data: { type: 'customers', attributes: { reference: api.unique('x'), name: 'x' } } },
        });
        expect(res.status, `${method} ${path}`).toBe(401);
        expect(res.headers.get('www-authenticate'), `${method} ${path}`).toBe('Bearer realm="master-data"');
        expect(res.body.error).toBe('invalid_request');
        expect(typeof res.body.error_description).toBe('string');
      }
      expect(await api.count('customers')).toBe(before);
    });

    it('a read-only token reads (200) and is refused every write with 403 insufficient_scope, nothing written', async () => {
      const before = await Promise.all(['customers', 'products', 'product_structure_items'].map((t) => api.count(t)));
      const customer = await read('customers', 1);
      for (const { method, path } of requests) {
        const res = await api.request(method, path, {
          token: api.env.readToken,
          body:
            method === 'GET'
              ? undefined
              : { data: method === 'POST' && !path.includes('/1') ? { type: path.slice(1), attributes: {} } : [] },
        });
        if (method === 'GET') {
          expectStatus(res, 200, `${method} ${path} with a read token`);
          continue;
        }
        expect(res.status, `${method} ${path} with a read token: ${res.text}`).toBe(403);
        expect(res.body.error).toBe('insufficient_scope');
        expect(res.headers.get('www-authenticate'), `${method} ${path}`).toMatch(
          /^Bearer .*error="insufficient_scope"/,
        );
      }
      expect(await Promise.all(['customers', 'products', 'product_structure_items'].map((t) => api.count(t)))).toEqual(
        before,
      );
      expect(await read('customers', 1)).toEqual(customer);
    });

    it('a read-only token on an unknown method of a REST path is refused before anything else', async () => {
      const res = await api.request('DELETE', '/customers/1', { token: api.env.readToken });
      expect(res.status).toBe(403);
      expect(res.body.error).toBe('insufficient_scope');
    });
  });
});
