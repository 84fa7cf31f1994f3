/**
 * Behind PgBouncer in transaction pooling (a real one, Debian's package): each transaction may run
 * on another server connection. With DATABASE_POOL_MODE=transaction the service sends no session
 * settings when connecting and prepares no named statements, and LISTEN runs on
 * DATABASE_DIRECT_URL: reads, writes (each with its change-log entry), GraphQL and a live change
 * all work through it, under concurrency.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type Database } from '../src/db/client.ts';
import { NamedStatements } from '../src/db/named-statements.ts';
import { Sql } from '../src/db/sql.ts';
import { testApp } from './support/app.ts';
import { migratedDatabase, providers, type MigratedDatabase } from './support/databases.ts';
import { CHANGES, clientWithTokens, createBrand, graphql, logAfter, logHead, type Send } from './support/live.ts';
import { type RunningPgBouncer, startPgBouncer } from './support/pgbouncer.ts';
import { SseStream } from './support/sse.ts';
import { PGBOUNCER, skipWithout } from './support/tools.ts';

const run = providers.includes('postgresql') && !skipWithout('the PgBouncer tests', PGBOUNCER);

describe.runIf(run)('through PgBouncer in transaction pooling', () => {
  let direct: MigratedDatabase;
  let bouncer: RunningPgBouncer;
  let pooled: Database;
  let send: Send;
  let token: string;

  beforeAll(async () => {
    direct = await migratedDatabase('postgresql');
    bouncer = await startPgBouncer(direct.target.url, { poolSize: 3 });
    const target = {
      ...direct.target,
      url: bouncer.url(direct.target.url),
      transactionPooler: true,
      directUrl: direct.target.url,
    };
    pooled = await createDatabase(target);
    const app = testApp({ ...direct, target, db: pooled }, { database: target });
    send = (path, init) => app.request(path, init);
    ({ access_token: token } = await clientWithTokens(pooled.prisma, send));
  });
  afterAll(async () => {
    await pooled?.close();
    await bouncer?.stop();
    await direct?.cleanup();
  });

  it('named statements do not survive it: the reason the setting exists', async () => {
    // Two client connections through three server connections: a name prepared on one server
    // connection is unknown on the next transaction's.
    const pool = new pg.Pool({ connectionString: bouncer.url(direct.target.url), max: 2 });
    try {
      const names = new NamedStatements();
      const statement = new Sql('postgresql').text('SELECT count(*) AS n FROM products');
      const results = await Promise.allSettled(Array.from({ length: 40 }, () => names.run(pool, statement)));
      const failures = results.filter((r) => r.status === 'rejected').map((r) => String(r.reason));
      expect(failures.length).toBeGreaterThan(0);
      expect(failures[0]).toMatch(/prepared statement .* (does not exist|already exists)/);
    } finally {
      await pool.end();
    }
  });

  it('serves concurrent reads and writes of both APIs, each write with its change-log entry', async () => {
    const head = await logHead(direct.db.prisma);
    const brands = await Promise.all(Array.from({ length: 20 }, () => createBrand(send, token, 'POOLED')));
    const reads = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        i % 2 === 0
          ? send(`/brands/${brands[i]}`, { headers: { Authorization: `Bearer ${token}` } }).then((r) => r.status)
          : graphql(send, token, 'query($id: Int!) { brand(id: $id) { id reference version } }', {
              id: brands[i],
            }).then((data) => (data.brand.id === brands[i] ? 200 : 500)),
      ),
    );
    expect(reads).toEqual(Array(20).fill(200));
    const renamed = await Promise.all(
      brands.map((id) =>
        send(`/brands/${id}`, {
          method: 'PATCH',
          headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/vnd.api+json' },
          body: JSON.stringify({
            data: { type: 'brands', id: String(id), attributes: { reference: `POOLED-RENAMED-${id}` } },
          }),
        }).then((r) => r.status),
      ),
    );
    expect(renamed).toEqual(Array(20).fill(200));
    const log = await logAfter(direct.db.prisma, head, ['brands']);
    expect(log.map((e) => e.op).sort()).toEqual([...Array(20).fill('created'), ...Array(20).fill('updated')]);
  });

  it('delivers a live change: LISTEN on the direct URL, the write through the pooler', async () => {
    const stream = await SseStream.open(send, { query: CHANGES, token });
    try {
      expect(stream.status).toBe(200);
      const id = await createBrand(send, token, 'POOLED-LIVE');
      await stream.until((s) => s.changes().some((c) => c.id === id), 'the brand created through the pooler');
    } finally {
      await stream.close();
    }
  });
});
