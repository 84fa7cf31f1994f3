/**
 * Where a webhook may not call: each kind of address refused at creation, a name that resolves
 * to one of them, a name that resolves elsewhere later (DNS rebinding, refused on the connection
 * actually made), a redirect (never followed), https only unless allowed, and the allow-list.
 */
import type { LookupAddress } from 'node:dns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sleep, waitUntil } from '../support/live.ts';
import { Receiver } from '../support/receiver.ts';
import { createBrand, createEndpoint, type Hub, startHub, testWebhooks } from './support.ts';

const REFUSED: [string, string][] = [
  ['http://127.0.0.1/hook', 'a loopback address'],
  ['http://127.8.9.10/hook', 'a loopback address'],
  ['http://[::1]/hook', 'a loopback address'],
  ['http://[::ffff:127.0.0.1]/hook', 'a loopback address'],
  ['http://10.1.2.3/hook', 'a private address'],
  ['http://172.20.0.1/hook', 'a private address'],
  ['http://192.168.1.1/hook', 'a private address'],
  ['http://[fd12:3456::1]/hook', 'a private address'],
  ['http://169.254.10.10/hook', 'a link-local address'],
  ['http://[fe80::1]/hook', 'a link-local address'],
  ['http://169.254.169.254/latest/meta-data/', 'a cloud metadata address'],
  ['http://[fd00:ec2::254]/', 'a cloud metadata address'],
  ['http://100.100.100.200/', 'a cloud metadata address'],
  ['http://0.0.0.0/hook', 'an unspecified address'],
  ['http://100.64.1.1/hook', 'a shared (carrier-grade NAT) address'],
  ['http://localhost/hook', 'a loopback address'],
];

/** A resolver for names ending in .test, answering what `table` says now; other names as the system does. */
function testResolver(table: Map<string, string>) {
  return async (hostname: string): Promise<LookupAddress[]> => {
    const address = table.get(hostname);
    if (address) return [{ address, family: address.includes(':') ? 6 : 4 }];
    const { systemResolver } = await import('../../src/webhooks/targets.ts');
    return systemResolver(hostname);
  };
}

describe('webhook targets', () => {
  let hub: Hub;
  const receiver = new Receiver();
  const names = new Map<string, string>();

  beforeAll(async () => {
    // No network allowed but the public internet.
    hub = await startHub('sqlite', { webhooks: testWebhooks({ allowedNetworks: [] }), resolve: testResolver(names) });
    await receiver.start();
  });
  afterAll(async () => {
    await hub?.close();
    await receiver.stop();
  });

  const post = (url: string) => hub.call('POST', '/webhooks', { data: { type: 'webhooks', attributes: { url } } });

  it.each(REFUSED)('refuses %s (%s) at creation, and on change', async (url, why) => {
    const res = await post(url);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_attribute');
    expect(res.body.error.message).toContain(`url must not lead to ${why}`);
    names.set('public.test', '93.184.216.34');
    const { id } = await createEndpoint(hub, { url: 'http://public.test/hook', is_active: false });
    const patch = await hub.call('PATCH', `/webhooks/${id}`, { data: { type: 'webhooks', attributes: { url } } });
    expect(patch.status).toBe(400);
    await hub.call('DELETE', `/webhooks/${id}`);
  });

  it('refuses a name that resolves to a private address', async () => {
    names.set('intranet.test', '10.20.30.40');
    const res = await post('https://intranet.test/hook');
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain('intranet.test is 10.20.30.40');
  });

  it('refuses at delivery a name that resolved to a public address at creation and to a loopback one now (DNS rebinding)', async () => {
    receiver.calls.length = 0;
    names.set('rebind.test', '93.184.216.34');
    const { id } = await createEndpoint(hub, { url: `http://rebind.test:${receiver.port}/hook`, types: ['brands'] });
    names.set('rebind.test', '127.0.0.1');
    await createBrand(hub);
    let attempts: any[] = [];
    for (let i = 0; i < 100 && attempts.length === 0; i++) {
      await sleep(50);
      attempts = (await hub.call('GET', `/webhooks/${id}/deliveries`)).body.data.flatMap(
        (d: any) => d.attributes.attempt_log,
      );
    }
    expect(attempts.length).toBeGreaterThan(0);
    expect(attempts[0]).toMatchObject({ status_code: null });
    expect(attempts[0].error).toContain('rebind.test resolves to 127.0.0.1, a loopback address');
    expect(receiver.calls).toHaveLength(0);
    await hub.call('DELETE', `/webhooks/${id}`);
  });

  it('wants https unless http is allowed', async () => {
    const strict = await startHub('sqlite', { webhooks: testWebhooks({ allowHttp: false }), deliver: false });
    try {
      const res = await strict.call('POST', '/webhooks', {
        data: { type: 'webhooks', attributes: { url: 'http://example.com/hook' } },
      });
      expect(res.status).toBe(400);
      expect(res.body.error.message).toContain('url must be an https:// URL');
    } finally {
      await strict.close();
    }
  });
});

describe('webhook targets in an allowed network', () => {
  let hub: Hub;
  const receiver = new Receiver();
  const elsewhere = new Receiver();

  beforeAll(async () => {
    hub = await startHub('sqlite', { webhooks: testWebhooks({ allowedNetworks: ['127.0.0.0/8'] }) });
    await receiver.start();
    await elsewhere.start();
  });
  afterAll(async () => {
    await hub?.close();
    await receiver.stop();
    await elsewhere.stop();
  });

  it('never follows a redirect: the attempt fails with the 3xx, and the place it points at is not called', async () => {
    receiver.behaviour = () => ({ status: 302, headers: { Location: elsewhere.url } });
    const { id } = await createEndpoint(hub, { url: receiver.url, types: ['brands'] });
    await createBrand(hub);
    await waitUntil(
      () => receiver.calls.length >= 2,
      () => 'two attempts',
      10_000,
    );
    expect(elsewhere.calls).toHaveLength(0);
    await sleep(200);
    const [delivery] = (await hub.call('GET', `/webhooks/${id}/deliveries`)).body.data;
    expect(delivery.attributes.status).toBe('retrying');
    expect(delivery.attributes.attempt_log[0].status_code).toBe(302);
    await hub.call('DELETE', `/webhooks/${id}`);
  });

  it('gives up an attempt whose answer is too slow, and keeps only the first 1 KB of an answer', async () => {
    receiver.calls.length = 0;
    let first = true;
    receiver.behaviour = () => {
      const slow = first;
      first = false;
      return slow ? { status: 200, delayMs: 3000 } : { status: 200, body: 'x'.repeat(200_000) };
    };
    const { id } = await createEndpoint(hub, { url: receiver.url, types: ['brands'] });
    await createBrand(hub);
    let delivery: any;
    for (let i = 0; i < 200 && delivery?.attributes.status !== 'delivered'; i++) {
      await sleep(50);
      [delivery] = (await hub.call('GET', `/webhooks/${id}/deliveries`)).body.data;
    }
    expect(delivery.attributes.status).toBe('delivered');
    const [slow, big] = delivery.attributes.attempt_log;
    expect(slow.error).toContain('no complete answer within 2000 ms');
    expect(big.response).toHaveLength(1024);
    await hub.call('DELETE', `/webhooks/${id}`);
  });
});
