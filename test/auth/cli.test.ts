/** `npm run client -- ...` as an operator runs it, against a real database. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emptyDatabase, type TestDatabase } from '../support/databases.ts';
import { runScript } from '../support/process.ts';
import { createDatabase } from '../../src/db/client.ts';
import { verifySecret } from '../../src/auth/secrets.ts';

describe('client command line', () => {
  let database: TestDatabase;
  const run = (...args: string[]) => runScript('src/auth/cli.ts', args, { DATABASE_URL: database.target.url });
  beforeAll(async () => {
    database = await emptyDatabase('sqlite');
  });
  afterAll(async () => database?.drop());

  it('says which database it uses, never with its credentials', async () => {
    const result = await runScript('src/auth/cli.ts', ['list'], {
      DATABASE_URL: 'postgresql://user:pw@db.example:6543/masterdata',
      DATABASE_CONNECT_TIMEOUT_MS: '200',
    });
    expect(result.stderr).toContain('client: using the PostgreSQL database masterdata on db.example:6543');
    expect(result.stderr).not.toContain('pw');
  });

  it('create --json prints only {client_id, client_secret}; the secret is stored hashed', async () => {
    const result = await run('create', '--name', 'erp', '--scopes', 'read,write', '--role', 'admin', '--json');
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const created = JSON.parse(lines[0]!);
    expect(Object.keys(created)).toEqual(['client_id', 'client_secret']);
    // Which database it wrote to goes to stderr, so --json output stays machine-readable.
    expect(result.stderr).toContain(`client: using the SQLite file ${database.target.sqliteFile}`);
    const db = await createDatabase(database.target);
    try {
      const row = await db.prisma.apiClient.findUniqueOrThrow({ where: { client_id: created.client_id } });
      expect(row.scopes).toBe('read write');
      expect(row.secret_hash).not.toContain(created.client_secret);
      expect(await verifySecret(created.client_secret, row.secret_hash)).toBe('valid');
    } finally {
      await db.close();
    }
  });

  it('list shows clients without secrets; revoke marks one revoked', async () => {
    const created = JSON.parse(
      (await run('create', '--name', 'bi', '--scopes', 'read', '--role', 'admin', '--json')).stdout,
    );
    const revoke = await run('revoke', created.client_id);
    expect(revoke.code).toBe(0);
    const list = JSON.parse((await run('list', '--json')).stdout) as {
      client_id: string;
      name: string;
      revoked: boolean;
    }[];
    expect(list.find((c) => c.client_id === created.client_id)).toMatchObject({ name: 'bi', revoked: true });
    expect(JSON.stringify(list)).not.toContain(created.client_secret);
    expect(JSON.stringify(list)).not.toContain('scrypt');
  });

  it.each([
    [['create', '--name', 'x', '--scopes', 'admin', '--role', 'admin'], /unknown scope admin/],
    [['create', '--scopes', 'read', '--role', 'admin'], /needs a name/],
    [['create', '--name', 'x', '--scopes', 'read'], /needs a role \(--role\): admin for everything/],
    [['create', '--name', 'x', '--scopes', 'read', '--role', 'nope'], /no role "nope"; the roles are: admin/],
    [['set-role', 'no-such-client', 'admin'], /no client no-such-client/],
    [['revoke', 'no-such-client'], /no client no-such-client/],
    [['explode'], /unknown command explode/],
  ])('%o fails with a clear message and exit code 2', async (args, message) => {
    const result = await run(...args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});
