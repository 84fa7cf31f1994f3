/**
 * Webhook delivery against a real receiver (an HTTP server in the test), on both databases:
 * every entry arrives and verifies with the standardwebhooks library; per resource in log order
 * while the receiver is slow, fails at random and is down for a while; a retry carries the same
 * webhook-id; dead letters and replay.
 */
import { describe, expect, it } from 'vitest';
import { createClient } from '../../src/auth/clients.ts';
import { setClientRole } from '../../src/permissions/store.ts';
import { LEASE_TICK_MS } from '../../src/webhooks/deliveries.ts';
import { providers } from '../support/databases.ts';
import { getTokens } from '../support/oauth.ts';
import { applyTestRoles } from '../support/roles.ts';
import { logAfter, logHead, sleep, waitUntil } from '../support/live.ts';
import { type Call, Receiver } from '../support/receiver.ts';
import { createBrand, createEndpoint, hubWithReceiver, renameBrand, testWebhooks } from './support.ts';

/** Per resource, the entries' positions in the order the receiver accepted them. */
function acceptedByResource(calls: Call[]): Map<string, number[]> {
  const byResource = new Map<string, number[]>();
  for (const call of calls
    .filter((c) => c.status >= 200 && c.status < 300)
    .sort((a, b) => a.answeredAt - b.answeredAt)) {
    const key = `${call.data.attributes.resource_type}/${call.data.attributes.resource_id}`;
    byResource.set(key, [...(byResource.get(key) ?? []), Number(call.data.id)]);
  }
  return byResource;
}

/** Asks `read` every 50 ms until `done` holds of its answer (at most 10 s); answers the last answer. */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = performance.now() + 10_000;
  let value = await read();
  while (!done(value) && performance.now() < deadline) {
    await sleep(50);
    value = await read();
  }
  return value;
}

describe.each(providers)('webhook delivery (%s)', (provider) => {
  const { hub, receiver } = hubWithReceiver(provider);

  it('delivers every entry once, signed so that standardwebhooks verifies it', async () => {
    receiver.calls.length = 0;
    receiver.behaviour = () => ({ status: 200, body: 'ok' });
    const { id, secret } = await createEndpoint(hub, { url: receiver.url, types: ['brands'] });
    const from = await logHead(hub.database.db.prisma);
    const brands = [];
    for (let i = 0; i < 5; i++) brands.push(await createBrand(hub));
    await renameBrand(hub, brands[0]!);
    const entries = await logAfter(hub.database.db.prisma, from, ['brands']);
    expect(entries).toHaveLength(6);
    await waitUntil(
      () => receiver.calls.length >= 6,
      () => `6 calls (have ${receiver.calls.length})`,
      10_000,
    );
    await sleep(200);
    expect(receiver.calls.map((c) => Number(c.data.id)).sort((a, b) => a - b)).toEqual(entries.map((e) => e.seq));
    for (const call of receiver.calls) {
      const verified = Receiver.verify(secret, call) as { type: string; data: { attributes: { op: string } } };
      expect(verified.type).toBe(`brands.${call.data.attributes.op}`);
      expect(call.id).toBe(`msg_${id}_${call.data.id}`);
    }
    // A tampered body does not verify.
    expect(() =>
      Receiver.verify(secret, { ...receiver.calls[0]!, body: receiver.calls[0]!.body.replace('brands', 'units') }),
    ).toThrow();
    // Recorded: every delivery, with its attempt.
    const deliveries = await hub.call('GET', `/webhooks/${id}/deliveries?per_page=100`);
    expect(deliveries.status).toBe(200);
    expect(deliveries.body.data).toHaveLength(6);
    expect(deliveries.body.data[0].attributes).toMatchObject({ status: 'delivered', attempts: 1 });
    expect(deliveries.body.data[0].attributes.attempt_log[0]).toMatchObject({ status_code: 200, response: 'ok' });
    await hub.call('DELETE', `/webhooks/${id}`);
  });

  it('keeps log order per resource while the receiver is slow, fails at random and goes down; a retry has the same webhook-id', async () => {
    receiver.calls.length = 0;
    let random = 7;
    const next = () => (random = (random * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    receiver.behaviour = () => ({ status: next() < 0.3 ? 500 : 204, delayMs: Math.floor(next() * 30) });
    const { id } = await createEndpoint(hub, { url: receiver.url, types: ['brands'] });
    const from = await logHead(hub.database.db.prisma);
    const brands = await Promise.all([1, 2, 3, 4, 5, 6].map(() => createBrand(hub)));
    const writes = async (rounds: number) => {
      for (let r = 0; r < rounds; r++) await Promise.all(brands.map((b) => renameBrand(hub, b)));
    };
    await writes(3);
    // Down for a while: connections refused, then back on the same port.
    await receiver.stop();
    await writes(2);
    await sleep(500);
    await receiver.start(receiver.port);
    await writes(2);
    const entries = await logAfter(hub.database.db.prisma, from, ['brands']);
    expect(entries).toHaveLength(6 * 8);
    await waitUntil(
      () => new Set(receiver.delivered().map((c) => c.id)).size >= entries.length,
      () => `${entries.length} delivered (have ${new Set(receiver.delivered().map((c) => c.id)).size})`,
      30_000,
    );
    // Every entry, each resource's in log order.
    const accepted = acceptedByResource(receiver.calls);
    for (const [key, seqs] of accepted) {
      const unique = [...new Set(seqs)];
      expect(unique, key).toEqual(
        entries.filter((e) => `${e.resource_type}/${e.resource_id}` === key).map((e) => e.seq),
      );
      expect(seqs, `${key}: no entry accepted twice`).toEqual(unique);
    }
    // A later entry of a resource was first sent only after the one before it was accepted.
    for (const seqs of accepted.values())
      for (let i = 1; i < seqs.length; i++) {
        const before = receiver.calls.find((c) => Number(c.data.id) === seqs[i - 1] && c.status < 300)!;
        const firstOfNext = Math.min(
          ...receiver.calls.filter((c) => Number(c.data.id) === seqs[i]).map((c) => c.receivedAt),
        );
        expect(firstOfNext).toBeGreaterThanOrEqual(before.answeredAt - 5);
      }
    // Retries: the same webhook-id and body as the failed attempt.
    const failed = receiver.calls.filter((c) => c.status === 500);
    expect(failed.length).toBeGreaterThan(0);
    for (const call of failed) {
      const success = receiver.delivered().find((c) => c.id === call.id);
      expect(success?.body).toBe(call.body);
    }
    await hub.call('DELETE', `/webhooks/${id}`);
  });
});

describe.each(providers)('dead letters and replay (%s)', (provider) => {
  const { hub, receiver } = hubWithReceiver(provider, { webhooks: testWebhooks({ retryForMs: 300 }) });

  it('gives up on an entry after the retry period, goes on with the next, and sends everything again on replay', async () => {
    let refused: number | undefined;
    receiver.behaviour = ({ body }) => ({
      status: (JSON.parse(body) as Call).data.attributes.resource_id === refused ? 500 : 204,
    });
    const { id } = await createEndpoint(hub, { url: receiver.url });
    const from = await logHead(hub.database.db.prisma);
    refused = await createBrand(hub);
    await renameBrand(hub, refused);
    await renameBrand(hub, refused);
    const other = await createBrand(hub);
    const entries = await logAfter(hub.database.db.prisma, from);
    expect(entries).toHaveLength(4);
    const deliveries = async () => (await hub.call('GET', `/webhooks/${id}/deliveries`)).body.data as any[];
    let list = await until(deliveries, (l) => l.filter((d) => d.attributes.status === 'dead').length >= 3);
    const byChange = new Map(list.map((d) => [Number(d.attributes.change), d.attributes]));
    for (const entry of entries.filter((e) => e.resource_id === refused)) {
      const delivery = byChange.get(entry.seq);
      expect(delivery, `entry ${entry.seq}`).toMatchObject({ status: 'dead', resource_id: refused });
      expect(delivery.attempts).toBeGreaterThan(1);
      expect(delivery.attempt_log.every((a: any) => a.status_code === 500)).toBe(true);
    }
    expect(byChange.get(entries.find((e) => e.resource_id === other)!.seq)).toMatchObject({ status: 'delivered' });
    // Dead-lettered in order: each of the refused brand's entries was first tried after the one before it gave up.
    const firstTry = (seq: number) =>
      Math.min(...receiver.calls.filter((c) => Number(c.data.id) === seq).map((c) => c.receivedAt));
    const lastTry = (seq: number) =>
      Math.max(...receiver.calls.filter((c) => Number(c.data.id) === seq).map((c) => c.answeredAt));
    const refusedSeqs = entries.filter((e) => e.resource_id === refused).map((e) => e.seq);
    for (let i = 1; i < refusedSeqs.length; i++)
      expect(firstTry(refusedSeqs[i]!)).toBeGreaterThanOrEqual(lastTry(refusedSeqs[i - 1]!) - 5);

    // The receiver is mended: a replay from before them sends all four again, in order per resource.
    refused = undefined;
    receiver.calls.length = 0;
    const replay = await hub.call('POST', `/webhooks/${id}/replay`, { after: String(from) });
    expect(replay.status).toBe(200);
    await waitUntil(
      () => receiver.delivered().length >= 4,
      () => `4 replayed (have ${receiver.delivered().length})`,
      10_000,
    );
    expect(receiver.deliveredSeqs()).toEqual(entries.map((e) => e.seq));
    expect(acceptedByResource(receiver.calls).get(`brands/${entries[0]!.resource_id}`)).toEqual(refusedSeqs);
    list = await until(deliveries, (l) => l.filter((d) => d.attributes.status === 'delivered').length >= 4);
    expect(list.map((d) => d.attributes.status)).toEqual(['delivered', 'delivered', 'delivered', 'delivered']);

    // A cursor the log cannot follow, or that is not one, is refused.
    expect((await hub.call('POST', `/webhooks/${id}/replay`, { after: '999999999' })).status).toBe(410);
    expect((await hub.call('POST', `/webhooks/${id}/replay`, { after: 'yesterday' })).status).toBe(400);
    expect((await hub.call('POST', `/webhooks/${id}/replay`, { from: '1' })).status).toBe(400);
  });
});

describe.each(providers)('webhooks under change (%s)', (provider) => {
  const { hub, receiver } = hubWithReceiver(provider);

  it('a replay while writes go on sends again everything after its cursor', async () => {
    receiver.calls.length = 0;
    receiver.behaviour = () => ({ status: 204, delayMs: 5 });
    const { id } = await createEndpoint(hub, { url: receiver.url, types: ['brands'] });
    const from = await logHead(hub.database.db.prisma);
    const brands = await Promise.all([1, 2, 3].map(() => createBrand(hub)));
    let writing = true;
    const writes = (async () => {
      for (let round = 0; writing && round < 200; round++) await Promise.all(brands.map((b) => renameBrand(hub, b)));
    })();
    await waitUntil(
      () => receiver.calls.length >= 20,
      () => '20 calls',
      10_000,
    );
    const replayedFrom = receiver.calls.length;
    expect((await hub.call('POST', `/webhooks/${id}/replay`, { after: String(from) })).status).toBe(200);
    await sleep(300);
    writing = false;
    await writes;
    const entries = await logAfter(hub.database.db.prisma, from, ['brands']);
    // After the replay, every entry after `from` arrives again (the first ones a second time).
    const again = () =>
      new Set(
        receiver.calls
          .slice(replayedFrom)
          .filter((c) => c.status < 300)
          .map((c) => Number(c.data.id)),
      );
    await waitUntil(
      () => again().size >= entries.length,
      () => `all ${entries.length} again (have ${again().size})`,
      20_000,
    );
    expect([...again()].sort((a, b) => a - b)).toEqual(entries.map((e) => e.seq));
    await hub.call('DELETE', `/webhooks/${id}`);
  });

  it('records an answer holding a NUL byte', async () => {
    receiver.calls.length = 0;
    receiver.behaviour = () => ({ status: 200, body: 'ok\0done' });
    const { id } = await createEndpoint(hub, { url: receiver.url, types: ['brands'] });
    await createBrand(hub);
    const list = await until(
      async () => (await hub.call('GET', `/webhooks/${id}/deliveries`)).body.data as any[],
      (l) => l.length > 0,
    );
    expect(list[0].attributes.attempt_log[0].response).toBe('ok\uFFFDdone');
    await hub.call('DELETE', `/webhooks/${id}`);
  });

  it('follows its owner to a new role', { timeout: 30_000 }, async () => {
    await applyTestRoles(hub.database.db, {
      units_only: { units: { read: {} } },
      brands_and_units: { units: { read: {} }, brands: { read: {} } },
    });
    const client = await createClient(hub.database.db.prisma, 'mover', ['read', 'write'], 'brands_and_units');
    const { access_token: token } = await getTokens(hub.t, client, 'read write');
    receiver.calls.length = 0;
    receiver.behaviour = () => ({ status: 204 });
    await createEndpoint(hub, { url: receiver.url }, token);
    await createBrand(hub);
    await waitUntil(
      () => receiver.calls.length >= 1,
      () => 'the brand',
      10_000,
    );
    await setClientRole(hub.database.db.prisma, hub.database.db.provider, client.client_id, 'units_only', 'test@tests');
    // A lease tick (every 2 s) starts its deliverer again under the new role.
    await sleep(2 * LEASE_TICK_MS + 500);
    receiver.calls.length = 0;
    await createBrand(hub);
    const unit = await hub.call('POST', '/units', {
      data: { type: 'units', attributes: { reference: `MOVE-${provider}` } },
    });
    await waitUntil(
      () => receiver.calls.length >= 1,
      () => 'the unit',
      10_000,
    );
    await sleep(300);
    expect(receiver.calls.map((c) => `${c.type} ${c.data.attributes.resource_id}`)).toEqual([
      `units.created ${unit.body.data.id}`,
    ]);
  });
});

describe.each(providers)('an endpoint that keeps failing (%s)', (provider) => {
  const { hub, receiver } = hubWithReceiver(provider, {
    webhooks: testWebhooks({ disableAfterMs: 400, retryForMs: 60_000 }),
  });

  it('is disabled after the period without a success, and goes on from where it stopped once enabled again', async () => {
    receiver.behaviour = () => ({ status: 503 });
    const { id } = await createEndpoint(hub, { url: receiver.url, types: ['brands'] });
    const from = await logHead(hub.database.db.prisma);
    await createBrand(hub);
    const status = async () => (await hub.call('GET', `/webhooks/${id}`)).body.data.attributes;
    const disabled = await until(status, (a) => a.status === 'disabled');
    expect(disabled).toMatchObject({ status: 'disabled', is_active: false });
    // Nothing more is tried while it is disabled.
    await sleep(300);
    const tried = receiver.calls.length;
    await createBrand(hub);
    await sleep(500);
    expect(receiver.calls.length).toBe(tried);
    // /metrics counts the attempts by outcome.
    const metrics = await (await hub.t.request('/metrics')).text();
    expect(metrics).toMatch(/webhook_attempts_total\{outcome="failed"\} [1-9]/);
    // Mended and enabled again: both brands arrive (two resources: in no particular order).
    receiver.behaviour = () => ({ status: 204 });
    const enabled = await hub.call('PATCH', `/webhooks/${id}`, {
      data: { type: 'webhooks', attributes: { is_active: true } },
    });
    expect(enabled.body.data.attributes).toMatchObject({ status: 'healthy', is_active: true });
    const entries = await logAfter(hub.database.db.prisma, from, ['brands']);
    await waitUntil(
      () => receiver.delivered().length >= 2,
      () => 'both brands',
      10_000,
    );
    expect(receiver.deliveredSeqs()).toEqual(entries.map((e) => e.seq));
  });
});
