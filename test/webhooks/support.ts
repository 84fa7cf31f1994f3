/** What the webhook tests share: an app that delivers, a client of it, REST calls, writes. */
import { afterAll, beforeAll } from 'vitest';
import { createClient } from '../../src/auth/clients.ts';
import type { Config } from '../../src/config.ts';
import { loadConfig } from '../../src/config.ts';
import type { Resolver } from '../../src/webhooks/targets.ts';
import { testApp, type TestApp } from '../support/app.ts';
import { migratedDatabase, type MigratedDatabase } from '../support/databases.ts';
import { getTokens } from '../support/oauth.ts';
import type { Provider } from '../../src/db/url.ts';
import { Receiver } from '../support/receiver.ts';

export interface Hub {
  database: MigratedDatabase;
  t: TestApp;
  token: string;
  /** A REST call as the client; answers status and parsed body. */
  call(method: string, path: string, body?: unknown, token?: string): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

/** Delivery settings for tests: http to loopback, fast retries. */
export function testWebhooks(overrides: Partial<Config['webhooks']> = {}): Config['webhooks'] {
  return {
    ...loadConfig({}).webhooks,
    allowHttp: true,
    allowedNetworks: ['127.0.0.0/8'],
    firstRetryMs: 20,
    timeoutMs: 2000,
    ...overrides,
  };
}

export async function startHub(
  provider: Provider,
  {
    webhooks = testWebhooks(),
    resolve,
    deliver = true,
  }: { webhooks?: Config['webhooks']; resolve?: Resolver; deliver?: boolean } = {},
): Promise<Hub> {
  const database = await migratedDatabase(provider);
  const t = testApp(database, { webhooks }, { resolve } as never);
  if (deliver) t.app.startDeliveries();
  const client = await createClient(database.db.prisma, 'hooks', ['read', 'write']);
  const { access_token: token } = await getTokens(t, client, 'read write');
  const call = async (method: string, path: string, body?: unknown, as = token) => {
    const res = await t.request(path, {
      method,
      headers: { Authorization: `Bearer ${as}`, ...(body !== undefined && { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  return {
    database,
    t,
    token,
    call,
    close: async () => {
      await t.app.close();
      await database.cleanup();
    },
  };
}

let made = 0;

/** Creates a brand over REST; answers its id. */
export async function createBrand(hub: Hub, token?: string): Promise<number> {
  const res = await hub.call(
    'POST',
    '/brands',
    { data: { type: 'brands', attributes: { reference: `B-${++made}-${Date.now()}` } } },
    token,
  );
  if (res.status !== 201) throw new Error(`brand not created: ${res.status} ${JSON.stringify(res.body)}`);
  return Number(res.body.data.id);
}

export async function renameBrand(hub: Hub, id: number): Promise<void> {
  const res = await hub.call('PATCH', `/brands/${id}`, {
    data: { type: 'brands', id, attributes: { reference: `B-${++made}-${Date.now()}` } },
  });
  if (res.status !== 200) throw new Error(`brand not changed: ${res.status} ${JSON.stringify(res.body)}`);
}

/** Makes an endpoint; answers its id and secret. */
export async function createEndpoint(hub: Hub, attributes: Record<string, unknown>, token?: string) {
  const res = await hub.call('POST', '/webhooks', { data: { type: 'webhooks', attributes } }, token);
  if (res.status !== 201) throw new Error(`webhook not created: ${res.status} ${JSON.stringify(res.body)}`);
  return { id: Number(res.body.data.id), secret: String(res.body.data.attributes.secret) };
}

/**
 * A hub and a receiver for the suite it is called in: started before its tests, stopped after.
 * The hub is filled in when it has started.
 */
export function hubWithReceiver(provider: Provider, options: Parameters<typeof startHub>[1] = {}) {
  const hub = {} as Hub;
  const receiver = new Receiver();
  beforeAll(async () => {
    Object.assign(hub, await startHub(provider, options));
    await receiver.start();
  });
  afterAll(async () => {
    await hub.close?.();
    await receiver.stop();
  });
  return { hub, receiver };
}
