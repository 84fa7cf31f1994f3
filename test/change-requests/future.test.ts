/**
 * Reading an instant to come, on both databases: GraphQL `asOf` and REST `as_of` answer the
 * present with the scheduled change requests due by then applied, in their order; a request that
 * would fail is left out; nothing is written by the read. Checked against applying them for real:
 * the answer as of after their instants equals the answer once they are applied.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ChangeRequests } from '../../src/change-requests/requests.ts';
import { ScheduledChanges } from '../../src/change-requests/scheduler.ts';
import { createClient } from '../../src/auth/clients.ts';
import { RoleBook } from '../../src/permissions/book.ts';
import { getTokens } from '../support/oauth.ts';
import { providers } from '../support/databases.ts';
import { restSuite } from '../rest/support.ts';
import { scheduledPriceChange } from './support.ts';

describe.each(providers)('reading an instant to come on %s', (provider) => {
  const api = restSuite(provider);
  let productId: number;
  const start = Date.now();
  const first = new Date(start + 60 * 60_000);
  const second = new Date(start + 2 * 60 * 60_000);
  const later = (at: Date) => new Date(at.getTime() + 1000).toISOString();

  /** A request of admin's setting the product's price (and its English name) at `at`, approved by another client. */
  const scheduled = async (price: number, at: Date, meta?: { version: number }) =>
    scheduledPriceChange(api, {
      productId,
      price,
      at,
      meta,
      attributes: { name: { en: `priced ${price}` } },
      approverToken: await approverToken(),
    });

  /** Another admin client: four eyes, the author's never approves. */
  let approver: string | undefined;
  async function approverToken() {
    approver ??= (await getTokens(api.env.t, await createClient(api.prisma, 'quality', ['read', 'write'])))
      .access_token;
    return approver;
  }

  const gqlPrice = async (at: string) => {
    const res = await api.env.gql(
      `query($at: DateTime!) { asOf(at: $at) { product(id: ${productId}) { consumerPrice version } } }`,
      {
        at,
      },
    );
    expect(res.body.errors).toBeUndefined();
    return res.body.data!.asOf.product as { consumerPrice: number; version: number };
  };

  /** The three requests, in the order they were made. */
  const requests: string[] = [];
  beforeAll(async () => {
    productId = Number((await api.create('products', { attributes: { consumer_price: 10 } })).id);
    const { version } = await api.prisma.product.findUniqueOrThrow({ where: { id: productId } });
    requests.push(await scheduled(11, first), await scheduled(12, second));
    // Expects the version the product has now: stale once the first request is applied.
    requests.push(await scheduled(99, second, { version }));
  });

  it('answers the present with the scheduled requests due by then, in their order, and writes nothing', async () => {
    const entries = await api.prisma.change.count();
    expect(await gqlPrice(new Date(start + 30 * 60_000).toISOString())).toMatchObject({ consumerPrice: 10 });
    expect(await gqlPrice(later(first))).toMatchObject({ consumerPrice: 11 });
    // The third request would fail then (its version moved on with the first): left out.
    expect(await gqlPrice(later(second))).toMatchObject({ consumerPrice: 12 });
    const rest = await api.ok('GET', `/products/${productId}?as_of=${encodeURIComponent(later(second))}`);
    expect(rest.data.attributes.consumer_price).toBe(12);
    expect(rest.meta.as_of).toBe(later(second));
    expect(Number((await api.prisma.product.findUniqueOrThrow({ where: { id: productId } })).consumer_price)).toBe(10);
    expect(await api.prisma.change.count()).toBe(entries);
  });

  it('equals what applying them answers', async () => {
    const projected = await api.ok('GET', `/products/${productId}?as_of=${encodeURIComponent(later(second))}`);
    const projectedGql = await gqlPrice(later(second));
    const { db } = api.env.database;
    const atThen = { now: () => new Date(later(second)) };
    const scheduler = new ScheduledChanges(
      db,
      new ChangeRequests(db, new RoleBook(db.prisma, db.provider)),
      atThen,
      (e) => {
        throw e;
      },
    );
    await scheduler.applyDue();
    const states = await api.prisma.changeRequest.findMany({ orderBy: { id: 'asc' }, select: { state: true } });
    expect(states.slice(-3).map((s: { state: string }) => s.state)).toEqual(['applied', 'applied', 'failed']);
    // Both were due when the scheduler looked: applied in the order of their instants.
    const log = await api.prisma.change.findMany({
      where: { resource_type: 'products', resource_id: productId, change_request_id: { not: null } },
      orderBy: { seq: 'asc' },
    });
    expect(log.map((e: { change_request_id: number }) => String(e.change_request_id))).toEqual(requests.slice(0, 2));
    const applied = await api.ok('GET', `/products/${productId}`);
    const { modified_date: _a, ...projectedAttributes } = projected.data.attributes;
    const { modified_date: _b, ...appliedAttributes } = applied.data.attributes;
    expect(appliedAttributes).toEqual(projectedAttributes);
    expect(applied.data.meta).toEqual(projected.data.meta);
    // The present, once they are applied (not read as of an instant: they were written at their
    // instants, ahead of this machine's clock, which the scheduler was told had reached them).
    const present = await api.env.gql(`{ product(id: ${productId}) { consumerPrice version } }`);
    expect(present.body.data!.product).toEqual(projectedGql);
  });
});
