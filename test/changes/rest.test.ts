/**
 * Delta sync over REST: GET /changes (pages after a cursor, type filter, links to follow),
 * meta.changes_cursor on LIST and GET answers (taken before the read, and left out of entity
 * tags), 410 cursor_expired for a cursor the log no longer covers, and bad parameters.
 */
import { describe, expect, it } from 'vitest';
import { purgeChanges } from '../../src/data/changes.ts';
import { seedDatabase } from '../../src/seed/write.ts';
import { providers } from '../support/databases.ts';
import { BASE, expectMethodNotAllowed, expectShapeB, expectStatus, restSuite } from '../rest/support.ts';

describe.each(providers)('REST delta sync on %s', (provider) => {
  const api = restSuite(provider);

  const head = async (): Promise<number> =>
    (await api.prisma.change.findFirst({ orderBy: { seq: 'desc' }, select: { seq: true } }))?.seq ?? 0;

  async function renameProduct(id: number | string, en: string) {
    return api.ok('PATCH', `/products/${id}`, { data: { type: 'products', attributes: { name: { en } } } });
  }

  it('GET /changes: the entries after a cursor, oldest first, as `changes` resources, with the cursor to follow', async () => {
    const from = String(await head());
    const product = await api.create('products');
    await renameProduct(product.id, 'first rename');
    await renameProduct(product.id, 'second rename');
    const res = await api.get(`/changes?after=${from}`);
    expectStatus(res, 200);
    expect(res.headers.get('etag')).toMatch(/^"[^"]+"$/);
    const { data, meta, links } = res.body;
    expect(data.map((c: any) => [c.attributes.op, c.attributes.version])).toEqual([
      ['created', 1],
      ['updated', 2],
      ['updated', 3],
    ]);
    const [, second] = data;
    expect(second).toEqual({
      type: 'changes',
      id: expect.stringMatching(/^\d+$/),
      attributes: {
        resource_type: 'products',
        resource_id: Number(product.id),
        op: 'updated',
        version: 2,
        changed: ['name'],
        before: { name: product.attributes.name },
        after: { name: { ...product.attributes.name, en: 'first rename' } },
        actor: expect.any(String),
        at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/),
      },
      relationships: { resource: { data: { type: 'products', id: Number(product.id) } } },
    });
    expect(data.map((c: any) => Number(c.id))).toEqual([...data.map((c: any) => Number(c.id))].sort((a, b) => a - b));
    expect(meta).toEqual({ cursor: data[2].id, has_more: false });
    expect(links).toEqual({
      self: `${BASE}/changes?after=${from}`,
      next: `${BASE}/changes?after=${data[2].id}`,
    });
    // Following `next` with nothing new: an empty page at the same cursor, and 304 for the tag held.
    const next = await api.get(links.next.slice(BASE.length));
    expect(next.body).toMatchObject({ data: [], meta: { cursor: data[2].id, has_more: false } });
    const again = await api.get(links.next.slice(BASE.length), {
      headers: { 'If-None-Match': next.headers.get('etag')! },
    });
    expectStatus(again, 304);
  });

  it('pages of per_page with has_more, and a type filter that moves the cursor past entries of other types', async () => {
    const from = await head();
    const product = await api.create('products');
    for (let n = 1; n <= 4; n++) await renameProduct(product.id, `page ${n}`);
    const unit = await api.create('units');
    const seen: number[] = [];
    let cursor = String(from);
    for (;;) {
      const page = await api.ok('GET', `/changes?after=${cursor}&per_page=2&type=products`);
      expect(page.data.length).toBeLessThanOrEqual(2);
      for (const c of page.data) {
        expect(c.attributes.resource_type).toBe('products');
        seen.push(Number(c.id));
      }
      cursor = page.meta.cursor;
      expect(page.links.next).toBe(`${BASE}/changes?after=${cursor}&per_page=2&type=products`);
      if (!page.meta.has_more) break;
    }
    expect(seen).toHaveLength(5);
    // The last page's cursor is the log's end, past the unit's entry it did not show.
    expect(Number(cursor)).toBe(await head());
    const units = await api.ok('GET', `/changes?after=${from}&type=units,products`);
    expect(units.data.map((c: any) => c.attributes.resource_type)).toEqual([...Array(5).fill('products'), 'units']);
    expect(units.data.at(-1).attributes.resource_id).toBe(Number(unit.id));
  });

  it('without `after`: from the oldest entry kept', async () => {
    await api.create('brands');
    const first = await api.ok('GET', '/changes?per_page=1');
    const oldest = await api.prisma.change.findFirst({ orderBy: { seq: 'asc' } });
    expect(first.data[0].id).toBe(String(oldest.seq));
    expect(first.meta.has_more).toBe(true);
  });

  it('LIST and GET carry meta.changes_cursor, the position before the read: following it shows later writes only', async () => {
    const product = await api.create('products');
    const list = await api.ok('GET', '/products?per_page=5');
    const get = await api.ok('GET', `/products/${product.id}`);
    const included = await api.ok('GET', `/products/${product.id}?include=unit`);
    const at = String(await head());
    expect(list.meta.changes_cursor).toBe(at);
    expect(Object.keys(list.meta)).toEqual(['total', 'count', 'pages', 'per_page', 'changes_cursor']);
    expect(get.meta).toEqual({ changes_cursor: at });
    expect(included.meta).toEqual({ changes_cursor: at });
    await renameProduct(product.id, 'after the read');
    const follow = await api.ok('GET', `/changes?after=${at}`);
    expect(follow.data.map((c: any) => [c.attributes.resource_id, c.attributes.op])).toEqual([
      [Number(product.id), 'updated'],
    ]);
  });

  it('entity tags leave changes_cursor out: a write elsewhere keeps every tag (304, If-Match), while the cursor moves', async () => {
    const product = await api.create('products');
    const reads = [`/products/${product.id}`, `/products/${product.id}?include=unit`, '/products?per_page=3&page=2'];
    const before = await Promise.all(reads.map((path) => api.get(path)));
    await api.create('brands'); // a write to another resource: the log moves on
    for (const [i, path] of reads.entries()) {
      const tag = before[i]!.headers.get('etag')!;
      expectStatus(await api.get(path, { headers: { 'If-None-Match': tag } }), 304, path);
      const now = await api.get(path);
      expect(now.headers.get('etag'), path).toBe(tag);
      expect(Number(now.body.meta.changes_cursor)).toBeGreaterThan(Number(before[i]!.body.meta.changes_cursor));
    }
    const res = await api.patch(
      `/products/${product.id}`,
      { data: { type: 'products', attributes: { nlc: 4.5 } } },
      { headers: { 'If-Match': before[0]!.headers.get('etag')! } },
    );
    expectStatus(res, 200);
  });

  it('410 cursor_expired: a cursor whose entries were purged, and one past the end of the log', async () => {
    await api.create('brands');
    const old = await api.prisma.change.findFirst({ orderBy: { seq: 'asc' } });
    const inAYear = { now: () => new Date(Date.now() + 366 * 24 * 3600 * 1000) };
    const kept = String(await head());
    // Purge what is older than 400 days: nothing; then older than 365 days: everything so far.
    expect(await purgeChanges(api.prisma, inAYear, 400)).toBe(0);
    expect(await purgeChanges(api.prisma, inAYear, 365)).toBeGreaterThan(0);
    expectShapeB(await api.get(`/changes?after=${old.seq}`), 410, 'cursor_expired');
    // The newest purged entry is the horizon: a client that had it misses nothing and goes on.
    const onward = await api.get(`/changes?after=${kept}`);
    expectStatus(onward, 200);
    expect(onward.body.data).toEqual([]);
    expect(onward.body.meta.cursor).toBe(kept);
    expectShapeB(await api.get(`/changes?after=${Number(kept) + 1000}`), 410, 'cursor_expired');
    // A new write after the purge is found from the horizon, and from the start.
    const unit = await api.create('units');
    const after = await api.ok('GET', `/changes?after=${kept}`);
    expect(after.data.map((c: any) => c.attributes.resource_id)).toEqual([Number(unit.id)]);
    expect((await api.ok('GET', '/changes')).data.map((c: any) => c.id)).toEqual(after.data.map((c: any) => c.id));
  });

  it('bad parameters: 400 invalid_parameter naming them; other methods 405', async () => {
    for (const [query, words] of [
      ['after=abc', 'after'],
      ['after=-1', 'after'],
      ['after=99999999999', 'after'],
      ['type=nonsense', 'nonsense'],
      ['type=', 'type'],
      ['per_page=0', 'per_page'],
      ['per_page=501', 'per_page'],
      ['page=2', 'page'],
      ['after=1&after=2', 'repeated'],
    ]) {
      const res = await api.get(`/changes?${query}`);
      expectShapeB(res, 400, 'invalid_parameter', query);
      expect(res.body.error.message, query).toContain(words);
    }
    expectMethodNotAllowed(await api.post('/changes', {}), 'POST', ['GET']);
    expectStatus(await api.get('/changes', { token: null }), 401);
  });
});

describe.each(providers)('seed --replace on %s', (provider) => {
  const api = restSuite(provider);

  it('expires every cursor given out before: a follower learns it must read afresh, then follows the new log', async () => {
    await api.create('brands');
    const cursor = (await api.ok('GET', '/products?per_page=1')).meta.changes_cursor;
    expectStatus(await api.get(`/changes?after=${cursor}`), 200);
    await seedDatabase(api.env.database.db, { scale: 1, replace: true });
    expectShapeB(await api.get(`/changes?after=${cursor}`), 410, 'cursor_expired');
    const fresh = (await api.ok('GET', '/products?per_page=1')).meta.changes_cursor;
    expect(Number(fresh)).toBeGreaterThan(Number(cursor));
    const brand = await api.create('brands');
    const follow = await api.ok('GET', `/changes?after=${fresh}`);
    expect(follow.data.map((c: any) => [c.attributes.resource_type, c.attributes.resource_id])).toEqual([
      ['brands', Number(brand.id)],
    ]);
  });
});
