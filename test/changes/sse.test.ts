/**
 * What Server-Sent Events do their own way (Yoga's distinct-connections transport: POST or GET
 * /graphql with `Accept: text/event-stream`), through the in-memory app over real databases:
 * the answer is HTTP's (200 `text/event-stream` once the subscription runs, over GET as over
 * POST; 401 and 403 with RFC 6750's errors before any stream), and pings keep a stream open.
 *
 * The contract, over this transport and WebSocket alike, is in ./live.test.ts (with the 12 s
 * heartbeat of the service as deployed).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { restartChangeLog } from '../../src/data/changes.ts';
import type { PrismaTx } from '../../src/db/client.ts';
import { testApp } from '../support/app.ts';
import { migratedDatabase, providers, type MigratedDatabase } from '../support/databases.ts';
import {
  CHANGES,
  createBrand,
  createUnit,
  logAfter,
  logHead,
  clientWithTokens,
  type Send,
  seqsOf,
  sleep,
} from '../support/live.ts';
import { SseStream } from '../support/sse.ts';

describe.each(providers)('subscription { changes } over Server-Sent Events, in memory, on %s', (provider) => {
  let database: MigratedDatabase;
  let send: Send;
  const streams: SseStream[] = [];

  beforeAll(async () => {
    database = await migratedDatabase(provider);
    const t = testApp(database);
    send = (path, init) => t.request(path, init);
  });
  afterEach(async () => {
    for (const stream of streams.splice(0)) await stream.close();
  });
  afterAll(async () => {
    await database?.cleanup();
  });

  const newClient = (scopes?: string[]) => clientWithTokens(database.db.prisma, send, scopes);

  /** Opens a subscription stream (closed after the test). */
  async function subscribe(token: string | null, method?: 'GET' | 'POST'): Promise<SseStream> {
    const stream = await SseStream.open(send, { query: CHANGES, token, method });
    streams.push(stream);
    return stream;
  }

  it('answers 200 `text/event-stream` once the subscription runs, over GET as over POST: from then on, nothing older', async () => {
    const { access_token: token } = await newClient();
    await createBrand(send, token);
    const head = await logHead(database.db.prisma);
    const post = await subscribe(token);
    const get = await subscribe(token, 'GET');
    expect([post.status, get.status]).toEqual([200, 200]);
    for (const stream of [post, get]) expect(stream.contentType).toMatch(/^text\/event-stream/);
    await createUnit(send, token);
    const log = await logAfter(database.db.prisma, head);
    expect(log).toHaveLength(1);
    for (const stream of [post, get]) {
      await stream.until((s) => s.changes().length === 1, 'the change made after subscribing');
      expect(seqsOf(stream.changes())).toEqual([log[0]!.seq]);
    }
    // Nothing else arrives: the earlier brand was not replayed.
    await sleep(300);
    expect(post.changes()).toHaveLength(1);
    expect(get.changes()).toHaveLength(1);
  });

  it('refuses without a token or with a bad one: 401 from HTTP, no stream (403 without the read scope)', async () => {
    const none = await subscribe(null);
    expect(none.status).toBe(401);
    expect(none.response.headers.get('www-authenticate')).toMatch(/^Bearer realm="master-data"/);
    const bad = await subscribe('mda_not-a-token');
    expect(bad.status).toBe(401);
    expect(bad.response.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    expect(await bad.text()).toContain('"code":"UNAUTHENTICATED"');
    // The read scope is needed, and enough.
    const { access_token: writeOnly } = await newClient(['write']);
    const forbidden = await subscribe(writeOnly);
    expect(forbidden.status).toBe(403);
    expect(forbidden.response.headers.get('www-authenticate')).toMatch(/error="insufficient_scope"/);
    expect(await forbidden.text()).toContain('"code":"FORBIDDEN"');
    const { access_token: read } = await newClient(['read']);
    const ok = await subscribe(read);
    expect(ok.status).toBe(200);
    await ok.until((s) => s.comments.length > 0, 'the first ping');
    expect(ok.completed).toBeUndefined();
  });

  it('subscribers of one operation share its events, each as its own variables select it', async () => {
    const { access_token: token } = await newClient();
    const query = `subscription($after: String, $withActor: Boolean!) {
      changes(after: $after) { cursor op actor @include(if: $withActor) }
    }`;
    const before = await logHead(database.db.prisma);
    await createUnit(send, token);
    const open = async (variables: Record<string, unknown>) => {
      const stream = await SseStream.open(send, { query, token, variables });
      streams.push(stream);
      return stream;
    };
    const [withActor, without, replaying] = await Promise.all([
      open({ withActor: true }),
      open({ withActor: false }),
      open({ withActor: true, after: String(before) }),
    ]);
    await createUnit(send, token);
    const log = await logAfter(database.db.prisma, before);
    const expected = (entries: typeof log, actor: boolean) =>
      entries.map((e) => ({ cursor: String(e.seq), op: 'CREATED', ...(actor ? { actor: e.actor } : {}) }));
    await replaying.until((s) => s.changes().length === 2, 'the replayed change and the live one');
    await withActor.until((s) => s.changes().length === 1, 'the live change');
    await without.until((s) => s.changes().length === 1, 'the live change');
    expect(replaying.changes()).toEqual(expected(log, true));
    expect(withActor.changes()).toEqual(expected(log.slice(1), true));
    expect(without.changes()).toEqual(expected(log.slice(1), false));
  });

  it('a burst of changes committed together reaches a subscriber that reads them, whatever SUBSCRIPTION_MAX_BACKLOG', async () => {
    const small = testApp(database, { subscriptions: { max: 10, perClient: 10, maxBacklog: 3 } });
    const sendSmall: Send = (path, init) => small.request(path, init);
    const { access_token: token } = await clientWithTokens(database.db.prisma, sendSmall);
    const stream = await SseStream.open(sendSmall, { query: CHANGES, token });
    streams.push(stream);
    const unit = await createUnit(sendSmall, token);
    const create = 'mutation($u: Int!, $r: String!) { createProduct(input: { reference: $r, unitId: $u }) { id } }';
    const [product, part] = await Promise.all(
      ['A', 'B'].map(async (n) => {
        const data = await graphqlOf(sendSmall, token, create, { u: unit, r: `BURST-${n}-${provider}-${Date.now()}` });
        return Number(data.createProduct.id);
      }),
    );
    await stream.until((s) => s.changes().length === 3, 'the unit and the two products');
    const head = await logHead(database.db.prisma);
    // One write, 12 entries read at once: the product, its new structure and 10 items.
    await graphqlOf(
      sendSmall,
      token,
      'mutation($p: Int!, $items: [ProductStructureItemInput!]) { createProductStructure(productId: $p, input: { items: $items }) { id } }',
      { p: product, items: Array.from({ length: 10 }, () => ({ productId: part, netQuantity: 1 })) },
    );
    const log = await logAfter(database.db.prisma, head);
    expect(log.length).toBe(12);
    await stream.until((s) => s.changes().length === 3 + log.length, 'every change of the burst');
    expect(seqsOf(stream.changes().slice(3))).toEqual(log.map((e) => e.seq));
    expect(stream.errorResults()).toEqual([]);
  });

  it('when the log is replaced under it (seed --replace, a purge that overtakes it), a live subscriber ends with CURSOR_EXPIRED and new ones are served', async () => {
    const { access_token: token } = await newClient();
    const live = await subscribe(token);
    await createUnit(send, token);
    await live.until((s) => s.changes().length === 1, 'a change before the log is replaced');
    await database.db.prisma.$transaction((tx: PrismaTx) => restartChangeLog(tx, provider));
    await createUnit(send, token);
    expect(await live.endCode()).toBe('CURSOR_EXPIRED');
    const fresh = await subscribe(token);
    const head = await logHead(database.db.prisma);
    await createUnit(send, token);
    await fresh.until((s) => s.changes().length === 1, 'a change after the log was replaced');
    expect(seqsOf(fresh.changes())).toEqual((await logAfter(database.db.prisma, head)).map((e) => e.seq));
  });
});

/** A GraphQL operation's data (failing on errors). */
async function graphqlOf(send: Send, token: string, query: string, variables: Record<string, unknown>) {
  const res = await send('/graphql', {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await res.json()) as { data?: any; errors?: unknown[] };
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  return body.data;
}
