/**
 * HAProxy (Debian's package) in front of the replicas, as a deployment would run it: round robin,
 * a health check on /readyz every 250 ms (down after one failure, up after one success), and
 * retries with redispatch for a connection that fails before the request was sent. The cluster
 * test starts it on loopback ports; its configuration is the example of docs/operations/replicas.md.
 *
 * And in front of PostgreSQL kept by Patroni (./patroni.ts): TCP to whichever member's Patroni
 * REST API says is the primary, the example of docs/operations/failover.md.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from '../support/ports.ts';
import { stopAndRemove } from '../support/servers.ts';
import { HAPROXY } from '../support/tools.ts';

export function haproxyConfig(port: number, replicas: number[]): string {
  return `global
  maxconn 2000

defaults
  mode http
  timeout connect 2s
  timeout client 30s
  timeout server 30s
  # A connection refused or reset before the request went out is tried again, on another replica;
  # nothing that may have reached a replica is (a write must not run twice).
  retries 3
  option redispatch
  retry-on conn-failure

frontend api
  bind 127.0.0.1:${port}
  default_backend replicas

backend replicas
  balance roundrobin
  # /readyz turns 503 when a replica starts draining (DRAIN_DELAY_MS keeps it serving meanwhile).
  option httpchk GET /readyz
  http-check expect status 200
  default-server inter 250ms fall 1 rise 1
${replicas.map((p, i) => `  server replica${i + 1} 127.0.0.1:${p} check`).join('\n')}
`;
}

export interface RunningHaproxy {
  stop(): Promise<void>;
}

export async function startHaproxy(port: number, replicas: number[]): Promise<RunningHaproxy> {
  return runHaproxy(haproxyConfig(port, replicas), 'answer /healthz', () =>
    fetch(`http://127.0.0.1:${port}/healthz`).then(
      (r) => r.ok,
      () => false,
    ),
  );
}

/** A PostgreSQL server kept by Patroni: where it takes connections, and where its Patroni answers. */
export interface PatroniBackend {
  name: string;
  pgPort: number;
  apiPort: number;
}

/**
 * TCP to the PostgreSQL member whose Patroni says it is the running primary (`OPTIONS /primary`
 * answers 200 there, 503 on a replica or a member whose server is down; OPTIONS rather than GET:
 * the same answer without a body, which HAProxy would cut off), checked every 250 ms: a member is
 * taken out after two failed checks and put back after one good one. When a member is taken out,
 * the connections through HAProxy to it are cut (`on-marked-down shutdown-sessions`): a demoted
 * primary must not keep the clients it had. No retry on another server: a connection the primary
 * refused is the client's to make again, not a replica's to take. HAProxy counts every server up
 * when it starts, until its checks say otherwise: the statistics page (CSV at `/;csv`) says when
 * only the primary is left.
 */
export function postgresHaproxyConfig(port: number, statsPort: number, members: PatroniBackend[]): string {
  return `global
  maxconn 2000

defaults
  mode tcp
  timeout connect 2s
  # Connections of a pool stay open, idle for long spells (LISTEN): no idle cut-off to speak of.
  timeout client 30m
  timeout server 30m
  timeout check 1s

listen postgres
  bind 127.0.0.1:${port}
  option httpchk OPTIONS /primary
  http-check expect status 200
  default-server inter 250ms fall 2 rise 1 on-marked-down shutdown-sessions
${members.map((m) => `  server ${m.name} 127.0.0.1:${m.pgPort} check port ${m.apiPort}`).join('\n')}

listen stats
  mode http
  bind 127.0.0.1:${statsPort}
  stats enable
  stats uri /
`;
}

export interface RunningPostgresHaproxy extends RunningHaproxy {
  /** Each member's state as HAProxy sees it: `UP`, `DOWN`, `UP 1/2` (going down) … */
  servers(): Promise<Record<string, string>>;
}

/**
 * HAProxy in front of the Patroni members on loopback `port`; resolves once it sends connections
 * to one member only, and a connection through it reaches a primary (not in recovery) as `url`'s
 * user, to `url`'s database.
 */
export async function startPostgresHaproxy(
  port: number,
  members: PatroniBackend[],
  url: string,
  timeoutMs = 30_000,
): Promise<RunningPostgresHaproxy> {
  const statsPort = await freePort();
  const servers = async () => {
    const csv = await (await fetch(`http://127.0.0.1:${statsPort}/;csv`, { signal: AbortSignal.timeout(2000) })).text();
    const [header, ...lines] = csv.trim().split('\n');
    const columns = header!.replace(/^# /, '').split(',');
    const [proxy, server, status] = ['pxname', 'svname', 'status'].map((c) => columns.indexOf(c));
    const states: Record<string, string> = {};
    for (const fields of lines.map((l) => l.split(',')))
      if (fields[proxy!] === 'postgres' && !['FRONTEND', 'BACKEND'].includes(fields[server!]!))
        states[fields[server!]!] = fields[status!]!;
    return states;
  };
  const running = await runHaproxy(
    postgresHaproxyConfig(port, statsPort, members),
    'send connections to one primary',
    async () => {
      const up = await servers().then(
        (states) => Object.values(states).filter((s) => s.startsWith('UP')).length,
        () => 0,
      );
      if (up !== 1) return false;
      const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
      client.on('error', () => undefined);
      try {
        await client.connect();
        const { rows } = await client.query<{ recovery: boolean }>('SELECT pg_is_in_recovery() AS recovery');
        return rows[0]!.recovery === false;
      } catch {
        return false;
      } finally {
        await client.end().catch(() => undefined);
      }
    },
    timeoutMs,
  );
  return { ...running, servers };
}

/** Runs HAProxy with `config` until it is stopped; resolves once `ready` holds (checked every 100 ms). */
async function runHaproxy(
  config: string,
  what: string,
  ready: () => Promise<boolean>,
  timeoutMs = 10_000,
): Promise<RunningHaproxy> {
  const dir = mkdtempSync(join(tmpdir(), 'mdg-haproxy-'));
  const file = join(dir, 'haproxy.cfg');
  writeFileSync(file, config);
  const child: ChildProcess = spawn(HAPROXY.path, ['-db', '-f', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const stop = () => stopAndRemove(child, 'SIGTERM', dir);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`haproxy exited with ${child.exitCode ?? child.signalCode}: ${stderr}`);
    }
    if (await ready()) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`haproxy did not ${what} within ${timeoutMs / 1000} s: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { stop };
}
