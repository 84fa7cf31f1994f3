/**
 * A real PgBouncer (Debian's package) in transaction pooling in front of the test PostgreSQL, on
 * a free loopback port, started for a test and stopped after it. PgBouncer refuses to run as
 * root: under root it runs as the `postgres` user. Tests that need it check for it first
 * (./tools.ts `skipWithout`).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.ts';
import { onLoopbackPort, postgresUserIds, stopAndRemove } from './servers.ts';
import { PGBOUNCER } from './tools.ts';

export interface RunningPgBouncer {
  /** `upstream` with its host and port replaced by PgBouncer's. */
  url(upstream: string): string;
  stop(): Promise<void>;
}

/**
 * `settings`: more lines of its `[pgbouncer]` section, such as `server_login_retry` (how long it
 * refuses clients after it failed to connect to the server; 15 s by default, longer than a failover).
 */
export async function startPgBouncer(
  upstream: string,
  { poolSize = 5, settings = {} as Record<string, string | number> } = {},
): Promise<RunningPgBouncer> {
  const target = new URL(upstream);
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'mdg-pgbouncer-'));
  chmodSync(dir, 0o777);
  const user = decodeURIComponent(target.username) || 'postgres';
  writeFileSync(join(dir, 'userlist.txt'), `"${user}" "${decodeURIComponent(target.password)}"\n`);
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${target.hostname} port=${target.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'userlist.txt')}`,
      'pool_mode = transaction',
      `default_pool_size = ${poolSize}`,
      'max_client_conn = 200',
      `logfile = ${join(dir, 'pgbouncer.log')}`,
      ...Object.entries(settings).map(([name, value]) => `${name} = ${value}`),
    ].join('\n'),
  );
  for (const file of ['userlist.txt', 'pgbouncer.ini']) chmodSync(join(dir, file), 0o644);
  const child: ChildProcess = spawn(PGBOUNCER.path, [join(dir, 'pgbouncer.ini')], {
    stdio: 'ignore',
    ...postgresUserIds(),
  });
  await waitForPort(port, child);
  return {
    url: (upstreamUrl) => onLoopbackPort(upstreamUrl, port),
    stop: () => stopAndRemove(child, 'SIGINT', dir),
  };
}

async function waitForPort(port: number, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`pgbouncer exited with ${child.exitCode}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ port, host: '127.0.0.1' }, () => {
        socket.end();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error('pgbouncer did not listen within 10 s');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
