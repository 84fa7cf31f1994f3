/**
 * A read replica (DATABASE_REPLICA_URL) in the parts that need no standby: the numbering's
 * notification that tells every process where a client's write is, a replica that answers (the
 * primary given as its own replica: reads go to its pool), and one that does not (reads and
 * writes go on from the primary). Against a real streaming replica, replaying late on purpose:
 * `npm run test:cluster`.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type Database } from '../src/db/client.ts';
import { lsnValue, parseNotification } from '../src/db/read-replica.ts';
import type { DatabaseTarget } from '../src/db/url.ts';
import { testApp, type TestApp } from './support/app.ts';
import { migratedDatabase, providers, type MigratedDatabase } from './support/databases.ts';
import { clientWithTokens, createBrand, graphql, sleep } from './support/live.ts';
import { freePort } from './support/ports.ts';

describe('read replica positions', () => {
  it('LSNs order as the WAL does, across the 32-bit boundary', () => {
    expect(lsnValue('0/16B3748') < lsnValue('0/16B3749')).toBe(true);
    expect(lsnValue('0/FFFFFFFF') < lsnValue('1/0')).toBe(true);
    expect(lsnValue('1A/0')).toBe(0x1an << 32n);
  });

  it('reads what the numbering notifies: clients, everyone, or nothing it understands', () => {
    expect(parseNotification('0/3016060;4,17')).toEqual({ lsn: lsnValue('0/3016060'), clients: [4, 17] });
    expect(parseNotification('0/3016060;*')).toEqual({ lsn: lsnValue('0/3016060'), clients: 'all' });
    expect(parseNotification('0/3016060;')).toEqual({ lsn: lsnValue('0/3016060'), clients: [] });
    // A batch that numbered its entries in its statement: no position.
    expect(parseNotification(';4,17')).toEqual({ lsn: undefined, clients: [4, 17] });
    expect(parseNotification(';*')).toEqual({ lsn: undefined, clients: 'all' });
    // An older process's notification (empty), or anything else: ignored.
    expect(parseNotification('')).toBeUndefined();
    expect(parseNotification('DROP TABLE brands')).toBeUndefined();
  });
});

describe.runIf(providers.includes('postgresql'))('a read replica on PostgreSQL', () => {
  let direct: MigratedDatabase;
  const opened: Database[] = [];

  beforeAll(async () => {
    direct = await migratedDatabase('postgresql');
  });
  afterAll(async () => {
    for (const db of opened) await db.close();
    await direct?.cleanup();
  });

  /** The service over the test database with `replicaUrl` as its read replica. */
  async function withReplica(replicaUrl: string): Promise<{ db: Database; app: TestApp; token: string }> {
    const target: DatabaseTarget = { ...direct.target, replica: { url: replicaUrl, maxLagMs: 5000 } };
    const db = await createDatabase(target);
    opened.push(db);
    const app = testApp({ ...direct, target, db }, { database: target });
    const { access_token: token } = await clientWithTokens(db.prisma, app.request);
    return { db, app, token };
  }

  const metric = async (app: TestApp, name: string) => {
    const text = await (await app.request('/metrics')).text();
    return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
  };

  /** A connection of its own listening on the numbering's channel, with the payloads it hears. */
  async function listening(): Promise<{ listener: pg.Client; payloads: string[]; heard: () => Promise<void> }> {
    const listener = new pg.Client({ connectionString: direct.target.url });
    await listener.connect();
    const payloads: string[] = [];
    listener.on('notification', (message) => payloads.push(message.payload ?? ''));
    await listener.query('LISTEN mdg_changes');
    const heard = async () => {
      for (let i = 0; i < 50 && payloads.length === 0; i++) await sleep(20);
    };
    return { listener, payloads, heard };
  }

  it("a write's numbering notifies where the primary's WAL stood and which client wrote", async () => {
    const { db, app, token } = await withReplica(direct.target.url);
    const { listener, payloads, heard } = await listening();
    try {
      const before = (await listener.query('SELECT pg_current_wal_insert_lsn()::text AS lsn')).rows[0].lsn as string;
      await createBrand(app.request, token, 'REPLICA');
      const writer = await db.prisma.apiClient.findFirstOrThrow({ orderBy: { id: 'desc' }, select: { id: true } });
      await heard();
      const notified = parseNotification(payloads[0] ?? '');
      expect(notified?.clients).toEqual([writer.id]);
      expect(notified!.lsn! > lsnValue(before)).toBe(true);
    } finally {
      await listener.end();
    }
  });

  it('an update batched by a process without a replica is numbered by its own statement, which notifies without a position; a process with one reads its floor again before serving from the replica', async () => {
    const plainDb = await createDatabase(direct.target);
    opened.push(plainDb);
    const plain = testApp({ ...direct, db: plainDb });
    const { access_token: token } = await clientWithTokens(plainDb.prisma, plain.request);
    const writer = await plainDb.prisma.apiClient.findFirstOrThrow({ orderBy: { id: 'desc' }, select: { id: true } });
    const id = await createBrand(plain.request, token, 'BATCH');
    const { listener, payloads, heard } = await listening();
    try {
      const statements = plainDb.statementCount;
      const answer = await plain.request(`/brands/${id}`, {
        method: 'PATCH',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/vnd.api+json' },
        body: JSON.stringify({ data: { type: 'brands', id: String(id), attributes: { reference: `BATCHED-${id}` } } }),
      });
      expect(answer.status).toBe(200);
      // Its read and its write: no numbering statement after it, and its entry numbered at its answer.
      expect(plainDb.statementCount - statements).toBe(2);
      const entry = await listener.query(
        `SELECT "seq" FROM "changes" WHERE "resource_type" = 'brands' AND "resource_id" = $1 AND "version" = 2`,
        [id],
      );
      expect(entry.rows[0].seq).not.toBeNull();
      await heard();
      expect(payloads).toEqual([`;${writer.id}`]);
    } finally {
      await listener.end();
    }

    const { db } = await withReplica(direct.target.url);
    const router = db.replica!;
    for (let i = 0; i < 100 && !router.state.usable; i++) await sleep(20);
    expect(router.state.usable).toBe(true);
    router.notified(`;${writer.id}`);
    // Until the primary's position is read again, no client's reads go to the replica.
    expect(router.state.usable).toBe(false);
    for (let i = 0; i < 100 && !router.state.usable; i++) await sleep(20);
    expect(router.state.usable).toBe(true);
  });

  it('reads go to a replica that answers (here the primary itself), and a client reads its own writes', async () => {
    const { app, token } = await withReplica(direct.target.url);
    for (let i = 0; i < 100 && (await metric(app, 'db_replica_usable')) !== 1; i++) await sleep(20);
    expect(await metric(app, 'db_replica_usable')).toBe(1);
    const before = await metric(app, 'db_replica_statements_total');
    const id = await createBrand(app.request, token, 'REPLICA');
    const read = await app.request(`/brands/${id}`, { headers: { Authorization: `Bearer ${token}` } });
    expect(read.status).toBe(200);
    // Right after its write the client's reads wait for the replica's next position poll (on the
    // primary meanwhile); a read a little later is on the replica.
    await sleep(200);
    const data = await graphql(app.request, token, `{ brand(id: ${id}) { id } }`);
    expect(data.brand.id).toBe(id);
    expect(await metric(app, 'db_replica_statements_total')).toBeGreaterThan(before);
  });

  it('with a replica that does not answer, reads and writes are served by the primary', async () => {
    const closedPort = await freePort();
    const { app, token } = await withReplica(`postgresql://postgres@127.0.0.1:${closedPort}/postgres`);
    await sleep(200);
    expect(await metric(app, 'db_replica_usable')).toBe(0);
    const id = await createBrand(app.request, token, 'REPLICA');
    const reads = await Promise.all(
      ['/brands?per_page=5', `/brands/${id}`].map((path) =>
        app.request(path, { headers: { Authorization: `Bearer ${token}` } }),
      ),
    );
    expect(reads.map((r) => r.status)).toEqual([200, 200]);
    expect(await metric(app, 'db_replica_statements_total')).toBe(0);
  });
});
