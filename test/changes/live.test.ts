/**
 * `subscription { changes(after, types) }`, the contract of live changes, each scenario written
 * once and run over both transports, Server-Sent Events (POST /graphql with `Accept:
 * text/event-stream`) and WebSocket (graphql-ws), on both databases: replay after a cursor then
 * live, in cursor order; from now without one; resuming from the last cursor misses nothing; the
 * `types` filter; the ways a subscription ends (TOKEN_REVOKED within 1 s of a revocation,
 * TOKEN_EXPIRED at the token's expiry, SUBSCRIBER_BEHIND, SERVER_SHUTTING_DOWN on SIGTERM) and
 * the ways one is refused (TOO_MANY_SUBSCRIPTIONS, whatever the transport of the others; bad or
 * expired cursors; mutations).
 *
 * The service is the app in this process, listening on a real port (../support/live.ts
 * `listen`), one per configuration a test needs; writes and tokens go through the default one,
 * in memory. What only a process shows (SIGTERM, the 12 s heartbeat) is seen on the service as
 * deployed: a process per database, with NODE_ENV=production.
 *
 * What one transport does its own way: ./sse.test.ts (HTTP statuses, GET) and
 * ./websocket.test.ts (close codes, the CLI's revocation); two processes on one PostgreSQL
 * database: ./processes.test.ts.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { digest } from '../../src/auth/secrets.ts';
import { type Config, loadConfig } from '../../src/config.ts';
import { purgeChanges } from '../../src/data/changes.ts';
import { READ_INTERVAL_MS } from '../../src/data/change-feed.ts';
import type { PrismaDb } from '../../src/db/client.ts';
import { testApp } from '../support/app.ts';
import { migratedDatabase, providers, type MigratedDatabase } from '../support/databases.ts';
import {
  asInProduction,
  CHANGES,
  createBrand,
  createUnit,
  elapsed,
  expectGapless,
  type Listening,
  type LiveSubscription,
  listen,
  clientWithTokens,
  logAfter,
  logHead,
  type Operation,
  over,
  revokeToken,
  type Send,
  seqsOf,
  sleep,
  type Transport,
  tokensOf,
  uniqueReference,
  waitUntil,
} from '../support/live.ts';
import { startService, type RunningService } from '../support/process.ts';
import { sse, SseStream } from '../support/sse.ts';
import { websocket } from '../support/ws.ts';

const transports: Transport[] = [sse, websocket];

/** Yoga's ping interval for Server-Sent Events outside tests. */
const HEARTBEAT_MS = 12_000;

/** Subscription limits as the service's defaults have them, with `overrides`. */
const limits = (overrides: Partial<Config['subscriptions']>) => ({
  subscriptions: { ...loadConfig({}).subscriptions, ...overrides },
});

/** The app of the test on a port, and the same app in memory (`send`). */
interface Service extends Listening {
  send: Send;
}

describe.each(providers)('live changes on %s', (provider) => {
  let database: MigratedDatabase;
  let prisma: PrismaDb;
  /** Default settings: where the writes and tokens go, and most subscriptions. */
  let main: Service;
  let send: Send;
  /** A process, NODE_ENV=production: the heartbeat, then SIGTERM. */
  let deployed: RunningService;
  /** An idle stream opened first, whose second ping the heartbeat test waits for (SQLite only: it does not depend on the database). */
  let idle: SseStream | undefined;
  const services: Listening[] = [];
  const opened: LiveSubscription[] = [];

  beforeAll(async () => {
    database = await migratedDatabase(provider);
    prisma = database.db.prisma;
    [main, deployed] = await Promise.all([
      service(),
      startService({ DATABASE_URL: database.target.url, SEED_DEMO_DATA: 'false', NODE_ENV: 'production' }),
    ]);
    send = main.send;
    if (provider === 'sqlite') {
      const { access_token } = await newClient(['read']);
      const query = { query: CHANGES, variables: { types: ['CURRENCIES'] }, token: access_token };
      idle = await SseStream.open(over(deployed.baseUrl), query);
    }
  });
  afterEach(async () => {
    for (const sub of opened.splice(0)) await sub.close().catch(() => undefined);
  });
  afterAll(async () => {
    await idle?.close();
    for (const s of services) await s.close();
    if (deployed && deployed.child.exitCode === null) await deployed.stop();
    await database?.cleanup();
  });

  /** The app with `overrides` on a port of its own (closed after the suite). */
  async function service(overrides: Partial<Config> = {}): Promise<Service> {
    const t = testApp(database, overrides);
    const listening = await listen(t.app);
    services.push(listening);
    return { ...listening, send: (path, init) => t.request(path, init) };
  }

  /** A new API client (read and write) and its tokens, from `via`'s token endpoint. */
  const newClient = (scopes?: string[], via: Send = send) => clientWithTokens(prisma, via, scopes);

  describe.each(transports)('over $name', (transport) => {
    const other = transports.find((t) => t !== transport)!;

    /** Starts `operation` over `via` (this transport) at `at` (closed after the test). */
    async function open(token: string, operation: Operation, at: Listening = main, via = transport) {
      const sub = await via.open(at.baseUrl, token, operation);
      opened.push(sub);
      return sub;
    }

    /** `subscription { changes }` over this transport. */
    const subscribe = (token: string, variables: { after?: string; types?: string[] } = {}, at?: Listening) =>
      open(token, { query: CHANGES, variables }, at);

    /** Whether `sub`, which replays a change once it runs, was admitted (the change came) rather than refused (it ended). */
    async function admitted(sub: LiveSubscription): Promise<boolean> {
      await sub.until((s) => s.completed !== undefined || s.changes().length > 0, 'a change, or the refusal');
      return sub.changes().length > 0;
    }

    it('replays what is after `after`, then follows live, in cursor order; each result is the log entry', async () => {
      const { client, access_token: token } = await newClient();
      const from = await logHead(prisma);
      const brand = await createBrand(send, token);
      await createUnit(send, token);
      await createBrand(send, token);

      const sub = await subscribe(token, { after: String(from) });
      await sub.until((s) => s.changes().length === 3, 'the three changes made before subscribing');
      for (let i = 0; i < 3; i++) await createBrand(send, token);
      await sub.until((s) => s.changes().length === 6, 'the three changes made after');

      const log = await logAfter(prisma, from);
      expect(seqsOf(sub.changes())).toEqual(log.map((e) => e.seq));
      expect(sub.changes()[0]).toEqual({
        cursor: String(log[0]!.seq),
        type: 'BRANDS',
        id: brand,
        op: 'CREATED',
        version: 1,
        changed: expect.arrayContaining(['reference']),
        actor: client.client_id,
        at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/),
      });
      expect(sub.changes().map((c) => c.type)).toEqual(['BRANDS', 'UNITS', 'BRANDS', 'BRANDS', 'BRANDS', 'BRANDS']);
      expect(sub.completed).toBeUndefined();
    });

    it('without `after`: from now on, nothing older', async () => {
      const { access_token: token } = await newClient();
      await createBrand(send, token);
      const head = await logHead(prisma);
      const sub = await subscribe(token);
      // graphql-ws says nothing when a subscription starts: write until changes arrive.
      const deadline = elapsed() + 15_000;
      while (sub.changes().length < 3 && elapsed() < deadline) {
        await createBrand(send, token);
        await sleep(100);
      }
      const seqs = seqsOf(sub.changes());
      expect(seqs.length).toBeGreaterThanOrEqual(3);
      expect(seqs[0]).toBeGreaterThan(head);
      const log = (await logAfter(prisma, head)).map((e) => e.seq);
      expect(log.slice(log.indexOf(seqs[0]!), log.indexOf(seqs[0]!) + seqs.length)).toEqual(seqs);
    });

    it('a client that disconnects and resumes from its last cursor gets every change in order: writes while connected and while away', async () => {
      const { access_token: token } = await newClient();
      const from = await logHead(prisma);
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
          const sub = await subscribe(token, { after });
          await sub.until((s) => s.changes().length >= 8, 'eight changes on this connection', 20_000);
          await sub.close();
          connections.push(seqsOf(sub.changes()));
          after = sub.changes().at(-1)!.cursor;
          // Away: more writes commit before the next connection.
          await writtenBy(5);
        }
        writing = false;
        await Promise.all(writers);
        const log = (await logAfter(prisma, from)).map((e) => e.seq);
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
      const from = await logHead(prisma);
      await createBrand(send, token);
      await createUnit(send, token);
      const units = await subscribe(token, { after: String(from), types: ['UNITS'] });
      const both = await subscribe(token, { after: String(from), types: ['UNITS', 'BRANDS'] });
      await units.until((s) => s.changes().length === 1, 'the unit made before subscribing', 8000);
      await createBrand(send, token);
      await createUnit(send, token);
      await createBrand(send, token);
      await both.until((s) => s.changes().length === 5, 'all five changes');
      await units.until((s) => s.changes().length === 2, 'the two units', 8000);
      expect(seqsOf(units.changes())).toEqual((await logAfter(prisma, from, ['units'])).map((e) => e.seq));
      expect(units.changes().map((c) => c.type)).toEqual(['UNITS', 'UNITS']);
      expect(seqsOf(both.changes())).toEqual((await logAfter(prisma, from)).map((e) => e.seq));
      await sleep(200);
      expect(units.changes()).toHaveLength(2);
    });

    it('arguments written in the document, or given by variables of other names, work as `$after` and `$types` do', async () => {
      const { access_token: token } = await newClient();
      const from = await logHead(prisma);
      await createBrand(send, token);
      const unit = await createUnit(send, token);
      const inline = await open(token, {
        query: `subscription { changes(after: "${from}", types: [UNITS]) { cursor type id } }`,
      });
      const renamed = await open(token, {
        query:
          'subscription($since: String, $only: [ResourceType!]) { changes(after: $since, types: $only) { cursor type id } }',
        variables: { since: String(from), only: ['UNITS'] },
      });
      const [entry] = await logAfter(prisma, from, ['units']);
      const expected = [{ cursor: String(entry!.seq), type: 'UNITS', id: unit }];
      for (const sub of [inline, renamed]) {
        await sub.until((s) => s.results.length > 0, 'the unit made before subscribing', 5000);
        expect(sub.changes(), sub.describe()).toEqual(expected);
      }
      // And live.
      await createBrand(send, token);
      const next = await createUnit(send, token);
      const [, live] = await logAfter(prisma, from, ['units']);
      expected.push({ cursor: String(live!.seq), type: 'UNITS', id: next });
      for (const sub of [inline, renamed]) {
        await sub.until((s) => s.results.length > 1, 'the unit made after subscribing', 8000);
        expect(sub.changes(), sub.describe()).toEqual(expected);
      }
    });

    it('ends within 1 s of an RFC 7009 revocation with TOKEN_REVOKED, then completes (access token, or the refresh token of its grant); a revoked token is then refused', async () => {
      const { client, access_token: first } = await newClient(['read']);
      const second = await tokensOf(send, client);
      const from = String(await logHead(prisma));
      const byAccess = await subscribe(first, { after: from });
      const byRefresh = await subscribe(second.access_token, { after: from });
      const { access_token: writer } = await newClient();
      const byOther = await subscribe(writer, { after: from });
      await createBrand(send, writer);
      for (const sub of [byAccess, byRefresh, byOther])
        await sub.until((s) => s.changes().length === 1, 'a change before the revocation');

      await revokeToken(send, client, first);
      const revokedAt = elapsed();
      expect(await byAccess.endCode()).toBe('TOKEN_REVOKED');
      const afterAccess = byAccess.errorResults()[0]!.t - revokedAt;
      expect(afterAccess, 'ms from the revocation to the end of the subscription').toBeLessThan(1000);
      expect(byRefresh.completed, 'another token of the client is not touched').toBeUndefined();

      await revokeToken(send, client, second.refresh_token);
      const familyRevokedAt = elapsed();
      expect(await byRefresh.endCode()).toBe('TOKEN_REVOKED');
      const afterRefresh = byRefresh.errorResults()[0]!.t - familyRevokedAt;
      expect(afterRefresh, 'ms from the revocation to the end of the subscription').toBeLessThan(1000);
      expect(byOther.completed, 'another client is not touched').toBeUndefined();

      const [end] = byAccess.errorResults();
      expect(end!.result).toEqual({
        data: null,
        errors: [expect.objectContaining({ message: expect.stringMatching(/revoked/), path: ['changes'] })],
      });
      // The reason last, then complete (not a transport error), and the connection ends.
      expect(byAccess.results.at(-1)).toBe(end);
      expect(byAccess.completed?.by, 'ended with an error result, then complete').toBe('complete');
      await byAccess.until((s) => s.finished, 'the connection to end', 2000);
      // The revoked tokens open nothing new.
      for (const revoked of [first, second.access_token]) {
        expect(await transport.refusal(main.baseUrl, revoked)).toEqual({
          code: transport.invalidToken,
          reason: expect.stringMatching(/^invalid_token: .*revoked/),
        });
      }
      console.info(
        `[${provider}] ${transport.name}: revocation to end of subscription: ${Math.round(afterAccess)} ms (access token), ${Math.round(afterRefresh)} ms (refresh token)`,
      );
    });

    it("ends at the token's expiry with TOKEN_EXPIRED: not before, within a few hundred ms after; the token is then refused", async () => {
      const short = await service({ accessTokenTtl: 3 });
      const { access_token: token } = await newClient(['read', 'write'], short.send);
      const { expires_at } = await prisma.oAuthToken.findUniqueOrThrow({ where: { digest: digest(token) } });
      const expiresAt = expires_at.getTime();
      expect(expiresAt - Date.now()).toBeGreaterThan(2000);
      const sub = await subscribe(token, { after: String(await logHead(prisma)) }, short);
      await createBrand(short.send, token);
      await sub.until((s) => s.changes().length === 1, 'a change before the expiry');

      expect(await sub.endCode()).toBe('TOKEN_EXPIRED');
      const end = sub.errorResults()[0]!;
      console.info(`[${provider}] ${transport.name}: expiry to end of subscription: ${end.at - expiresAt} ms`);
      expect(end.at, 'the subscription ended before its token expired').toBeGreaterThanOrEqual(expiresAt);
      expect(end.at - expiresAt, 'ms from the expiry to the end of the subscription').toBeLessThan(500);
      expect(end.result.errors![0]!.message).toMatch(/expired/);
      expect(await transport.refusal(short.baseUrl, token)).toEqual({
        code: transport.invalidToken,
        reason: expect.stringMatching(/^invalid_token: .*expired/),
      });
    });

    it('TOO_MANY_SUBSCRIPTIONS beyond SUBSCRIPTIONS_PER_CLIENT (per API client, across transports) and SUBSCRIPTIONS_MAX (per replica)', async () => {
      const limited = await service(limits({ perClient: 2 }));
      const { access_token: token } = await newClient();
      const from = String(await logHead(prisma));
      // The client's two places: one over this transport, one over the other.
      const first = await subscribe(token, { after: from }, limited);
      const second = await open(token, { query: CHANGES, variables: { after: from } }, limited, other);
      // Both places work: a change reaches them.
      await createBrand(send, token);
      await first.until((s) => s.changes().length === 1, 'a change');
      await second.until((s) => s.changes().length === 1, 'a change');
      const third = await subscribe(token, {}, limited);
      expect(await third.endCode()).toBe('TOO_MANY_SUBSCRIPTIONS');
      expect(third.errorResults()[0]!.result.errors![0]!.message).toMatch(/this API client has 2 subscriptions open/);
      const overOther = await open(token, { query: CHANGES }, limited, other);
      expect(await overOther.endCode()).toBe('TOO_MANY_SUBSCRIPTIONS');
      // The limit is per client: another one is admitted.
      const { access_token: another } = await newClient();
      expect(await admitted(await subscribe(another, { after: from }, limited))).toBe(true);

      // SUBSCRIPTIONS_MAX: the replica's limit, whoever asks.
      const full = await service(limits({ max: 1 }));
      expect(await admitted(await subscribe(token, { after: from }, full))).toBe(true);
      const overReplica = await subscribe(another, { after: from }, full);
      expect(await overReplica.endCode()).toBe('TOO_MANY_SUBSCRIPTIONS');
      expect(overReplica.errorResults()[0]!.result.errors![0]!.message).toMatch(
        /^this server has 1 subscription open, its limit: retry later$/,
      );
    });

    it('a client that goes away frees its place at once: a new subscription is admitted, up to the limit again', async () => {
      const limited = await service(limits({ perClient: 2 }));
      const { access_token: token } = await newClient();
      // Every subscription replays this change once it runs: admitted or refused, it says so at once.
      const from = String(await logHead(prisma));
      await createBrand(send, token);
      const first = await asInProduction(() => subscribe(token, { after: from }, limited));
      const second = await asInProduction(() => subscribe(token, { after: from }, limited));
      expect(await admitted(first)).toBe(true);
      expect(await admitted(second)).toBe(true);
      expect(await (await subscribe(token, { after: from }, limited)).endCode()).toBe('TOO_MANY_SUBSCRIPTIONS');

      await first.close();
      const left = elapsed();
      let freed = false;
      let ms = 0;
      while (!freed && elapsed() - left < 16_000) {
        ms = Math.round(elapsed() - left);
        freed = await admitted(await subscribe(token, { after: from }, limited));
        if (!freed) await sleep(100);
      }
      console.info(
        `[${provider}] ${transport.name}: a client gone, a new subscription admitted when asked ${freed ? ms : '> 16000'} ms later`,
      );
      expect(freed, 'the client that went away still held its place 16 s later').toBe(true);
      expect(ms, `the client that went away held its place for ${ms} ms`).toBeLessThan(2000);
      expect(await (await subscribe(token, { after: from }, limited)).endCode()).toBe('TOO_MANY_SUBSCRIPTIONS');
    });

    it('SUBSCRIBER_BEHIND: a consumer that does not read is ended once more than SUBSCRIPTION_MAX_BACKLOG changes wait; it resumes from its last cursor', async () => {
      const slow = await service(limits({ maxBacklog: 3 }));
      const { access_token: token } = await newClient();
      const from = await logHead(prisma);
      const sub = await subscribe(token, { after: String(from) }, slow);
      // One change read, so the subscriber is live; then nothing it is sent is taken (its
      // service's sockets stall, as when the client does not read) while 200 more commit.
      await createBrand(send, token);
      await sub.until((s) => s.changes().length === 1, 'the first change');
      slow.stall();
      try {
        for (let i = 0; i < 200; i++) {
          await createBrand(send, token);
          // Spread over several reads of the feed (at most one per READ_INTERVAL_MS): a burst
          // read at once is handed over whole, and does not count against the consumer.
          if (i % 10 === 9) await sleep(READ_INTERVAL_MS + 10);
        }
        await sleep(300);
      } finally {
        slow.resume();
      }
      const end = await sub.ended();
      expect(end?.result.errors?.[0]?.extensions?.code).toBe('SUBSCRIBER_BEHIND');
      expect(end?.result.errors?.[0]?.message).toMatch(/more than 3 changes were waiting/);
      const received = sub.changes();
      console.info(
        `[${provider}] ${transport.name}: the slow consumer got ${received.length} of 201 changes before SUBSCRIBER_BEHIND`,
      );
      expect(received.length).toBeGreaterThanOrEqual(1);
      expect(received.length).toBeLessThan(201);
      // Resumed from the last cursor it got: the rest, nothing missing.
      const resumed = await subscribe(token, { after: received.at(-1).cursor });
      const log = (await logAfter(prisma, from)).map((e) => e.seq);
      await resumed.until((s) => s.changes().at(-1)?.cursor === String(log.at(-1)), 'the last change');
      expectGapless([seqsOf(received), seqsOf(resumed.changes())], log);
    });

    it('a mutation over the stream is refused with a clear error, and writes nothing', async () => {
      const { access_token: token } = await newClient();
      const head = await logHead(prisma);
      const reference = uniqueReference('OVER-STREAM');
      const sub = await open(token, { query: `mutation { createBrand(input: { reference: "${reference}" }) { id } }` });
      const end = await sub.ended();
      expect(sub.accepted, 'the connection is taken, the operation refused').toBe(true);
      expect(end?.result.errors).toEqual([
        expect.objectContaining({
          message: expect.stringMatching(/mutations are not taken over a stream: send them as a plain POST/),
          extensions: { code: 'OPERATION_NOT_SUPPORTED_BY_TRANSPORT' },
        }),
      ]);
      expect(await logHead(prisma)).toBe(head);
      expect(await prisma.brand.count({ where: { reference } })).toBe(0);
    });

    // Last: it purges the log.
    it('refuses a malformed cursor (BAD_USER_INPUT), a foreign one and an expired one (CURSOR_EXPIRED); a query runs once', async () => {
      const { access_token: token } = await newClient();
      for (const after of ['x', '-1', '1.5', '12345678901']) {
        const sub = await subscribe(token, { after });
        const end = await sub.ended();
        // Refused in the stream, not by the transport: an error result, then complete.
        expect(sub.accepted, after).toBe(true);
        expect(sub.completed?.by, after).toBe('complete');
        expect(end?.result.errors?.[0]?.extensions, after).toEqual({ code: 'BAD_USER_INPUT', field: 'after' });
        expect(end?.result.errors?.[0]?.message).toMatch(/after must be a cursor from this service/);
      }
      await createBrand(send, token);
      const head = await logHead(prisma);
      // Past the end of this log: not given out by this database.
      const foreign = await subscribe(token, { after: String(head + 1000) });
      expect(await foreign.endCode()).toBe('CURSOR_EXPIRED');
      expect(foreign.errorResults()[0]!.result.errors![0]!.message).toMatch(/past the end of this log/);
      // Before the horizon: every entry so far purged (as by CHANGES_RETENTION_DAYS, a year on).
      // First the deployed process (the idle stream's) reads what it has not yet (its poll, 1 s on
      // SQLite): a purge of entries a replica's feed has not read ends its live subscribers with
      // CURSOR_EXPIRED, which would end the idle stream of the heartbeat test.
      await sleep(1500);
      const oldest = (await prisma.change.aggregate({ _min: { seq: true } }))._min.seq!;
      const inAYear = { now: () => new Date(Date.now() + 366 * 24 * 3600 * 1000) };
      expect(await purgeChanges(prisma, inAYear, 365)).toBeGreaterThan(0);
      const expired = await subscribe(token, { after: String(oldest - 1) });
      expect(await expired.endCode()).toBe('CURSOR_EXPIRED');
      expect(expired.errorResults()[0]!.result.errors![0]!.message).toMatch(/has expired/);
      // The newest purged entry is still a good place to go on from.
      const onward = await subscribe(token, { after: String(head) });
      const unit = await createUnit(send, token);
      await onward.until((s) => s.changes().length === 1, 'the change after the purge');
      expect(onward.changes()[0]).toMatchObject({ type: 'UNITS', id: unit });
      // A query over the stream: one result, then complete.
      const query = await open(token, { query: '{ changes(first: 1) { nodes { cursor } } }' });
      await query.ended();
      expect(query.completed?.by).toBe('complete');
      expect(query.results.map((r) => r.result)).toEqual([
        { data: { changes: { nodes: [{ cursor: String(await logHead(prisma)) }] } } },
      ]);
    });
  });

  describe('on the service as deployed (a process, NODE_ENV=production)', () => {
    it.runIf(provider === 'sqlite')('an idle SSE stream gets a heartbeat (a `:` comment line) every 12 s', async () => {
      const stream = idle!;
      expect(stream.status).toBe(200);
      await stream.until((s) => s.comments.length >= 2, 'a second ping', HEARTBEAT_MS + 5000);
      const [first, second] = stream.comments;
      const gap = second! - first!;
      console.info(`[${provider}] heartbeat after ${Math.round(gap)} ms`);
      expect(gap).toBeGreaterThan(HEARTBEAT_MS - 1000);
      expect(gap).toBeLessThan(HEARTBEAT_MS + 2000);
      expect(stream.events).toEqual([]);
    });

    // Last: the service stops.
    it('SIGTERM ends open subscriptions with SERVER_SHUTTING_DOWN over every transport, and the service exits at once', async () => {
      const { access_token: token } = await newClient(['read']);
      const { access_token: writer } = await newClient();
      const from = String(await logHead(prisma));
      await createBrand(send, writer);
      const subs: LiveSubscription[] = [];
      for (const transport of transports) {
        subs.push(await transport.open(deployed.baseUrl, token, { query: CHANGES, variables: { after: from } }));
      }
      opened.push(...subs);
      // Running: the change is replayed to them (from the log: this process's own follower of it
      // may have been left behind by the purge of the cursor tests).
      for (const sub of subs) await sub.until((s) => s.changes().length === 1, 'a change before SIGTERM');
      const { code, ms } = await deployed.stop();
      expect(code).toBe(0);
      expect(ms).toBeLessThan(3000);
      for (const [i, sub] of subs.entries()) {
        await sub.ended(1000);
        expect(
          sub.errorResults()[0]?.result.errors?.[0]?.extensions?.code,
          `${transports[i]!.name}: ${sub.describe()}`,
        ).toBe('SERVER_SHUTTING_DOWN');
      }
    });
  });
});
