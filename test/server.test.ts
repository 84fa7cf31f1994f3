/**
 * The embedded default as a newcomer runs it: a real process on a real port. A fresh database
 * is migrated and seeded on first start only; SIGTERM drains and exits cleanly.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import http from 'node:http';
import net from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { createClient } from '../src/auth/clients.ts';
import { createDatabase } from '../src/db/client.ts';
import { migrate } from '../src/db/migrate.ts';
import { DISCARD_MS } from '../src/http/body.ts';
import { resources } from '../src/resources/registry.ts';
import { emptyDatabase, providers, type TestDatabase } from './support/databases.ts';
import { startService } from './support/process.ts';

describe.each(providers)('the service on %s', (provider) => {
  const databases: TestDatabase[] = [];
  afterAll(async () => {
    for (const d of databases) await d.drop();
  });

  it('starts on an empty database: migrates, seeds the demo data of every type, serves health and readiness', async () => {
    const database = await emptyDatabase(provider);
    databases.push(database);
    const service = await startService({ DATABASE_URL: database.target.url });
    try {
      expect((await fetch(`${service.baseUrl}/healthz`)).status).toBe(200);
      const ready = await fetch(`${service.baseUrl}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ status: 'ready', database: provider });
      expect(service.output()).toContain('demo data seeded');

      // The newcomer path: the printed demo client gets a token over real HTTP and calls the APIs.
      const printed = service.output();
      const id = printed.match(/client_id: +(\S+)/)![1]!;
      const secret = printed.match(/client_secret: +(\S+)/)![1]!;
      expect(printed).toContain(
        `curl -s -u '${id}:${secret}' -d grant_type=client_credentials ${service.baseUrl}/oauth/token.php`,
      );
      const token = await fetch(`${service.baseUrl}/oauth/token.php`, {
        method: 'POST',
        headers: {
          Authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`,
          'Content-Type': 'application/x-www-form-urlencoded',
        },
        body: 'grant_type=client_credentials',
      });
      expect(token.status).toBe(200);
      const { access_token } = await token.json();
      expect((await fetch(`${service.baseUrl}/graphql`, { method: 'POST' })).status).toBe(401);
      expect(
        (
          await fetch(`${service.baseUrl}/graphql`, {
            method: 'POST',
            headers: { Authorization: `Bearer ${access_token}` },
          })
        ).status,
      ).not.toBe(401);
      // Structured log lines never carry the secret or the token.
      const logLines = printed
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .join('\n');
      expect(logLines).not.toContain(secret);
      expect(logLines).not.toContain(access_token);
    } finally {
      expect((await service.stop()).code).toBe(0);
    }
    const db = await createDatabase(database.target);
    try {
      for (const resource of resources) {
        const rows = await db.prisma.$queryRawUnsafe<{ n: unknown }[]>(`SELECT COUNT(*) AS n FROM "${resource.type}"`);
        expect(Number(rows[0]!.n), resource.type).toBeGreaterThan(0);
      }
    } finally {
      await db.close();
    }

    // Second start: nothing to migrate, nothing seeded again.
    const again = await startService({ DATABASE_URL: database.target.url });
    expect(again.output()).not.toContain('demo data seeded');
    expect(again.output()).not.toContain('database migrated');
    expect(again.output()).not.toContain('client_secret');
    expect((await again.stop()).code).toBe(0);
  });

  it('purges expired and revoked tokens at start, not only an hour later', async () => {
    const database = await emptyDatabase(provider);
    databases.push(database);
    await migrate(database.target);
    const db = await createDatabase(database.target);
    try {
      const client = await createClient(db.prisma, 'purge', ['read']);
      const { id } = await db.prisma.apiClient.findUniqueOrThrow({ where: { client_id: client.client_id } });
      const token = (digest: string, fields: { expires_at: Date; revoked_at?: Date }) => ({
        digest,
        kind: 'access',
        api_client_id: id,
        family: digest,
        scope: 'read',
        ...fields,
      });
      const future = new Date(Date.now() + 3600_000);
      await db.prisma.oAuthToken.createMany({
        data: [
          token('expired', { expires_at: new Date(Date.now() - 1000) }),
          token('revoked', { expires_at: future, revoked_at: new Date() }),
          token('valid', { expires_at: future }),
        ],
      });
      const service = await startService({ DATABASE_URL: database.target.url, SEED_DEMO_DATA: 'false' });
      try {
        await expect.poll(() => service.output(), { timeout: 10_000 }).toContain('"purged":2');
      } finally {
        expect((await service.stop()).code).toBe(0);
      }
      expect((await db.prisma.oAuthToken.findMany({ select: { digest: true } })).map((t) => t.digest)).toEqual([
        'valid',
      ]);
    } finally {
      await db.close();
    }
  });

  // Draining, body limits and sockets do not depend on the provider: these run on SQLite only.
  it.runIf(provider === 'sqlite')(
    'drains on SIGTERM sent to `npm start` under keep-alive load: zero reset or failed requests, exit 0',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'mdg-drain-'));
      const service = await startService(
        { DATABASE_URL: `file:${join(dir, 'db.sqlite')}`, SEED_DEMO_DATA: 'false' },
        { viaNpm: true },
      );
      try {
        const load = keepAliveLoad(`${service.baseUrl}/healthz`, 8);
        // Under way before the signal: some answered (within 5 s on a machine busy with other tests).
        for (let waited = 0; load.answered() <= 50 && waited < 5000; waited += 50)
          await new Promise((resolve) => setTimeout(resolve, 50));
        const answeredBeforeSignal = load.answered();
        const { code, ms } = await service.stop('SIGTERM');
        const result = await load.finished;
        expect(answeredBeforeSignal).toBeGreaterThan(50);
        expect(result.failures).toEqual([]);
        // Every connection got its last answer with `Connection: close` and left.
        expect(result.closedByServer).toBe(8);
        expect(code).toBe(0);
        expect(ms).toBeLessThan(8000);
        expect(service.output()).toContain('"msg":"stopped"');
        expect(service.output()).not.toContain('drain timeout');
      } finally {
        if (service.child.exitCode === null) service.child.kill('SIGKILL');
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it.runIf(provider === 'sqlite')(
    'with DRAIN_DELAY_MS, answers /readyz 503 and still serves requests for that long after SIGTERM, then exits',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'mdg-drain-'));
      const service = await startService({
        DATABASE_URL: `file:${join(dir, 'db.sqlite')}`,
        SEED_DEMO_DATA: 'false',
        DRAIN_DELAY_MS: '1500',
      });
      try {
        expect((await fetch(`${service.baseUrl}/readyz`)).status).toBe(200);
        const stopped = service.stop('SIGTERM');
        const signalled = Date.now();
        // What a balancer's health check sees, and what a request sent meanwhile gets.
        let readiness = 0;
        for (let i = 0; i < 50 && readiness !== 503; i++) {
          readiness = (await fetch(`${service.baseUrl}/readyz`)).status;
          if (readiness !== 503) await new Promise((r) => setTimeout(r, 20));
        }
        expect(readiness).toBe(503);
        await new Promise((r) => setTimeout(r, 500));
        const during = await fetch(`${service.baseUrl}/healthz`);
        expect(during.status).toBe(200);
        expect(during.headers.get('connection')).toBe('close');
        expect(Date.now() - signalled).toBeLessThan(1500);
        const { code, ms } = await stopped;
        expect(code).toBe(0);
        expect(ms).toBeGreaterThanOrEqual(1500);
        // The listener is closed now.
        await expect(fetch(`${service.baseUrl}/healthz`)).rejects.toThrow();
      } finally {
        if (service.child.exitCode === null) service.child.kill('SIGKILL');
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it.runIf(provider === 'sqlite')(
    'closes an idle keep-alive connection on SIGTERM instead of waiting for it',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'mdg-drain-'));
      const service = await startService({ DATABASE_URL: `file:${join(dir, 'db.sqlite')}`, SEED_DEMO_DATA: 'false' });
      const agent = new http.Agent({ keepAlive: true });
      try {
        await new Promise<void>((resolve, reject) =>
          http
            .get(`${service.baseUrl}/healthz`, { agent }, (res) => res.resume().on('end', () => resolve()))
            .on('error', reject),
        );
        const { code, ms } = await service.stop('SIGTERM');
        expect(code).toBe(0);
        expect(ms).toBeLessThan(3000);
      } finally {
        agent.destroy();
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it.runIf(provider === 'sqlite')(
    'refuses a 64 MB upload on a real socket: 413 every time, and the server process memory stays flat',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'mdg-body-'));
      const service = await startService({ DATABASE_URL: `file:${join(dir, 'db.sqlite')}`, SEED_DEMO_DATA: 'false' });
      try {
        const rss = () =>
          Number(readFileSync(`/proc/${service.child.pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/)![1]) * 1024;
        const uploadAll = () =>
          Promise.all(Array.from({ length: 4 }, () => upload(`${service.baseUrl}/oauth/token.php`, 64 * 1024 * 1024)));
        // A first round warms the process up (code paths compiled, heap and socket buffers grown),
        // so that what follows measures the bodies only.
        expect(await uploadAll()).toEqual([413, 413, 413, 413]);
        const before = rss();
        // The answer waits for the rest of the body, thrown away: a client still sending when the
        // connection closed would be reset, and could lose its 413.
        expect(await uploadAll()).toEqual([413, 413, 413, 413]);
        // Keeping the four bodies would add at least 256 MB; refusing them adds less than one body.
        expect(rss() - before).toBeLessThan(64 * 1024 * 1024);
      } finally {
        await service.stop();
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it.runIf(provider === 'sqlite')(
    'does not wait for an oversized body that never ends: the connection is closed after DISCARD_MS',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'mdg-body-'));
      const service = await startService({ DATABASE_URL: `file:${join(dir, 'db.sqlite')}`, SEED_DEMO_DATA: 'false' });
      try {
        const started = performance.now();
        // The client may see the 413 or, still sending, only the reset that follows it.
        expect([413, 'closed']).toContain(await upload(`${service.baseUrl}/oauth/token.php`, Infinity));
        expect(performance.now() - started).toBeGreaterThanOrEqual(DISCARD_MS - 100);
        expect(performance.now() - started).toBeLessThan(DISCARD_MS + 3000);
      } finally {
        await service.stop();
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});

/**
 * `connections` clients, each sending requests one after another on its own keep-alive
 * connection, as a load balancer would; a client leaves once an answer says `Connection: close`.
 * A failure is a request that got no complete answer (reset, hang-up) or a 5xx.
 */
function keepAliveLoad(url: string, connections: number) {
  let answered = 0;
  const failures: string[] = [];
  let closedByServer = 0;
  const client = async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      for (;;) {
        const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
          http
            .get(url, { agent }, (r) =>
              r
                .resume()
                .on('end', () => resolve(r))
                .on('error', reject),
            )
            .on('error', reject);
        }).catch((error: NodeJS.ErrnoException) => error);
        if (res instanceof Error) {
          failures.push(res.code ?? res.message);
          return;
        }
        answered += 1;
        if (res.statusCode! >= 500) failures.push(`status ${res.statusCode}`);
        if (res.headers.connection === 'close') {
          closedByServer += 1;
          return;
        }
      }
    } finally {
      agent.destroy();
    }
  };
  const finished = Promise.all(Array.from({ length: connections }, client)).then(() => ({ failures, closedByServer }));
  return { answered: () => answered, finished };
}

/**
 * Streams `bytes` of form data to `url` over a raw socket and resolves with the status the server
 * answered. (Node's HTTP client drops an early answer once a write fails, so it cannot tell.)
 */
/**
 * A chunked POST of `bytes` bytes (Infinity: a body that never ends) on a raw socket: the status
 * of the answer, or 'closed' when the connection closed without one.
 */
function upload(url: string, bytes: number): Promise<number | 'closed'> {
  const { hostname, port, pathname } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    let received = '';
    socket.on('data', (data) => {
      received += data.toString('latin1');
      const status = received.match(/^HTTP\/1\.1 (\d{3})/)?.[1];
      if (status) {
        socket.destroy();
        resolve(Number(status));
      }
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      // The server closes the connection after answering; writing the rest then fails.
      if (!['EPIPE', 'ECONNRESET'].includes(error.code ?? '')) reject(error);
    });
    socket.on('close', () => resolve('closed'));
    socket.write(
      `POST ${pathname} HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\n`,
    );
    const chunk = Buffer.concat([Buffer.from('10000\r\n'), Buffer.alloc(0x10000, 0x61), Buffer.from('\r\n')]);
    let sent = 0;
    const write = () => {
      while (sent < bytes && !socket.destroyed) {
        sent += 0x10000;
        if (!socket.write(chunk)) return void socket.once('drain', write);
      }
      if (!socket.destroyed) socket.write('0\r\n\r\n');
    };
    write();
  });
}
