/**
 * `subscription { changes(after, types) }` over Server-Sent Events (Yoga's distinct-connections
 * transport: POST or GET /graphql with `Accept: text/event-stream`), through the in-memory app
 * over real databases: replay after a cursor then live, in cursor order; resuming from the last
 * cursor misses nothing; the `types` filter; the ways a stream ends (TOKEN_REVOKED within 1 s of
 * a revocation, TOKEN_EXPIRED at the token's expiry, SUBSCRIBER_BEHIND) and the ways one is
 * refused (no or bad token, bad or expired cursor, TOO_MANY_SUBSCRIPTIONS, mutations).
 *
 * The WebSocket transport, a real server's sockets and the heartbeat are in ./websocket.test.ts;
 * two processes on one PostgreSQL database in ./processes.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/auth/clients.ts';
import { digest } from '../../src/auth/secrets.ts';
import { loadConfig } from '../../src/config.ts';
import { purgeChanges } from '../../src/data/changes.ts';
import { testApp, type TestApp } from '../support/app.ts';
import { migratedDatabase, providers, type MigratedDatabase } from '../support/databases.ts';
import {
  CHANGES,
  createBrand,
  createUnit,
  elapsed,
  expectGapless,
  logAfter,
  logHead,
  revokeToken,
  type Send,
  seqsOf,
  sleep,
  tokensOf,
  waitUntil,
} from '../support/live.ts';
import { SseStream } from '../support/sse.ts';

/** Subscription limits as the service's defaults have them, with `overrides`. */
const limits = (overrides: Partial<ReturnType<typeof loadConfig>['subscriptions']>) => ({
  subscriptions: { ...loadConfig({}).subscriptions, ...overrides },
});

describe.each(providers)('subscription { changes } over Server-Sent Events on %s', (provider) => {
  let database: MigratedDatabase;
  let t: TestApp;
  let send: Send;
  const streams: SseStream[] = [];

  beforeAll(async () => {
    database = await migratedDatabase(provider);
    t = testApp(database);
    send = (path, init) => t.request(path, init);
  });
  afterAll(async () => {
    for (const stream of streams) await stream.cancel();
    await database?.cleanup();
  });

  /** A new API client (read and write) and its tokens, from `app`'s token endpoint. */
  async function newClient(scopes = ['read', 'write'], app: Send = send) {
    const client = await createClient(database.db.prisma, `live-${scopes.join('-')}`, scopes);
    return { client, ...(await tokensOf(app, client)) };
  }

  /** Opens a subscription stream (closed after the suite). */
  async function subscribe(
    token: string | null,
    variables: { after?: string; types?: string[] } = {},
    options: { app?: Send; method?: 'GET' | 'POST' } = {},
  ): Promise<SseStream> {
    const stream = await SseStream.open(options.app ?? send, {
      query: CHANGES,
      variables,
      token,
      method: options.method,
    });
    streams.push(stream);
    return stream;
  }

  /** The code of the error a refused or ended stream carried last, then `complete`. */
  async function endCode(stream: SseStream): Promise<string | undefined> {
    const end = await stream.ended();
    return end?.data.errors[0].extensions?.code;
  }

  /** Whether `stream` was refused (it completes at once) rather than admitted (it stays open). */
  async function refused(stream: SseStream): Promise<boolean> {
    try {
      await stream.until((s) => s.completed() !== undefined, 'a refusal', 500);
      return true;
    } catch {
      return false;
    }
  }

  it('replays what is after `after`, then follows live, in cursor order; each event is the log entry', async () => {
    const { client, access_token: token } = await newClient();
    const from = await logHead(database.db.prisma);
    const brand = await createBrand(send, token);
    await createUnit(send, token);
    await createBrand(send, token);

    const stream = await subscribe(token, { after: String(from) });
    expect(stream.status).toBe(200);
    expect(stream.contentType).toMatch(/^text\/event-stream/);
    await stream.until((s) => s.changes().length === 3, 'the three changes made before subscribing');
    for (let i = 0; i < 3; i++) await createBrand(send, token);
    await stream.until((s) => s.changes().length === 6, 'the three changes made after');

    const log = await logAfter(database.db.prisma, from);
    expect(seqsOf(stream.changes())).toEqual(log.map((e) => e.seq));
    expect(stream.changes()[0]).toEqual({
      cursor: String(log[0]!.seq),
      type: 'BRANDS',
      id: brand,
      op: 'CREATED',
      version: 1,
      changed: expect.arrayContaining(['reference']),
      actor: client.client_id,
      at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/),
    });
    expect(stream.changes().map((c) => c.type)).toEqual(['BRANDS', 'UNITS', 'BRANDS', 'BRANDS', 'BRANDS', 'BRANDS']);
    expect(stream.completed()).toBeUndefined();
  });

  it('without `after`: from now on, nothing older; over GET as over POST', async () => {
    const { access_token: token } = await newClient();
    await createBrand(send, token);
    const head = await logHead(database.db.prisma);
    const post = await subscribe(token);
    const get = await subscribe(token, {}, { method: 'GET' });
    expect([post.status, get.status]).toEqual([200, 200]);
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

  it('a client that disconnects and resumes from its last cursor gets every change in order: writes while connected and while away', async () => {
    const { access_token: token } = await newClient();
    const from = await logHead(database.db.prisma);
    // Two writers at once, all along: changes commit while a connection is open, while none is,
    // and while one is starting.
    let writing = true;
    let written = 0;
    const writer = async () => {
      while (writing) {
        await createBrand(send, token, 'RESUME');
        written++;
        // In memory and on SQLite a write never waits for I/O: let timers and streams run.
        await sleep(1);
      }
    };
    const writers = [writer(), writer()];
    const writtenBy = (count: number) => {
      const target = written + count;
      return waitUntil(
        () => written >= target,
        () => `${count} more writes`,
        15_000,
      );
    };
    try {
      const connections: number[][] = [];
      let after = String(from);
      for (let round = 0; round < 3; round++) {
        const stream = await subscribe(token, { after });
        await stream.until((s) => s.changes().length >= 8, 'eight changes on this connection', 20_000);
        await stream.cancel();
        connections.push(seqsOf(stream.changes()));
        after = stream.changes().at(-1)!.cursor;
        // Away: more writes commit before the next connection.
        await writtenBy(5);
      }
      writing = false;
      await Promise.all(writers);
      const log = (await logAfter(database.db.prisma, from)).map((e) => e.seq);
      const last = await subscribe(token, { after });
      await last.until((s) => s.changes().at(-1)?.cursor === String(log.at(-1)), 'the last change', 20_000);
      connections.push(seqsOf(last.changes()));
      expect(log.length).toBeGreaterThan(30);
      expectGapless(connections, log);
    } finally {
      writing = false;
      await Promise.allSettled(writers);
    }
  });

  it('`types` keeps only changes of those types, in replay and live', async () => {
    const { access_token: token } = await newClient();
    const from = await logHead(database.db.prisma);
    await createBrand(send, token);
    await createUnit(send, token);
    const units = await subscribe(token, { after: String(from), types: ['UNITS'] });
    const both = await subscribe(token, { after: String(from), types: ['UNITS', 'BRANDS'] });
    await units.until((s) => s.changes().length === 1, 'the unit made before subscribing', 8000);
    await createBrand(send, token);
    await createUnit(send, token);
    await createBrand(send, token);
    await both.until((s) => s.changes().length === 5, 'all five changes');
    await units.until((s) => s.changes().length === 2, 'the two units');
    expect(seqsOf(units.changes())).toEqual((await logAfter(database.db.prisma, from, ['units'])).map((e) => e.seq));
    expect(units.changes().map((c) => c.type)).toEqual(['UNITS', 'UNITS']);
    expect(seqsOf(both.changes())).toEqual((await logAfter(database.db.prisma, from)).map((e) => e.seq));
    await sleep(200);
    expect(units.changes()).toHaveLength(2);
  });

  it('arguments written in the document, or given by variables of other names, work as `$after` and `$types` do', async () => {
    const { access_token: token } = await newClient();
    const from = await logHead(database.db.prisma);
    await createBrand(send, token);
    const unit = await createUnit(send, token);
    const inline = await SseStream.open(send, {
      query: `subscription { changes(after: "${from}", types: [UNITS]) { cursor type id } }`,
      token,
    });
    const renamed = await SseStream.open(send, {
      query:
        'subscription($since: String, $only: [ResourceType!]) { changes(after: $since, types: $only) { cursor type id } }',
      variables: { since: String(from), only: ['UNITS'] },
      token,
    });
    streams.push(inline, renamed);
    const [entry] = await logAfter(database.db.prisma, from, ['units']);
    const expected = [{ cursor: String(entry!.seq), type: 'UNITS', id: unit }];
    for (const stream of [inline, renamed]) {
      await stream.until((s) => s.events.length > 0, 'the unit made before subscribing', 5000);
      expect(stream.changes(), stream.describe()).toEqual(expected);
    }
  });

  it('ends within 1 s of an RFC 7009 revocation with TOKEN_REVOKED, then completes (access token, or the refresh token of its grant)', async () => {
    const { client, access_token: first } = await newClient(['read']);
    const second = await tokensOf(send, client);
    const byAccess = await subscribe(first);
    const byRefresh = await subscribe(second.access_token);
    const { access_token: writer } = await newClient();
    await createBrand(send, writer);
    await byAccess.until((s) => s.changes().length === 1, 'a change before the revocation');
    await byRefresh.until((s) => s.changes().length === 1, 'a change before the revocation');

    await revokeToken(send, client, first);
    const revokedAt = elapsed();
    expect(await endCode(byAccess)).toBe('TOKEN_REVOKED');
    const afterAccess = byAccess.errorEvents()[0]!.t - revokedAt;
    expect(afterAccess, 'ms from the revocation to the end of the stream').toBeLessThan(1000);
    expect(byRefresh.completed(), 'another token of the client is not touched').toBeUndefined();

    await revokeToken(send, client, second.refresh_token);
    const familyRevokedAt = elapsed();
    expect(await endCode(byRefresh)).toBe('TOKEN_REVOKED');
    expect(byRefresh.errorEvents()[0]!.t - familyRevokedAt).toBeLessThan(1000);

    const [end] = byAccess.errorEvents();
    expect(end!.data).toEqual({
      data: null,
      errors: [expect.objectContaining({ message: expect.stringMatching(/revoked/), path: ['changes'] })],
    });
    // complete right after the reason, and the body ends.
    expect(byAccess.events.at(-1)!.event).toBe('complete');
    await byAccess.until((s) => s.finished, 'the body to end', 2000);
    // The revoked token opens no new stream.
    const again = await subscribe(first);
    expect(again.status).toBe(401);
    console.info(
      `[${provider}] revocation to end of stream: ${Math.round(afterAccess)} ms (access token), ${Math.round(byRefresh.errorEvents()[0]!.t - familyRevokedAt)} ms (refresh token)`,
    );
  });

  it("ends at the token's expiry with TOKEN_EXPIRED: not before, within a few hundred ms after", async () => {
    const short = testApp(database, { accessTokenTtl: 3 });
    const app: Send = (path, init) => short.request(path, init);
    const { access_token: token } = await newClient(['read', 'write'], app);
    const { expires_at } = await database.db.prisma.oAuthToken.findUniqueOrThrow({
      where: { digest: digest(token) },
    });
    const expiresAt = expires_at.getTime();
    expect(expiresAt - Date.now()).toBeGreaterThan(2000);
    const stream = await subscribe(token, {}, { app });
    await createBrand(app, token);
    await stream.until((s) => s.changes().length === 1, 'a change before the expiry');

    expect(await endCode(stream)).toBe('TOKEN_EXPIRED');
    const end = stream.errorEvents()[0]!;
    console.info(`[${provider}] expiry to end of stream: ${end.at - expiresAt} ms`);
    expect(end.at, 'the stream ended before its token expired').toBeGreaterThanOrEqual(expiresAt);
    expect(end.at - expiresAt, 'ms from the expiry to the end of the stream').toBeLessThan(500);
    expect(end.data.errors[0].message).toMatch(/expired/);
  });

  it('refuses without a token or with a bad one: 401 from HTTP, no stream (403 without the read scope)', async () => {
    const none = await subscribe(null);
    expect(none.status).toBe(401);
    expect(none.response.headers.get('www-authenticate')).toMatch(/^Bearer realm="master-data"/);
    const bad = await subscribe('mda_not-a-token');
    expect(bad.status).toBe(401);
    expect(bad.response.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    expect(JSON.parse(await bad.text())).toMatchObject({ error: 'invalid_token' });
    // The read scope is needed, and enough.
    const { access_token: writeOnly } = await newClient(['write']);
    const forbidden = await subscribe(writeOnly);
    expect(forbidden.status).toBe(403);
    expect(JSON.parse(await forbidden.text())).toMatchObject({ error: 'insufficient_scope' });
    const { access_token: read } = await newClient(['read']);
    const ok = await subscribe(read);
    expect(ok.status).toBe(200);
    await ok.until((s) => s.comments.length > 0, 'the first ping');
    expect(ok.completed()).toBeUndefined();
  });

  it('a mutation over SSE is refused with a clear error, and writes nothing', async () => {
    const { access_token: token } = await newClient();
    const head = await logHead(database.db.prisma);
    const stream = await SseStream.open(send, {
      query: 'mutation { createBrand(input: { reference: "OVER-SSE" }) { id } }',
      token,
    });
    expect(stream.status).toBe(200);
    const end = await stream.ended();
    expect(end?.data.errors).toEqual([
      expect.objectContaining({
        message: expect.stringMatching(/mutations are not taken over a stream: send them as a plain POST/),
        extensions: { code: 'BAD_REQUEST' },
      }),
    ]);
    expect(await logHead(database.db.prisma)).toBe(head);
    expect(await database.db.prisma.brand.count({ where: { reference: 'OVER-SSE' } })).toBe(0);
  });

  it('TOO_MANY_SUBSCRIPTIONS beyond SUBSCRIPTIONS_PER_CLIENT (per API client) and SUBSCRIPTIONS_MAX (per replica)', async () => {
    const limited = testApp(database, limits({ perClient: 2 }));
    const app: Send = (path, init) => limited.request(path, init);
    const { access_token: token } = await newClient();
    const first = await subscribe(token, {}, { app });
    const second = await subscribe(token, {}, { app });
    const third = await subscribe(token, {}, { app });
    expect(await endCode(third)).toBe('TOO_MANY_SUBSCRIPTIONS');
    expect(third.errorEvents()[0]!.data.errors[0].message).toMatch(/this API client has 2 subscriptions open/);
    // Both places work: a change reaches them.
    await createBrand(send, token);
    await first.until((s) => s.changes().length === 1, 'a change');
    await second.until((s) => s.changes().length === 1, 'a change');
    // The limit is per client: another one is admitted.
    const { access_token: other } = await newClient();
    expect(await refused(await subscribe(other, {}, { app }))).toBe(false);

    // SUBSCRIPTIONS_MAX: the replica's limit, whoever asks.
    const full = testApp(database, limits({ max: 1 }));
    const fullApp: Send = (path, init) => full.request(path, init);
    expect(await refused(await subscribe(token, {}, { app: fullApp }))).toBe(false);
    const overReplica = await subscribe(other, {}, { app: fullApp });
    expect(await endCode(overReplica)).toBe('TOO_MANY_SUBSCRIPTIONS');
    expect(overReplica.errorEvents()[0]!.data.errors[0].message).toMatch(/this server has 1 subscriptions open/);
  });

  it('a client that cancels its stream frees its place at once: a new subscription is admitted, up to the limit again', async () => {
    const limited = testApp(database, limits({ perClient: 2 }));
    const app: Send = (path, init) => limited.request(path, init);
    const { access_token: token } = await newClient();
    // Yoga pings every 300 ms under NODE_ENV=test (which the test runner sets), every 12 s
    // otherwise: streams made as in production, so that a ping cannot stand in for the cancel.
    const nodeEnv = process.env.NODE_ENV;
    process.env.NODE_ENV = 'production';
    let first: SseStream;
    try {
      first = await subscribe(token, {}, { app });
      await subscribe(token, {}, { app });
    } finally {
      process.env.NODE_ENV = nodeEnv;
    }
    expect(await endCode(await subscribe(token, {}, { app }))).toBe('TOO_MANY_SUBSCRIPTIONS');

    await first.cancel();
    const left = elapsed();
    let admitted: SseStream | undefined;
    let ms = 0;
    while (!admitted && elapsed() - left < 14_000) {
      ms = Math.round(elapsed() - left);
      const attempt = await subscribe(token, {}, { app });
      if (!(await refused(attempt))) admitted = attempt;
      else await sleep(100);
    }
    console.info(
      `[${provider}] a cancelled SSE stream: a new subscription admitted when asked ${admitted ? ms : '> 14000'} ms later`,
    );
    expect(admitted, 'the cancelled stream still held its place 14 s later').toBeDefined();
    expect(ms, `the cancelled stream held its place for ${ms} ms`).toBeLessThan(2000);
    expect(await endCode(await subscribe(token, {}, { app }))).toBe('TOO_MANY_SUBSCRIPTIONS');
  });

  it('SUBSCRIBER_BEHIND: a consumer that does not read is ended once more than SUBSCRIPTION_MAX_BACKLOG changes wait; it resumes from its last cursor', async () => {
    const slowApp = testApp(database, limits({ maxBacklog: 3 }));
    const { access_token: token } = await newClient();
    const from = await logHead(database.db.prisma);
    const res = await slowApp.request('/graphql', {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'text/event-stream' },
      body: JSON.stringify({ query: CHANGES }),
    });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const readUntil = async (pattern: RegExp) => {
      while (!pattern.test(text)) {
        const { done, value } = await reader.read();
        if (done) throw new Error(`the stream ended before ${pattern}: ${text}`);
        text += decoder.decode(value, { stream: true });
      }
    };
    try {
      // One change read, so the subscriber is live; then it stops reading while 200 more commit
      // (the first few dozen fill the buffers between the subscriber and the client).
      await createBrand(send, token);
      await readUntil(/event: next\ndata: .*\n\n/);
      for (let i = 0; i < 200; i++) await createBrand(send, token);
      await sleep(300);
      await readUntil(/event: complete/);
    } finally {
      await reader.cancel().catch(() => undefined);
    }
    const results = [...text.matchAll(/event: next\ndata: (.*)\n/g)].map((m) => JSON.parse(m[1]!));
    const end = results.at(-1)!;
    expect(end.errors[0].extensions.code).toBe('SUBSCRIBER_BEHIND');
    expect(end.errors[0].message).toMatch(/more than 3 changes were waiting/);
    const received = results.slice(0, -1).map((r) => r.data.changes);
    console.info(`[${provider}] the slow consumer got ${received.length} of 201 changes before SUBSCRIBER_BEHIND`);
    expect(received.length).toBeGreaterThanOrEqual(1);
    expect(received.length).toBeLessThan(201);
    // Resumed from the last cursor it got: the rest, nothing missing.
    const resumed = await subscribe(token, { after: received.at(-1).cursor });
    const log = (await logAfter(database.db.prisma, from)).map((e) => e.seq);
    await resumed.until((s) => s.changes().at(-1)?.cursor === String(log.at(-1)), 'the last change');
    expectGapless([seqsOf(received), seqsOf(resumed.changes())], log);
  });

  it('refuses a malformed cursor (BAD_USER_INPUT), a foreign one and an expired one (CURSOR_EXPIRED)', async () => {
    const { access_token: token } = await newClient();
    for (const after of ['x', '-1', '1.5', '12345678901']) {
      const stream = await subscribe(token, { after });
      expect(stream.status).toBe(200);
      const end = await stream.ended();
      expect(end?.data.errors[0].extensions, after).toEqual({ code: 'BAD_USER_INPUT', field: 'after' });
      expect(end?.data.errors[0].message).toMatch(/after must be a cursor from this service/);
    }
    await createBrand(send, token);
    const head = await logHead(database.db.prisma);
    // Past the end of this log: not given out by this database.
    const foreign = await subscribe(token, { after: String(head + 1000) });
    expect(await endCode(foreign)).toBe('CURSOR_EXPIRED');
    expect(foreign.errorEvents()[0]!.data.errors[0].message).toMatch(/past the end of this log/);
    // Before the horizon: every entry so far purged (as by CHANGES_RETENTION_DAYS, a year on).
    const oldest = (await database.db.prisma.change.aggregate({ _min: { seq: true } }))._min.seq!;
    const inAYear = { now: () => new Date(Date.now() + 366 * 24 * 3600 * 1000) };
    expect(await purgeChanges(database.db.prisma, inAYear, 365)).toBeGreaterThan(0);
    const expired = await subscribe(token, { after: String(oldest - 1) });
    expect(await endCode(expired)).toBe('CURSOR_EXPIRED');
    expect(expired.errorEvents()[0]!.data.errors[0].message).toMatch(/has expired/);
    // The newest purged entry is still a good place to go on from.
    const onward = await subscribe(token, { after: String(head) });
    const unit = await createUnit(send, token);
    await onward.until((s) => s.changes().length === 1, 'the change after the purge');
    expect(onward.changes()[0]).toMatchObject({ type: 'UNITS', id: unit });
    // A query over SSE: one result, then complete.
    const query = await SseStream.open(send, { query: '{ changes(first: 1) { nodes { cursor } } }', token });
    await query.ended();
    expect(query.events.map((e) => e.event)).toEqual(['next', 'complete']);
    expect(query.events[0]!.data).toEqual({
      data: { changes: { nodes: [{ cursor: String(await logHead(database.db.prisma)) }] } },
    });
  });
});
