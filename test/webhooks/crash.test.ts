/**
 * A service killed (SIGKILL) in the middle of webhook deliveries, on both databases: after a
 * restart every entry arrives, in log order per resource once duplicates are dropped by
 * `webhook-id` (as receivers are told to), and the only duplicates are of deliveries that were
 * in flight, or answered but not yet recorded, when the process died.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/auth/clients.ts';
import { migratedDatabase, type MigratedDatabase, providers } from '../support/databases.ts';
import { logAfter, logHead, over, sleep, tokensOf, waitUntil } from '../support/live.ts';
import { type RunningService, startService } from '../support/process.ts';
import { Receiver } from '../support/receiver.ts';

/** How long before the kill a duplicate's first delivery may have been answered: the deliverer writes what was answered every 100 ms. */
const UNRECORDED_MS = 500;

const WEBHOOK_ENV = {
  SEED_DEMO_DATA: 'false',
  WEBHOOKS_ALLOW_HTTP: 'true',
  WEBHOOKS_ALLOWED_NETWORKS: '127.0.0.0/8',
  WEBHOOKS_FIRST_RETRY_MS: '50',
};

describe.each(providers)('webhooks across a crash (%s)', (provider) => {
  let database: MigratedDatabase;
  let service: RunningService | undefined;
  const receiver = new Receiver();

  beforeAll(async () => {
    database = await migratedDatabase(provider);
    await receiver.start();
  });
  afterAll(async () => {
    await service?.stop('SIGKILL');
    await receiver.stop();
    await database?.cleanup();
  });

  it('delivers every entry after a restart, in order per resource, duplicating only what was in flight', {
    timeout: 90_000,
  }, async () => {
    const env = { DATABASE_URL: database.target.url, ...WEBHOOK_ENV };
    service = await startService(env);
    const send = over(service.baseUrl);
    const client = await createClient(database.db.prisma, 'crash', ['read', 'write']);
    const { access_token: token } = await tokensOf(send, client);
    const call = async (method: string, path: string, body: unknown) => {
      const res = await send(path, {
        method,
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
      return (await res.json()) as any;
    };
    // Slow answers until the kill: deliveries are in flight when the process dies, and on a busy
    // machine (writes slow too) they cannot all be done before it (13 per brand, in order).
    receiver.behaviour = () => ({ status: 204, delayMs: 600 });
    await call('POST', '/webhooks', {
      data: { type: 'webhooks', attributes: { url: receiver.url, types: ['brands'] } },
    });
    const from = await logHead(database.db.prisma);
    const brands: number[] = [];
    for (let i = 0; i < 8; i++)
      brands.push(
        Number(
          (await call('POST', '/brands', { data: { type: 'brands', attributes: { reference: `K-${provider}-${i}` } } }))
            .data.id,
        ),
      );
    for (let round = 0; round < 12; round++)
      await Promise.all(
        brands.map((id) =>
          call('PATCH', `/brands/${id}`, {
            data: { type: 'brands', id, attributes: { reference: `K-${provider}-${id}-${round}` } },
          }),
        ),
      );
    const entries = await logAfter(database.db.prisma, from, ['brands']);
    expect(entries).toHaveLength(8 * 13);
    console.info(`[crash ${provider}] writes done, ${receiver.calls.length} calls so far`);
    await waitUntil(
      () => receiver.calls.length >= 30,
      () => `30 calls (have ${receiver.calls.length})`,
      20_000,
    );
    await service.stop('SIGKILL');
    const killedAt = performance.now();
    const beforeKill = receiver.calls.length;
    expect(beforeKill).toBeLessThan(entries.length);

    receiver.behaviour = () => ({ status: 204, delayMs: 15 });
    service = await startService(env);
    console.info(`[crash ${provider}] restarted, ${receiver.calls.length} calls so far`);
    const ids = () => new Set(receiver.delivered().map((c) => c.id));
    await waitUntil(
      () => ids().size >= entries.length,
      () => `all ${entries.length} delivered (have ${ids().size})`,
      30_000,
    );
    await sleep(300);

    // Every entry, each resource's in log order once duplicates are dropped.
    const firstAccepted = new Map<string, (typeof receiver.calls)[number]>();
    for (const c of receiver.delivered().sort((a, b) => a.answeredAt - b.answeredAt))
      if (!firstAccepted.has(c.id)) firstAccepted.set(c.id, c);
    for (const id of brands) {
      const order = [...firstAccepted.values()]
        .filter((c) => c.data.attributes.resource_id === id)
        .map((c) => Number(c.data.id));
      expect(order, `brand ${id}`).toEqual(entries.filter((e) => e.resource_id === id).map((e) => e.seq));
    }
    // Duplicates: only of deliveries in flight or answered just before the kill.
    const counts = new Map<string, number>();
    for (const c of receiver.delivered()) counts.set(c.id, (counts.get(c.id) ?? 0) + 1);
    const duplicated = [...counts].filter(([, n]) => n > 1).map(([id]) => id);
    for (const id of duplicated) expect(firstAccepted.get(id)!.answeredAt).toBeGreaterThan(killedAt - UNRECORDED_MS);
    console.info(`[crash ${provider}] ${beforeKill} calls before the kill, ${duplicated.length} duplicated after it`);
  });
});
