/**
 * The change log under a role (docs/reference/roles.md), on
 * both databases, on every surface: REST's /changes, GraphQL's `changes` and `history`, and the
 * subscription over Server-Sent Events. Only types the role may read; only the fields it sees; an
 * update of hidden fields only left out (the cursor moves past it); a row leaving the role's where
 * comes as `deleted`, one entering as `created` with every field it sees. And the point of it all:
 * a consumer with a restricted role that reads everything and then follows the log, while random
 * writes move rows in and out of its filter, ends with exactly the role's view of the database.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { providers } from '../support/databases.ts';
import { testApp } from '../support/app.ts';
import { type LiveSubscription, listen, logHead, sleep } from '../support/live.ts';
import { applyTestRoles, EXAMPLE_ROLES, tokenWithRole } from '../support/roles.ts';
import { SseStream } from '../support/sse.ts';
import { websocket } from '../support/ws.ts';
import { expectShapeB, expectStatus, restSuite } from '../rest/support.ts';
import { prng } from '../support/prng.ts';
import { differences, RoleConsumer, randomWrite, type World } from './role-sync.ts';

const WRITES = 500;
const LANES = 4;
const SEED = Number(process.env.ROLE_SYNC_SEED ?? 20261202);

const SHOP_FIELDS = ['reference', 'name', 'gtin', 'consumer_price', 'unit', 'brand', 'product_group'];
const WATCH_FIELDS = ['reference', 'name', 'consumer_price', 'shelf_life', 'brand', 'unit'];
const BOM_FIELDS = ['net_quantity', 'is_phantom', 'product', 'unit'];

/** The example roles, and two more: a price watcher (decimals, a foreign key, NOT) and a reader of structure items (tombstones). */
function roles(brands: number[]) {
  return {
    ...EXAMPLE_ROLES,
    price_watch: {
      products: {
        read: {
          fields: WATCH_FIELDS,
          where: {
            OR: [{ consumer_price: { gte: 25 } }, { brand: { id: { in: brands } } }],
            NOT: { name: { en: { contains: 'HIDDEN' } } },
          },
        },
      },
      brands: { read: {} },
      units: { read: {} },
    },
    // Products' groups, of which it sees the active ones only.
    group_shop: {
      products: { read: { fields: ['reference', 'product_group'] } },
      product_groups: { read: { where: { is_active: { equals: true } } } },
    },
    bom_reader: {
      product_structure_items: {
        read: { fields: BOM_FIELDS, where: { is_phantom: { equals: false }, net_quantity: { gt: 5 } } },
      },
      products: { read: { fields: ['reference'] } },
      units: { read: {} },
    },
  };
}

const CHANGE_FIELDS = 'cursor type id op version changed before after';

describe.each(providers)('the change log under a role, on %s', (provider) => {
  const api = restSuite(provider);
  const tokens: Record<string, string> = {};
  let brands: number[];

  beforeAll(async () => {
    const db = api.env.database.db;
    brands = (await api.prisma.brand.findMany({ select: { id: true }, orderBy: { id: 'asc' }, take: 2 })).map(
      (b: { id: number }) => b.id,
    );
    const all = roles(brands);
    await applyTestRoles(db, all);
    for (const role of Object.keys(all)) tokens[role] = await tokenWithRole(api.env.t, db, role);
  });

  const as = (role: string) => ({ token: tokens[role] });
  const head = () => logHead(api.prisma);
  /** A product web_shop sees (a sales product, active). */
  const shopProduct = async (): Promise<number> =>
    (await api.prisma.product.findFirst({ where: { is_sales: true, is_active: true }, orderBy: { id: 'desc' } })).id;
  const patchProduct = async (id: number, attributes: Record<string, unknown>) =>
    expectStatus(await api.patch(`/products/${id}`, { data: { type: 'products', attributes } }), 200);
  async function changesOf(role: string, after: number, query = '') {
    const res = await api.get(`/changes?after=${after}${query}`, as(role));
    expectStatus(res, 200, `/changes as ${role}`);
    return res.body;
  }

  it('leaves out an update of hidden fields only, and moves the cursor past it', async () => {
    const product = await shopProduct();
    const start = await head();
    await patchProduct(product, { nlc: 12.5, intrastat_code: 'HIDDEN-ONLY' });
    const entry = await head();
    expect(entry).toBeGreaterThan(start);
    const admin = await changesOf('admin', start);
    expect(admin.data.map((c: any) => c.attributes.resource_id)).toEqual([product]);
    const shop = await changesOf('web_shop', start);
    expect(shop.data).toEqual([]);
    expect(shop.meta).toEqual({ cursor: String(entry), has_more: false });
    // Paging through skipped entries: each page ends past what it read.
    await patchProduct(product, { nlc: 13.5 });
    await patchProduct(product, { nlc: 14.5 });
    const paged = await changesOf('web_shop', start, '&per_page=1');
    expect(paged.data).toEqual([]);
    expect(paged.meta).toEqual({ cursor: String(entry), has_more: true });
    let cursor = Number(paged.meta.cursor);
    for (let page = 0; page < 3 && cursor < (await head()); page++)
      cursor = Number((await changesOf('web_shop', cursor, '&per_page=1')).meta.cursor);
    expect(cursor).toBe(await head());
  });

  it('shows of an update only the fields the role sees', async () => {
    const product = await shopProduct();
    const start = await head();
    await patchProduct(product, { nlc: 3.25, consumer_price: 19.99, name: { en: 'Seen by the shop' } });
    const [change] = (await changesOf('web_shop', start)).data;
    expect(change.attributes.op).toBe('updated');
    expect(change.attributes.changed.sort()).toEqual(['consumer_price', 'name']);
    expect(Object.keys(change.attributes.before).sort()).toEqual(['consumer_price', 'name']);
    expect(change.attributes.after.consumer_price).toBe(19.99);
    expect(change.attributes.after.name.en).toBe('Seen by the shop');
  });

  it('sends a row that leaves the where as deleted, one that enters as created with every field it sees', async () => {
    const product = await shopProduct();
    const visible = (await api.get(`/products/${product}`, as('web_shop'))).body.data;
    const start = await head();
    await patchProduct(product, { is_sales: false, consumer_price: 7.5 });
    await patchProduct(product, { consumer_price: 8.5, nlc: 1 }); // outside the where: not shown
    await patchProduct(product, { is_sales: true });
    const changes = (await changesOf('web_shop', start)).data.map((c: any) => c.attributes);
    expect(changes.map((c: any) => c.op)).toEqual(['deleted', 'created']);
    const [deleted, created] = changes;
    expect(deleted.after).toBeNull();
    expect(Object.keys(deleted.before).sort()).toEqual([...SHOP_FIELDS].sort());
    // What the role saw last: before the write that took it out.
    expect(deleted.before.consumer_price).toBe(visible.attributes.consumer_price);
    expect(deleted.changed.sort()).toEqual([...SHOP_FIELDS].sort());
    expect(created.before).toBeNull();
    expect(created.changed.sort()).toEqual([...SHOP_FIELDS].sort());
    const now = (await api.get(`/products/${product}`, as('web_shop'))).body.data;
    const expected = {
      ...now.attributes,
      ...Object.fromEntries(Object.entries(now.relationships).map(([k, r]: [string, any]) => [k, r.data])),
    };
    expect(created.after).toEqual(expected);
    expect(created.after.consumer_price).toBe(8.5);
  });

  it('never shows a type the role may not read; asking for one is 403', async () => {
    const customer = await api.prisma.customer.findFirst();
    const start = await head();
    const res = await api.patch(`/customers/${customer.id}`, {
      data: { type: 'customers', attributes: { name: `Renamed ${Date.now()}` } },
    });
    expectStatus(res, 200);
    const shop = await changesOf('web_shop', start);
    expect(shop.data).toEqual([]);
    expect(shop.meta.cursor).toBe(String(await head()));
    expect((await changesOf('admin', start)).data).toHaveLength(1);
    expectShapeB(await api.get(`/changes?type=customers`, as('web_shop')), 403, 'forbidden');
    expectShapeB(await api.get(`/changes?type=products,customers`, as('web_shop')), 403, 'forbidden');
  });

  it('shows a relationship to a row the role cannot see as null, and leaves out a change between two such', async () => {
    const groups = (await api.prisma.productGroup.findMany({ orderBy: { id: 'asc' }, take: 3 })).map(
      (g: { id: number }) => g.id,
    );
    const [active, hidden, alsoHidden] = groups as [number, number, number];
    await api.prisma.productGroup.updateMany({
      where: { id: { in: [hidden, alsoHidden] } },
      data: { is_active: false },
    });
    await api.prisma.productGroup.update({ where: { id: active }, data: { is_active: true } });
    const product = await shopProduct();
    const group = (id: number) => ({ data: { type: 'product_groups', id } });
    const link = async (id: number) =>
      expectStatus(await api.patch(`/products/${product}/relationships/product_group`, group(id)), 200);
    await link(active);
    const start = await head();
    await link(hidden);
    await link(alsoHidden);
    await link(active);
    const changes = (await changesOf('group_shop', start)).data.map((c: any) => c.attributes);
    const identifier = { type: 'product_groups', id: active };
    expect(changes.map((c: any) => [c.op, c.changed, c.before, c.after])).toEqual([
      ['updated', ['product_group'], { product_group: identifier }, { product_group: null }],
      ['updated', ['product_group'], { product_group: null }, { product_group: identifier }],
    ]);
  });

  it('GraphQL: `changes` as REST shows it, `history` without hidden fields', async () => {
    const product = await shopProduct();
    const start = await head();
    await patchProduct(product, { nlc: 2.5 });
    await patchProduct(product, { is_active: false });
    await patchProduct(product, { is_active: true, gross_weight_in_kilogram: 2 });
    await patchProduct(product, { gtin: null, nlc: 3.5 });
    const rest = (await changesOf('web_shop', start)).data;
    const res = await api.env.gql(
      `query($after: String) { changes(after: $after) { nodes { ${CHANGE_FIELDS} } pageInfo { endCursor hasNextPage } } }`,
      { after: String(start) },
      { token: tokens.web_shop },
    );
    expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
    const { nodes, pageInfo } = res.body.data!.changes;
    expect(pageInfo).toEqual({ endCursor: String(await head()), hasNextPage: false });
    expect(nodes.map((n: any) => [n.cursor, n.op.toLowerCase(), n.changed, n.before, n.after])).toEqual(
      rest.map((c: any) => [c.id, c.attributes.op, c.attributes.changed, c.attributes.before, c.attributes.after]),
    );
    expect(nodes.map((n: any) => n.op)).toEqual(['DELETED', 'CREATED', 'UPDATED']);
    const history = await api.env.gql(
      `{ product(id: ${product}) { history(first: 100) { nodes { ${CHANGE_FIELDS} } } } }`,
      undefined,
      { token: tokens.web_shop },
    );
    expect(history.body.errors, JSON.stringify(history.body.errors)).toBeUndefined();
    const entries = history.body.data!.product.history.nodes;
    expect(entries.length).toBeGreaterThan(0);
    for (const entry of entries)
      for (const name of [...entry.changed, ...Object.keys(entry.before ?? {}), ...Object.keys(entry.after ?? {})])
        expect(SHOP_FIELDS, `${entry.cursor} ${name}`).toContain(name);
    // The newest first: the last of the writes above, then the two crossings of the where.
    expect(entries.slice(0, 3).map((n: any) => n.op)).toEqual(['UPDATED', 'CREATED', 'DELETED']);
  });

  /** Writes seen by a subscriber: a hidden field, a customer, out of the where and back, a visible field. */
  async function expectLive(
    open: () => Promise<LiveSubscription>,
    patch: (path: string, body: unknown) => Promise<unknown> = (path, body) => api.patch(path, body),
  ): Promise<void> {
    const patchProduct = (id: number, attributes: Record<string, unknown>) =>
      patch(`/products/${id}`, { data: { type: 'products', attributes } });
    const product = await shopProduct();
    const customer = await api.prisma.customer.findFirst();
    // Values no earlier write set: each write changes something.
    const now = await api.prisma.product.findUnique({ where: { id: product } });
    const price = Math.round(Number(now.consumer_price ?? 0) * 100 + 125) / 100;
    const stream = await open();
    try {
      await sleep(100);
      await patchProduct(product, { nlc: price + 1 });
      await patch(`/customers/${customer.id}`, { data: { type: 'customers', attributes: { name: `Live ${price}` } } });
      await patchProduct(product, { is_sales: false });
      await patchProduct(product, { is_sales: true });
      await patchProduct(product, { consumer_price: price, nlc: price });
      await stream.until((s) => s.changes().length >= 3, 'three changes');
      await sleep(100);
      const got = stream.changes();
      expect(got.map((c) => [c.type, c.id, c.op])).toEqual([
        ['PRODUCTS', product, 'DELETED'],
        ['PRODUCTS', product, 'CREATED'],
        ['PRODUCTS', product, 'UPDATED'],
      ]);
      expect(Object.keys(got[1].after).sort()).toEqual([...SHOP_FIELDS].sort());
      expect(got[2].changed).toEqual(['consumer_price']);
      expect(got[2].after).toEqual({ consumer_price: price });
    } finally {
      await stream.close();
    }
  }

  const LIVE = { query: `subscription { changes { ${CHANGE_FIELDS} } }` };

  it('a subscription over Server-Sent Events gets the same, its events not shared with admin', async () => {
    const send = (path: string, init: RequestInit) => api.env.t.request(path, init);
    // An admin subscriber of the same operation first: the events of a change are made once per role.
    const admin = await SseStream.open(send, { ...LIVE, token: api.env.token });
    try {
      await expectLive(() => SseStream.open(send, { ...LIVE, token: tokens.web_shop! }));
      await admin.until((s) => s.changes().length >= 5, 'five changes');
      const got = admin.changes();
      expect(got.map((c) => c.op)).toEqual(['UPDATED', 'UPDATED', 'UPDATED', 'UPDATED', 'UPDATED']);
      expect(got[0].changed).toEqual(['nlc']);
      expect(got[4].changed.sort()).toEqual(['consumer_price', 'nlc']);
    } finally {
      await admin.close();
    }
  });

  it('a subscription over WebSocket gets the same', async () => {
    // An app of its own, listening on a port (closed after), that the writes go through too.
    const t = testApp(api.env.database);
    const service = await listen(t.app);
    const patch = (path: string, body: unknown) =>
      t.request(path, {
        method: 'PATCH',
        headers: { Authorization: `Bearer ${api.env.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
    try {
      await expectLive(() => websocket.open(service.baseUrl, tokens.web_shop!, LIVE), patch);
    } finally {
      await service.close();
    }
  });

  it('costs admin the one statement it cost; a role with a row filter two more', async () => {
    const db = api.env.database.db;
    const start = await head();
    await patchProduct(await shopProduct(), { consumer_price: 4.75 });
    await changesOf('admin', start); // the token, read once
    let before = db.statementCount;
    await changesOf('admin', start);
    expect(db.statementCount - before).toBe(1);
    await changesOf('web_shop', start, '&type=products');
    before = db.statementCount;
    const page = await changesOf('web_shop', start, '&type=products');
    expect(page.data).toHaveLength(1);
    expect(db.statementCount - before).toBe(3);
    // No row filter, no extra statement: product groups lose hidden fields only.
    before = db.statementCount;
    await changesOf('web_shop', start, '&type=product_groups');
    expect(db.statementCount - before).toBe(1);
  });

  it(`a consumer with a role reads everything, follows /changes while ${WRITES} random writes run, and ends with the role's exact view`, async () => {
    const started = Date.now();
    console.log(`role delta sync on ${provider}: seed ${SEED} (replay with ROLE_SYNC_SEED=${SEED})`);
    const rng = prng(SEED);
    const ids = async (model: string): Promise<number[]> =>
      (await api.prisma[model].findMany({ select: { id: true }, orderBy: { id: 'asc' } })).map(
        (r: { id: number }) => r.id,
      );
    const products = await ids('product');
    const world: World = {
      working: Array.from({ length: 30 }, () => rng.pick(products)),
      products,
      brands: [...brands, ...(await ids('brand')).slice(2, 6)],
      groups: await ids('productGroup'),
      units: await ids('unit'),
      itemTypes: await ids('productStructureItemType'),
      methods: await ids('productStructureItemCalculationMethod'),
    };
    const consumers = [
      new RoleConsumer(api, tokens.web_shop!, ['products'], { products: SHOP_FIELDS }),
      new RoleConsumer(api, tokens.price_watch!, ['products'], { products: WATCH_FIELDS }),
      new RoleConsumer(api, tokens.bom_reader!, ['product_structure_items', 'products'], {
        product_structure_items: BOM_FIELDS,
        products: ['reference'],
      }),
    ];
    // One more that follows only once the writes are over, in small pages: each page's rows are
    // then known from their entries of later pages undone.
    const late = new RoleConsumer(api, tokens.web_shop!, ['products'], { products: SHOP_FIELDS });
    late.perPage = 25;
    for (const consumer of [...consumers, late]) await consumer.readAll();

    let writing = true;
    const followers = consumers.map(async (consumer) => {
      while (writing) if (!(await consumer.poll()).hasMore) await sleep(15);
    });
    const outcomes = new Map<string, number>();
    let failed = false;
    const lanes = Array.from({ length: LANES }, async (_, lane) => {
      const laneRng = prng(SEED + 1 + lane);
      for (let n = lane; n < WRITES && !failed; n += LANES) {
        const [kind, outcome] = await randomWrite(api, laneRng, world);
        outcomes.set(`${kind}: ${outcome}`, (outcomes.get(`${kind}: ${outcome}`) ?? 0) + 1);
        await new Promise((resolve) => setImmediate(resolve));
      }
    });
    const settled = await Promise.allSettled(
      lanes.map((l) =>
        l.catch((error) => {
          failed = true; // the first unexpected answer stops every lane
          throw error;
        }),
      ),
    );
    writing = false;
    await Promise.all(followers);
    consumers.push(late);
    const errors = settled.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (errors.length > 0) throw new Error(`seed ${SEED}: ${errors[0]!.reason}`);

    const end = await head();
    for (const consumer of consumers) {
      for (;;) if (!(await consumer.poll()).hasMore) break;
      expect(consumer.cursor).toBe(String(end));
    }
    const summary = [...outcomes].sort().map(([k, v]) => `${k} ${v}`);
    console.log(
      `role delta sync on ${provider}: ${((Date.now() - started) / 1000).toFixed(1)} s\n  ${summary.join('\n  ')}\n  ${consumers
        .map((c) => `${c.types}: ${JSON.stringify(c.ops)} in ${c.polls} polls`)
        .join('\n  ')}`,
    );
    for (const consumer of consumers) {
      expect(consumer.anomalies, consumer.anomalies.slice(0, 10).join('\n')).toEqual([]);
      // The role's view read afresh.
      const fresh = new RoleConsumer(api, consumer.token, consumer.types);
      await fresh.readAll();
      for (const type of consumer.types) {
        const found = differences(type, consumer.copies.get(type)!, fresh.copies.get(type)!);
        expect(found, `${type} as ${consumer.types}: ${found.slice(0, 10).join('\n')}`).toEqual([]);
      }
    }
    // Rows went in and out of the filters, and the hidden-only updates were left out.
    expect(consumers[0]!.ops.deleted).toBeGreaterThan(5);
    expect(consumers[0]!.ops.created).toBeGreaterThan(5);
    expect(consumers[2]!.ops.deleted).toBeGreaterThan(5);
  });
});
