/** Webhook endpoints over GraphQL, on both databases: the same endpoints and rules as REST. */
import { describe, expect, it } from 'vitest';
import { createClient } from '../../src/auth/clients.ts';
import { providers } from '../support/databases.ts';
import { sleep, waitUntil } from '../support/live.ts';
import { getTokens } from '../support/oauth.ts';
import { Receiver } from '../support/receiver.ts';
import { applyTestRoles, EXAMPLE_ROLES, tokenWithRole } from '../support/roles.ts';
import { createBrand, hubWithReceiver } from './support.ts';

describe.each(providers)('webhooks over GraphQL (%s)', (provider) => {
  const { hub, receiver } = hubWithReceiver(provider);

  async function gql(query: string, variables: Record<string, unknown> = {}, token = hub.token) {
    const res = await hub.t.request('/graphql', {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
    return { status: res.status, ...((await res.json()) as { data?: any; errors?: any }) };
  }

  it('creates, lists, changes, replays, rotates and deletes an endpoint, and shows its deliveries', async () => {
    const created = await gql(
      `mutation($url: String!) { createWebhook(input: { url: $url, types: [BRANDS], ops: [CREATED], description: "search index" }) {
        secret webhook { id url types ops isActive status description } } }`,
      { url: receiver.url },
    );
    expect(created.errors).toBeUndefined();
    const { secret, webhook } = created.data.createWebhook;
    expect(secret).toMatch(/^whsec_/);
    expect(webhook).toMatchObject({
      url: receiver.url,
      types: ['BRANDS'],
      ops: ['CREATED'],
      isActive: true,
      status: 'HEALTHY',
    });
    const brand = await createBrand(hub);
    await waitUntil(
      () => receiver.calls.length >= 1,
      () => 'a call',
      10_000,
    );
    expect(Receiver.verify(secret, receiver.calls[0]!)).toBeTruthy();
    await sleep(200);
    const read = await gql(
      `query($id: Int!) { webhooks { id } webhook(id: $id) { id deliveries { id eventType resourceId status attempts attemptLog { statusCode } } } }`,
      { id: webhook.id },
    );
    expect(read.data.webhooks).toEqual([{ id: webhook.id }]);
    expect(read.data.webhook.deliveries).toEqual([
      {
        id: receiver.calls[0]!.id,
        eventType: 'brands.created',
        resourceId: brand,
        status: 'DELIVERED',
        attempts: 1,
        attemptLog: [{ statusCode: 204 }],
      },
    ]);
    const updated = await gql(
      `mutation($id: Int!) { updateWebhook(id: $id, input: { ops: [], isActive: false }) { ops isActive } }`,
      { id: webhook.id },
    );
    expect(updated.data.updateWebhook).toEqual({ ops: [], isActive: false });
    const bad = await gql(`mutation($id: Int!) { updateWebhook(id: $id, input: { url: "ftp://x" }) { id } }`, {
      id: webhook.id,
    });
    expect(bad.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'url' });
    const replayed = await gql(`mutation($id: Int!) { replayWebhook(id: $id, after: "0") { id } }`, { id: webhook.id });
    expect(replayed.errors).toBeUndefined();
    const expired = await gql(`mutation($id: Int!) { replayWebhook(id: $id, after: "999999999") { id } }`, {
      id: webhook.id,
    });
    expect(expired.errors[0].extensions.code).toBe('CURSOR_EXPIRED');
    const rotated = await gql(`mutation($id: Int!) { rotateWebhookSecret(id: $id) { secret } }`, { id: webhook.id });
    expect(rotated.data.rotateWebhookSecret.secret).not.toBe(secret);

    // Another client sees none of it.
    const other = await createClient(hub.database.db.prisma, 'other', ['read', 'write']);
    const { access_token: otherToken } = await getTokens(hub.t, other, 'read write');
    const theirs = await gql(
      `query($id: Int!) { webhooks { id } webhook(id: $id) { id } }`,
      { id: webhook.id },
      otherToken,
    );
    expect(theirs.data).toEqual({ webhooks: [], webhook: null });
    const theirDelete = await gql(`mutation($id: Int!) { deleteWebhook(id: $id) }`, { id: webhook.id }, otherToken);
    expect(theirDelete.errors[0].extensions.code).toBe('NOT_FOUND');
    // A read-only token may not even list them.
    const reader = await createClient(hub.database.db.prisma, 'reader', ['read']);
    const { access_token: readToken } = await getTokens(hub.t, reader, 'read');
    expect((await gql('{ webhooks { id } }', {}, readToken)).errors[0].extensions.code).toBe('FORBIDDEN');

    expect((await gql(`mutation($id: Int!) { deleteWebhook(id: $id) }`, { id: webhook.id })).data.deleteWebhook).toBe(
      webhook.id,
    );
    expect((await gql(`query($id: Int!) { webhook(id: $id) { id } }`, { id: webhook.id })).data.webhook).toBeNull();
  });

  it('is in the schema of a restricted role, with only the types it reads', async () => {
    await applyTestRoles(hub.database.db, EXAMPLE_ROLES);
    const shop = await tokenWithRole(hub.t, hub.database.db, 'web_shop');
    const forbidden = await gql(
      `mutation($url: String!) { createWebhook(input: { url: $url, types: [SUPPLIERS] }) { secret } }`,
      { url: receiver.url },
      shop,
    );
    expect(forbidden.errors[0].message).toContain('SUPPLIERS');
    const made = await gql(
      `mutation($url: String!) { createWebhook(input: { url: $url, types: [PRODUCTS] }) { webhook { types } } }`,
      { url: receiver.url },
      shop,
    );
    expect(made.data.createWebhook.webhook.types).toEqual(['PRODUCTS']);
  });
});
