/**
 * Programs from Debian's packages that some tests drive (`.ci/run` installs them). Where one is
 * missing, the tests that need it are skipped with a warning naming it; under CI (CI=true) that
 * is an error, so that CI never passes without them. `TEST_<NAME>` (e.g. `TEST_PGBOUNCER`) points
 * at one installed elsewhere.
 */
import { existsSync } from 'node:fs';

export interface Tool {
  name: string;
  /** The Debian package that installs it. */
  package: string;
  path: string;
}

function tool(name: string, pkg: string, defaultPath: string): Tool {
  return { name, package: pkg, path: process.env[`TEST_${name.toUpperCase()}`] || defaultPath };
}

export const CHROMIUM = tool('chromium', 'chromium', '/usr/bin/chromium');
export const PGBOUNCER = tool('pgbouncer', 'pgbouncer', '/usr/sbin/pgbouncer');
export const HAPROXY = tool('haproxy', 'haproxy', '/usr/sbin/haproxy');

/** Whether the tests named `what` are skipped here for want of one of `tools` (never under CI: it throws). */
export function skipWithout(what: string, ...tools: Tool[]): boolean {
  const missing = tools.filter((t) => !existsSync(t.path));
  if (missing.length === 0) return false;
  const message = `${missing.map((t) => t.path).join(' and ')} missing: ${what} SKIPPED. Install ${missing.map((t) => t.package).join(' ')} (apt-get install -y ${missing.map((t) => t.package).join(' ')})`;
  if (process.env.CI) throw new Error(`${message}; under CI (CI=true) this is an error`);
  console.warn(`\n\x1b[33m${message}\x1b[0m\n`);
  return true;
}
