/**
 * Delta sync end to end, on both providers, as a REST consumer does it (docs/guides/keeping-a-copy-in-sync.md, docs/reference/rest.md):
 * read every product and every structure item page by page, keeping `meta.changes_cursor` of
 * the first page read; then follow `/changes?after=<cursor>&type=products,product_structure_items`
 * while a writer makes 500 random writes through REST and GraphQL (attribute updates, links set
 * and removed, items added, updated, removed and replaced, new products and structures; some
 * refused: a bill-of-material cycle, a GTIN taken). Afterwards the consumer's copy must equal
 * what the API serves: the same ids, attributes, relationship identifiers and versions.
 *
 * The writes start after the full read: LIST pages are offset-based, so item deletions during
 * the read would shift pages under the reader (a limit of paging, not of the log).
 *
 * The writer's choices come from a seeded PRNG: the seed is printed, and DELTA_SYNC_SEED=<seed>
 * replays them (the writer's lanes run concurrently, so their interleaving is not replayed).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/auth/clients.ts';
import { BomWriter } from '../../src/data/bom-writes.ts';
import { resourceByType } from '../../src/resources/registry.ts';
import { providers } from '../support/databases.ts';
import { getTokens } from '../support/oauth.ts';
import { expectStatus, type RestResponse, restSuite } from '../rest/support.ts';
import { prng } from '../support/prng.ts';
import { RandomWriter, worldOf } from '../support/random-writes.ts';

const TYPES = ['products', 'product_structure_items'] as const;
type SyncedType = (typeof TYPES)[number];
const WRITES = 500;
/** Concurrent lanes of the writer (the writes of one lane are sequential). */
const LANES = 4;
const SEED = Number(process.env.DELTA_SYNC_SEED ?? 20261125);

/** A resource as the consumer keeps it. */
interface Copy {
  attributes: Record<string, unknown>;
  relationships: Record<string, unknown>;
  version: number;
}

interface ChangeObject {
  id: string;
  attributes: {
    resource_type: SyncedType;
    resource_id: number;
    op: 'created' | 'updated' | 'deleted';
    version: number;
    changed: string[];
    before: Record<string, unknown> | null;
    after: Record<string, unknown> | null;
  };
}

/** Attributes the server sets: the log leaves them out of updates, so a copy cannot follow them. */
const serverSet = (type: SyncedType) =>
  new Set(
    Object.entries(resourceByType(type)!.attributes)
      .filter(([, a]) => a.write === 'server')
      .map(([name]) => name),
  );

/**
 * The consumer: a copy of every product and structure item, built from LIST pages, then kept up
 * to date from the change log. Applying an entry is idempotent (entries come at least once): an
 * entry at or below the last seq applied is skipped, and so is one older than the copy.
 */
class Consumer {
  readonly copies: Record<SyncedType, Map<number, Copy>> = { products: new Map(), product_structure_items: new Map() };
  cursor = '';
  /** What went against the contract while following (an update for a resource never seen, a version skipped). */
  readonly anomalies: string[] = [];
  readonly seen = new Set<number>();
  duplicates = 0;
  applied = 0;
  polls = 0;
  private lastSeq = 0;

  constructor(private readonly get: (path: string) => Promise<RestResponse>) {}

  private async ok(path: string): Promise<any> {
    const res = await this.get(path);
    expectStatus(res, 200, `consumer GET ${path}`);
    return res.body;
  }

  /** Every resource of the synced types, page by page; the cursor of the first page read. */
  async readAll(): Promise<number> {
    let requests = 0;
    for (const type of TYPES) {
      for (let page = 1; ; page++) {
        const body = await this.ok(`/${type}?per_page=50&page=${page}`);
        requests++;
        if (this.cursor === '') this.cursor = body.meta.changes_cursor;
        for (const doc of body.data) this.copies[type].set(doc.id, copyOf(doc));
        if (page >= body.meta.pages) break;
      }
    }
    return requests;
  }

  /** One page of the log after the cursor, applied; answers whether there is more and how many came. */
  async poll(): Promise<{ hasMore: boolean; count: number }> {
    this.polls++;
    const body = await this.ok(`/changes?after=${this.cursor}&type=${TYPES.join(',')}&per_page=200`);
    for (const change of body.data as ChangeObject[]) this.apply(change);
    this.cursor = body.meta.cursor;
    return { hasMore: body.meta.has_more, count: body.data.length };
  }

  private apply(change: ChangeObject): void {
    const seq = Number(change.id);
    const { resource_type: type, resource_id: id, op, version, after } = change.attributes;
    const where = `entry ${seq} (${type}/${id} ${op} v${version})`;
    if (!TYPES.includes(type)) this.anomalies.push(`${where}: a type not asked for`);
    if (seq <= this.lastSeq) {
      this.duplicates++;
      return;
    }
    this.lastSeq = seq;
    this.seen.add(seq);
    const copies = this.copies[type];
    const copy = copies.get(id);
    if (op === 'deleted') {
      if (!copy) this.anomalies.push(`${where}: deletes a resource the copy does not have`);
      else if (copy.version > version) this.anomalies.push(`${where}: the copy is already at v${copy.version}`);
      copies.delete(id);
    } else if (op === 'created') {
      if (copy) {
        this.anomalies.push(`${where}: the copy already has it, at v${copy.version}`);
        if (copy.version >= version) return;
      }
      if (version !== 1) this.anomalies.push(`${where}: created at a version other than 1`);
      copies.set(id, { ...split(type, after ?? {}), version });
    } else {
      if (!copy) {
        this.anomalies.push(`${where}: updates a resource the copy does not have`);
        return;
      }
      if (copy.version >= version) return; // older than the copy: seen already
      // Every new version is a change of the document, so every one has an entry: none skipped.
      if (version !== copy.version + 1)
        this.anomalies.push(`${where}: the copy is at v${copy.version}, a version was skipped`);
      const { attributes, relationships } = split(type, after ?? {});
      Object.assign(copy.attributes, attributes);
      Object.assign(copy.relationships, relationships);
      copy.version = version;
    }
    this.applied++;
  }
}

/** A resource object as the consumer keeps it. */
function copyOf(doc: any): Copy {
  return {
    attributes: { ...doc.attributes },
    relationships: Object.fromEntries(
      Object.entries(doc.relationships).map(([name, r]: [string, any]) => [name, r.data]),
    ),
    version: doc.meta.version,
  };
}

/** An entry's fields, by the registry: attributes and relationships. */
function split(type: SyncedType, fields: Record<string, unknown>) {
  const resource = resourceByType(type)!;
  const attributes: Record<string, unknown> = {};
  const relationships: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(fields)) {
    if (name in resource.relationships) relationships[name] = value;
    else if (name in resource.attributes) attributes[name] = value;
  }
  return { attributes, relationships };
}

/** The differences between the copy and the truth, per resource: `type/id: what differs`. */
function differences(type: SyncedType, copy: Map<number, Copy>, truth: Map<number, Copy>): string[] {
  const server = serverSet(type);
  const found: string[] = [];
  const ids = [...new Set([...copy.keys(), ...truth.keys()])].sort((a, b) => a - b);
  for (const id of ids) {
    const [c, t] = [copy.get(id), truth.get(id)];
    if (!c) {
      found.push(`${type}/${id}: missing from the copy (v${t!.version})`);
      continue;
    }
    if (!t) {
      found.push(`${type}/${id}: in the copy (v${c.version}) but not in the database`);
      continue;
    }
    const what: string[] = [];
    if (c.version !== t.version) what.push(`version copy ${c.version} != ${t.version}`);
    for (const name of new Set([...Object.keys(c.attributes), ...Object.keys(t.attributes)])) {
      if (server.has(name)) continue;
      if (JSON.stringify(c.attributes[name]) !== JSON.stringify(t.attributes[name]))
        what.push(`${name} copy ${JSON.stringify(c.attributes[name])} != ${JSON.stringify(t.attributes[name])}`);
    }
    for (const name of new Set([...Object.keys(c.relationships), ...Object.keys(t.relationships)])) {
      if (JSON.stringify(c.relationships[name]) !== JSON.stringify(t.relationships[name]))
        what.push(`${name} copy ${JSON.stringify(c.relationships[name])} != ${JSON.stringify(t.relationships[name])}`);
    }
    if (what.length > 0) found.push(`${type}/${id}: ${what.join('; ')}`);
  }
  return found;
}

describe.each(providers)('delta sync on %s', (provider) => {
  const api = restSuite(provider);
  let graphqlToken: string;

  beforeAll(async () => {
    // The writer's GraphQL half writes as another API client.
    graphqlToken = (await getTokens(api.env.t, await createClient(api.prisma, 'mes', ['read', 'write']))).access_token;
  });

  /** What the API serves now: every product and structure item, page by page (nothing writes meanwhile). */
  async function truth(): Promise<Record<SyncedType, Map<number, Copy>>> {
    const reader = new Consumer((path) => api.get(path));
    await reader.readAll();
    return reader.copies;
  }

  it(`a consumer reads everything, follows /changes while ${WRITES} random writes run, and ends with the database's exact copy`, async () => {
    const started = Date.now();
    console.log(`delta sync on ${provider}: seed ${SEED} (replay with DELTA_SYNC_SEED=${SEED})`);
    const rng = prng(SEED);
    const writer = new RandomWriter(api, provider, graphqlToken);
    const world = await worldOf(api, rng);

    // 1. The full read.
    const consumer = new Consumer((path) => api.get(path));
    const pages = await consumer.readAll();
    const start = consumer.cursor;
    expect(consumer.copies.products.size).toBe(await api.prisma.product.count());
    expect(consumer.copies.product_structure_items.size).toBe(await api.prisma.productStructureItem.count());

    // 2. The writer's lanes and the follower, at the same time.
    let writing = true;
    const follower = (async () => {
      while (writing) {
        const { hasMore } = await consumer.poll();
        if (!hasMore) await new Promise((r) => setTimeout(r, 15));
      }
    })();
    const outcomes = new Map<string, number>();
    let failed = false;
    const lanes = Array.from({ length: LANES }, async (_, lane) => {
      const laneRng = prng(SEED + 1 + lane);
      for (let n = lane; n < WRITES && !failed; n += LANES) {
        const [kind, outcome] = await writer.write(laneRng, world);
        outcomes.set(`${kind}: ${outcome}`, (outcomes.get(`${kind}: ${outcome}`) ?? 0) + 1);
        // The app is called in process, and on SQLite a write never waits for I/O: without a turn
        // of the event loop between writes, the follower's timer would not fire until they end.
        await new Promise((resolve) => setImmediate(resolve));
      }
    });
    // The first unexpected answer stops every lane (they would write on into the next test).
    const settled = await Promise.allSettled(
      lanes.map((l) =>
        l.catch((error) => {
          failed = true;
          throw error;
        }),
      ),
    );
    writing = false;
    await follower;
    const errors = settled.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (errors.length > 0) throw new Error(`seed ${SEED}: ${errors[0]!.reason}`);
    const pollsWhileWriting = consumer.polls;

    // 3. Drain: until the log has nothing more and a last poll brings nothing new.
    for (;;) {
      const { hasMore, count } = await consumer.poll();
      if (!hasMore && count === 0) break;
    }

    const summary = [...outcomes].sort().map(([k, v]) => `${k} ${v}`);
    console.log(
      `delta sync on ${provider}: ${pages} pages read, ${pollsWhileWriting} polls while writing, ${consumer.applied} entries applied (${consumer.duplicates} seen twice), ${((Date.now() - started) / 1000).toFixed(1)} s\n  ${summary.join('\n  ')}`,
    );
    const succeeded = [...outcomes].filter(([k]) => k.endsWith(': ok')).reduce((sum, [, v]) => sum + v, 0);
    expect(succeeded, `most writes succeed (seed ${SEED}): ${summary.join(', ')}`).toBeGreaterThan(WRITES * 0.7);
    expect(
      [...outcomes.keys()]
        .filter((k) => k.endsWith(': ok'))
        .map((k) => k.split(':')[0])
        .sort(),
      'every kind of write ran',
    ).toEqual(
      [
        'items added',
        'items removed',
        'items replaced',
        'item updated',
        'new product',
        'new structure',
        'product attributes',
        'product link',
      ].sort(),
    );
    expect(pollsWhileWriting, 'the follower polled while the writes ran').toBeGreaterThan(5);

    // 4. The follower saw every entry of its types after the cursor, in order, and met nothing against the contract.
    const logged = (
      await api.prisma.change.findMany({
        where: { seq: { gt: Number(start) }, resource_type: { in: [...TYPES] } },
        select: { seq: true },
        orderBy: { seq: 'asc' },
      })
    ).map((c: { seq: number }) => c.seq);
    expect(logged.length, 'the writes left entries').toBeGreaterThan(WRITES * 0.7);
    // Soft: the comparison of the copy below still runs and says what followed from them.
    expect
      .soft(
        logged.filter((seq: number) => !consumer.seen.has(seq)).slice(0, 10),
        `entries the follower missed (seed ${SEED})`,
      )
      .toEqual([]);
    expect.soft(consumer.anomalies.slice(0, 10), `entries against the contract (seed ${SEED})`).toEqual([]);

    // 5. The copy equals the database: ids, attributes (but the server-set modified_date, which
    //    the log leaves out of updates), relationship identifiers and versions.
    const served = await truth();
    for (const type of TYPES) {
      const found = differences(type, consumer.copies[type], served[type]);
      expect(
        found.slice(0, 10),
        `${type}: ${found.length} differ between the copy and the database (seed ${SEED})`,
      ).toEqual([]);
      expect(consumer.copies[type].size).toBe(served[type].size);
    }
    expect(served.products.size).toBe(await api.prisma.product.count());
    expect(served.product_structure_items.size).toBe(await api.prisma.productStructureItem.count());
  }, 120_000);

  it.each(['REL-REMOVE', 'REL-REPLACE'] as const)(
    '%s: a tombstone carries the item as it was when deleted, even when an update of the item commits while the deletion waits for it',
    async (operation) => {
      // The interleaving the random writes above met on PostgreSQL, made deterministic: an item
      // update holds its transaction open (its row locked, version 2 written, not committed) while
      // a write that deletes the item starts; then the update commits and the deletion goes on.
      const product = await api.create('products');
      const structure = await api.createStructure(Number(product.id));
      const structureId = Number(structure.data.id);
      const item = Number(structure.included[0].id);
      const [, , third] = await api.ids('products', 3);
      const replacement = await api.itemObject(third!);
      const cursor = (await api.ok('GET', '/product_structure_items?per_page=1')).meta.changes_cursor;

      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let reached!: () => void;
      const holding = new Promise<void>((resolve) => (reached = resolve));
      // The update as REST's PATCH makes it (the same Writer), with a caller that holds its commit.
      const holder = new BomWriter(api.env.database.db, {
        beforeCommit: async () => {
          reached();
          await held;
        },
      });
      const update = holder.update('product_structure_items', item, { attributes: { net_quantity: 9.75 } });
      await holding;
      const path = `/product_structures/${structureId}/relationships/items`;
      const removal =
        operation === 'REL-REMOVE'
          ? api.delete(path, { data: [{ type: 'product_structure_items', id: item }] })
          : api.patch(path, { data: [replacement] });
      await new Promise((resolve) => setTimeout(resolve, 300)); // the removal reaches the item's row lock (PostgreSQL)
      release();
      const [updated, removed] = await Promise.all([update, removal]);
      expect(updated.version, 'the update committed version 2').toBe(2);
      expectStatus(removed, 200, 'the removal');

      const entries = (await api.ok('GET', `/changes?after=${cursor}&type=product_structure_items`)).data
        .map((c: any) => c.attributes)
        .filter((e: any) => e.resource_id === item);
      expect(
        entries.map((e: any) => [e.resource_id, e.op, e.version]),
        'the tombstone has the version the item had when it was deleted',
      ).toEqual([
        [item, 'updated', 2],
        [item, 'deleted', 2],
      ]);
      const created = structure.included[0];
      const asDeleted = {
        ...created.attributes,
        ...Object.fromEntries(Object.entries(created.relationships).map(([name, r]: [string, any]) => [name, r.data])),
        net_quantity: 9.75,
      };
      const { modified_date: _date, ...before } = entries[1].before;
      const { modified_date: _created, ...expected } = asDeleted;
      expect(before, 'the tombstone shows the item as it was deleted').toEqual(expected);
    },
  );
});
