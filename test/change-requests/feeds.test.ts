/**
 * Change requests in the live feeds, on both databases: a subscription and a webhook endpoint
 * get a request's entries (created, then each state it moves to) when their client is its author
 * or may approve it, with the operations limited to the fields their role sees; a client of
 * neither kind gets none of them, though it follows every type.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { providers } from '../support/databases.ts';
import { CHANGES, type Send } from '../support/live.ts';
import { Receiver } from '../support/receiver.ts';
import { applyTestRoles, tokenWithRole } from '../support/roles.ts';
import { SseStream } from '../support/sse.ts';
import { createEndpoint, type Hub, startHub } from '../webhooks/support.ts';

const ROLES = {
  /** Changes brands only through approval. */
  editor: { brands: { read: {}, update: { approval: 'required' } } },
  /** Approves changes to brands, and sees every field of them. */
  quality: { brands: { read: {}, update: {}, approve: {} } },
  /** Approves changes to brands without seeing their reference. */
  blind_quality: { brands: { read: { fields: ['modified_date'] }, update: {}, approve: {} } },
  /** Reads brands; nothing to do with change requests. */
  shop: { brands: { read: {} } },
};

type Role = keyof typeof ROLES;

describe.each(providers)('change requests in subscriptions and webhooks on %s', (provider) => {
  let hub: Hub;
  const tokens = {} as Record<Role, string>;
  const receivers = {} as Record<Role, Receiver>;
  const streams = {} as Record<Role, SseStream>;
  /** Quality's follower that names no type: it gets the resources' entries only. */
  let unnamed: { stream: SseStream; receiver: Receiver };
  beforeAll(async () => {
    hub = await startHub(provider);
    const { db } = hub.database;
    await applyTestRoles(db, ROLES);
    const send: Send = (path, init) => hub.t.request(path, init);
    for (const role of Object.keys(ROLES) as Role[]) {
      tokens[role] = await tokenWithRole(hub.t, db, role);
      receivers[role] = new Receiver();
      await receivers[role].start();
      // Change requests' entries come to those that name them among the types they follow.
      await createEndpoint(hub, { url: receivers[role].url, types: ['brands', 'change_requests'] }, tokens[role]);
      const variables = { types: ['BRANDS', 'CHANGE_REQUESTS'] };
      streams[role] = await SseStream.open(send, { query: CHANGES, variables, token: tokens[role] });
      expect(streams[role].response.status).toBe(200);
    }
    unnamed = {
      stream: await SseStream.open(send, { query: CHANGES, token: tokens.quality }),
      receiver: new Receiver(),
    };
    await unnamed.receiver.start();
    await createEndpoint(hub, { url: unnamed.receiver.url }, tokens.quality);
  }, 60_000);
  afterAll(async () => {
    for (const stream of [...Object.values(streams), unnamed?.stream]) await stream?.close();
    for (const receiver of [...Object.values(receivers), unnamed?.receiver]) await receiver?.stop();
    await hub?.close();
  });

  it("a request's entries reach its author and approvers live, and no one else", async () => {
    const brand = await hub.call('POST', '/brands', { data: { type: 'brands', attributes: { reference: 'OLD' } } });
    expect(brand.status).toBe(201);
    const id = brand.body.data.id as string;
    const proposed = await hub.call(
      'PATCH',
      `/brands/${id}`,
      { data: { type: 'brands', id, attributes: { reference: 'NEW' } } },
      tokens.editor,
    );
    expect(proposed.status).toBe(202);
    const request = Number(proposed.body.data.id);
    const approved = await hub.call('POST', `/change_requests/${request}/approve`, undefined, tokens.quality);
    expect(approved.status).toBe(200);
    expect(approved.body.data.attributes.state).toBe('applied');
    // After it, a change everyone follows: once the shop has it, it had whatever came before.
    const marker = await hub.call('POST', '/brands', { data: { type: 'brands', attributes: { reference: 'LAST' } } });
    const last = Number(marker.body.data.id);

    const ofRequest = (changes: { type: string; id: number }[]) =>
      changes.filter((c) => c.type === 'CHANGE_REQUESTS' && c.id === request);
    const summary = (changes: { type: string; id: number; op: string }[]) =>
      changes.filter((c) => c.type === 'CHANGE_REQUESTS' || c.id === Number(id)).map((c) => [c.type, c.op]);
    const requestEntries = (receiver: Receiver) =>
      receiver.calls
        .map((c) => c.data.attributes)
        .filter((a) => a.resource_type === 'change_requests' && a.resource_id === request);
    for (const role of Object.keys(ROLES) as Role[]) {
      await streams[role].until(
        (s) => s.changes().some((c) => c.type === 'BRANDS' && c.id === last),
        `${role}: the last brand`,
      );
      await waitFor(() => receivers[role].calls.some((c) => c.data.attributes.resource_id === last), `${role}: hook`);
    }
    for (const role of ['editor', 'quality', 'blind_quality'] as const) {
      // Calls for different resources go side by side: the last brand's may come before these.
      await streams[role].until((s) => ofRequest(s.changes()).length === 2, `${role}: the request's two entries`);
      await waitFor(() => requestEntries(receivers[role]).length === 2, `${role}: the request's two calls`);
      expect(summary(streams[role].changes()), role).toEqual([
        ['BRANDS', 'CREATED'],
        ['CHANGE_REQUESTS', 'CREATED'],
        // An update of what the role does not see is not in its log.
        ...(role === 'blind_quality' ? [] : [['BRANDS', 'UPDATED']]),
        ['CHANGE_REQUESTS', 'UPDATED'],
      ]);
      const calls = requestEntries(receivers[role]);
      expect(
        calls.map((a) => [a.op, (a.after as { state: string }).state]),
        role,
      ).toEqual([
        ['created', 'pending'],
        ['updated', 'applied'],
      ]);
      const [created] = calls;
      const attributes = (created!.after as { operations: { data: { attributes: object } }[] }).operations[0]!.data
        .attributes;
      // Inside it, only what the role sees of a brand.
      expect(attributes, role).toEqual(role === 'blind_quality' ? {} : { reference: 'NEW' });
    }
    expect(ofRequest(streams.shop.changes())).toEqual([]);
    expect(receivers.shop.calls.filter((c) => c.data.attributes.resource_type === 'change_requests')).toEqual([]);
    // Quality again, following without naming types: the resources' entries, none of the request's.
    await unnamed.stream.until((s) => s.changes().some((c) => c.id === last), 'the last brand, unnamed');
    await waitFor(() => unnamed.receiver.calls.some((c) => c.data.attributes.resource_id === last), 'unnamed hook');
    expect(unnamed.stream.changes().filter((c) => c.type === 'CHANGE_REQUESTS')).toEqual([]);
    expect(requestEntries(unnamed.receiver)).toEqual([]);
  });

  it('an endpoint may follow change requests alone, but not filter them', async () => {
    const only = await createEndpoint(hub, { url: receivers.quality.url, types: ['change_requests'] }, tokens.quality);
    expect(only.id).toBeGreaterThan(0);
    const filtered = await hub.call(
      'POST',
      '/webhooks',
      {
        data: {
          type: 'webhooks',
          attributes: { url: receivers.quality.url, types: ['change_requests'], where: { change_requests: {} } },
        },
      },
      tokens.quality,
    );
    expect(filtered.status).toBe(400);
    expect(filtered.body.error.message).toMatch(/^where\.change_requests change requests cannot be filtered/);
  });
});

async function waitFor(done: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
