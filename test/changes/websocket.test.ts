/**
 * `subscription { changes }` on a running service (a real process on a real port): over
 * WebSocket with graphql-ws's own client (subprotocol graphql-transport-ws, the token in
 * connection_init), and Server-Sent Events over real sockets where the in-memory app cannot
 * show it (a client that closes its connection, the 12 s heartbeat, SIGTERM).
 *
 * Two services per database: one with SUBSCRIPTIONS_PER_CLIENT=2 (and NODE_ENV=production, as
 * deployed: Yoga pings every 300 ms under NODE_ENV=test, which the test runner sets), one with
 * ACCESS_TOKEN_TTL=3 for expiry. Writes go through the service's GraphQL API over HTTP.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/auth/clients.ts';
import { digest } from '../../src/auth/secrets.ts';
import { CONFIG_VARIABLES } from '../../src/config.ts';
import { purgeChanges } from '../../src/data/changes.ts';
import { migratedDatabase, providers, type MigratedDatabase } from '../support/databases.ts';
import {
  CHANGES,
  createBrand,
  createUnit,
  elapsed,
  expectGapless,
  logAfter,
  logHead,
  over,
  revokeToken,
  type Send,
  seqsOf,
  sleep,
  tokensOf,
  waitUntil,
} from '../support/live.ts';
import { ROOT, startService, type RunningService } from '../support/process.ts';
import { SseStream } from '../support/sse.ts';
import { connectionInit, WsSubscription, wsUrl } from '../support/ws.ts';

/** Yoga's ping interval for Server-Sent Events outside tests. */
const HEARTBEAT_MS = 12_000;

describe.each(providers)('subscription { changes } on a running service, over WebSocket, on %s', (provider) => {
  let database: MigratedDatabase;
  /** SUBSCRIPTIONS_PER_CLIENT=2, NODE_ENV=production. */
  let service: RunningService;
  /** ACCESS_TOKEN_TTL=3. */
  let short: RunningService;
  let send: Send;
  let url: string;
  const opened: { close(): Promise<void> }[] = [];
  /** An idle stream opened first, whose second ping the heartbeat test waits for (SQLite only: it does not depend on the database). */
  let idle: SseStream | undefined;

  beforeAll(async () => {
    database = await migratedDatabase(provider);
    const env = { DATABASE_URL: database.target.url, SEED_DEMO_DATA: 'false' };
    [service, short] = await Promise.all([
      startService({ ...env, SUBSCRIPTIONS_PER_CLIENT: '2', NODE_ENV: 'production' }),
      startService({ ...env, ACCESS_TOKEN_TTL: '3' }),
    ]);
    send = over(service.baseUrl);
    url = wsUrl(service.baseUrl);
    if (provider === 'sqlite') {
      const { access_token } = await newClient(['read']);
      idle = await SseStream.open(send, { query: CHANGES, variables: { types: ['CURRENCIES'] }, token: access_token });
    }
  });
  afterAll(async () => {
    await idle?.cancel();
    for (const o of opened) await o.close().catch(() => undefined);
    for (const s of [service, short]) if (s && s.child.exitCode === null) await s.stop();
    await database?.cleanup();
  });

  async function newClient(scopes = ['read', 'write'], app: Send = send) {
    const client = await createClient(database.db.prisma, `ws-${scopes.join('-')}`, scopes);
    return { client, ...(await tokensOf(app, client)) };
  }

  /** A subscription on a connection of its own to `service` (closed after the suite). */
  function subscribe(
    token: string | undefined,
    variables: { after?: string; types?: string[] } = {},
    options: { at?: string; query?: string } = {},
  ): WsSubscription {
    const sub = new WsSubscription(options.at ?? url, token, options.query ?? CHANGES, variables);
    opened.push(sub);
    return sub;
  }

  async function endCode(sub: WsSubscription): Promise<string | undefined> {
    const end = await sub.ended();
    return end?.result.errors?.[0]?.extensions?.code;
  }

  /** Whether `sub` was refused (it completes at once) rather than admitted (it stays open). */
  async function refused(sub: WsSubscription): Promise<boolean> {
    try {
      await sub.until((s) => s.completed !== undefined, 'a refusal', 1000);
      return true;
    } catch {
      return false;
    }
  }

  it('replays what is after `after`, then follows live, in cursor order; each result is the log entry', async () => {
    const { client, access_token: token } = await newClient();
    const from = await logHead(database.db.prisma);
    const brand = await createBrand(send, token);
    await createUnit(send, token);
    const sub = subscribe(token, { after: String(from) });
    await sub.until((s) => s.changes().length === 2, 'the two changes made before subscribing');
    for (let i = 0; i < 3; i++) await createBrand(send, token);
    await sub.until((s) => s.changes().length === 5, 'the three changes made after');
    const log = await logAfter(database.db.prisma, from);
    expect(seqsOf(sub.changes())).toEqual(log.map((e) => e.seq));
    expect(sub.changes()[0]).toEqual({
      cursor: String(log[0]!.seq),
      type: 'BRANDS',
      id: brand,
      op: 'CREATED',
      version: 1,
      changed: expect.arrayContaining(['reference']),
      actor: client.client_id,
      at: expect.any(String),
    });
    expect(sub.completed).toBeUndefined();
  });

  it('without `after`: from now on, nothing older', async () => {
    const { access_token: token } = await newClient();
    await createBrand(send, token);
    const head = await logHead(database.db.prisma);
    const sub = subscribe(token);
    // graphql-ws says nothing when a subscription starts: write until changes arrive.
    const deadline = elapsed() + 15_000;
    while (sub.changes().length < 3 && elapsed() < deadline) {
      await createBrand(send, token);
      await sleep(100);
    }
    const seqs = seqsOf(sub.changes());
    expect(seqs.length).toBeGreaterThanOrEqual(3);
    expect(seqs[0]).toBeGreaterThan(head);
    const log = (await logAfter(database.db.prisma, head)).map((e) => e.seq);
    expect(log.slice(log.indexOf(seqs[0]!), log.indexOf(seqs[0]!) + seqs.length)).toEqual(seqs);
  });

  it('a client that disconnects and resumes from its last cursor gets every change in order: writes while connected and while away', async () => {
    const { access_token: token } = await newClient();
    const from = await logHead(database.db.prisma);
    let writing = true;
    let written = 0;
    const writer = async () => {
      while (writing) {
        await createBrand(send, token, 'RESUME');
        written++;
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
        const sub = subscribe(token, { after });
        await sub.until((s) => s.changes().length >= 8, 'eight changes on this connection', 20_000);
        await sub.close();
        connections.push(seqsOf(sub.changes()));
        after = sub.changes().at(-1)!.cursor;
        await writtenBy(5);
      }
      writing = false;
      await Promise.all(writers);
      const log = (await logAfter(database.db.prisma, from)).map((e) => e.seq);
      const last = subscribe(token, { after });
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
    const units = subscribe(token, { after: String(from), types: ['UNITS'] });
    await units.until((s) => s.changes().length === 1, 'the unit made before subscribing', 8000);
    await createBrand(send, token);
    await createUnit(send, token);
    await units.until((s) => s.changes().length === 2, 'the two units', 8000);
    expect(seqsOf(units.changes())).toEqual((await logAfter(database.db.prisma, from, ['units'])).map((e) => e.seq));
    // Arguments written in the document work as variables do.
    const inline = subscribe(
      token,
      {},
      { query: `subscription { changes(after: "${from}", types: [UNITS]) { cursor } }` },
    );
    await inline.until((s) => s.changes().length === 2, 'the two units', 8000);
    expect(inline.changes()).toEqual(units.changes().map((c) => ({ cursor: c.cursor })));
  });

  it('ends within 1 s of an RFC 7009 revocation, and of `npm run client -- revoke` in another process, with TOKEN_REVOKED; a revoked token is then refused (4403)', async () => {
    const { client, access_token: token } = await newClient(['read']);
    const { client: other, access_token: otherToken } = await newClient(['read']);
    const { access_token: writer } = await newClient();
    const byToken = subscribe(token);
    const byClient = subscribe(otherToken);
    await sleep(300);
    // Both running: a change reaches them.
    const deadline = elapsed() + 15_000;
    while ((byToken.changes().length === 0 || byClient.changes().length === 0) && elapsed() < deadline) {
      await createBrand(send, writer);
      await sleep(200);
    }

    await revokeToken(send, client, token);
    const revokedAt = elapsed();
    expect(await endCode(byToken)).toBe('TOKEN_REVOKED');
    const afterRevoke = byToken.errorResults()[0]!.t - revokedAt;
    expect(afterRevoke, 'ms from the revocation to the end of the subscription').toBeLessThan(1000);
    expect(byToken.error, 'ended with an error result, then complete').toBeUndefined();
    expect(byClient.completed).toBeUndefined();

    const cli = await revokeWithCli(database.target.url, other.client_id);
    expect(await endCode(byClient)).toBe('TOKEN_REVOKED');
    const afterCli = byClient.errorResults()[0]!.t - cli;
    expect(afterCli, 'ms from the CLI revoking the client to the end of the subscription').toBeLessThan(1000);
    console.info(
      `[${provider}] revocation to end of subscription: ${Math.round(afterRevoke)} ms (RFC 7009), ${Math.round(afterCli)} ms (CLI)`,
    );

    for (const revoked of [token, otherToken]) {
      const init = await connectionInit(url, { Authorization: `Bearer ${revoked}` });
      expect(init).toMatchObject({ code: 4403, reason: expect.stringMatching(/^invalid_token: .*revoked/) });
    }
  });

  it("ends at the token's expiry with TOKEN_EXPIRED, over WebSocket and SSE: not before, within a few hundred ms after", async () => {
    const app = over(short.baseUrl);
    const { access_token: token } = await newClient(['read', 'write'], app);
    const { expires_at } = await database.db.prisma.oAuthToken.findUniqueOrThrow({ where: { digest: digest(token) } });
    const expiresAt = expires_at.getTime();
    expect(expiresAt - Date.now()).toBeGreaterThan(1500);
    const ws = subscribe(token, {}, { at: wsUrl(short.baseUrl) });
    const sse = await SseStream.open(app, { query: CHANGES, token });
    opened.push({ close: () => sse.cancel() });
    await sleep(300);
    await createBrand(app, token);
    await ws.until((s) => s.changes().length === 1, 'a change before the expiry');
    await sse.until((s) => s.changes().length === 1, 'a change before the expiry');

    expect(await endCode(ws)).toBe('TOKEN_EXPIRED');
    const sseEnd = await sse.ended();
    expect(sseEnd?.data.errors[0].extensions.code).toBe('TOKEN_EXPIRED');
    const wsEnd = ws.errorResults()[0]!;
    console.info(
      `[${provider}] expiry to end of subscription: ${wsEnd.at - expiresAt} ms (WebSocket), ${sseEnd!.at - expiresAt} ms (SSE)`,
    );
    for (const at of [wsEnd.at, sseEnd!.at]) {
      expect(at, 'ended before the token expired').toBeGreaterThanOrEqual(expiresAt);
      expect(at - expiresAt, 'ms from the expiry to the end').toBeLessThan(500);
    }
    expect((await connectionInit(wsUrl(short.baseUrl), { Authorization: `Bearer ${token}` })) as any).toMatchObject({
      code: 4403,
      reason: expect.stringMatching(/expired/),
    });
  });

  it('refuses a connection without a token, with a bad one or without the read scope: closed with 4403 and the reason', async () => {
    expect(await connectionInit(url, {})).toEqual({
      code: 4403,
      reason: expect.stringMatching(/^invalid_request: send the access token in connection_init/),
    });
    expect(await connectionInit(url, { Authorization: 'Bearer mda_not-a-token' })).toEqual({
      code: 4403,
      reason: 'invalid_token: unknown access token',
    });
    expect(await connectionInit(url, { Authorization: 'Basic abc' })).toMatchObject({ code: 4403 });
    const { access_token: writeOnly } = await newClient(['write']);
    expect(await connectionInit(url, { Authorization: `Bearer ${writeOnly}` })).toEqual({
      code: 4403,
      reason: 'insufficient_scope: the token needs the read scope',
    });
    const { access_token: token } = await newClient(['read']);
    expect(await connectionInit(url, { authorization: `Bearer ${token}` })).toBe('ack');
    // What graphql-ws's client reports: the close, as the subscription's error.
    const sub = subscribe('mda_not-a-token');
    await sub.ended();
    expect(sub.closed?.code).toBe(4403);
    expect(sub.results).toEqual([]);
  });

  it('refuses a malformed cursor (BAD_USER_INPUT), a foreign one (CURSOR_EXPIRED) and a mutation, with clear errors', async () => {
    const { access_token: token } = await newClient();
    const bad = subscribe(token, { after: 'x' });
    const end = await bad.ended();
    expect(end?.result.errors?.[0]).toMatchObject({
      message: expect.stringMatching(/after must be a cursor from this service/),
      extensions: { code: 'BAD_USER_INPUT', field: 'after' },
    });
    const foreign = subscribe(token, { after: String((await logHead(database.db.prisma)) + 1000) });
    expect(await endCode(foreign)).toBe('CURSOR_EXPIRED');
    const head = await logHead(database.db.prisma);
    const mutation = subscribe(
      token,
      {},
      { query: 'mutation { createBrand(input: { reference: "OVER-WS" }) { id } }' },
    );
    await mutation.until((s) => s.completed !== undefined, 'the refusal');
    expect(mutation.error ?? mutation.results.flatMap((r) => r.result.errors)).toEqual([
      expect.objectContaining({
        message: expect.stringMatching(/mutations are not taken over a stream: send them as a plain POST/),
        extensions: { code: 'BAD_REQUEST' },
      }),
    ]);
    expect(await logHead(database.db.prisma)).toBe(head);
  });

  it('TOO_MANY_SUBSCRIPTIONS beyond SUBSCRIPTIONS_PER_CLIENT, across connections and transports', async () => {
    const { access_token: token } = await newClient();
    const first = subscribe(token);
    const sse = await SseStream.open(send, { query: CHANGES, token });
    opened.push({ close: () => sse.cancel() });
    expect(await refused(first)).toBe(false);
    expect(sse.status).toBe(200);
    const third = subscribe(token);
    expect(await endCode(third)).toBe('TOO_MANY_SUBSCRIPTIONS');
    expect(third.errorResults()[0]!.result.errors![0]!.message).toMatch(/this API client has 2 subscriptions open/);
    const overSse = await SseStream.open(send, { query: CHANGES, token });
    opened.push({ close: () => overSse.cancel() });
    expect((await overSse.ended())?.data.errors[0].extensions.code).toBe('TOO_MANY_SUBSCRIPTIONS');
  });

  /**
   * A new client's two places taken, the first by `open` (which answers how its client goes
   * away), the second over WebSocket; the first client goes away: how long until a new
   * subscription is admitted (ms from going away to the request that was admitted).
   */
  async function placeFreedAfter(what: string, open: (token: string) => Promise<() => Promise<void>>): Promise<number> {
    const { access_token: token } = await newClient();
    const goAway = await open(token);
    expect(await refused(subscribe(token))).toBe(false);
    expect(await endCode(subscribe(token))).toBe('TOO_MANY_SUBSCRIPTIONS');
    await goAway();
    const left = elapsed();
    let admitted = false;
    let ms = 0;
    while (!admitted && elapsed() - left < 16_000) {
      ms = Math.round(elapsed() - left);
      admitted = !(await refused(subscribe(token)));
      if (!admitted) await sleep(100);
    }
    console.info(`[${provider}] ${what}: a new subscription admitted when asked ${admitted ? ms : '> 16000'} ms later`);
    expect(admitted, `${what} still held its place 16 s later`).toBe(true);
    // Up to the limit again.
    expect(await endCode(subscribe(token))).toBe('TOO_MANY_SUBSCRIPTIONS');
    return ms;
  }

  it('a WebSocket client that closes its socket frees its place at once', async () => {
    const ms = await placeFreedAfter('a WebSocket client that closed its socket', async (token) => {
      const sub = subscribe(token);
      expect(await refused(sub)).toBe(false);
      return () => sub.close();
    });
    expect(ms, `the closed socket's subscription held its place for ${ms} ms`).toBeLessThan(2000);
  });

  it('an SSE client that closes its connection frees its place at once', async () => {
    const ms = await placeFreedAfter('an SSE client that closed its connection', async (token) => {
      const sse = await SseStream.open(send, { query: CHANGES, token });
      opened.push({ close: () => sse.cancel() });
      await sse.until((s) => s.comments.length > 0, 'the first ping');
      return () => sse.cancel();
    });
    expect(ms, `the closed connection's subscription held its place for ${ms} ms`).toBeLessThan(2000);
  });

  it('an idle SSE stream gets a heartbeat (a `:` comment line) every 12 s', async () => {
    if (!idle) return; // SQLite only: the heartbeat does not depend on the database
    expect(idle.status).toBe(200);
    await idle.until((s) => s.comments.length >= 2, 'a second ping', HEARTBEAT_MS + 5000);
    const [first, second] = idle.comments;
    const gap = second! - first!;
    console.info(`[${provider}] heartbeat after ${Math.round(gap)} ms`);
    expect(gap).toBeGreaterThan(HEARTBEAT_MS - 1000);
    expect(gap).toBeLessThan(HEARTBEAT_MS + 2000);
    expect(idle.events).toEqual([]);
  });

  it('SIGTERM ends open subscriptions with SERVER_SHUTTING_DOWN (SSE and WebSocket), and the service exits at once', async () => {
    const app = over(short.baseUrl);
    const { access_token: token } = await newClient(['read'], app);
    const ws = subscribe(token, {}, { at: wsUrl(short.baseUrl) });
    const sse = await SseStream.open(app, { query: CHANGES, token });
    opened.push({ close: () => sse.cancel() });
    await sleep(500);
    expect(await refused(ws)).toBe(false);
    const { code, ms } = await short.stop();
    expect(code).toBe(0);
    expect(ms).toBeLessThan(3000);
    const sseEnd = await sse.ended(1000);
    expect(sseEnd?.data.errors[0].extensions.code).toBe('SERVER_SHUTTING_DOWN');
    await ws.ended(1000);
    expect(ws.errorResults()[0]?.result.errors?.[0]?.extensions?.code, ws.describe()).toBe('SERVER_SHUTTING_DOWN');
  });

  it('refuses an expired cursor (CURSOR_EXPIRED) once the log is purged', async () => {
    const { access_token: token } = await newClient();
    await createBrand(send, token);
    const oldest = (await database.db.prisma.change.aggregate({ _min: { seq: true } }))._min.seq!;
    const inAYear = { now: () => new Date(Date.now() + 366 * 24 * 3600 * 1000) };
    expect(await purgeChanges(database.db.prisma, inAYear, 365)).toBeGreaterThan(0);
    const expired = subscribe(token, { after: String(oldest - 1) });
    const end = await expired.ended();
    expect(end?.result.errors?.[0]).toMatchObject({
      message: expect.stringMatching(/has expired/),
      extensions: { code: 'CURSOR_EXPIRED' },
    });
  });
});

/** `npm run client -- revoke <id>` in a process of its own; resolves at the moment it says the client is revoked. */
function revokeWithCli(databaseUrl: string, clientId: string): Promise<number> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of CONFIG_VARIABLES) delete env[key];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/auth/cli.ts', 'revoke', clientId], {
      cwd: ROOT,
      env: { ...env, DATABASE_URL: databaseUrl },
    });
    let output = '';
    child.stdout.on('data', (d) => {
      output += d;
      if (output.includes(`client ${clientId} revoked`)) resolve(elapsed());
    });
    child.stderr.on('data', (d) => (output += d));
    child.on('exit', (code) => {
      if (!output.includes('revoked')) reject(new Error(`the CLI exited with ${code}: ${output}`));
    });
  });
}
