/**
 * The embedded default as a newcomer runs it: a real process on a real port. A fresh database
 * is migrated and seeded on first start only; SIGTERM drains and exits cleanly.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import http from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { createDatabase } from '../src/db/client.ts';
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
      expect(printed).toContain(`curl -s -u '${id}:${secret}' -d grant_type=client_credentials ${service.baseUrl}/oauth/token.php`);
      const token = await fetch(`${service.baseUrl}/oauth/token.php`, {
        method: 'POST',
        headers: { Authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials',
      });
      expect(token.status).toBe(200);
      const { access_token } = await token.json();
      expect((await fetch(`${service.baseUrl}/graphql`, { method: 'POST' })).status).toBe(401);
      expect((await fetch(`${service.baseUrl}/graphql`, { method: 'POST', headers: { Authorization: `Bearer ${access_token}` } })).status).not.toBe(401);
      // Structured log lines never carry the secret or the token.
      const logLines = printed.split('\n').filter((l) => l.startsWith('{')).join('\n');
      expect(logLines).not.toContain(secret);
      expect(logLines).not.toContain(access_token);
    } finally {
      expect((await service.stop()).code).toBe(0);
    }
    const db = createDatabase(database.target);
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

  it('drains on SIGTERM: an open keep-alive connection does not hold it, exit 0 well within 10 s', async () => {
    if (provider !== 'sqlite') return; // draining does not depend on the provider
    const dir = mkdtempSync(join(tmpdir(), 'mdg-drain-'));
    const service = await startService({ DATABASE_URL: `file:${join(dir, 'db.sqlite')}`, SEED_DEMO_DATA: 'false' });
    const agent = new http.Agent({ keepAlive: true });
    await new Promise<void>((resolve, reject) =>
      http.get(`${service.baseUrl}/healthz`, { agent }, (res) => res.resume().on('end', () => resolve())).on('error', reject),
    );
    const { code, ms } = await service.stop('SIGTERM');
    agent.destroy();
    rmSync(dir, { recursive: true, force: true });
    expect(code).toBe(0);
    expect(ms).toBeLessThan(10_000);
    expect(service.output()).toContain('"msg":"stopped"');
  });
});
