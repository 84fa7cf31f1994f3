/**
 * Reading (rest.md "Reading"): pagination (meta, absolute links that keep the other parameters,
 * first, middle, last and past-the-end pages, validation of page and per_page, order by id),
 * every filter of the spec compared with the database, malformed values and unknown parameters,
 * and `include`: exactly the values the spec allows per operation, anything else 400.
 */
import { withCheckDigit } from '../../src/data/formats.ts';
import { describe, expect, it } from 'vitest';
import { resources } from '../../src/resources/registry.ts';
import { providers } from '../support/databases.ts';
import {
  BASE,
  CURSOR,
  expectIncluded,
  expectResource,
  expectShapeB,
  expectStatus,
  JSON_UTF8,
  restSuite,
} from './support.ts';

/** The LIST and GET include values as the spec's operation tables spell them (not the registry). */
const SPEC_INCLUDES: Record<string, { list: string[]; get: string[] }> = {
  customers: {
    list: [
      'customer_type',
      'language',
      'currency',
      'account_manager',
      'customer_service_mananger',
      'customer_service_manager',
      'address',
      'commercial_resolve_responsible_users',
      'inform_on_complaint_users',
      'inform_on_complaint_functions',
    ],
    get: ['customer_type', 'language', 'currency', 'account_manager', 'customer_service_manager', 'address'],
  },
  customer_products: { list: ['customer', 'product'], get: ['customer', 'product'] },
  products: {
    list: ['unit', 'product_group', 'product_structure', 'brand', 'production_line', 'preferred_supplier'],
    get: ['unit', 'product_group', 'product_structure', 'brand', 'production_line'],
  },
  product_groups: { list: ['type'], get: ['type'] },
  product_structures: { list: ['items'], get: ['type', 'items'] },
  product_structure_items: {
    list: ['product', 'unit', 'type', 'calculation_method'],
    get: ['product', 'unit', 'type', 'calculation_method'],
  },
  suppliers: {
    list: [
      'types',
      'currency',
      'buyer',
      'key_user',
      'address',
      'commercial_resolve_responsible_users',
      'inform_on_complaint_users',
    ],
    get: [
      'types',
      'currency',
      'buyer',
      'key_user',
      'address',
      'commercial_resolve_responsible_users',
      'inform_on_complaint_users',
    ],
  },
};
/** Spellings that name another relationship. */
const ALIASES: Record<string, string> = { customer_service_mananger: 'customer_service_manager', type: 'items' };
const relationshipOf = (type: string, value: string) =>
  type === 'product_structures' || value !== 'type' ? (ALIASES[value] ?? value) : value;

/** Values that are never allowed: other relationships of the type, the other operation's values, made-up ones. */
function refusedIncludes(type: string, operation: 'list' | 'get'): string[] {
  const resource = resources.find((r) => r.type === type)!;
  const allowed = new Set(SPEC_INCLUDES[type]?.[operation] ?? []);
  const candidates = [
    ...Object.keys(resource.relationships),
    ...(SPEC_INCLUDES[type]?.list ?? []),
    ...(SPEC_INCLUDES[type]?.get ?? []),
    'type',
    'items',
    'nope',
    'unit.brand',
  ];
  return [...new Set(candidates)].filter((v) => !allowed.has(v));
}

describe.each(providers)('REST reading on %s', (provider) => {
  const api = restSuite(provider);

  const ids = (res: { body: any }) => res.body.data.map((d: any) => d.id);

  /** Path and parameters of an absolute link. */
  function link(value: string | null): { path: string; params: Record<string, string> } | null {
    if (value === null) return null;
    const url = new URL(value);
    expect(url.origin, `${value} is absolute`).toBe(BASE);
    return { path: url.pathname, params: Object.fromEntries(url.searchParams) };
  }

  describe('pagination', () => {
    const where = { is_active: true };
    const query = 'active=1&include=unit';

    it('first, middle, last and past-the-end pages: meta, absolute links keeping the other parameters, ordered by id', async () => {
      const total = await api.count('products', where);
      const all = await api.ids('products', total, where);
      const pages = Math.ceil(total / 50);
      expect(pages).toBeGreaterThan(2);
      const expectLinks = (links: any, page: number) => {
        const at = (p: number) => ({
          path: '/products',
          params: { active: '1', include: 'unit', page: String(p), per_page: '50' },
        });
        expect(link(links.self)).toEqual(at(page));
        expect(link(links.first)).toEqual(at(1));
        expect(link(links.last)).toEqual(at(pages));
        expect(link(links.prev)).toEqual(page > 1 && page <= pages ? at(page - 1) : page > pages ? at(pages) : null);
        expect(link(links.next)).toEqual(page < pages ? at(page + 1) : null);
      };
      for (const page of [1, 2, pages]) {
        const res = await api.get(`/products?${query}&per_page=50&page=${page}`);
        expectStatus(res, 200);
        expect(res.headers.get('content-type')).toBe(JSON_UTF8);
        const expected = all.slice((page - 1) * 50, page * 50);
        expect(ids(res)).toEqual(expected);
        expect(res.body.meta).toEqual({ total, count: expected.length, pages, per_page: 50, changes_cursor: CURSOR });
        expectLinks(res.body.links, page);
        expectIncluded(res.body.included, 'products', res.body.data, ['unit']);
      }
      const past = await api.get(`/products?${query}&per_page=50&page=${pages + 1}`);
      expectStatus(past, 200);
      expect(past.body.data).toEqual([]);
      expect(past.body.meta).toEqual({ total, count: 0, pages, per_page: 50, changes_cursor: CURSOR });
      expect(link(past.body.links.next)).toBeNull();
      expect(link(past.body.links.self)?.params.page).toBe(String(pages + 1));
      expect(link(past.body.links.last)?.params.page).toBe(String(pages));
    });

    it('pages follow each other without gaps or repeats (order by id)', async () => {
      const seen: number[] = [];
      for (let page = 1; page <= 3; page++) seen.push(...ids(await api.get(`/customers?per_page=7&page=${page}`)));
      expect(seen).toEqual(await api.ids('customers', 21));
    });

    it('default per_page is 20 and page 1', async () => {
      const res = await api.get('/customers');
      expect(res.body.meta.per_page).toBe(20);
      expect(res.body.data).toHaveLength(20);
      expect(link(res.body.links.self)?.params.page).toBe('1');
      expect(ids(res)).toEqual(await api.ids('customers', 20));
    });

    it('a page far past the last is still a page past the last: 200 with empty data', async () => {
      const res = await api.get('/products?page=1000000000');
      expectStatus(res, 200);
      expect(res.body.data).toEqual([]);
      expect(res.body.meta.count).toBe(0);
    });

    it('per_page 1 and 50 are the bounds', async () => {
      expect((await api.get('/customers?per_page=1')).body.data).toHaveLength(1);
      expect((await api.get('/customers?per_page=50')).body.data).toHaveLength(50);
    });

    it('an empty result: total 0, pages 0, no prev or next', async () => {
      const res = await api.get('/customers?filter[reference]=no-such-customer');
      expectStatus(res, 200);
      expect(res.body.data).toEqual([]);
      expect(res.body.meta).toEqual({ total: 0, count: 0, pages: 0, per_page: 20, changes_cursor: CURSOR });
      expect(res.body.links.prev).toBeNull();
      expect(res.body.links.next).toBeNull();
      expect(link(res.body.links.first)?.params['filter[reference]']).toBe('no-such-customer');
    });

    it.each(['0', '-1', 'abc', '1.5', '', '1e2', ' 1', '0x2'])('page=%j: 400 invalid_parameter', async (value) => {
      expectShapeB(await api.get(`/products?page=${encodeURIComponent(value)}`), 400, 'invalid_parameter');
    });

    it.each(['0', '51', '-5', 'abc', '2.5', '', '100', '20.0'])('per_page=%j: 400 invalid_parameter', async (value) => {
      expectShapeB(await api.get(`/products?per_page=${encodeURIComponent(value)}`), 400, 'invalid_parameter');
    });

    it('every LIST paginates (registry-driven): per_page=2 on page 2, each resource as GET by id shows it', async () => {
      for (const { type } of resources) {
        const res = await api.get(`/${type}?per_page=2&page=2`);
        expectStatus(res, 200, type);
        const total = await api.count(type);
        expect(res.body.meta, type).toEqual({
          total,
          count: Math.min(2, Math.max(0, total - 2)),
          pages: Math.ceil(total / 2),
          per_page: 2,
          changes_cursor: CURSOR,
        });
        expect(ids(res), type).toEqual((await api.ids(type, 4)).slice(2));
        // A later page is cut before its relationship ids are read (src/data/list.ts): they must
        // still be its own rows'.
        for (const resource of res.body.data)
          expect(resource, `${type} ${resource.id}`).toEqual((await api.get(`/${type}/${resource.id}`)).body.data);
        expectShapeB(await api.get(`/${type}?per_page=51`), 400, 'invalid_parameter', type);
        expectShapeB(await api.get(`/${type}?page=0`), 400, 'invalid_parameter', type);
      }
    });
  });

  describe('filters', () => {
    /** The ids a filtered LIST returns over all its pages, following its `next` links as a client does. */
    async function listIds(path: string): Promise<{ ids: number[]; total: number }> {
      const all: number[] = [];
      let total = 0;
      let next: string | null = `${path}${path.includes('?') ? '&' : '?'}per_page=50`;
      for (let pages = 0; next !== null; pages++) {
        expect(pages, `${path}: more pages than rows`).toBeLessThan(30);
        const res = await api.get(next);
        expectStatus(res, 200, next);
        total = res.body.meta.total;
        all.push(...ids(res));
        next =
          res.body.links.next === null
            ? null
            : new URL(res.body.links.next).pathname + new URL(res.body.links.next).search;
      }
      expect(all.length, `${path}: rows over all pages`).toBe(total);
      return { ids: all, total };
    }

    async function expectFilter(type: string, query: string, where: object): Promise<number[]> {
      const { ids: found } = await listIds(`/${type}?${query}`);
      const expected = await api.ids(type, 100_000, where);
      expect(found, `${type}?${query}`).toEqual(expected);
      return found;
    }

    it('customers filter[reference]: only the customer with that reference', async () => {
      const [customer] = await api.prisma.customer.findMany({ where: { id: 37 }, select: { reference: true } });
      const found = await expectFilter('customers', `filter[reference]=${encodeURIComponent(customer.reference)}`, {
        reference: customer.reference,
      });
      expect(found).toEqual([37]);
      expect((await listIds('/customers?filter[reference]=nobody')).total).toBe(0);
    });

    it('products sales=0|1 and active=0|1, alone and together', async () => {
      for (const v of [0, 1]) {
        const sales = await expectFilter('products', `sales=${v}`, { is_sales: v === 1 });
        expect(sales.length).toBeGreaterThan(0);
        const active = await expectFilter('products', `active=${v}`, { is_active: v === 1 });
        expect(active.length).toBeGreaterThan(0);
      }
      await expectFilter('products', 'sales=1&active=0', { is_sales: true, is_active: false });
    });

    it('products gtin: the product with that GTIN, also when stored with leading zeros and asked without', async () => {
      const product = await api.create('products');
      const gtin = withCheckDigit(`000${provider === 'sqlite' ? 1 : 2}${String(api.next()).padStart(9, '0')}`);
      await api.ok('PATCH', `/products/${product.id}`, { data: { type: 'products', attributes: { gtin } } });
      for (const asked of [gtin, gtin.replace(/^0+/, ''), gtin.slice(1), gtin.slice(2)]) {
        expect((await listIds(`/products?gtin=${asked}`)).ids, `gtin=${asked}`).toEqual([product.id]);
      }
      const seeded = await api.prisma.product.findFirst({ where: { gtin: { not: null } }, orderBy: { id: 'asc' } });
      expect((await listIds(`/products?gtin=${seeded.gtin}`)).ids).toEqual([seeded.id]);
      expect((await listIds(`/products?gtin=0${seeded.gtin}`)).ids).toEqual([seeded.id]);
      const zeros = await api.prisma.product.findFirst({
        where: { gtin: { startsWith: '0' } },
        orderBy: { id: 'asc' },
      });
      expect((await listIds(`/products?gtin=${zeros.gtin.replace(/^0+/, '')}`)).ids).toEqual([zeros.id]);
      expect((await listIds('/products?gtin=12345')).total).toBe(0);
    });

    it('products product_group_id', async () => {
      const [group] = await api.ids('product_groups', 3).then((g) => g.slice(2));
      const found = await expectFilter('products', `product_group_id=${group}`, { product_group_id: group });
      expect(found.length).toBeGreaterThan(0);
      expect((await listIds('/products?product_group_id=987654')).total).toBe(0);
    });

    it("products preferred_supplier: the supplier's reference", async () => {
      const product = await api.prisma.product.findFirst({
        where: { preferred_supplier_id: { not: null } },
        orderBy: { id: 'asc' },
      });
      const supplier = await api.prisma.supplier.findUnique({ where: { id: product.preferred_supplier_id } });
      const found = await expectFilter('products', `preferred_supplier=${encodeURIComponent(supplier.reference)}`, {
        preferred_supplier_id: supplier.id,
      });
      expect(found.length).toBeGreaterThan(0);
      expect((await listIds('/products?preferred_supplier=NO-SUCH-SUPPLIER')).total).toBe(0);
    });

    it('products modified_after: ATOM, Z, fractional seconds and other offsets; strictly after', async () => {
      const at = new Date('2026-03-01T00:00:00Z');
      const expected = await api.ids('products', 100_000, { modified_date: { gt: at } });
      expect(expected.length).toBeGreaterThan(0);
      expect(expected.length).toBeLessThan(await api.count('products'));
      for (const value of [
        '2026-03-01T00:00:00+00:00',
        '2026-03-01T00:00:00Z',
        '2026-03-01T00:00:00.000Z',
        '2026-03-01T00:00:00.000000+00:00',
        '2026-03-01T01:00:00+01:00',
        '2026-02-28T19:00:00-05:00',
      ]) {
        expect((await listIds(`/products?modified_after=${encodeURIComponent(value)}`)).ids, value).toEqual(expected);
      }
      // An unencoded "+" in a query string: what a client pasting the ATOM form sends.
      expect((await listIds('/products?modified_after=2026-03-01T00:00:00+00:00')).ids).toEqual(expected);
      // Strictly after: the row modified at that very instant is not included, a second earlier it is.
      const row = await api.prisma.product.findFirst({ where: { id: 123 }, select: { id: true, modified_date: true } });
      const exact = (row.modified_date as Date).toISOString().replace('.000Z', '+00:00');
      expect((await listIds(`/products?modified_after=${encodeURIComponent(exact)}`)).ids).not.toContain(123);
      const before = new Date((row.modified_date as Date).getTime() - 1000).toISOString().replace('.000Z', 'Z');
      expect((await listIds(`/products?modified_after=${before}`)).ids).toContain(123);
      // A product written now is after yesterday.
      const created = await api.create('products');
      const yesterday = new Date(Date.now() - 86_400_000).toISOString();
      expect((await listIds(`/products?modified_after=${encodeURIComponent(yesterday)}`)).ids).toContain(created.id);
    });

    it('product_groups active and product_group_type_id', async () => {
      await api.ok('PATCH', '/product_groups/2', {
        data: { type: 'product_groups', attributes: { is_active: false } },
      });
      for (const v of [0, 1]) await expectFilter('product_groups', `active=${v}`, { is_active: v === 1 });
      const [, groupType] = await api.ids('product_group_types', 2);
      const found = await expectFilter('product_groups', `product_group_type_id=${groupType}`, { type_id: groupType });
      expect(found.length).toBeGreaterThan(0);
      await expectFilter('product_groups', `active=1&product_group_type_id=${groupType}`, {
        type_id: groupType,
        is_active: true,
      });
    });

    it('product_structures modified_after', async () => {
      const at = new Date('2025-12-01T00:00:00Z');
      const expected = await api.ids('product_structures', 100_000, { modified_date: { gt: at } });
      expect(expected.length).toBeGreaterThan(0);
      expect((await listIds('/product_structures?modified_after=2025-12-01T00:00:00%2B00:00')).ids).toEqual(expected);
      expect((await listIds('/product_structures?modified_after=2025-12-01T00:00:00.5Z')).ids).toEqual(
        await api.ids('product_structures', 100_000, { modified_date: { gt: new Date('2025-12-01T00:00:00.500Z') } }),
      );
    });

    it.each([
      ['products', 'sales=2'],
      ['products', 'sales=yes'],
      ['products', 'sales='],
      ['products', 'active=true'],
      ['products', 'active=-1'],
      ['products', 'gtin=abc'],
      ['products', 'gtin=12-34'],
      ['products', 'gtin=1.5'],
      ['products', 'product_group_id=x'],
      ['products', 'product_group_id=1.5'],
      ['products', 'product_group_id='],
      ['products', 'modified_after=yesterday'],
      ['products', 'modified_after=2026-01-01'],
      ['products', 'modified_after=2026-13-01T00:00:00Z'],
      ['products', 'modified_after=2026-01-01T25:00:00Z'],
      ['products', 'modified_after=2026-01-01 00:00:00'],
      ['products', 'modified_after=1700000000'],
      ['products', 'modified_after=2026-02-30T00:00:00Z'],
      ['products', 'modified_after=2026-04-31T00:00:00%2B00:00'],
      ['products', 'modified_after=2026-01-01T24:00:00Z'],
      ['product_groups', 'active=2'],
      ['product_groups', 'product_group_type_id=abc'],
      ['product_structures', 'modified_after=not-a-date'],
    ])('%s?%s: malformed value, 400 invalid_parameter', async (type, query) => {
      expectShapeB(await api.get(`/${type}?${query}`), 400, 'invalid_parameter');
    });

    it.each([
      '/products?foo=1',
      '/products?filter[reference]=RM000001',
      '/products?reference=RM000001',
      '/products?sort=-id',
      '/customers?reference=x',
      '/customers?filter[name]=x',
      '/customers?active=1',
      '/units?active=1',
      '/product_groups?sales=1',
      '/product_structures?active=1',
      '/product_structure_items?modified_after=2026-01-01T00:00:00Z',
      '/suppliers?filter[reference]=SUP00001',
      '/customers/1?page=1',
      '/customers/1?filter[reference]=x',
      '/products/1?active=1',
      '/products/1/relationships/unit?page=1',
      '/products/1/unit?per_page=5',
    ])('%s: unknown query parameter, 400 invalid_parameter', async (path) => {
      expectShapeB(await api.get(path), 400, 'invalid_parameter');
    });
  });

  describe('include', () => {
    for (const { type } of resources) {
      const spec = SPEC_INCLUDES[type] ?? { list: [], get: [] };

      it(`LIST ${type}: each allowed value side-loads its targets once, never the primary data`, async () => {
        for (const value of spec.list) {
          const res = await api.get(`/${type}?per_page=30&include=${value}`);
          expectStatus(res, 200, `LIST ${type} include=${value}`);
          expectIncluded(res.body.included, type, res.body.data, [relationshipOf(type, value)]);
        }
        if (spec.list.length > 1) {
          const all = spec.list.join(',');
          const res = await api.get(`/${type}?per_page=30&include=${all}`);
          expectStatus(res, 200, `LIST ${type} include=${all}`);
          expectIncluded(res.body.included, type, res.body.data, [
            ...new Set(spec.list.map((v) => relationshipOf(type, v))),
          ]);
        }
      });

      it(`LIST ${type}: any other include value is 400 invalid_parameter`, async () => {
        for (const value of refusedIncludes(type, 'list')) {
          expectShapeB(
            await api.get(`/${type}?include=${value}`),
            400,
            'invalid_parameter',
            `LIST ${type} include=${value}`,
          );
        }
        if (spec.list.length > 0)
          expectShapeB(await api.get(`/${type}?include=${spec.list[0]},nope`), 400, 'invalid_parameter');
      });

      it(`GET ${type}: each allowed value side-loads its targets; any other is 400`, async () => {
        const [last] = await api.prisma[resources.find((r) => r.type === type)!.model].findMany({
          orderBy: { id: 'desc' },
          take: 1,
          select: { id: true },
        });
        for (const value of spec.get) {
          const res = await api.get(`/${type}/${last.id}?include=${value}`);
          expectStatus(res, 200, `GET ${type} include=${value}`);
          expectResource(res.body.data, type, last.id);
          expectIncluded(res.body.included, type, [res.body.data], [relationshipOf(type, value)]);
        }
        for (const value of refusedIncludes(type, 'get')) {
          expectShapeB(
            await api.get(`/${type}/${last.id}?include=${value}`),
            400,
            'invalid_parameter',
            `GET ${type} include=${value}`,
          );
        }
      });
    }

    it('an included resource shared by many primary resources appears once', async () => {
      const res = await api.get('/products?per_page=50&include=unit,product_group');
      const keys = res.body.included.map((r: any) => `${r.type}:${r.id}`);
      expect(new Set(keys).size).toBe(keys.length);
      expect(keys.length).toBeLessThan(50);
    });

    it('LIST product_structures include=items: every item of the page once', async () => {
      const res = await api.get('/product_structures?per_page=5&include=items');
      expectStatus(res, 200);
      expectIncluded(res.body.included, 'product_structures', res.body.data, ['items']);
      expect(res.body.included.length).toBe(
        await api.count('product_structure_items', { product_structure_id: { in: ids(res) } }),
      );
    });

    it('REL-GET: include is the relationship name (preferred_supplier also supplier); anything else 400', async () => {
      const product = await api.prisma.product.findFirst({
        where: { preferred_supplier_id: { not: null } },
        orderBy: { id: 'asc' },
      });
      for (const value of ['preferred_supplier', 'supplier']) {
        const res = await api.get(`/products/${product.id}/relationships/preferred_supplier?include=${value}`);
        expectStatus(res, 200, value);
        expect(res.body.data).toEqual({ type: 'suppliers', id: product.preferred_supplier_id });
        expect(res.body.included.map((r: any) => [r.type, r.id])).toEqual([
          ['suppliers', product.preferred_supplier_id],
        ]);
        expectResource(res.body.included[0], 'suppliers', product.preferred_supplier_id);
      }
      for (const value of ['suppliers', 'unit', 'brand', 'nope']) {
        expectShapeB(
          await api.get(`/products/${product.id}/relationships/preferred_supplier?include=${value}`),
          400,
          'invalid_parameter',
          value,
        );
      }
      for (const { type, relationships } of resources) {
        for (const [name, rel] of Object.entries(relationships)) {
          if (!rel.operations.includes('get')) continue;
          const other = Object.keys(relationships).find((n) => n !== name) ?? 'nope';
          expectShapeB(
            await api.get(`/${type}/1/relationships/${name}?include=${other}`),
            400,
            'invalid_parameter',
            `${type}.${name} include=${other}`,
          );
          expectShapeB(
            await api.get(`/${type}/1/relationships/${name}?include=${name}_x`),
            400,
            'invalid_parameter',
            `${type}.${name} include=${name}_x`,
          );
        }
      }
    });

    it('RELATED-GET product_group accepts include=type, product_structure include=items', async () => {
      const product = await api.prisma.product.findFirst({
        where: { product_structure: { isNot: null } },
        orderBy: { id: 'asc' },
      });
      const group = await api.get(`/products/${product.id}/product_group?include=type`);
      expectStatus(group, 200);
      expectResource(group.body.data, 'product_groups', product.product_group_id);
      expectIncluded(group.body.included, 'product_groups', [group.body.data], ['type']);
      const structure = await api.get(`/products/${product.id}/product_structure?include=items`);
      expectStatus(structure, 200);
      expectResource(structure.body.data, 'product_structures');
      expect(structure.body.included.length).toBeGreaterThan(0);
      expectIncluded(structure.body.included, 'product_structures', [structure.body.data], ['items']);
      for (const [path, value] of [
        [`/products/${product.id}/product_group`, 'items'],
        [`/products/${product.id}/product_structure`, 'type_x'],
        [`/products/${product.id}/unit`, 'type'],
      ]) {
        expectShapeB(await api.get(`${path}?include=${value}`), 400, 'invalid_parameter', `${path}?include=${value}`);
      }
    });

    it('RELATED-GET without a documented include takes none: 400', async () => {
      expectShapeB(await api.get('/customer_products/1/customer?include=language'), 400, 'invalid_parameter');
      expectShapeB(await api.get('/customers/1/language?include=language'), 400, 'invalid_parameter');
    });
  });
});
