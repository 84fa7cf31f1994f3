/**
 * Live changes across replicas: two service processes on one PostgreSQL database. A write
 * through one reaches the subscribers of the other (woken by NOTIFY, read from the log); when the
 * subscriber's process loses its listening connection (pg_terminate_backend) in the middle of 200
 * writes, it reconnects and its subscribers still receive all 200, in order; a revocation on one
 * ends a subscription on the other within 1 s.
 *
 * PostgreSQL only (SQLite has no other process to hear from but the poll): skipped, with a
 * warning, without TEST_POSTGRES_URL.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migratedDatabase, providers, type MigratedDatabase } from '../support/databases.ts';
import {
  CHANGES,
  clientWithTokens,
  createUnit,
  elapsed,
  expectGapless,
  graphql,
  type LiveSubscription,
  logAfter,
  logHead,
  over,
  revokeToken,
  type Send,
  seqsOf,
  sleep,
  type Transport,
  uniqueReference,
} from '../support/live.ts';
import { startService, type RunningService } from '../support/process.ts';
import { sse } from '../support/sse.ts';
import { websocket } from '../support/ws.ts';

const transports: Transport[] = [sse, websocket];

const postgres = providers.includes('postgresql');
if (!postgres) {
  console.warn(
    '\n\x1b[33m[processes.test.ts] TEST_POSTGRES_URL is not set: live changes across two processes on PostgreSQL are SKIPPED\x1b[0m\n',
  );
}

const UPDATE = 'mutation($id: Int!, $en: String) { updateProduct(id: $id, input: { name: { en: $en } }) { version } }';

describe.skipIf(!postgres)('live changes across two processes on one PostgreSQL database', () => {
  let database: MigratedDatabase;
  /** Where the writes go. */
  let writer: RunningService;
  /** Where the subscribers are. */
  let reader: RunningService;
  let toWriter: Send;
  let token: string;
  const products: number[] = [];
  /** A connection of the test's own, to watch and kill the readers' listening connection. */
  let admin: pg.Client;
  const opened: LiveSubscription[] = [];

  beforeAll(async () => {
    database = await migratedDatabase('postgresql');
    const env = { DATABASE_URL: database.target.url, SEED_DEMO_DATA: 'false' };
    [writer, reader] = await Promise.all([startService(env), startService(env)]);
    toWriter = over(writer.baseUrl);
    token = (await clientWithTokens(database.db.prisma, toWriter)).access_token;
    const unit = await createUnit(toWriter, token);
    for (let i = 0; i < 4; i++) {
      const data = await graphql(
        toWriter,
        token,
        'mutation($r: String!, $u: Int!) { createProduct(input: { reference: $r, unitId: $u }) { id } }',
        { r: uniqueReference('FG'), u: unit },
      );
      products.push(Number(data.createProduct.id));
    }
    admin = new pg.Client({ connectionString: database.target.url });
    await admin.connect();
  });
  afterAll(async () => {
    for (const o of opened) await o.close().catch(() => undefined);
    for (const s of [writer, reader]) if (s && s.child.exitCode === null) await s.stop();
    await admin?.end();
    await database?.cleanup();
  });

  /** The backends of this database that sit in LISTEN (the change feeds' listening connections). */
  async function listeners(): Promise<number[]> {
    const { rows } = await admin.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%' AND pid <> pg_backend_pid()`,
    );
    return rows.map((r) => r.pid);
  }

  /** The one listening connection of the reader, once it is there. */
  async function oneListener(): Promise<number> {
    let pids: number[] = [];
    const deadline = elapsed() + 10_000;
    while ((pids = await listeners()).length !== 1 && elapsed() < deadline) await sleep(50);
    expect(pids, 'the reader listens on one connection').toHaveLength(1);
    return pids[0]!;
  }

  /** `subscription { changes }` on the reader, over every transport (closed after the suite). */
  async function subscribeOnReader(variables: Record<string, unknown> = {}, on = token) {
    const subs = await Promise.all(
      transports.map((transport) => transport.open(reader.baseUrl, on, { query: CHANGES, variables })),
    );
    opened.push(...subs);
    return subs;
  }

  it('a write through one process reaches the subscribers of the other, over every transport', async () => {
    const from = await logHead(database.db.prisma);
    const subs = await subscribeOnReader({ after: String(from) });
    await oneListener();
    await sleep(300);
    const written = elapsed();
    await graphql(toWriter, token, UPDATE, { id: products[0], en: 'across processes' });
    for (const sub of subs)
      await sub.until((s) => s.changes().length === 1, 'the change written through the other process');
    const [entry] = await logAfter(database.db.prisma, from);
    for (const sub of subs) {
      expect(sub.changes()[0]).toMatchObject({
        cursor: String(entry!.seq),
        type: 'PRODUCTS',
        id: products[0],
        op: 'UPDATED',
      });
      expect(sub.changes()[0].changed).toEqual(['name']);
    }
    const ms = subs.map((sub) => Math.round(sub.results.at(-1)!.t - written));
    console.info(
      `[postgresql] write in one process to its change in the other: ${ms.map((m, i) => `${m} ms (${transports[i]!.name})`).join(', ')}`,
    );
    // Woken by the notification, not by the 5 s poll.
    for (const delay of ms) expect(delay).toBeLessThan(3000);
    for (const sub of subs) await sub.close();
  });

  it("the subscriber's listening connection terminated in the middle of 200 writes: it still receives all 200, in order", async () => {
    const from = await logHead(database.db.prisma);
    const subs = await subscribeOnReader({ after: String(from) });
    // The subscribers running: a first change reaches them.
    await graphql(toWriter, token, UPDATE, { id: products[0], en: 'before the 200' });
    for (const sub of subs) await sub.until((s) => s.changes().length === 1, 'the first change');
    const listening = await oneListener();

    // 200 writes through the other process, four at a time; the listening connection is
    // terminated once 100 have been answered.
    let done = 0;
    let killed: Promise<boolean> | undefined;
    /** Writes answered while the reader had no listening connection (printed: it depends on the machine). */
    let whileDown: Promise<number> | undefined;
    await Promise.all(
      products.map(async (id, lane) => {
        for (let i = 0; i < 50; i++) {
          await graphql(toWriter, token, UPDATE, { id, en: `lane ${lane} write ${i}` });
          if (++done === 100) {
            killed = admin
              .query<{ ok: boolean }>('SELECT pg_terminate_backend($1) AS ok', [listening])
              .then((r) => r.rows[0]!.ok);
            whileDown = killed.then(async () => {
              const atKill = done;
              while (!(await listeners()).some((pid) => pid !== listening)) await sleep(5);
              return done - atKill;
            });
          }
        }
      }),
    );
    expect(await killed, 'the listening connection was terminated').toBe(true);
    console.info(`[postgresql] writes answered while the reader was not listening: ${await whileDown}`);

    const log = (await logAfter(database.db.prisma, from)).map((e) => e.seq);
    expect(log).toHaveLength(201);
    const last = String(log.at(-1));
    for (const sub of subs) {
      await sub.until((s) => s.changes().at(-1)?.cursor === last, 'the last of the 200 changes', 20_000);
      expectGapless([seqsOf(sub.changes())], log);
      const updates = sub.changes().slice(1);
      expect(updates.every((c) => c.type === 'PRODUCTS' && c.op === 'UPDATED')).toBe(true);
      expect(updates).toHaveLength(200);
    }

    // The reader noticed and listens again, on a new connection.
    const again = await oneListener();
    expect(again).not.toBe(listening);
    await expect
      .poll(() => reader.output(), { timeout: 5000 })
      .toContain('the listening connection was lost; reconnecting');
    // And it goes on: a new write arrives without waiting for the poll.
    const written = elapsed();
    await graphql(toWriter, token, UPDATE, { id: products[1], en: 'after the reconnection' });
    for (const sub of subs) {
      await sub.until((s) => s.changes().length === 202, 'the change after the reconnection');
      expect(sub.results.at(-1)!.t - written).toBeLessThan(3000);
    }
  });

  it('a revocation through one process ends a subscription on the other within 1 s, over every transport', async () => {
    const { client, access_token } = await clientWithTokens(database.db.prisma, toWriter, ['read']);
    const subs = await subscribeOnReader({}, access_token);
    await sleep(500);
    for (const sub of subs) expect(sub.completed, sub.describe()).toBeUndefined();
    await revokeToken(toWriter, client, access_token);
    const revokedAt = elapsed();
    const ms: number[] = [];
    for (const sub of subs) {
      const end = await sub.ended();
      expect(end?.result.errors?.[0]?.extensions?.code).toBe('TOKEN_REVOKED');
      ms.push(end!.t - revokedAt);
    }
    console.info(
      `[postgresql] revocation in one process to the end in the other: ${ms.map((m, i) => `${Math.round(m)} ms (${transports[i]!.name})`).join(', ')}`,
    );
    for (const delay of ms) expect(delay).toBeLessThan(1000);
  });
});
