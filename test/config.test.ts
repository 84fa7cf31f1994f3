import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';
import { runScript } from './support/process.ts';

describe('configuration', () => {
  it('has working defaults: port 4000 and an SQLite file under ./data', () => {
    const config = loadConfig({});
    expect(config.port).toBe(4000);
    expect(config.database.provider).toBe('sqlite');
    expect(config.database.sqliteFile).toMatch(/\/data\/master-data\.db$/);
    expect(config.basePath).toBe('');
    expect(config.logLevel).toBe('info');
  });

  it('takes the provider from DATABASE_URL alone', () => {
    expect(loadConfig({ DATABASE_URL: 'postgresql://u:p@db:5432/md' }).database.provider).toBe('postgresql');
    expect(loadConfig({ DATABASE_URL: 'postgres://db/md' }).database.provider).toBe('postgresql');
    expect(loadConfig({ DATABASE_URL: 'file:/tmp/x.db' }).database.sqliteFile).toBe('/tmp/x.db');
  });

  it('normalises BASE_PATH', () => {
    expect(loadConfig({ BASE_PATH: '/api/' }).basePath).toBe('/api');
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '65536'],
    ['PORT', '-1'],
    ['DATABASE_URL', 'mysql://localhost/db'],
    ['DATABASE_URL', 'file:'],
    ['BASE_PATH', 'api'],
    ['LOG_LEVEL', 'loud'],
    ['SEED_DEMO_DATA', 'maybe'],
    ['DATABASE_REPLICA_URL', 'file:./replica.db'],
    ['DATABASE_REPLICA_MAX_LAG_MS', '0'],
  ])('rejects %s=%s with a one-line message naming it', (variable, value) => {
    let error: unknown;
    try {
      loadConfig({ [variable]: value });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message.startsWith(`${variable} `)).toBe(true);
    expect(message).not.toContain('\n');
  });

  it.each(['DATABASE_URL', 'DATABASE_DIRECT_URL', 'DATABASE_REPLICA_URL'])(
    'never echoes %s, which may hold a password',
    (variable) => {
      expect(() => loadConfig({ [variable]: 'mysql://user:s3cret@host/db' })).toThrow(
        new RegExp(`^${variable} (?!.*s3cret)`),
      );
    },
  );

  it('takes a read replica only with PostgreSQL, with its lag bound', () => {
    const replica = 'postgresql://reader@standby:5432/md';
    expect(
      loadConfig({
        DATABASE_URL: 'postgresql://u@db/md',
        DATABASE_REPLICA_URL: replica,
        DATABASE_REPLICA_MAX_LAG_MS: '2000',
      }).database.replica,
    ).toEqual({ url: replica, maxLagMs: 2000 });
    expect(
      loadConfig({ DATABASE_URL: 'postgresql://u@db/md', DATABASE_REPLICA_URL: replica }).database.replica?.maxLagMs,
    ).toBe(5000);
    expect(loadConfig({ DATABASE_REPLICA_URL: replica }).database.replica).toBeUndefined();
  });
});

describe('start-up failures', () => {
  const oneLine = (stderr: string) =>
    stderr
      .trim()
      .split('\n')
      .filter((l) => !l.includes('npm warn'));

  it.each([
    [{ PORT: 'http' }, /^configuration error: PORT /],
    [{ DATABASE_URL: 'mysql://localhost/x' }, /^configuration error: DATABASE_URL /],
    // Valid form, but nothing listens there.
    [
      { DATABASE_URL: 'postgresql://nobody@127.0.0.1:1/none' },
      /^DATABASE_URL: cannot prepare the postgresql database: /,
    ],
  ])('%o stops start-up with one line, no stack, exit code 1', async (env, pattern) => {
    const result = await runScript('src/main.ts', [], env as Record<string, string>);
    expect(result.code).toBe(1);
    const lines = oneLine(result.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(pattern);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});
