/** What the change-request tests share: a request that sets a product's price at an instant. */
import { expect } from 'vitest';
import { expectStatus, type Rest } from '../rest/support.ts';

/**
 * A change request setting product `productId`'s price (and `attributes` besides) at `at`, made
 * with `authorToken` (undefined: the suite's admin client) and approved with `approverToken`:
 * scheduled. Its id.
 */
export async function scheduledPriceChange(
  api: Rest,
  {
    productId,
    price,
    at,
    meta,
    attributes = {},
    authorToken,
    approverToken,
  }: {
    productId: number;
    price: number;
    at: Date;
    meta?: { version: number };
    attributes?: Record<string, unknown>;
    authorToken?: string;
    approverToken: string;
  },
): Promise<string> {
  const created = await api.post(
    '/change_requests',
    {
      data: {
        type: 'change_requests',
        attributes: {
          effective_date: at.toISOString(),
          operations: [
            {
              op: 'update',
              ref: { type: 'products', id: String(productId) },
              data: { type: 'products', attributes: { consumer_price: price, ...attributes } },
              ...(meta && { meta }),
            },
          ],
        },
      },
    },
    authorToken === undefined ? {} : { token: authorToken },
  );
  expectStatus(created, 201);
  const approved = await api.post(`/change_requests/${created.body.data.id}/approve`, undefined, {
    token: approverToken,
  });
  expectStatus(approved, 200);
  expect(approved.body.data.attributes.state).toBe('scheduled');
  return created.body.data.id as string;
}
