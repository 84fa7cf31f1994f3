/**
 * Scheduled change requests, on both databases: approved with an effective date to come, a
 * request is `scheduled` and writes nothing; at its instant a replica applies it, once, however
 * many replicas look for it at the same moment; one withdrawn meanwhile is never applied, and one
 * whose expected version moved on is `failed`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChangeRequests } from '../../src/change-requests/requests.ts';
import pg from 'pg';
import { LEAD_MS, ScheduledChanges } from '../../src/change-requests/scheduler.ts';
import { systemClock } from '../../src/clock.ts';
import { RoleBook } from '../../src/permissions/book.ts';
import { providers } from '../support/databases.ts';
import { sleep } from '../support/live.ts';
import { applyTestRoles, tokenWithRole } from '../support/roles.ts';
import { expectStatus, restSuite } from '../rest/support.ts';
import { scheduledPriceChange } from './support.ts';

const ROLES = {
  editor: { products: { read: {}, update: { fields: ['consumer_price'], approval: 'required' } } },
  quality: { products: { read: {}, update: {}, approve: {} } },
};

describe.each(providers)('scheduled change requests on %s', (provider) => {
  const api = restSuite(provider);
  const tokens: Record<string, string> = {};
  beforeAll(async () => {
    const { db } = api.env.database;
    await applyTestRoles(db, ROLES);
    for (const role of Object.keys(ROLES)) tokens[role] = await tokenWithRole(api.env.t, db, role);
  }, 60_000);
  // Before the database goes (restSuite's afterAll runs after this one): the scheduler stops.
  afterAll(() => api.env.t.app.close());

  const priceOf = async (id: number) =>
    Number((await api.prisma.product.findUniqueOrThrow({ where: { id } })).consumer_price);
  const stateOf = async (id: string) =>
    (await api.prisma.changeRequest.findUniqueOrThrow({ where: { id: Number(id) } })).state as string;

  /** A new product, and a request setting its price at `at`, approved: scheduled. */
  async function scheduledPrice(price: number, at: Date, meta?: { version: number }) {
    const productId = Number((await api.create('products')).id);
    return { productId, requestId: await scheduledPriceOf(productId, price, at, meta) };
  }

  /** A request for an existing product, approved: scheduled. */
  const scheduledPriceOf = (productId: number, price: number, at: Date, meta?: { version: number }) =>
    scheduledPriceChange(api, {
      productId,
      price,
      at,
      meta,
      authorToken: tokens.editor,
      approverToken: tokens.quality!,
    });

  function scheduler() {
    const { db } = api.env.database;
    const requests = new ChangeRequests(db, new RoleBook(db.prisma, db.provider));
    return new ScheduledChanges(db, requests, systemClock, (error) => {
      throw error;
    });
  }

  it('is scheduled and writes nothing before its instant; applied by a running replica once it comes', async () => {
    const at = new Date(Date.now() + 4000);
    const { productId, requestId } = await scheduledPrice(71, at);
    api.env.t.app.startScheduledChanges();
    // Still before its instant (4 s leave room for a slow machine): waiting, nothing written.
    expect(Date.now()).toBeLessThan(at.getTime() - 500);
    expect(await stateOf(requestId)).toBe('scheduled');
    expect(await priceOf(productId)).not.toBe(71);
    const deadline = Date.now() + 15_000;
    while ((await stateOf(requestId)) !== 'applied') {
      if (Date.now() > deadline) throw new Error(`still ${await stateOf(requestId)} 15 s after it was due`);
      await sleep(20);
    }
    const request = await api.prisma.changeRequest.findUniqueOrThrow({ where: { id: Number(requestId) } });
    // Applied after its instant, not before (how soon, under load, is the cluster test's).
    expect(request.settled_date.getTime()).toBeGreaterThanOrEqual(at.getTime());
    expect(await priceOf(productId)).toBe(71);
    expect(await api.prisma.change.count({ where: { change_request_id: Number(requestId) } })).toBe(1);
  });

  it.runIf(provider === 'postgresql')(
    'made ready before its instant (PostgreSQL): a write of the same row meanwhile comes after it; written at the instant itself',
    async () => {
      const at = new Date(Date.now() + 3000 + LEAD_MS);
      const { productId, requestId } = await scheduledPrice(72, at);
      const s = scheduler();
      const applying = s.applyDue();
      try {
        // Once a replica holds the request (its row locked by the transaction that applies it)...
        const watcher = new pg.Client({ connectionString: api.env.database.target.url });
        await watcher.connect();
        try {
          const held = async () =>
            (
              await watcher.query(
                'SELECT 1 FROM "change_requests" WHERE "id" = $1 AND "state" = \'scheduled\' FOR UPDATE SKIP LOCKED',
                [Number(requestId)],
              )
            ).rowCount === 0;
          while (!(await held())) {
            if (Date.now() >= at.getTime()) throw new Error('no replica made the request ready before its instant');
            await sleep(20);
          }
        } finally {
          await watcher.end();
        }
        expect(Date.now()).toBeLessThan(at.getTime());
        // ...a transaction begun before the instant waits for it to write the product...
        const early = new pg.Client({ connectionString: api.env.database.target.url });
        await early.connect();
        await early.query('BEGIN');
        await early.query('SELECT 1');
        const waiting = early
          .query('UPDATE "products" SET "nlc" = 1.25 WHERE "id" = $1', [productId])
          .then(() => early.query('COMMIT'))
          .finally(() => early.end());
        // ...and so does a write of the API, answered after the instant.
        const patched = await api.patch(`/products/${productId}`, {
          data: { type: 'products', id: String(productId), attributes: { consumer_price: 55 } },
        });
        expectStatus(patched, 200);
        expect(Date.now()).toBeGreaterThanOrEqual(at.getTime());
        await waiting;
      } finally {
        await applying;
      }
      expect(await stateOf(requestId)).toBe('applied');
      expect(await priceOf(productId)).toBe(55);
      const log = await api.prisma.change.findMany({
        where: { resource_type: 'products', resource_id: productId, op: 'updated' },
        orderBy: { seq: 'asc' },
      });
      expect(log.map((e: { change_request_id: number | null }) => e.change_request_id)).toEqual([
        Number(requestId),
        null,
      ]);
      // The request's entry, its row version and its settling carry its instant exactly.
      expect(log[0].at.getTime()).toBe(at.getTime());
      const request = await api.prisma.changeRequest.findUniqueOrThrow({ where: { id: Number(requestId) } });
      expect(request.settled_date.getTime()).toBe(at.getTime());
      // The product's versions follow each other, also after the write that began before the
      // instant and waited: none valid for a negative time, no two at one instant.
      const versions = (await api.prisma.$queryRawUnsafe(
        `SELECT "consumer_price"::float AS "price", "valid_from", "valid_to" FROM "products_history" WHERE "id" = $1 ORDER BY "valid_from", "valid_to"`,
        productId,
      )) as { price: number; valid_from: Date; valid_to: Date }[];
      for (const [i, v] of versions.entries()) {
        expect(v.valid_to.getTime()).toBeGreaterThanOrEqual(v.valid_from.getTime());
        if (i > 0) expect(v.valid_from.getTime()).toBe(versions[i - 1]!.valid_to.getTime());
      }
      const asOf = async (instant: Date) =>
        (await api.ok('GET', `/products/${productId}?as_of=${encodeURIComponent(instant.toISOString())}`)).data
          .attributes.consumer_price;
      expect(versions.filter((v) => v.valid_to.getTime() > Date.now())).toHaveLength(1);
      const before = await asOf(new Date(at.getTime() - 1));
      expect([72, 55]).not.toContain(before);
      expect(await asOf(new Date(Date.now() + 1000))).toBe(55);
    },
  );

  it.runIf(provider === 'postgresql')(
    'requests due at two instants close together are each applied at its own, in order (PostgreSQL)',
    async () => {
      const first = new Date(Date.now() + 3000 + LEAD_MS);
      const second = new Date(first.getTime() + 700);
      const a = await scheduledPrice(73, first);
      const b = await scheduledPrice(74, second);
      const applying = scheduler().applyDue();
      // Between the two instants: the first applied, the second not yet.
      await sleep(Math.max(0, first.getTime() + 300 - Date.now()));
      expect(Date.now()).toBeLessThan(second.getTime());
      expect(await stateOf(a.requestId)).toBe('applied');
      expect(await stateOf(b.requestId)).toBe('scheduled');
      await applying;
      // The app's own replica may be the one that holds the second: it is applied at its instant.
      while ((await stateOf(b.requestId)) === 'scheduled') {
        if (Date.now() > second.getTime() + 10_000) throw new Error('the second request was not applied');
        await sleep(20);
      }
      const settled = async (id: string) =>
        (await api.prisma.changeRequest.findUniqueOrThrow({ where: { id: Number(id) } })).settled_date.getTime();
      expect([await settled(a.requestId), await settled(b.requestId)]).toEqual([first.getTime(), second.getTime()]);
    },
  );

  it('two replicas looking for due requests at the same moment apply each once; a withdrawn one never; a stale one fails', async () => {
    // Made with an instant well ahead (making them takes long on a busy machine), then brought
    // to a moment ago, so that all of them are due when the replicas look.
    const at = new Date(Date.now() + 60_000);
    const due = [];
    for (let i = 0; i < 12; i++) due.push(await scheduledPrice(80 + i, at));
    const withdrawn = await scheduledPrice(99, at);
    expectStatus(
      await api.post(`/change_requests/${withdrawn.requestId}/withdraw`, undefined, { token: tokens.editor }),
      200,
    );
    const { id: staleId } = await api.create('products');
    const { version } = await api.prisma.product.findUniqueOrThrow({ where: { id: Number(staleId) } });
    const stale = await scheduledPriceOf(Number(staleId), 98, at, { version });
    await api.ok('PATCH', `/products/${staleId}`, { data: { type: 'products', attributes: { consumer_price: 97 } } });
    const made = [...due.map((d) => d.requestId), withdrawn.requestId, stale].map(Number);
    await api.prisma.changeRequest.updateMany({
      where: { id: { in: made } },
      data: { effective_date: new Date(Date.now() - 1) },
    });
    // Two more replicas beside the app's (started by the test before), all at the same moment.
    const [a, b] = [scheduler(), scheduler()];
    await Promise.all([a.applyDue(), b.applyDue(), a.applyDue()]);
    // What the app's replica claimed first, it finishes applying.
    const ids = [...due.map((d) => d.requestId), stale].map(Number);
    const deadline = Date.now() + 10_000;
    while ((await api.prisma.changeRequest.count({ where: { id: { in: ids }, state: 'scheduled' } })) > 0) {
      if (Date.now() > deadline) throw new Error('scheduled requests still not applied 10 s after they were due');
      await sleep(20);
    }
    for (const { productId, requestId } of due) {
      expect(await stateOf(requestId)).toBe('applied');
      expect(await api.prisma.change.count({ where: { change_request_id: Number(requestId) } })).toBe(1);
      expect(await priceOf(productId)).toBe(80 + due.findIndex((d) => d.requestId === requestId));
    }
    expect(await stateOf(withdrawn.requestId)).toBe('withdrawn');
    expect(await priceOf(withdrawn.productId)).not.toBe(99);
    expect(await stateOf(stale)).toBe('failed');
    expect(await priceOf(Number(staleId))).toBe(97);
  });
});
