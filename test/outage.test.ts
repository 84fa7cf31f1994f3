/**
 * The database failing under the service: a PostgreSQL server that accepts connections and then
 * never answers (a stalling TCP proxy in front of the real one), an SQLite lock held elsewhere,
 * and databases that do not take writes. Every wait is bounded; an outage is a 503 with
 * Retry-After, never a hang or a 500.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { READINESS_REUSE_MS } from '../src/app.ts';
import { createClient } from '../src/auth/clients.ts';
import { createDatabase } from '../src/db/client.ts';
import { migrate } from '../src/db/migrate.ts';
import { parseDatabaseUrl } from '../src/db/url.ts';
import { testApp } from './support/app.ts';
import { migratedDatabase, providers, type MigratedDatabase } from './support/databases.ts';
import { basic, bearer, getTokens, tokenRequest } from './support/oauth.ts';
import { runScript, startService } from './support/process.ts';
import { stallProxy, type StallProxy } from './support/stall-proxy.ts';

const TIMEOUTS = { connectMs: 500, statementMs: 500 };
const TIMEOUT_ENV = { DATABASE_CONNECT_TIMEOUT_MS: '500', DATABASE_STATEMENT_TIMEOUT_MS: '500' };
const grant = { grant_type: 'client_credentials' };

async function expectUnavailable(res: Response) {
  expect(res.status).toBe(503);
  expect(res.headers.get('retry-after')).toBe('5');
  const text = await res.text();
  expect(JSON.parse(text)).toEqual({
    error: { code: 'service_unavailable', http_code: 503, message: 'the database is unavailable; retry later' },
  });
}

describe.skipIf(!providers.includes('postgresql'))('a PostgreSQL server that stops answering', () => {
  let database: MigratedDatabase;
  let proxy: StallProxy;
  beforeAll(async () => {
    database = await migratedDatabase('postgresql');
    proxy = await stallProxy(database.target.url);
  });
  afterAll(async () => {
    await proxy?.close();
    await database?.cleanup();
  });

  it('requests answer 503 with Retry-After within the configured timeouts; readiness logs each change once', async () => {
    const client = await createClient(database.db.prisma, 'erp', ['read']);
    const target = parseDatabaseUrl(proxy.url);
    const db = await createDatabase(target, TIMEOUTS);
    const t = testApp({ ...database, target, db });
    try {
      expect((await t.request('/readyz')).status).toBe(200);
      // A token validated just before the outage (and so trusted from memory for a few seconds)
      // lets the requests below reach the data layer itself.
      const { access_token } = await getTokens(t, client);
      expect((await t.request('/customers', bearer(access_token))).status).toBe(200);
      proxy.stall();

      let started = Date.now();
      await expectUnavailable(await t.request('/customers?include=address', bearer(access_token)));
      expect(Date.now() - started).toBeLessThan(3000);

      started = Date.now();
      // /graphql says it as GraphQL errors, with the same status and Retry-After.
      const graphql = await t.request('/graphql', {
        method: 'POST',
        headers: { ...bearer(access_token).headers, 'Content-Type': 'application/json' },
        body: JSON.stringify({ query: '{ customers(first: 2) { nodes { id address { id } } } }' }),
      });
      expect(graphql.status).toBe(503);
      expect(graphql.headers.get('retry-after')).toBe('5');
      expect(await graphql.json()).toEqual({
        errors: [{ message: 'the database is unavailable; retry later', extensions: { code: 'SERVICE_UNAVAILABLE' } }],
      });
      expect(Date.now() - started).toBeLessThan(3000);

      started = Date.now();
      await expectUnavailable(await tokenRequest(t, client, grant));
      expect(Date.now() - started).toBeLessThan(3000);

      started = Date.now();
      await expectUnavailable(await t.request('/customers', bearer('mda_never_seen_before')));
      expect(Date.now() - started).toBeLessThan(3000);

      for (let i = 0; i < 3; i++) expect((await t.request('/readyz')).status).toBe(503);
      proxy.resume();
      // A readiness answer is reused for a moment (an open route must not let anyone keep the
      // database busy): the next check after it sees the database back.
      await new Promise((resolve) => setTimeout(resolve, READINESS_REUSE_MS));
      for (let i = 0; i < 3; i++) expect((await t.request('/readyz')).status).toBe(200);
      // The owner's next grant works: the outage counted against nobody.
      expect((await tokenRequest(t, client, grant)).status).toBe(200);

      const messages = t.logs().map((l) => l.msg);
      expect(messages.filter((m) => m === 'database unavailable: not ready')).toHaveLength(1);
      expect(messages.filter((m) => m === 'database available again: ready')).toHaveLength(1);
      expect(messages).not.toContain('unhandled error');
    } finally {
      proxy.resume();
      await db.close();
    }
  });

  it('idle connections ended by the server (a restart, a failover) are replaced, and the process lives on', async () => {
    const client = await createClient(database.db.prisma, 'restart', ['read']);
    const t = testApp(database);
    const tokens = await getTokens(t, client);
    expect((await t.request('/readyz')).status).toBe(200);
    const name = new URL(database.target.url).pathname.slice(1);
    const admin = new pg.Client({ connectionString: database.target.url });
    await admin.connect();
    try {
      const { rowCount } = await admin.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
        [name],
      );
      expect(rowCount).toBeGreaterThan(0);
    } finally {
      await admin.end();
    }
    // The pool hears of each ended connection asynchronously; give it the time to drop them.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const res = await t.request('/customers', bearer(tokens.access_token));
    expect(res.status).toBe(200);
    expect((await t.request('/readyz')).status).toBe(200);
  });

  it('start-up against it fails with one line after the connect timeout', async () => {
    const stalled = await stallProxy(database.target.url, { stalled: true });
    try {
      const started = Date.now();
      const run = await runScript('src/main.ts', [], { DATABASE_URL: stalled.url, PORT: '0', ...TIMEOUT_ENV });
      expect(run.code).toBe(1);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      expect(run.stderr).toMatch(/^DATABASE_URL: cannot prepare the postgresql database: .*time/);
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      await stalled.close();
    }
  });

  it('SIGTERM while a request waits on it: the request gets its 503, the process exits 0 within the drain limit', async () => {
    const service = await startService({ DATABASE_URL: proxy.url, SEED_DEMO_DATA: 'false', ...TIMEOUT_ENV });
    try {
      const client = await createClient(database.db.prisma, 'drain', ['read']);
      const url = `${service.baseUrl}/oauth/token.php`;
      const init = {
        method: 'POST',
        headers: {
          Authorization: basic(client.client_id, client.client_secret),
          'Content-Type': 'application/x-www-form-urlencoded',
        },
        body: 'grant_type=client_credentials',
      };
      expect((await fetch(url, init)).status).toBe(200);
      proxy.stall();
      const waiting = fetch(url, init);
      await new Promise((resolve) => setTimeout(resolve, 100));
      const stopped = service.stop('SIGTERM');
      await expectUnavailable(await waiting);
      const { code, ms } = await stopped;
      expect(code).toBe(0);
      expect(ms).toBeLessThan(8000);
    } finally {
      proxy.resume();
      if (service.child.exitCode === null) service.child.kill('SIGKILL');
    }
  });
});

describe('an SQLite lock held by another process', () => {
  it('a write that cannot get the lock within the busy timeout answers 503, and the lock holder is untouched', async () => {
    const database = await migratedDatabase('sqlite');
    const db = await createDatabase(database.target, { connectMs: 500, statementMs: 300 });
    const other = new Sqlite(database.target.sqliteFile!);
    try {
      const client = await createClient(db.prisma, 'erp', ['read']);
      const t = testApp({ ...database, db });
      other.exec('BEGIN IMMEDIATE');
      await expectUnavailable(await tokenRequest(t, client, grant));
      other.exec('COMMIT');
      expect((await getTokens(t, client)).access_token).toMatch(/^mda_/);
    } finally {
      other.close();
      await db.close();
      await database.cleanup();
    }
  });
});

describe.each(providers)('a database that does not take writes, on %s', (provider) => {
  it('start-up refuses with one line instead of failing every write later', async () => {
    if (provider === 'sqlite') {
      const dir = mkdtempSync(join(tmpdir(), 'mdg-readonly-'));
      const target = parseDatabaseUrl(`file:${join(dir, 'db.sqlite')}`);
      await migrate(target);
      chmodSync(dir, 0o555);
      // root ignores permission bits: make the directory immutable as well.
      if (process.getuid?.() === 0) execFileSync('chattr', ['+i', dir]);
      try {
        const run = await runScript('src/main.ts', [], { DATABASE_URL: target.url, PORT: '0' });
        expect(run.code).toBe(1);
        expect(run.stderr.trim().split('\n')).toHaveLength(1);
        expect(run.stderr).toMatch(
          /^DATABASE_URL: cannot prepare the sqlite database: the database does not take writes .*: the file and its directory must be writable$/m,
        );
      } finally {
        if (process.getuid?.() === 0) execFileSync('chattr', ['-i', dir]);
        chmodSync(dir, 0o755);
        rmSync(dir, { recursive: true, force: true });
      }
    } else {
      const database = await migratedDatabase('postgresql');
      const name = new URL(database.target.url).pathname.slice(1);
      const admin = new pg.Client({ connectionString: database.target.url });
      await admin.connect();
      await admin.query(`ALTER DATABASE ${name} SET default_transaction_read_only = on`);
      await admin.end();
      try {
        const run = await runScript('src/main.ts', [], { DATABASE_URL: database.target.url, PORT: '0' });
        expect(run.code).toBe(1);
        expect(run.stderr.trim().split('\n')).toHaveLength(1);
        expect(run.stderr).toMatch(
          /^DATABASE_URL: cannot prepare the postgresql database: the database does not take writes/,
        );
      } finally {
        await database.cleanup();
      }
    }
  });
});
