/**
 * The totals of REST pages (meta.total, meta.pages), which a server keeps between requests and
 * counts again once the change log has moved (src/data/list.ts, KeptTotals): they follow every
 * write, made through this server or another replica, under each role's row filter, and count a
 * write that committed before its log entry was numbered.
 */
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { testApp } from '../support/app.ts';
import { providers } from '../support/databases.ts';
import { applyTestRoles, tokenWithRole } from '../support/roles.ts';
import { Rest, restSuite } from './support.ts';

/** The advisory lock the numbering of the change log takes (the change-log migrations). */
const NUMBERING_LOCK = 4201003;

describe.each(providers)('REST page totals on %s', (provider) => {
  const api = restSuite(provider);
  /** Another replica: a second server over the same database, with totals of its own. */
  const replica = new Rest(`${provider}-replica`);
  let activeOnly: string;

  beforeAll(async () => {
    replica.env = { ...api.env, t: testApp(api.env.database) };
    await applyTestRoles(api.env.database.db, {
      active_products: { products: { read: { where: { is_active: { equals: true } } } } },
    });
    activeOnly = await tokenWithRole(api.env.t, api.env.database.db, 'active_products', ['read']);
  });

  const total = async (rest: Rest, path: string, token?: string): Promise<number> => {
    const res = await rest.request('GET', path, token ? { token } : {});
    expect(res.status, res.text).toBe(200);
    expect(res.body.meta.pages).toBe(Math.ceil(res.body.meta.total / res.body.meta.per_page));
    return res.body.meta.total;
  };

  it('follow every write, made through this server or another replica', async () => {
    const [group, other] = await api.ids('product_groups', 2);
    const paths = ['/products?per_page=5', `/products?per_page=5&product_group_id=${group}`];
    const expected = async () => [
      await api.count('products'),
      await api.count('products', { product_group_id: group }),
    ];
    const totals = async (rest: Rest) => [await total(rest, paths[0]!), await total(rest, paths[1]!)];
    for (const rest of [api, replica, api]) expect(await totals(rest)).toEqual(await expected());

    const inGroup = (id: number) => ({ data: { type: 'product_groups', id } });
    const created = await replica.create('products', { relationships: { product_group: inGroup(group!) } });
    expect(await totals(api)).toEqual(await expected());
    await api.ok('PATCH', `/products/${created.id}`, {
      data: { type: 'products', relationships: { product_group: inGroup(other!) } },
    });
    expect(await totals(replica)).toEqual(await expected());
    expect(await totals(api)).toEqual(await expected());
  });

  it("each role its own total: a row leaving a role's filter leaves its total, not admin's", async () => {
    const [id] = await api.ids('products', 1, { is_active: true });
    const all = await api.count('products');
    const active = () => api.count('products', { is_active: true });
    expect(await total(api, '/products')).toBe(all);
    expect(await total(api, '/products', activeOnly)).toBe(await active());
    await api.ok('PATCH', `/products/${id}`, { data: { type: 'products', attributes: { is_active: false } } });
    expect(await total(api, '/products', activeOnly)).toBe(await active());
    expect(await total(api, '/products')).toBe(all);
    await replica.ok('PATCH', `/products/${id}`, { data: { type: 'products', attributes: { is_active: true } } });
    expect(await total(api, '/products', activeOnly)).toBe(await active());
  });

  it('a total is counted once per position of the log: a row changed without an entry counts after the next write', async () => {
    // Only the service writes master data (every write of it leaves an entry); this shows the
    // total kept, and counted again once any entry is added.
    const [id] = await api.ids('products', 1, { is_active: true });
    const before = await total(api, '/products', activeOnly);
    const unit = (await api.ids('units', 1))[0]!;
    const logWrite = (en: string) =>
      api.ok('PATCH', `/units/${unit}`, { data: { type: 'units', attributes: { description: { en } } } });
    await api.prisma.$executeRawUnsafe(`UPDATE "products" SET "is_active" = false WHERE "id" = ${id}`);
    try {
      expect(await total(api, '/products', activeOnly)).toBe(before);
      await logWrite('counted again');
      expect(await total(api, '/products', activeOnly)).toBe(before - 1);
    } finally {
      // Put back, and a logged write so that no total kept meanwhile outlives it.
      await api.prisma.$executeRawUnsafe(`UPDATE "products" SET "is_active" = true WHERE "id" = ${id}`);
      await logWrite('counted once more');
    }
    expect(await total(api, '/products', activeOnly)).toBe(before);
  });

  it.skipIf(provider !== 'postgresql')(
    'a write that committed before its entry was numbered is counted (PostgreSQL numbers after commit)',
    async () => {
      const path = '/products?per_page=1';
      const before = await total(api, path);
      const cursor = (await api.ok('GET', path)).meta.changes_cursor;
      // Numbering waits for this lock: the write commits, and answers only once it is released.
      const holder = new pg.Client({ connectionString: api.env.database.target.url });
      await holder.connect();
      try {
        await holder.query('BEGIN');
        await holder.query('SELECT pg_advisory_xact_lock($1)', [NUMBERING_LOCK]);
        const body = await replica.addBody('products', {});
        const write = replica.request('POST', '/products', { body });
        const deadline = Date.now() + 10_000;
        while ((await api.count('products')) === before && Date.now() < deadline)
          await new Promise((resolve) => setTimeout(resolve, 20));
        const page = await api.ok('GET', path);
        expect(page.meta.total).toBe(before + 1);
        expect(page.meta.changes_cursor).toBe(cursor);
        await holder.query('COMMIT');
        expect((await write).status).toBe(201);
      } finally {
        await holder.end();
      }
      expect(await total(api, path)).toBe(before + 1);
    },
  );
});
