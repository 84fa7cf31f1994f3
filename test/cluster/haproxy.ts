/**
 * HAProxy (Debian's package) in front of the replicas, as a deployment would run it: round robin,
 * a health check on /readyz every 250 ms (down after one failure, up after one success), and
 * retries with redispatch for a connection that fails before the request was sent. The cluster
 * test starts it on loopback ports; its configuration is the example of docs/operations/replicas.md.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
  const dir = mkdtempSync(join(tmpdir(), 'mdg-haproxy-'));
  const file = join(dir, 'haproxy.cfg');
  writeFileSync(file, haproxyConfig(port, replicas));
  const child: ChildProcess = spawn(HAPROXY.path, ['-db', '-f', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`haproxy exited with ${child.exitCode}: ${stderr}`);
    const up = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline) throw new Error(`haproxy did not answer within 10 s: ${stderr}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { stop: () => stopAndRemove(child, 'SIGTERM', dir) };
}
