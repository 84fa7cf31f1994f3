/**
 * The change log (src/data/change-log.ts): the entries every kind of write leaves, through both
 * surfaces (op, changed, before, after, actor, version), none for a write that changes nothing or
 * is refused, and numbers in commit order: a reader that has seen entry N never later finds a
 * new entry below N, even while writers commit concurrently.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BomWriter } from '../../src/data/bom-writes.ts';
import { NUMBERING_LOCK } from '../../src/data/change-log.ts';
import { createDatabase, type Database } from '../../src/db/client.ts';
import { providers } from '../support/databases.ts';
import { expectShapeB, identifier, restSuite } from '../rest/support.ts';

interface Entry {
  seq: number;
  resource_type: string;
  resource_id: number;
  op: string;
  version: number;
  changed: string[];
  before: Record<string, any> | null;
  after: Record<string, any> | null;
  actor: string;
}

const USERS = 'commercial_resolve_responsible_users';

describe.each(providers)('the change log on %s', (provider) => {
  const api = restSuite(provider);
  let actor: string;
  let reader: Database;

  beforeAll(async () => {
    actor = (await api.prisma.apiClient.findFirst({ where: { name: 'erp' } })).client_id;
    // A connection of its own, as another process's reader would have.
    reader = await createDatabase(api.env.database.target);
  });
  afterAll(async () => reader?.prisma.$disconnect());

  const last = async (): Promise<number> =>
    (await api.prisma.change.findFirst({ orderBy: { seq: 'desc' }, select: { seq: true } }))?.seq ?? 0;

  async function entriesAfter(seq: number, db = api.env.database.db): Promise<Entry[]> {
    const rows = await db.prisma.change.findMany({ where: { seq: { gt: seq } }, orderBy: { seq: 'asc' } });
    return rows.map((r: any) => ({
      ...r,
      changed: JSON.parse(r.changed),
      before: r.before === null ? null : JSON.parse(r.before),
      after: r.after === null ? null : JSON.parse(r.after),
    }));
  }

  /** Runs `write` and answers the entries it left. */
  async function entriesOf(write: () => Promise<unknown>): Promise<Entry[]> {
    const from = await last();
    await write();
    return entriesAfter(from);
  }

  describe('REST writes', () => {
    it('ADD: one `created` entry with every field, version 1, the API client as actor', async () => {
      let id = 0;
      const [entry, ...more] = await entriesOf(async () => {
        id = Number((await api.create('products')).id);
      });
      expect(more).toEqual([]);
      expect(entry).toMatchObject({ resource_type: 'products', resource_id: id, op: 'created', version: 1, actor });
      expect(entry!.before).toBeNull();
      expect(entry!.changed).toEqual(expect.arrayContaining(['reference', 'name', 'unit', 'product_structure']));
      const read = await api.get(`/products/${id}`);
      expect(entry!.after).toEqual({ ...read.body.data.attributes, ...relationshipData(read.body.data) });
    });

    it('UPDATE: `updated` with only the fields that changed, before and after; nothing for a write that changes nothing', async () => {
      const product = await api.create('products');
      const before = product.attributes.name;
      const entries = await entriesOf(() =>
        api.ok('PATCH', `/products/${product.id}`, {
          data: { type: 'products', attributes: { name: { en: 'Renamed for the log' }, nlc: 1.5 } },
        }),
      );
      expect(entries).toEqual([
        expect.objectContaining({
          resource_type: 'products',
          resource_id: Number(product.id),
          op: 'updated',
          version: 2,
          changed: ['name', 'nlc'],
          before: { name: before, nlc: product.attributes.nlc },
          after: { name: { ...before, en: 'Renamed for the log' }, nlc: 1.5 },
          actor,
        }),
      ]);
      // The document read back and sent again changes nothing: no entry, as no new version.
      const read = await api.get(`/products/${product.id}`);
      expect(await entriesOf(() => api.ok('PUT', `/products/${product.id}`, { data: read.body.data }))).toEqual([]);
    });

    it('REL-SET and a to-many REL-ADD / REL-REMOVE: `updated` naming the relationship, with identifiers', async () => {
      const product = await api.create('products');
      const [brand] = await api.ids('brands', 1, { id: { not: product.relationships.brand.data?.id ?? 0 } });
      const set = await entriesOf(() =>
        api.ok('PATCH', `/products/${product.id}/relationships/brand`, { data: identifier('brands', brand!) }),
      );
      expect(set).toEqual([
        expect.objectContaining({
          op: 'updated',
          changed: ['brand'],
          before: { brand: product.relationships.brand.data },
          after: { brand: { type: 'brands', id: brand } },
        }),
      ]);

      const customer = await api.create('customers');
      const [user] = await api.ids('users', 1, {
        id: { notIn: customer.relationships[USERS].data.map((d: any) => d.id) },
      });
      const added = await entriesOf(() =>
        api.ok('POST', `/customers/${customer.id}/relationships/${USERS}`, { data: [identifier('users', user!)] }),
      );
      expect(added).toHaveLength(1);
      expect(added[0]).toMatchObject({ resource_type: 'customers', op: 'updated', changed: [USERS], version: 2 });
      expect(added[0]!.after![USERS]).toContainEqual({ type: 'users', id: user });
      const removed = await entriesOf(() =>
        api.ok('DELETE', `/customers/${customer.id}/relationships/${USERS}`, { data: [identifier('users', user!)] }),
      );
      expect(removed[0]).toMatchObject({ op: 'updated', changed: [USERS], version: 3 });
      expect(removed[0]!.before![USERS]).toContainEqual({ type: 'users', id: user });
      expect(removed[0]!.after![USERS]).not.toContainEqual({ type: 'users', id: user });
    });

    it("a product structure ADD: the product `updated`, the structure and its items `created`, in one write's order", async () => {
      const product = await api.create('products');
      let structure: any;
      const entries = await entriesOf(async () => {
        structure = await api.createStructure(Number(product.id));
      });
      expect(entries.map((e) => [e.resource_type, e.op])).toEqual([
        ['products', 'updated'],
        ['product_structures', 'created'],
        ['product_structure_items', 'created'],
        ['product_structure_items', 'created'],
      ]);
      expect(entries[0]).toMatchObject({
        changed: ['product_structure'],
        before: { product_structure: null },
        after: { product_structure: { type: 'product_structures', id: Number(structure.data.id) } },
      });
      expect(entries.slice(2).map((e) => e.resource_id)).toEqual(structure.included.map((i: any) => Number(i.id)));
    });

    it('items replaced and removed: tombstones (`deleted`, what the item was) and the structure `updated`', async () => {
      const product = await api.create('products');
      const structure = await api.createStructure(Number(product.id));
      const id = Number(structure.data.id);
      const [old1, old2] = structure.included.map((i: any) => Number(i.id));
      const [p] = await api.ids('products', 1, { id: { gt: 10 } });
      const item = await api.itemObject(p!);
      const replaced = await entriesOf(() =>
        api.ok('PATCH', `/product_structures/${id}/relationships/items`, { data: [item] }),
      );
      expect(replaced.map((e) => [e.resource_type, e.op])).toEqual([
        ['product_structures', 'updated'],
        ['product_structure_items', 'deleted'],
        ['product_structure_items', 'deleted'],
        ['product_structure_items', 'created'],
      ]);
      const tombstone = replaced[1]!;
      expect(tombstone).toMatchObject({ resource_id: old1, version: 1, after: null });
      expect(tombstone.before).toMatchObject({ product: { type: 'products', id: expect.any(Number) } });
      expect(replaced[2]!.resource_id).toBe(old2);
      const created = replaced[3]!.resource_id;
      const removed = await entriesOf(() =>
        api.ok('DELETE', `/product_structures/${id}/relationships/items`, {
          data: [identifier('product_structure_items', created)],
        }),
      );
      expect(removed.map((e) => [e.resource_type, e.resource_id, e.op])).toEqual([
        ['product_structures', id, 'updated'],
        ['product_structure_items', created, 'deleted'],
      ]);
    });

    it('a refused write (412) leaves no entry', async () => {
      const product = await api.create('products');
      const res = await entriesOf(async () => {
        const answer = await api.patch(
          `/products/${product.id}`,
          { data: { type: 'products', attributes: { nlc: 2 } } },
          { headers: { 'If-Match': '"99-00000000"' } },
        );
        expectShapeB(answer, 412, 'precondition_failed');
      });
      expect(res).toEqual([]);
    });
  });

  describe('GraphQL writes', () => {
    it('create, update and item mutations leave the same entries as REST, with the same actor', async () => {
      const [unit] = await api.ids('units', 1);
      const created = await entriesOf(async () => {
        const res = await api.env.gql('mutation($input: CreateProductInput!) { createProduct(input: $input) { id } }', {
          input: { reference: api.unique('LOG'), unitId: unit },
        });
        expect(res.body.errors).toBeUndefined();
      });
      expect(created).toEqual([
        expect.objectContaining({ resource_type: 'products', op: 'created', version: 1, actor }),
      ]);
      const id = created[0]!.resource_id;
      const updated = await entriesOf(async () => {
        const res = await api.env.gql(
          'mutation($id: Int!) { updateProduct(id: $id, input: { gtin: null, nlc: 3.25 }, expectedVersion: 1) { version } }',
          { id },
        );
        expect(res.body.errors).toBeUndefined();
      });
      expect(updated).toEqual([
        expect.objectContaining({
          op: 'updated',
          version: 2,
          changed: ['nlc'],
          before: { nlc: null },
          after: { nlc: 3.25 },
        }),
      ]);
    });
  });

  describe('order', () => {
    it('numbers follow commit order: the write that logged first and commits last gets the larger number; a reader polling in between skips nothing', async () => {
      const writer = new BomWriter(api.env.database.db);
      const [a, b] = [await api.create('products'), await api.create('products')];
      const from = await last();
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      let reached!: () => void;
      const appended = new Promise<void>((r) => (reached = r));
      // The first write has inserted its entry and stalls before committing.
      const holding = new BomWriter(api.env.database.db, {
        beforeCommit: async () => {
          reached();
          await held;
        },
      });
      const first = holding.update('products', Number(a.id), { attributes: { nlc: 11 } });
      await appended;
      // The second goes ahead and commits first (SQLite has one writer: it waits for the first).
      const second = writer.update('products', Number(b.id), { attributes: { nlc: 12 } });
      const seen: Entry[] = [];
      let cursor = from;
      const poll = async () => {
        for (const e of await entriesAfter(cursor, reader)) {
          seen.push(e);
          cursor = e.seq;
        }
      };
      if (provider === 'postgresql') {
        await second;
        await poll();
        expect(
          seen.map((e) => e.resource_id),
          'the second write, committed, is visible',
        ).toEqual([Number(b.id)]);
      } else {
        await new Promise((r) => setTimeout(r, 200));
        await poll();
        expect(seen, 'nothing is visible while the first holds the only writer').toEqual([]);
      }
      release();
      await Promise.all([first, second]);
      await poll();
      // Every entry once, each above the last the reader had seen: none was numbered below it.
      const all = await entriesAfter(from);
      expect(seen.map((e) => e.seq)).toEqual(all.map((e) => e.seq));
      expect(all).toHaveLength(2);
      const order = provider === 'postgresql' ? [b, a] : [a, b];
      expect(all.map((e) => e.resource_id)).toEqual(order.map((p) => Number(p.id)));
    });

    it("20 concurrent updates of one product (each checks the version it read when it writes, retries, then locks): 20 versions, 20 entries, each one's before the previous one's after", async () => {
      const product = await api.create('products');
      const from = await last();
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, n) =>
          api.patch(`/products/${product.id}`, { data: { type: 'products', attributes: { nlc: 100 + n } } }),
        ),
      );
      expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
      const entries = await entriesAfter(from);
      expect(entries.map((e) => e.version)).toEqual(Array.from({ length: 20 }, (_, n) => n + 2));
      for (let i = 1; i < entries.length; i++) expect(entries[i]!.before).toEqual(entries[i - 1]!.after);
      const final = await api.get(`/products/${product.id}`);
      expect(final.body.data.meta.version).toBe(21);
      expect(final.body.data.attributes.nlc).toBe(entries.at(-1)!.after!.nlc);
    });

    it('a row another transaction holds does not hold up the updates batched with it (PostgreSQL)', async () => {
      if (provider !== 'postgresql') return;
      const writer = new BomWriter(api.env.database.db);
      const [held, free] = await api.ids('products', 2);
      const holder = new pg.Client({ connectionString: api.env.database.target.url });
      await holder.connect();
      try {
        await holder.query('BEGIN');
        await holder.query('SELECT 1 FROM "products" WHERE "id" = $1 FOR UPDATE', [held]);
        let heldDone = false;
        const heldWrite = writer.update('products', held!, { attributes: { nlc: 41 } }).then(() => (heldDone = true));
        const freeWrite = writer.update('products', free!, { attributes: { nlc: 42 } });
        // The free row's write answers while the other row is still held.
        await expect(freeWrite).resolves.toMatchObject({ id: free });
        expect(heldDone).toBe(false);
        await holder.query('COMMIT');
        await heldWrite;
        expect(heldDone).toBe(true);
      } finally {
        await holder.end();
      }
      const stored = await api.prisma.product.findMany({ where: { id: { in: [held, free] } }, orderBy: { id: 'asc' } });
      expect(stored.map((p: any) => Number(p.nlc))).toEqual(held! < free! ? [41, 42] : [42, 41]);
    });

    it('a batch takes the numbering lock before any row lock: a transaction holding that lock can still lock the batch’s rows (PostgreSQL)', async () => {
      if (provider !== 'postgresql') return;
      const writer = new BomWriter(api.env.database.db);
      const [product] = await api.ids('products', 1);
      const holder = new pg.Client({ connectionString: api.env.database.target.url });
      // Outside the holder's transaction, whose view of pg_stat_activity would stay as first read.
      const watcher = new pg.Client({ connectionString: api.env.database.target.url });
      await Promise.all([holder.connect(), watcher.connect()]);
      try {
        await holder.query('BEGIN');
        await holder.query(`SELECT pg_advisory_xact_lock(${NUMBERING_LOCK})`);
        const write = writer.update('products', product!, { attributes: { nlc: 44 } });
        // The batch's statement is waiting for the numbering lock.
        const waiting = () => batchStatementsWaiting(watcher);
        for (let i = 0; i < 100 && (await waiting()) === 0; i++) await new Promise((r) => setTimeout(r, 20));
        expect(await waiting()).toBe(1);
        // Had it locked its row first, this would wait for it, and the two would deadlock (a lock
        // timeout shorter than the deadlock check: the row must be free at once, not after one of
        // the two is cancelled).
        await holder.query(`SET LOCAL lock_timeout = '200ms'`);
        await holder.query('SELECT 1 FROM "products" WHERE "id" = $1 FOR UPDATE', [product]);
        await holder.query('COMMIT');
        await expect(write).resolves.toMatchObject({ id: product });
      } finally {
        await Promise.all([holder.end(), watcher.end()]);
      }
      const entry = await api.prisma.change.findFirst({
        where: { resource_type: 'products', resource_id: product },
        orderBy: { id: 'desc' },
      });
      expect(JSON.parse(entry.after).nlc).toBe(44);
      expect(entry.seq).not.toBeNull();
    });

    it('while one batch’s statement waits, the next is read and written up to it; a row of the waiting batch waits for a batch after it (PostgreSQL)', async () => {
      if (provider !== 'postgresql') return;
      const writer = new BomWriter(api.env.database.db);
      const [first, second] = await api.ids('products', 2);
      const { version } = await api.prisma.product.findUnique({ where: { id: first } });
      const holder = new pg.Client({ connectionString: api.env.database.target.url });
      const watcher = new pg.Client({ connectionString: api.env.database.target.url });
      await Promise.all([holder.connect(), watcher.connect()]);
      const waiting = () => batchStatementsWaiting(watcher);
      const until = async (n: number) => {
        for (let i = 0; i < 100 && (await waiting()) < n; i++) await new Promise((r) => setTimeout(r, 20));
      };
      let writes: Promise<unknown>[];
      try {
        await holder.query('BEGIN');
        await holder.query(`SELECT pg_advisory_xact_lock(${NUMBERING_LOCK})`);
        const one = writer.update('products', first!, { attributes: { nlc: 51 } });
        await until(1);
        // The first batch waits at its statement; the second is read, planned and written meanwhile.
        const two = writer.update('products', second!, { attributes: { nlc: 52 } });
        // The first batch's row again: not in the second batch, which would read it before the first wrote it.
        const again = writer.update('products', first!, { attributes: { nlc: 53 } });
        writes = [one, two, again];
        await until(2);
        expect(await waiting()).toBe(2);
        await new Promise((r) => setTimeout(r, 100));
        expect(await waiting(), 'no third batch while two are written').toBe(2);
        await holder.query('COMMIT');
        await Promise.all(writes);
      } finally {
        await Promise.all([holder.end(), watcher.end()]);
      }
      const entries = await api.prisma.change.findMany({
        where: { resource_type: 'products', resource_id: first, version: { gt: version } },
        orderBy: { seq: 'asc' },
      });
      // Two versions of the first row, in order, each from what the one before wrote.
      expect(entries.map((e: any) => [e.version, JSON.parse(e.after).nlc])).toEqual([
        [version + 1, 51],
        [version + 2, 53],
      ]);
      expect(JSON.parse(entries[1].before).nlc).toBe(51);
      const stored = await api.prisma.product.findUnique({ where: { id: first } });
      expect(Number(stored.nlc)).toBe(53);
    });

    it('a batch numbers every committed entry still without a number before its own: the earlier version of its row comes first (PostgreSQL)', async () => {
      if (provider !== 'postgresql') return;
      const writer = new BomWriter(api.env.database.db);
      const [product] = await api.ids('products', 1);
      const { version } = await api.prisma.product.findUnique({ where: { id: product } });
      // A write of the row committed and not numbered yet (one that went alone, whose numbering
      // has not run, or was cut off by a failover).
      const other = new pg.Client({ connectionString: api.env.database.target.url });
      await other.connect();
      try {
        await other.query('BEGIN');
        await other.query('UPDATE "products" SET "nlc" = 45, "version" = $2 WHERE "id" = $1', [product, version + 1]);
        await other.query(
          `INSERT INTO "changes" ("resource_type", "resource_id", "op", "version", "changed", "before", "after", "actor")
           VALUES ('products', $1, 'updated', $2, '["nlc"]', '{}', '{"nlc":45}', 'other')`,
          [product, version + 1],
        );
        await other.query('COMMIT');
      } finally {
        await other.end();
      }
      await expect(writer.update('products', product!, { attributes: { nlc: 46 } })).resolves.toMatchObject({
        id: product,
      });
      const entries = await api.prisma.change.findMany({
        where: { resource_type: 'products', resource_id: product, version: { gt: version } },
        orderBy: { version: 'asc' },
      });
      expect(entries.map((e: any) => e.version)).toEqual([version + 1, version + 2]);
      expect(entries[0].seq).not.toBeNull();
      expect(entries[0].seq).toBeLessThan(entries[1].seq);
    });

    it('a write that links to a row another transaction holds goes alone: the updates batched after it are not held up (PostgreSQL)', async () => {
      if (provider !== 'postgresql') return;
      const writer = new BomWriter(api.env.database.db);
      const [linking, other] = await api.ids('products', 2);
      const brand = await api.prisma.brand.create({ data: { reference: api.unique('HELD-BRAND') } });
      const holder = new pg.Client({ connectionString: api.env.database.target.url });
      await holder.connect();
      try {
        // A key change of the brand (as a rename of its key would) conflicts with the link's check.
        await holder.query('BEGIN');
        await holder.query('SELECT 1 FROM "brands" WHERE "id" = $1 FOR UPDATE', [brand.id]);
        let linked = false;
        const link = writer
          .update('products', linking!, { relationships: { brand: brand.id } })
          .then(() => (linked = true));
        await expect(writer.update('products', other!, { attributes: { nlc: 43 } })).resolves.toMatchObject({
          id: other,
        });
        expect(linked).toBe(false);
        await holder.query('COMMIT');
        await link;
      } finally {
        await holder.end();
      }
      expect((await api.prisma.product.findUnique({ where: { id: linking } })).brand_id).toBe(brand.id);
    });

    it('20 concurrent writers x 10 writes while a reader follows the log: the reader misses no entry; PostgreSQL batches them', async () => {
      const writer = new BomWriter(api.env.database.db);
      const products = await api.ids('products', 20);
      const from = await last();
      const versions = new Map(
        (await api.prisma.product.findMany({ where: { id: { in: products } } })).map((p: any) => [p.id, p.version]),
      );
      const statementsBefore = api.env.database.db.statementCount;
      const seen: number[] = [];
      let cursor = from;
      let writing = true;
      const follow = (async () => {
        while (writing) {
          for (const e of await entriesAfter(cursor, reader)) {
            seen.push(e.seq);
            cursor = e.seq;
          }
          await new Promise((r) => setTimeout(r, 2));
        }
      })();
      await Promise.all(
        products.map(async (id, w) => {
          for (let n = 1; n <= 10; n++) await writer.update('products', id, { attributes: { nlc: w * 100 + n } });
        }),
      );
      writing = false;
      await follow;
      for (const e of await entriesAfter(cursor, reader)) seen.push(e.seq);
      const statements = api.env.database.db.statementCount - statementsBefore;
      const entries = await entriesAfter(from);
      const all = entries.map((e) => e.seq);
      expect(all).toHaveLength(200);
      expect(seen).toEqual(all);
      // Exactly one entry per write: each product's ten versions, in the order they were committed.
      for (const id of products) {
        const mine = entries.filter((e) => e.resource_id === id);
        expect(mine.map((e) => e.version)).toEqual(
          Array.from({ length: 10 }, (_, n) => (versions.get(id) as number) + 1 + n),
        );
        for (let i = 1; i < mine.length; i++) expect(mine[i]!.before).toEqual(mine[i - 1]!.after);
      }
      // Alone, a write costs at least two statements (its read, its write); batched (src/data/update-batches.ts), fewer than one.
      if (provider === 'postgresql') expect(statements).toBeLessThan(200);
    });
  });
});

/** A resource object's relationships as the log records them: name -> data. */
function relationshipData(resource: any): Record<string, unknown> {
  return Object.fromEntries(Object.entries(resource.relationships).map(([name, r]: [string, any]) => [name, r.data]));
}

/** Batch statements (they write "changes") of this test's database waiting for an advisory lock: the numbering lock. */
async function batchStatementsWaiting(watcher: pg.Client): Promise<number> {
  const { rows } = await watcher.query(
    `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND wait_event = 'advisory' AND query LIKE '%"changes"%'`,
  );
  return rows[0].n;
}
