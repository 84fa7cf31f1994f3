/**
 * JSON:API Atomic Operations at POST /operations, on both databases: operations of the old
 * interface run as one, `lid`s name resources added earlier in the request, results come in
 * order; failing operations write nothing, and every one is named in one answer (a JSON:API error
 * document, each error object pointing at its operation and the member at fault, and shape B's
 * `error` with the first, as the endpoint answered before); each changed resource gets one log
 * entry; the media type is the extension's; a good request costs the statements it did.
 */
import { describe, expect, it, vi } from 'vitest';
import { AtomicWriter } from '../../src/data/atomic-writes.ts';
import { providers } from '../support/databases.ts';
import { JSON_UTF8, type RestResponse, restSuite } from './support.ts';

const ATOMIC = 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"';

/** What a good request of the test below costs, in statements (measured before refusals named every operation). */
const STATEMENTS = { sqlite: 8, postgresql: 9 };

/**
 * A refused request: `status`, JSON error objects (the first of `code`), and shape B's `error`
 * with the first one, its message led by its operation's pointer.
 */
function expectRefusal(res: RestResponse, status: number, code: string): void {
  expect(res.status, res.text).toBe(status);
  expect(res.headers.get('content-type')).toBe(JSON_UTF8);
  expect(Object.keys(res.body).filter((key) => key !== 'meta')).toEqual(['errors', 'error']);
  expect(res.body.errors[0]).toMatchObject({ status: String(status), code });
  expect(res.body.error).toMatchObject({ code, http_code: status });
}

/** Each error object as [status, code, pointer]. */
const pointed = (res: RestResponse) =>
  res.body.errors.map((e: { status: string; code: string; source?: { pointer: string } }) => [
    e.status,
    e.code,
    e.source?.pointer,
  ]);

describe.each(providers)('atomic operations on %s', (provider) => {
  const api = restSuite(provider);
  const atomic = (operations: unknown[], headers: Record<string, string> = {}) =>
    api.post('/operations', { 'atomic:operations': operations }, { contentType: ATOMIC, headers });
  const changes = () => api.prisma.change.count() as Promise<number>;

  /** An item object of `product`, as a structure's items take it. */
  const item = (product: number) => ({
    type: 'product_structure_items',
    attributes: { net_quantity: 1 },
    relationships: { product: { data: { type: 'products', id: product } } },
  });

  /** A new product's structure, with one item (the first product): its document. */
  async function newStructure() {
    const product = await api.create('products');
    const [first] = await api.ids('products', 1);
    return api.ok(
      'POST',
      `/products/${product.id}/product_structure`,
      {
        data: {
          type: 'product_structures',
          attributes: { quantity: 1 },
          relationships: { items: { data: [item(first!)] } },
        },
      },
      201,
    );
  }

  it('adds a brand and a product linked to it by lid, updates it, links users: results in order, one entry per resource', async () => {
    // Not one of the two users a new customer is linked to (addBody).
    const user = (await api.ids('users', 3))[2];
    const customer = await api.create('customers');
    const before = await changes();
    const brand = api.unique('ACME');
    const product = api.unique('P');
    const res = await atomic([
      { op: 'add', data: { type: 'brands', lid: 'b', attributes: { reference: brand } } },
      {
        op: 'add',
        data: {
          type: 'products',
          lid: 'p',
          attributes: { reference: product, consumer_price: 2.5 },
          relationships: { unit: { data: { type: 'units', id: 1 } }, brand: { data: { type: 'brands', lid: 'b' } } },
        },
      },
      { op: 'update', data: { type: 'products', lid: 'p', attributes: { consumer_price: 3 } } },
      {
        op: 'add',
        ref: { type: 'customers', id: customer.id, relationship: 'commercial_resolve_responsible_users' },
        data: [{ type: 'users', id: user }],
      },
    ]);
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('content-type')).toBe(ATOMIC);
    const [addedBrand, addedProduct, updated, linked] = res.body['atomic:results'];
    expect(addedBrand.data).toMatchObject({ type: 'brands', attributes: { reference: brand } });
    expect(addedProduct.data.relationships.brand.data).toEqual({ type: 'brands', id: addedBrand.data.id });
    expect(updated.data).toMatchObject({ id: addedProduct.data.id, attributes: { consumer_price: 3 } });
    expect(linked).toEqual({});
    // brand, product (added then updated: one entry) and customer.
    expect((await changes()) - before).toBe(3);
    const stored = await api.ok('GET', `/products/${addedProduct.data.id}`);
    expect(stored.data.attributes.consumer_price).toBe(3);
  });

  it('one failing operation writes nothing, and the error names it by its pointer', async () => {
    const beforeBrands = await api.count('brands');
    const beforeChanges = await changes();
    const res = await atomic([
      { op: 'add', data: { type: 'brands', lid: 'b', attributes: { reference: api.unique('B') } } },
      {
        op: 'add',
        data: {
          type: 'products',
          attributes: { reference: api.unique('P'), gtin: '12345' },
          relationships: { unit: { data: { type: 'units', id: 1 } } },
        },
      },
    ]);
    expectRefusal(res, 400, 'invalid_attribute');
    expect(res.body.error.message).toMatch(/^\/atomic:operations\/1: gtin must be a GTIN/);
    const missing = await atomic([
      { op: 'add', data: { type: 'brands', attributes: { reference: api.unique('B') } } },
      { op: 'update', ref: { type: 'products', id: 987654 }, data: { type: 'products', attributes: { nlc: 1 } } },
    ]);
    expect(missing.status).toBe(404);
    expect(missing.text).toContain('/atomic:operations/1: products 987654 not found');
    expect(await api.count('brands')).toBe(beforeBrands);
    expect(await changes()).toBe(beforeChanges);
  });

  it('every refused operation is named in one answer, each pointing at what is wrong; nothing is written', async () => {
    const taken = await api.create('products');
    const stale = await api.create('products');
    await api.ok('PATCH', `/products/${stale.id}`, { data: { type: 'products', attributes: { nlc: 2 } } });
    const structure = await newStructure();
    const [part] = await api.ids('products', 1);
    const beforeBrands = await api.count('brands');
    const beforeChanges = await changes();
    const product = (attributes: Record<string, unknown>) => ({
      op: 'add',
      data: { type: 'products', attributes, relationships: { unit: { data: { type: 'units', id: 1 } } } },
    });
    const res = await atomic([
      { op: 'add', data: { type: 'brands', lid: 'b', attributes: { reference: api.unique('B') } } },
      product({ reference: api.unique('P'), gtin: '12345' }),
      { op: 'update', ref: { type: 'products', id: 987654 }, data: { type: 'products', attributes: { nlc: 1 } } },
      product({ reference: api.unique('P'), consumer_price: '2.50' }),
      // Refused only as it is written: the reference is another product's.
      product({ reference: taken.attributes.reference }),
      {
        op: 'update',
        ref: { type: 'products', id: stale.id },
        meta: { version: 1 },
        data: { type: 'products', attributes: { nlc: 3 } },
      },
      {
        op: 'add',
        ref: { type: 'product_structures', id: structure.data.id, relationship: 'items' },
        data: [item(part!), { ...item(part!), attributes: { net_quantity: -1 } }],
      },
      { op: 'frobnicate', data: {} },
      product({ reference: api.unique('P') }),
    ]);
    expectRefusal(res, 400, 'invalid_attribute');
    expect(pointed(res)).toEqual([
      ['400', 'invalid_attribute', '/atomic:operations/1/data/attributes/gtin'],
      ['404', 'not_found', '/atomic:operations/2'],
      ['400', 'invalid_attribute', '/atomic:operations/3/data/attributes/consumer_price'],
      ['409', 'conflict', '/atomic:operations/4/data/attributes/reference'],
      ['412', 'precondition_failed', '/atomic:operations/5'],
      ['400', 'invalid_attribute', '/atomic:operations/6/data/1/attributes/net_quantity'],
      ['400', 'invalid_json', '/atomic:operations/7/op'],
    ]);
    expect(res.body.errors[0]).toEqual({
      status: '400',
      code: 'invalid_attribute',
      title: 'Invalid attribute',
      detail: expect.stringMatching(/^gtin must be a GTIN/),
      source: { pointer: '/atomic:operations/1/data/attributes/gtin' },
    });
    expect(res.body.error.message).toMatch(/^\/atomic:operations\/1: gtin must be a GTIN/);
    expect(res.body.errors[1].detail).toBe('products 987654 not found');
    expect(await api.count('brands')).toBe(beforeBrands);
    expect(await changes()).toBe(beforeChanges);
    expect((await api.ok('GET', `/products/${stale.id}`)).data.attributes.nlc).toBe(2);
  });

  it('an operation naming by lid a resource whose add was refused is not said to be wrong too', async () => {
    const res = await atomic([
      {
        op: 'add',
        data: {
          type: 'products',
          lid: 'p',
          attributes: { reference: api.unique('P'), gtin: '1' },
          relationships: { unit: { data: { type: 'units', id: 1 } } },
        },
      },
      { op: 'update', data: { type: 'products', lid: 'p', attributes: { nlc: 1 } } },
      { op: 'add', data: { type: 'brands', attributes: {} } },
    ]);
    expectRefusal(res, 400, 'invalid_attribute');
    expect(pointed(res)).toEqual([
      ['400', 'invalid_attribute', '/atomic:operations/0/data/attributes/gtin'],
      ['400', 'missing_field', '/atomic:operations/2/data/attributes/reference'],
    ]);
  });

  it('an unknown member is pointed at by its name (RFC 6901 escaped); titles read as words', async () => {
    const res = await atomic([
      { op: 'add', data: { type: 'brands', attributes: { reference: api.unique('B'), 'a/b~c': 1 } } },
      {
        op: 'add',
        data: {
          type: 'brands',
          attributes: { reference: api.unique('B') },
          relationships: { 'x/y': { data: null } },
        },
      },
      { op: 'frobnicate' },
    ]);
    expectRefusal(res, 400, 'unknown_field');
    expect(
      res.body.errors.map((e: { title: string; source: { pointer: string } }) => [e.title, e.source.pointer]),
    ).toEqual([
      ['Unknown field', '/atomic:operations/0/data/attributes/a~1b~0c'],
      ['Unknown field', '/atomic:operations/1/data/relationships/x~1y'],
      ['Invalid JSON', '/atomic:operations/2/op'],
    ]);
  });

  it('a trial that fails (a bug, an outage) answers the first refusal, and the log says why the others are not listed', async () => {
    const trial = vi
      .spyOn(AtomicWriter.prototype, 'failuresOfEach')
      .mockRejectedValueOnce(new TypeError('a bug of the trial'));
    try {
      const res = await atomic([
        { op: 'add', data: { type: 'brands', attributes: { reference: ' ' } } },
        { op: 'add', data: { type: 'brands', attributes: { reference: ' ' } } },
      ]);
      expectRefusal(res, 400, 'invalid_attribute');
      expect(pointed(res)).toEqual([['400', 'invalid_attribute', '/atomic:operations/0/data/attributes/reference']]);
    } finally {
      trial.mockRestore();
    }
    const [line] = api.env.t.logs().filter((l) => String(l.msg).includes('the trial'));
    expect(line).toMatchObject({ level: 'warn', err: { message: 'a bug of the trial' } });
  });

  it('past 100 refused operations: 100 listed, meta.omitted_errors counts the rest', async () => {
    const operations = Array.from({ length: 120 }, () => ({
      op: 'add',
      data: { type: 'brands', attributes: { reference: ' ' } },
    }));
    const res = await atomic(operations);
    expectRefusal(res, 400, 'invalid_attribute');
    expect(res.body.errors).toHaveLength(100);
    expect(res.body.errors[99].source.pointer).toBe('/atomic:operations/99/data/attributes/reference');
    expect(res.body.meta).toEqual({ omitted_errors: 20 });
  });

  it('a good request costs the statements it did', async () => {
    const product = await api.create('products');
    // The fewest of three runs: the token is trusted from memory for a few seconds only, so on a
    // busy machine a run may also check it again (one more, never fewer).
    let fewest = Number.POSITIVE_INFINITY;
    for (let attempt = 0; attempt < 3; attempt++) {
      const before = api.env.database.db.statementCount;
      const res = await atomic([
        { op: 'add', data: { type: 'brands', lid: 'b', attributes: { reference: api.unique('C') } } },
        {
          op: 'update',
          ref: { type: 'products', id: product.id },
          data: {
            type: 'products',
            attributes: { nlc: attempt + 1 },
            relationships: { brand: { data: { type: 'brands', lid: 'b' } } },
          },
        },
      ]);
      expect(res.status, res.text).toBe(200);
      fewest = Math.min(fewest, api.env.database.db.statementCount - before);
    }
    expect(fewest).toBe(STATEMENTS[provider]);
  });

  it('meta.version is the version the operation expects: 412 at another, nothing written', async () => {
    const product = await api.create('products');
    const res = await atomic([
      {
        op: 'update',
        ref: { type: 'products', id: product.id },
        meta: { version: 1 },
        data: { type: 'products', attributes: { nlc: 1 } },
      },
      {
        op: 'update',
        ref: { type: 'products', id: product.id },
        meta: { version: 1 },
        data: { type: 'products', attributes: { nlc: 2 } },
      },
    ]);
    expectRefusal(res, 412, 'precondition_failed');
    expect(res.body.error.message).toMatch(/^\/atomic:operations\/1: /);
    const stored = await api.ok('GET', `/products/${product.id}`);
    expect(stored.data.meta.version).toBe(1);
  });

  it('an Idempotency-Key makes a retry answer the first answer, without running the operations again', async () => {
    const before = await api.count('brands');
    const operations = [{ op: 'add', data: { type: 'brands', attributes: { reference: api.unique('I') } } }];
    const key = api.unique('atomic-key');
    const first = await atomic(operations, { 'Idempotency-Key': key });
    const retry = await atomic(operations, { 'Idempotency-Key': key });
    expect(first.status, first.text).toBe(200);
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual(first.body);
    expect(await api.count('brands')).toBe(before + 1);
  });

  it('refuses what the interface does not do: a resource removal, an unknown lid, another media type', async () => {
    const removal = await atomic([{ op: 'remove', ref: { type: 'products', id: 1 } }]);
    expectRefusal(removal, 405, 'method_not_allowed');
    expect(removal.body.error.message).toMatch(/^\/atomic:operations\/0: remove of products/);
    const huge = await atomic([{ op: 'update', ref: { type: 'products', id: 2 ** 31 }, data: { type: 'products' } }]);
    expectRefusal(huge, 400, 'invalid_json');
    expect(huge.body.error.message).toMatch(
      /^\/atomic:operations\/0: ref\.id must be .*, the id of a resource of type products \(got 2147483648\)$/,
    );
    const lid = await atomic([{ op: 'update', data: { type: 'products', lid: 'nope', attributes: { nlc: 1 } } }]);
    expectRefusal(lid, 400, 'invalid_relationship');
    expect(lid.body.error.message).toMatch(
      /^\/atomic:operations\/0: \S*lid "nope" is not the lid of a resource of type products added earlier in the request$/,
    );
    const plain = await api.post(
      '/operations',
      { 'atomic:operations': [] },
      { contentType: 'application/vnd.api+json' },
    );
    expectRefusal(plain, 415, 'unsupported_media_type');
    const empty = await atomic([]);
    expectRefusal(empty, 400, 'invalid_json');
    const forbidden = await atomic([
      {
        op: 'update',
        ref: { type: 'customer_products', id: (await api.ids('customer_products', 1))[0], relationship: 'customer' },
        data: { type: 'customers', id: 1 },
      },
    ]);
    expectRefusal(forbidden, 403, 'forbidden');
  });

  it('a structure updated, then given items, in one request: one entry, with its last version and its items', async () => {
    const [, b] = await api.ids('products', 2);
    const structure = await newStructure();
    const id = structure.data.id;
    const res = await atomic([
      {
        op: 'update',
        ref: { type: 'product_structures', id },
        data: { type: 'product_structures', attributes: { quantity: 2 } },
      },
      { op: 'add', ref: { type: 'product_structures', id, relationship: 'items' }, data: [item(b!)] },
    ]);
    expect(res.status, res.text).toBe(200);
    const now = await api.ok('GET', `/product_structures/${id}`);
    const entries = await api.prisma.change.findMany({
      where: { resource_type: 'product_structures', resource_id: id },
      orderBy: { id: 'desc' },
      take: 1,
    });
    expect(entries[0].version).toBe(now.data.meta.version);
    expect(JSON.parse(entries[0].after).items).toEqual(now.data.relationships.items.data);
  });

  it('a structure and its items through the product, then more items by their relationship', async () => {
    const [, b] = await api.ids('products', 2);
    const structure = await newStructure();
    const res = await atomic([
      {
        op: 'add',
        ref: { type: 'product_structures', id: structure.data.id, relationship: 'items' },
        data: [item(b!)],
      },
    ]);
    expect(res.status, res.text).toBe(200);
    const items = await api.ok('GET', `/product_structures/${structure.data.id}/relationships/items`);
    expect(items.data).toHaveLength(2);
  });
});
