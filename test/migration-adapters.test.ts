/**
 * The Prisma CLI's SQLite adapter (src/db/migration-adapters.ts) gets the service's SQL functions
 * through the adapter's private `client`: a connected adapter answers them, and an adapter
 * without that member (an upgrade that renamed it) is refused with a message naming the
 * installed adapter's version, not a TypeError.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sqliteConnectionOf, sqliteMigrationAdapter } from '../src/db/migration-adapters.ts';

const dir = mkdtempSync(join(tmpdir(), 'mdg-adapter-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the SQLite migration adapter', () => {
  it('a connection it makes answers search_fold, which migrations index text with', async () => {
    const adapter = await sqliteMigrationAdapter(`file:${join(dir, 'm.db')}`).connect();
    try {
      const result = await adapter.queryRaw({ sql: "SELECT search_fold('Straße') AS f", args: [], argTypes: [] });
      expect(result.rows).toEqual([['strasse']]);
    } finally {
      await adapter.dispose();
    }
  });

  it('an adapter without the client it reaches into is refused, naming the adapter and its version', () => {
    const { version } = JSON.parse(
      readFileSync(join(import.meta.dirname, '../node_modules/@prisma/adapter-better-sqlite3/package.json'), 'utf8'),
    );
    expect(() => sqliteConnectionOf({ db: {} })).toThrow(
      `@prisma/adapter-better-sqlite3 ${version} keeps its better-sqlite3 connection elsewhere`,
    );
  });
});
