/**
 * Tests that need a program from Debian's packages (./support/tools.ts) are skipped, loudly, where
 * it is missing, and nothing of them runs: `npm run test:cluster` on a machine without PgBouncer
 * says so and passes, instead of failing to start it.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ROOT } from './support/process.ts';

describe('a test whose program is missing', () => {
  it('npm run test:cluster without PgBouncer: skipped with a warning naming it, nothing started, exit 0', () => {
    const env: NodeJS.ProcessEnv = { ...process.env, TEST_PGBOUNCER: '/nonexistent/pgbouncer', TEST_BUILT: '1' };
    delete env.CI;
    env.TEST_POSTGRES_URL ??= 'postgresql://postgres@127.0.0.1:5432/postgres';
    const run = spawnSync('npm', ['run', '--silent', 'test:cluster'], { cwd: ROOT, env, encoding: 'utf8' });
    const output = `${run.stdout}\n${run.stderr}`;
    expect(output).toContain('/nonexistent/pgbouncer missing: the cluster test SKIPPED');
    expect(output).not.toMatch(/ENOENT|spawn/);
    expect(output).toMatch(/Tests\s.*skipped/);
    expect(run.status, output).toBe(0);
  }, 120_000);

  it('under CI the same is an error', () => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      TEST_PGBOUNCER: '/nonexistent/pgbouncer',
      TEST_BUILT: '1',
      CI: 'true',
    };
    env.TEST_POSTGRES_URL ??= 'postgresql://postgres@127.0.0.1:5432/postgres';
    const run = spawnSync('npm', ['run', '--silent', 'test:cluster'], { cwd: ROOT, env, encoding: 'utf8' });
    expect(`${run.stdout}\n${run.stderr}`).toContain('under CI (CI=true) this is an error');
    expect(run.status).not.toBe(0);
  }, 120_000);
});
