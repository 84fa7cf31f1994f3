/**
 * `npm run test:cluster`: the service as it runs past one machine, every part real and on
 * loopback ports over the machine's PostgreSQL: three replicas (the compiled build, as `npm
 * start` runs it) behind HAProxy, all through PgBouncer in transaction pooling, LISTEN and
 * migrations on the direct URL. Checks, in order: a token from one replica works on the others;
 * a revocation is refused by all three within 1 s; a subscriber on one replica receives a write
 * made through another; a rolling restart of all three under load through HAProxy fails no
 * request; a SIGKILL under load fails only requests in flight and loses no acknowledged write.
 * The numbers measured are printed (README, "Running in production").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/auth/clients.ts';
import { migratedDatabase, type MigratedDatabase } from '../support/databases.ts';
import { CHANGES, type Send, tokensOf } from '../support/live.ts';
import { basic } from '../support/oauth.ts';
import { type RunningPgBouncer, skipWithoutPgBouncer, startPgBouncer } from '../support/pgbouncer.ts';
import { freePort } from '../support/ports.ts';
import { type RunningService, startService } from '../support/process.ts';
import { SseStream } from '../support/sse.ts';
import { type RunningHaproxy, startHaproxy } from './haproxy.ts';

/** Long enough for HAProxy's checks (every 250 ms, down after one failure) to take a replica out. */
const DRAIN_DELAY_MS = 1000;

const sendTo =
  (base: string): Send =>
  (path, init) =>
    fetch(`${base}${path}`, init);

if (!process.env.TEST_POSTGRES_URL) throw new Error('the cluster test needs TEST_POSTGRES_URL');
skipWithoutPgBouncer('the cluster test');

describe('three replicas behind HAProxy, through PgBouncer', () => {
  let direct: MigratedDatabase;
  let bouncer: RunningPgBouncer;
  let haproxy: RunningHaproxy;
  const replicas: RunningService[] = [];
  let ports: number[];
  let front: string;
  let client: Awaited<ReturnType<typeof createClient>>;

  const startReplica = (port: number) =>
    startService({
      PORT: String(port),
      DATABASE_URL: bouncer.url(direct.target.url),
      DATABASE_POOL_MODE: 'transaction',
      DATABASE_DIRECT_URL: direct.target.url,
      SEED_DEMO_DATA: 'false',
      DRAIN_DELAY_MS: String(DRAIN_DELAY_MS),
    });

  beforeAll(async () => {
    direct = await migratedDatabase('postgresql');
    bouncer = await startPgBouncer(direct.target.url, { poolSize: 12 });
    ports = await Promise.all([freePort(), freePort(), freePort()]);
    for (const port of ports) replicas.push(await startReplica(port));
    const frontPort = await freePort();
    haproxy = await startHaproxy(frontPort, ports);
    front = `http://127.0.0.1:${frontPort}`;
    client = await createClient(direct.db.prisma, 'cluster', ['read', 'write']);
  }, 120_000);

  afterAll(async () => {
    await haproxy?.stop();
    for (const replica of replicas) if (replica.child.exitCode === null) replica.child.kill('SIGKILL');
    await bouncer?.stop();
    await direct?.cleanup();
  });

  const replicaUrl = (i: number) => `http://127.0.0.1:${ports[i]}`;
  const statusOn = async (i: number, token: string) =>
    (await fetch(`${replicaUrl(i)}/brands`, { headers: { Authorization: `Bearer ${token}` } })).status;

  it('a token issued by one replica works on the others; a revocation is refused by all three within 1 s', async () => {
    const { access_token: token } = await tokensOf(sendTo(replicaUrl(0)), client);
    expect(await Promise.all([0, 1, 2].map((i) => statusOn(i, token)))).toEqual([200, 200, 200]);
    const revoked = await fetch(`${replicaUrl(0)}/oauth/revoke.php`, {
      method: 'POST',
      headers: {
        Authorization: basic(client.client_id, client.client_secret),
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ token }).toString(),
    });
    expect(revoked.status).toBe(200);
    const since = performance.now();
    const refusedAfter = await Promise.all(
      [0, 1, 2].map(async (i) => {
        while ((await statusOn(i, token)) !== 401) {
          if (performance.now() - since > 5000) return Number.POSITIVE_INFINITY;
          await new Promise((r) => setTimeout(r, 25));
        }
        return performance.now() - since;
      }),
    );
    console.info(`[cluster] revocation refused after ${refusedAfter.map((ms) => `${ms.toFixed(0)} ms`).join(' / ')}`);
    for (const ms of refusedAfter) expect(ms).toBeLessThanOrEqual(1000);
  });

  it('a subscriber on one replica receives a write made through another', async () => {
    const { access_token: token } = await tokensOf(sendTo(front), client);
    const stream = await SseStream.open(sendTo(replicaUrl(1)), { query: CHANGES, token });
    try {
      expect(stream.status).toBe(200);
      const written = performance.now();
      const res = await brandCreate(replicaUrl(2), token, `CLUSTER-LIVE-${Date.now()}`);
      expect(res.status).toBe(201);
      const id = Number(((await res.json()) as { data: { id: string } }).data.id);
      await stream.until((s) => s.changes().some((c) => c.id === id), 'the brand written through another replica');
      console.info(
        `[cluster] a change through replica 3 reached a subscriber of replica 2 in ${(performance.now() - written).toFixed(0)} ms`,
      );
    } finally {
      await stream.close();
    }
  });

  it('a rolling restart of all three under load through HAProxy fails no request', async () => {
    const { access_token: token } = await tokensOf(sendTo(front), client);
    const load = startLoad(front, token);
    await new Promise((r) => setTimeout(r, 1000));
    for (const [i, port] of ports.entries()) {
      const { code } = await replicas[i]!.stop('SIGTERM');
      expect(code, `replica ${i + 1} drained and exited`).toBe(0);
      replicas[i] = await startReplica(port);
      // Back in HAProxy's rotation once its checks see it ready.
      await new Promise((r) => setTimeout(r, 600));
    }
    await new Promise((r) => setTimeout(r, 1000));
    const result = await load.stop();
    console.info(
      `[cluster] rolling restart of 3 replicas under load: ${result.answered} requests answered, ${result.failures.length} failed, ${result.acknowledged.length} writes acknowledged`,
    );
    expect(summary(result.failures)).toBe('none');
    expect(result.answered).toBeGreaterThan(100);
    await expectAcknowledgedWritesKept(result.acknowledged);
  }, 120_000);

  it('SIGKILL of one replica under load fails only requests in flight and loses no acknowledged write', async () => {
    const { access_token: token } = await tokensOf(sendTo(front), client);
    const load = startLoad(front, token);
    await new Promise((r) => setTimeout(r, 1000));
    replicas[1]!.child.kill('SIGKILL');
    await new Promise((r) => setTimeout(r, 2000));
    replicas[1] = await startReplica(ports[1]!);
    await new Promise((r) => setTimeout(r, 1000));
    const result = await load.stop();
    console.info(
      `[cluster] SIGKILL of one replica under load: ${result.answered} requests answered, ${result.failures.length} failed (${summary(result.failures)}), ${result.acknowledged.length} writes acknowledged`,
    );
    // At most the requests that were on the killed replica: one per worker of the load.
    expect(result.failures.length).toBeLessThanOrEqual(WORKERS);
    await expectAcknowledgedWritesKept(result.acknowledged);
  }, 120_000);

  /** Every acknowledged write is in the database, with its one change-log entry: nothing lost or half-written. */
  async function expectAcknowledgedWritesKept(references: string[]) {
    const rows = await direct.db.prisma.brand.findMany({
      where: { reference: { in: references } },
      select: { id: true },
    });
    expect(rows.length).toBe(references.length);
    const entries = await direct.db.prisma.change.count({
      where: { resource_type: 'brands', op: 'created', resource_id: { in: rows.map((r) => r.id) } },
    });
    expect(entries).toBe(rows.length);
  }
});

/** Failures counted by kind: `3 x GET 502, 1 x POST fetch failed`. */
function summary(failures: string[]): string {
  const counts = new Map<string, number>();
  for (const failure of failures) counts.set(failure, (counts.get(failure) ?? 0) + 1);
  return [...counts].map(([kind, n]) => `${n} x ${kind}`).join(', ') || 'none';
}

/** Readers and writers sending without pause. */
const READERS = 6;
const WRITERS = 2;
const WORKERS = READERS + WRITERS;

function brandCreate(base: string, token: string, reference: string) {
  return fetch(`${base}/brands`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/vnd.api+json' },
    body: JSON.stringify({ data: { type: 'brands', attributes: { reference } } }),
    signal: AbortSignal.timeout(10_000),
  });
}

/** Load through `base` until stopped: reads and writes, what was answered, failed and acknowledged. */
function startLoad(base: string, token: string) {
  let running = true;
  let answered = 0;
  let sequence = 0;
  const failures: string[] = [];
  const acknowledged: string[] = [];
  const worker = async (write: boolean) => {
    while (running) {
      const reference = `CLUSTER-${process.pid}-${Date.now()}-${++sequence}`;
      try {
        const res = write
          ? await brandCreate(base, token, reference)
          : await fetch(`${base}/brands?per_page=10`, {
              headers: { Authorization: `Bearer ${token}` },
              signal: AbortSignal.timeout(10_000),
            });
        await res.arrayBuffer();
        if (res.status >= 200 && res.status < 300) {
          answered++;
          if (write) acknowledged.push(reference);
        } else failures.push(`${write ? 'POST' : 'GET'} ${res.status} ${res.status === 409 ? reference : ''}`.trim());
      } catch (error) {
        failures.push(`${write ? 'POST' : 'GET'} ${(error as Error).message}`);
      }
    }
  };
  const workers = [
    ...Array.from({ length: READERS }, () => worker(false)),
    ...Array.from({ length: WRITERS }, () => worker(true)),
  ];
  return {
    async stop() {
      running = false;
      await Promise.all(workers);
      return { answered, failures, acknowledged };
    },
  };
}
