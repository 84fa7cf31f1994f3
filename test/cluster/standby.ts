/**
 * A real streaming replica of the machine's PostgreSQL for a test: `pg_basebackup` of the running
 * server into a temporary directory, and a second server (the same version's binaries) started on
 * it in hot standby on a free loopback port. Stopped and its directory removed after the test.
 *
 * What it needs from the primary: a `host replication all 127.0.0.1/32 trust` line in pg_hba.conf
 * (put first and reloaded when missing; it stays, for the next run) and `wal_level` replica (the
 * default).
 * PostgreSQL refuses to run as root: under root the standby runs as the `postgres` user, whose
 * binaries are found from the primary's version.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from '../support/ports.ts';
import { onLoopbackPort, postgresUserIds } from '../support/servers.ts';

const REPLICATION_LINE = 'host replication all 127.0.0.1/32 trust';

export interface RunningStandby {
  port: number;
  /** `primaryUrl` with its host and port replaced by the standby's (same database, same user). */
  url(primaryUrl: string): string;
  /** Stops the server at once (`pg_ctl stop -m immediate`): a replica that went away. */
  stop(): void;
  /** Stops it if running, and removes its directory. */
  remove(): void;
}

async function sql<T>(url: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows as T[];
  } finally {
    await client.end();
  }
}

/** Runs a command as the `postgres` user when this process is root. */
function asPostgres(file: string, args: string[]): string {
  const [command, argv] =
    process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', file, ...args]] : [file, args];
  return execFileSync(command, argv, { stdio: ['ignore', 'pipe', 'pipe'] }).toString();
}

/**
 * `settings`: extra server settings of the standby, such as `recovery_min_apply_delay` (a replica
 * that replays late on purpose).
 */
export async function startStandby(primaryUrl: string, settings: Record<string, string> = {}): Promise<RunningStandby> {
  const { hba_file: hbaFile } = (await sql<{ hba_file: string }>(primaryUrl, 'SHOW hba_file'))[0]!;
  const hba = readFileSync(hbaFile, 'utf8');
  if (!/^\s*host\s+replication\s+all\s+127\.0\.0\.1\/32\s+trust\b/m.test(hba)) {
    // First: the first line that matches decides, and a stock file may have one asking for a password.
    writeFileSync(hbaFile, `${REPLICATION_LINE}\n${hba}`);
    await sql(primaryUrl, 'SELECT pg_reload_conf()');
  }
  // A hot standby refuses to start with fewer connections than the primary allows.
  const { max_connections: maxConnections } = (
    await sql<{ max_connections: string }>(primaryUrl, 'SHOW max_connections')
  )[0]!;
  const { server_version_num: versionNumber } = (
    await sql<{ server_version_num: string }>(primaryUrl, 'SHOW server_version_num')
  )[0]!;
  const bin = `/usr/lib/postgresql/${Math.floor(Number(versionNumber) / 10000)}/bin`;
  const primary = new URL(primaryUrl);
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'mdg-standby-'));
  const data = join(dir, 'data');
  const owner = postgresUserIds();
  if (owner) chownSync(dir, owner.uid, owner.gid);
  chmodSync(dir, 0o700);
  asPostgres(`${bin}/pg_basebackup`, [
    '-h',
    primary.hostname,
    '-p',
    primary.port || '5432',
    '-U',
    decodeURIComponent(primary.username) || 'postgres',
    '-D',
    data,
    '-R', // standby.signal and primary_conninfo: start as a streaming replica of the primary
    '-X',
    'stream',
    '-c',
    'fast',
  ]);
  // Debian keeps the configuration outside the data directory, so the copy has none of its own.
  const conf = [
    `port = ${port}`,
    "listen_addresses = '127.0.0.1'",
    `unix_socket_directories = '${dir}'`,
    'hot_standby = on',
    `max_connections = ${maxConnections}`,
    "shared_buffers = '32MB'",
    ...Object.entries(settings).map(([name, value]) => `${name} = '${value}'`),
  ];
  const files = {
    'postgresql.conf': `${conf.join('\n')}\n`,
    'pg_hba.conf': 'local all all trust\nhost all all 127.0.0.1/32 trust\n',
    'pg_ident.conf': '',
  };
  for (const [name, text] of Object.entries(files)) {
    writeFileSync(join(data, name), text, { mode: 0o600 });
    if (owner) chownSync(join(data, name), owner.uid, owner.gid);
  }
  const pgCtl = (...args: string[]) => asPostgres(`${bin}/pg_ctl`, ['-D', data, ...args]);
  pgCtl('-l', join(dir, 'server.log'), '-w', '-t', '30', 'start');
  let running = true;
  const stop = () => {
    if (!running) return;
    running = false;
    pgCtl('-m', 'immediate', '-w', 'stop');
  };
  return {
    port,
    url: (url) => onLoopbackPort(url, port),
    stop,
    remove() {
      try {
        stop();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
