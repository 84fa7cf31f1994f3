/**
 * Where a webhook may not call: each kind of address refused at creation, a name that resolves
 * to one of them, a name that resolves elsewhere later (DNS rebinding, refused on the connection
 * actually made), a redirect (never followed), https only unless allowed, and the allow-list.
 */
import type { LookupAddress } from 'node:dns';
import ipaddr from 'ipaddr.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Targets } from '../../src/webhooks/targets.ts';
import { testApp } from '../support/app.ts';
import { providers } from '../support/databases.ts';
import { sleep, waitUntil } from '../support/live.ts';
import { Receiver } from '../support/receiver.ts';
import { createBrand, createEndpoint, type Hub, startHub, testWebhooks } from './support.ts';

const REFUSED: [string, string][] = [
  ['http://127.0.0.1/hook', 'a loopback address (127.0.0.1)'],
  ['http://127.8.9.10/hook', 'a loopback address'],
  ['http://[::1]/hook', 'a loopback address'],
  ['http://[::ffff:127.0.0.1]/hook', 'a loopback address (::ffff:7f00:1, which embeds 127.0.0.1)'],
  // IPv4-compatible spellings of loopback, as written and as the URL parser writes them.
  ['http://[::127.0.0.1]/hook', 'a loopback address (::7f00:1, which embeds 127.0.0.1)'],
  ['http://[::7f00:1]/hook', 'a loopback address (::7f00:1, which embeds 127.0.0.1)'],
  ['http://[64:ff9b::10.1.2.3]/hook', 'a private address (64:ff9b::a01:203, which embeds 10.1.2.3)'],
  ['http://[2002:c0a8:101::1]/hook', 'a private address (2002:c0a8:101::1, which embeds 192.168.1.1)'],
  ['http://10.1.2.3/hook', 'a private address'],
  ['http://172.20.0.1/hook', 'a private address'],
  ['http://192.168.1.1/hook', 'a private address'],
  ['http://[fd12:3456::1]/hook', 'a private (unique local) address'],
  ['http://169.254.10.10/hook', 'a link-local address'],
  ['http://[fe80::1]/hook', 'a link-local address'],
  ['http://169.254.169.254/latest/meta-data/', 'a link-local address'],
  ['http://[fd00:ec2::254]/', 'a private (unique local) address'],
  ['http://100.100.100.200/', 'a shared (carrier-grade NAT) address'],
  ['http://0.0.0.0/hook', 'an unspecified ("this network") address'],
  ['http://100.64.1.1/hook', 'a shared (carrier-grade NAT) address'],
  ['http://192.0.2.10/hook', 'an address reserved for documentation, benchmarking, protocol assignments or future use'],
  ['http://[2001:db8::1]/hook', 'an address reserved for documentation or protocol assignments'],
  ['http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/hook', 'a Teredo tunnel address'],
  ['http://localhost/hook', 'a loopback address'],
];

/**
 * IANA's IPv4 and IPv6 Special-Purpose Address Registries, every entry with its "Globally
 * Reachable" column ("N/A" counted as not), and the blocks of other registries a webhook must not
 * reach either (multicast, site-local, outside 2000::/3). `embeds`: an IPv6 block whose addresses
 * lead to the IPv4 address they carry, judged by it.
 */
const IPV4_REGISTRY: [block: string, name: string, reachable: boolean][] = [
  ['0.0.0.0/8', '"This network"', false],
  ['0.0.0.0/32', '"This host on this network"', false],
  ['10.0.0.0/8', 'Private-Use', false],
  ['100.64.0.0/10', 'Shared Address Space', false],
  ['127.0.0.0/8', 'Loopback', false],
  ['169.254.0.0/16', 'Link Local', false],
  ['172.16.0.0/12', 'Private-Use', false],
  ['192.0.0.0/24', 'IETF Protocol Assignments', false],
  ['192.0.0.0/29', 'IPv4 Service Continuity Prefix', false],
  ['192.0.0.8/32', 'IPv4 dummy address', false],
  ['192.0.0.9/32', 'Port Control Protocol Anycast', true],
  ['192.0.0.10/32', 'Traversal Using Relays around NAT Anycast', true],
  ['192.0.0.170/32', 'NAT64/DNS64 Discovery', false],
  ['192.0.0.171/32', 'NAT64/DNS64 Discovery', false],
  ['192.0.2.0/24', 'Documentation (TEST-NET-1)', false],
  ['192.31.196.0/24', 'AS112-v4', true],
  ['192.52.193.0/24', 'AMT', true],
  ['192.88.99.0/24', 'Deprecated (6to4 Relay Anycast)', false],
  ['192.88.99.2/32', '6a44-relay anycast address', false],
  ['192.168.0.0/16', 'Private-Use', false],
  ['192.175.48.0/24', 'Direct Delegation AS112 Service', true],
  ['198.18.0.0/15', 'Benchmarking', false],
  ['198.51.100.0/24', 'Documentation (TEST-NET-2)', false],
  ['203.0.113.0/24', 'Documentation (TEST-NET-3)', false],
  ['240.0.0.0/4', 'Reserved', false],
  ['255.255.255.255/32', 'Limited Broadcast', false],
  ['224.0.0.0/4', 'Multicast (its own registry)', false],
];

const IPV6_REGISTRY: [block: string, name: string, reachable: boolean | 'embeds'][] = [
  ['::1/128', 'Loopback Address', false],
  ['::/128', 'Unspecified Address', false],
  ['::ffff:0:0/96', 'IPv4-mapped Address', 'embeds'],
  ['64:ff9b::/96', 'IPv4-IPv6 Translat.', 'embeds'],
  ['64:ff9b:1::/48', 'IPv4-IPv6 Translat. (local use)', false],
  ['100::/64', 'Discard-Only Address Block', false],
  ['100:0:0:1::/64', 'Dummy IPv6 Prefix', false],
  ['2001::/23', 'IETF Protocol Assignments', false],
  ['2001::/32', 'TEREDO', false],
  ['2001:1::1/128', 'Port Control Protocol Anycast', true],
  ['2001:1::2/128', 'Traversal Using Relays around NAT Anycast', true],
  ['2001:1::3/128', 'DNS-SD Service Registration Protocol Anycast', true],
  ['2001:2::/48', 'Benchmarking', false],
  ['2001:3::/32', 'AMT', true],
  ['2001:4:112::/48', 'AS112-v6', true],
  ['2001:10::/28', 'Deprecated (previously ORCHID)', false],
  ['2001:20::/28', 'ORCHIDv2', true],
  ['2001:30::/28', 'Drone Remote ID Protocol Entity Tags (DETs) Prefix', true],
  ['2001:db8::/32', 'Documentation', false],
  ['2002::/16', '6to4', 'embeds'],
  ['2620:4f:8000::/48', 'Direct Delegation AS112 Service', true],
  ['3fff::/20', 'Documentation', false],
  ['5f00::/16', 'Segment Routing (SRv6) SIDs', false],
  ['fc00::/7', 'Unique-Local', false],
  ['fe80::/10', 'Link-Local Unicast', false],
  ['::/96', 'IPv4-compatible (deprecated, RFC 4291)', 'embeds'],
  ['::ffff:0:0:0/96', 'IPv4-translated (RFC 2765)', 'embeds'],
  ['fec0::/10', 'Site-local (deprecated, RFC 3879)', false],
  ['ff00::/8', 'Multicast', false],
  ['4000::/3', 'Reserved by the IETF (outside 2000::/3)', false],
];

/** The first and the last address of a block. */
function ends(block: string): string[] {
  const family = block.includes(':') ? ipaddr.IPv6 : ipaddr.IPv4;
  return [
    ...new Set([family.networkAddressFromCIDR(block).toString(), family.broadcastAddressFromCIDR(block).toString()]),
  ];
}

/** An IPv6 address of `block` that carries `ipv4` where that block carries it. */
function embedding(block: string, ipv4: string): string {
  const [a, b, c, d] = ipaddr.IPv4.parse(ipv4).octets as [number, number, number, number];
  const high = ((a << 8) | b).toString(16);
  const low = ((c << 8) | d).toString(16);
  if (block === '2002::/16') return `2002:${high}:${low}::1`;
  const prefix = {
    '::ffff:0:0/96': '::ffff:',
    '64:ff9b::/96': '64:ff9b::',
    '::/96': '::',
    '::ffff:0:0:0/96': '::ffff:0:',
  }[block];
  return `${prefix}${high}:${low}`;
}

/** The addresses to try for each entry, and whether the entry says the internet reaches them. */
const REGISTRY_ADDRESSES: [address: string, entry: string, reachable: boolean][] = [
  ...IPV4_REGISTRY.flatMap(([block, name, reachable]) =>
    ends(block).map((a): [string, string, boolean] => [a, `${block} ${name}`, reachable]),
  ),
  ...IPV6_REGISTRY.flatMap(([block, name, reachable]) =>
    reachable === 'embeds'
      ? [
          ['127.0.0.1', false],
          ['10.1.2.3', false],
          ['192.0.2.1', false],
          ['8.8.8.8', true],
        ].map(([ipv4, ok]): [string, string, boolean] => [
          embedding(block, ipv4 as string),
          `${block} ${name} with ${ipv4}`,
          ok as boolean,
        ])
      : ends(block).map((a): [string, string, boolean] => [a, `${block} ${name}`, reachable]),
  ),
  ['8.8.8.8', 'public IPv4', true],
  ['2606:4700::1111', 'public IPv6', true],
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

describe.each(providers)('webhook targets on %s', (provider) => {
  let hub: Hub;
  const receiver = new Receiver();
  const names = new Map<string, string>();
  /** An inactive endpoint (nothing is ever sent to it) whose URL the tests change. */
  let inactive: number;

  beforeAll(async () => {
    // No network allowed but the public internet.
    hub = await startHub(provider, { webhooks: testWebhooks({ allowedNetworks: [] }), resolve: testResolver(names) });
    await receiver.start();
    names.set('public.test', '93.184.216.34');
    inactive = (await createEndpoint(hub, { url: 'http://public.test/hook', is_active: false })).id;
  });
  afterAll(async () => {
    await hub?.close();
    await receiver.stop();
  });

  const post = (url: string) => hub.call('POST', '/webhooks', { data: { type: 'webhooks', attributes: { url } } });

  const patch = (url: string) =>
    hub.call('PATCH', `/webhooks/${inactive}`, { data: { type: 'webhooks', attributes: { url } } });

  it.each(REFUSED)('refuses %s (%s) at creation, and on change', async (url, why) => {
    for (const res of [await post(url), await patch(url)]) {
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_attribute');
      expect(res.body.error.message).toContain(`url must not lead to ${why}`);
    }
  });

  it('judges every entry of the special-purpose registries by its "Globally Reachable" column', async () => {
    const wrong: string[] = [];
    for (const [address, entry, reachable] of REGISTRY_ADDRESSES) {
      const res = await patch(`http://${address.includes(':') ? `[${address}]` : address}/hook`);
      const refused = res.status === 400 && String(res.body.error.message).startsWith('url must not lead to ');
      if (refused === reachable || (!refused && res.status !== 200))
        wrong.push(`${address} (${entry}): ${res.status} ${JSON.stringify(res.body?.error?.message ?? null)}`);
    }
    expect(wrong).toEqual([]);
  });

  it('refuses a name that resolves to a private address', async () => {
    names.set('intranet.test', '10.20.30.40');
    const res = await post('https://intranet.test/hook');
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe(
      'url must not lead to a private address (intranet.test is 10.20.30.40); an operator may allow its network in WEBHOOKS_ALLOWED_NETWORKS (CIDRs separated by commas, e.g. 10.20.0.0/16)',
    );
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

  it('wants https unless http is allowed, and says how to allow it', async () => {
    // Another app over the same database (the hub's token holds), with http:// not allowed.
    const strict = testApp(hub.database, { webhooks: testWebhooks({ allowHttp: false }) });
    try {
      const res = await strict.request('/webhooks', {
        method: 'POST',
        headers: { Authorization: `Bearer ${hub.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ data: { type: 'webhooks', attributes: { url: 'http://example.com/hook' } } }),
      });
      expect(res.status).toBe(400);
      expect((await res.json()).error.message).toBe(
        'url must be an https:// URL (an operator may allow http:// too by setting WEBHOOKS_ALLOW_HTTP=true)',
      );
    } finally {
      await strict.app.close();
    }
  });
});

describe('webhook targets on the connection a delivery opens', () => {
  /** What the delivery's lookup answers for `hostname` when the name resolves to `address`. */
  const lookup = (targets: Targets, hostname: string) =>
    new Promise<{ error: NodeJS.ErrnoException | null; address: unknown }>((resolve) =>
      targets.guardedLookup()(hostname, { all: true }, (error, address) => resolve({ error, address })),
    );
  const resolvingTo = (address: string) => async (): Promise<LookupAddress[]> => [
    { address, family: address.includes(':') ? 6 : 4 },
  ];

  it.each([
    ['::7f00:1', 'a loopback address (it embeds 127.0.0.1)'],
    ['64:ff9b::a9fe:a9fe', 'a link-local address (it embeds 169.254.169.254)'],
    ['198.51.100.7', 'an address reserved for documentation, benchmarking, protocol assignments or future use'],
    ['2001:db8::7', 'an address reserved for documentation or protocol assignments'],
  ])('refuses a name that resolves to %s now (DNS rebinding)', async (address, why) => {
    const targets = new Targets({ allowHttp: true, allowedNetworks: [], resolve: resolvingTo(address) });
    const { error } = await lookup(targets, 'rebind.test');
    expect(error?.code).toBe('EWEBHOOKTARGET');
    expect(error?.message).toBe(`rebind.test resolves to ${address}, ${why}: not called`);
  });

  it('lets a name through to an allowed network, in IPv4 and in an IPv6 spelling of it', async () => {
    for (const address of ['127.0.0.1', '::ffff:127.0.0.1', '::7f00:1']) {
      const targets = new Targets({ allowHttp: true, allowedNetworks: ['127.0.0.0/8'], resolve: resolvingTo(address) });
      expect(await lookup(targets, 'receiver.test')).toEqual({
        error: null,
        address: [{ address, family: address.includes(':') ? 6 : 4 }],
      });
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
