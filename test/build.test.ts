/**
 * The compiled build, as `npm start` serves it: JavaScript from dist/ (test/support/global-setup.ts
 * builds it), with no TypeScript transform in the process (no tsx, esbuild or typescript loaded,
 * no .ts module), and with only the configured provider's Prisma client, adapter and driver.
 * Every module the server process resolves is recorded by a preloaded hook.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { migratedDatabase, providers, type MigratedDatabase } from './support/databases.ts';
import { startService } from './support/process.ts';

const AUDIT_HOOK = new URL('./support/module-audit.mjs', import.meta.url).href;

/** What each provider loads, and the other must not. */
const PROVIDER_MODULES = {
  sqlite: ['/node_modules/@prisma/adapter-better-sqlite3/', '/node_modules/better-sqlite3/', '/dist/chunks/sqlite-'],
  postgresql: ['/node_modules/@prisma/adapter-pg/', '/node_modules/pg/', '/dist/chunks/postgresql-'],
};

describe.each(providers)('npm start on %s', (provider) => {
  let database: MigratedDatabase;
  const dir = mkdtempSync(join(tmpdir(), 'mdg-build-'));

  afterAll(async () => {
    await database?.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves the compiled JavaScript: no TypeScript transform loaded, only this provider’s client and driver', async () => {
    database = await migratedDatabase(provider);
    const auditFile = join(dir, 'modules.txt');
    const service = await startService(
      {
        DATABASE_URL: database.target.url,
        SEED_DEMO_DATA: 'false',
        NODE_OPTIONS: `--import=${AUDIT_HOOK}`,
        MODULE_AUDIT_FILE: auditFile,
      },
      { viaNpm: true },
    );
    try {
      // It answers, reads and writes through the database: the provider's modules are in use.
      const ready = await fetch(`${service.baseUrl}/readyz`);
      expect(await ready.json()).toEqual({ status: 'ready', database: provider });
      const modules = readFileSync(auditFile, 'utf8').split('\n').filter(Boolean);
      const ours = modules.filter((url) => url.startsWith('file:') && !url.includes('/node_modules/'));
      expect(ours.some((url) => url.endsWith('/dist/main.js'))).toBe(true);
      expect(ours.filter((url) => /\.(ts|mts|cts)$/.test(url))).toEqual([]);
      expect(modules.filter((url) => /\/node_modules\/(tsx|esbuild|typescript|@esbuild)\//.test(url))).toEqual([]);
      for (const [which, expected] of Object.entries(PROVIDER_MODULES)) {
        const loaded = expected.filter((part) => modules.some((url) => url.includes(part)));
        expect(loaded, which).toEqual(which === provider ? expected : []);
      }
    } finally {
      await service.stop();
    }
  });
});
