/**
 * Builds the compiled server (dist/) from the sources as they are, for the tests that run it as
 * `npm start` does; then says loudly which databases the suite runs against. Without
 * TEST_POSTGRES_URL the PostgreSQL half is skipped with a warning; under CI it is an error, so CI
 * never passes on SQLite alone.
 */
import { execFileSync } from 'node:child_process';

export default function setup(): void {
  // A run started by a test of the suite (test/tools.test.ts) finds the build made already, and
  // must not write it again under the suite's running servers.
  if (!process.env.TEST_BUILT) execFileSync('npm', ['run', '--silent', 'build'], { stdio: 'inherit' });
  if (process.env.TEST_POSTGRES_URL) {
    console.log(`\n[databases] SQLite and PostgreSQL (${redact(process.env.TEST_POSTGRES_URL)})\n`);
    return;
  }
  const message =
    'TEST_POSTGRES_URL is not set: PostgreSQL tests are SKIPPED. Set it, e.g. TEST_POSTGRES_URL=postgresql://postgres@127.0.0.1:5432/postgres';
  if (process.env.CI) throw new Error(`${message} (required under CI)`);
  console.warn(`\n\x1b[33m[databases] ${message}\x1b[0m\n`);
}

function redact(url: string): string {
  return url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
}
