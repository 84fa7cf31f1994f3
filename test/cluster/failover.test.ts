/**
 * `npm run test:cluster`, the failover: PostgreSQL kept highly available by Patroni (a primary
 * and a synchronous standby, the leader lock in etcd; ./patroni.ts), HAProxy sending PostgreSQL
 * connections to whichever member Patroni's REST API says is the primary, PgBouncer in
 * transaction pooling in front of that, and two replicas of the service (the compiled build)
 * behind HTTP HAProxy, LISTEN and migrations through the PostgreSQL HAProxy too. Everything real,
 * on loopback ports.
 *
 * Under load (writers creating and updating brands through REST and GraphQL without pause, a
 * live subscriber on each replica, a webhook endpoint, scheduled change requests due just after
 * the kill), the primary's PostgreSQL is SIGKILLed; Patroni promotes the standby; writing goes on
 * a few seconds. Then: every write answered 2xx before or after the kill is in the database with
 * its change-log entry; the log read through `GET /changes` from the start is the log, each entry
 * once, in order (each resource's versions 1, 2, 3 … without a hole, each writer's writes in the
 * order they were acknowledged); each subscriber, resuming from its last cursor when its stream
 * ends, received every entry once and in order; the webhook receiver every entry (a duplicate
 * only as a marked one, with the same `webhook-id`), in order per resource; every scheduled
 * change request applied exactly once, not before its instant. The numbers measured are printed
 * (docs/operations/failover.md, "What the test measured").
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/auth/clients.ts';
import { createDatabase, type Database } from '../../src/db/client.ts';
import { migrate } from '../../src/db/migrate.ts';
import { parseDatabaseUrl } from '../../src/db/url.ts';
import { CHANGES, over, sleep, tokensOf } from '../support/live.ts';
import { type RunningPgBouncer, startPgBouncer } from '../support/pgbouncer.ts';
import { freePort } from '../support/ports.ts';
import { type RunningService, startService } from '../support/process.ts';
import { Receiver } from '../support/receiver.ts';
import { SseStream } from '../support/sse.ts';
import { HAPROXY, PGBOUNCER, skipWithout } from '../support/tools.ts';
import { type RunningHaproxy, type RunningPostgresHaproxy, startHaproxy, startPostgresHaproxy } from './haproxy.ts';
import { ETCD, type Member, PATRONI, type PatroniCluster, POSTGRES_SERVER, startPatroniCluster } from './patroni.ts';

/** Writers without pause, through HAProxy: half REST, half GraphQL. */
const WRITERS = 4;
/** Change requests due just after the kill, held by the replicas when it comes. */
const SCHEDULED = 50;
/** How long before their instant the primary is killed (the replicas make requests ready from 1.5 s before). */
const KILL_BEFORE_DUE_MS = 700;
/** How long writing goes on after the first write acknowledged by the new primary. */
const WRITE_AFTER_MS = 4000;

const skipped = skipWithout('the failover test', PATRONI, ETCD, POSTGRES_SERVER, PGBOUNCER, HAPROXY);

describe.skipIf(skipped)('failover: Patroni promotes the standby under load; nothing acknowledged is lost', () => {
  let cluster: PatroniCluster | undefined;
  let pgProxy: RunningPostgresHaproxy | undefined;
  let bouncer: RunningPgBouncer | undefined;
  let front: RunningHaproxy | undefined;
  let db: Database | undefined;
  const replicas: RunningService[] = [];
  /** What each replica wrote on stderr (an uncaught exception's stack). */
  const stderrs = new Map<RunningService, string[]>();
  let direct: string;
  let frontUrl: string;
  let ports: number[];

  /** Fails, with what it wrote on stderr, when a replica exited: the failover must not end the service. */
  const replicasAlive = () => {
    for (const [i, replica] of replicas.entries())
      if (replica.child.exitCode !== null || replica.child.signalCode !== null)
        throw new Error(
          `replica ${i + 1} exited (${replica.child.exitCode ?? replica.child.signalCode}); its stderr:\n${stderrs.get(replica)?.join('').slice(-3000)}`,
        );
    return true;
  };

  beforeAll(async () => {
    const begun = performance.now();
    cluster = await startPatroniCluster();
    const clusterUp = performance.now();
    const pgPort = await freePort();
    direct = cluster.url(pgPort);
    pgProxy = await startPostgresHaproxy(pgPort, cluster.members, direct);
    await migrate(parseDatabaseUrl(direct));
    // A connection PgBouncer failed to open (no primary behind HAProxy for a moment) makes it refuse
    // clients for server_login_retry: 15 s by default, longer than the failover.
    bouncer = await startPgBouncer(direct, { poolSize: 12, settings: { server_login_retry: 1 } });
    ports = [await freePort(), await freePort()];
    const started = await Promise.allSettled(
      ports.map((port) =>
        startService({
          PORT: String(port),
          DATABASE_URL: bouncer!.url(direct),
          DATABASE_POOL_MODE: 'transaction',
          DATABASE_DIRECT_URL: direct,
          SEED_DEMO_DATA: 'false',
          DRAIN_DELAY_MS: '1000',
          WEBHOOKS_ALLOW_HTTP: 'true',
          WEBHOOKS_ALLOWED_NETWORKS: '127.0.0.0/8',
          WEBHOOKS_FIRST_RETRY_MS: '100',
        }),
      ),
    );
    // Those that started are stopped after, also when the other did not.
    for (const result of started) if (result.status === 'fulfilled') replicas.push(result.value);
    for (const result of started) if (result.status === 'rejected') throw result.reason;
    for (const replica of replicas) {
      const errors: string[] = [];
      replica.child.stderr!.on('data', (d) => errors.push(String(d)));
      stderrs.set(replica, errors);
    }
    const frontPort = await freePort();
    front = await startHaproxy(frontPort, ports);
    frontUrl = `http://127.0.0.1:${frontPort}`;
    db = await createDatabase(parseDatabaseUrl(direct));
    console.info(
      `[failover] etcd and Patroni up (a leader and its synchronous standby) in ${ms(clusterUp - begun)}; everything up in ${ms(performance.now() - begun)}`,
    );
  }, 150_000);

  afterAll(async () => {
    const steps: [string, () => Promise<unknown> | unknown][] = [
      ['front HAProxy', () => front?.stop()],
      [
        'replicas',
        () =>
          Promise.all(
            replicas
              .filter((r) => r.child.exitCode === null && r.child.signalCode === null)
              .map((r) => new Promise((exited) => r.child.once('exit', exited).kill('SIGKILL'))),
          ),
      ],
      ['database client', () => db?.close()],
      ['PgBouncer', () => bouncer?.stop()],
      ['PostgreSQL HAProxy', () => pgProxy?.stop()],
      ['Patroni and etcd', () => cluster?.stop()],
    ];
    const failed: string[] = [];
    for (const [what, step] of steps) {
      try {
        await step();
      } catch (error) {
        failed.push(`${what}: ${(error as Error).message}`);
      }
    }
    if (failed.length > 0) throw new Error(`cleaning up failed: ${failed.join('; ')}`);
  }, 60_000);

  it('the primary SIGKILLed under load: the standby promoted, no acknowledged write lost, every log entry once and in order everywhere', async () => {
    const receiver = new Receiver();
    const subscribers: ResumingSubscriber[] = [];
    const watching = new AbortController();
    let writers: Writers | undefined;
    try {
      const client = await createClient(db!.prisma, 'failover', ['read', 'write']);
      const author = await createClient(db!.prisma, 'failover-author', ['read', 'write']);
      const { access_token: token } = await tokensOf(over(frontUrl), client);

      // A webhook endpoint and a subscriber on each replica, from the log's head.
      await receiver.start();
      const made = await fetch(`${frontUrl}/webhooks`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ data: { type: 'webhooks', attributes: { url: receiver.url, types: ['brands'] } } }),
      });
      expect(made.status).toBe(201);
      const endpoint = Number(((await made.json()) as { data: { id: string } }).data.id);
      const from = await logHead(direct);
      for (const port of ports) subscribers.push(new ResumingSubscriber(`http://127.0.0.1:${port}`, token, from));
      await waitFor(() => subscribers.every((s) => s.connected), 'both subscribers connected', 15_000);

      writers = startWriters(frontUrl, token);
      await waitFor(() => writers!.acks.length >= 100, '100 writes acknowledged before the kill', 30_000);

      // Change requests due at the start of a second at least 2.5 s ahead, approved and scheduled
      // as the API leaves them: the kill comes while the replicas hold them ready for their instant.
      const due = new Date(Math.ceil((Date.now() + 2500) / 1000) * 1000);
      const scheduled = await scheduleRequests(db!, client.client_id, author.client_id, due);
      const holder = await leaseHolder(direct, endpoint);
      await sleep(Math.max(0, due.getTime() - KILL_BEFORE_DUE_MS - Date.now()));

      // The guarantee rests on a synchronous standby: there is one at the kill.
      const before = (await cluster!.state())!;
      const leader = cluster!.members.find((m) => before.some((s) => s.name === m.name && s.role === 'leader'))!;
      const standby = cluster!.members.find((m) => before.some((s) => s.name === m.name && s.role === 'sync_standby'));
      expect(standby, `a synchronous standby at the kill: ${JSON.stringify(before)}`).toBeDefined();
      const ackedBeforeKill = writers.acks.length;
      const killedAt = performance.now();
      cluster!.killPostgres(leader);
      const switched = haproxySwitch(pgProxy!, leader, standby!, watching.signal);
      const promotedAfter = (await writable(standby!, killedAt, 45_000)) - killedAt;
      await cluster!.waitFor(
        (m) => m.some((s) => s.name === standby!.name && s.role === 'leader' && s.state === 'running'),
        'Patroni to report the standby as leader',
        30_000,
      );
      const patroniAfter = performance.now() - killedAt;
      await waitFor(
        () => replicasAlive() && writers!.acks.some((a) => a.sentAt > killedAt),
        'a write acknowledged after the kill',
        30_000,
      );
      const firstAck = Math.min(...writers.acks.filter((a) => a.sentAt > killedAt).map((a) => a.answeredAt));
      await waitFor(() => replicasAlive() && performance.now() > firstAck + WRITE_AFTER_MS, 'writing to go on', 30_000);
      const { acks, failures } = await writers.stop();
      writers = undefined;
      const haproxyAfter = (await switched) - killedAt;
      // Only what was in flight at the kill, or sent before the new primary took writes, may fail.
      expect(failures.filter((f) => f.answeredAt < killedAt)).toEqual([]);

      // Scheduled change requests: each applied exactly once, none before its instant.
      await until(
        async () =>
          (
            await sql<{ n: string }>(
              direct,
              `SELECT count(*) AS n FROM change_requests WHERE id = ANY($1) AND state = 'scheduled'`,
              [scheduled],
            )
          )[0]!.n === '0',
        'every scheduled change request settled',
        30_000,
      );
      const settled = await sql<{ state: string; late: number }>(
        direct,
        'SELECT state, extract(epoch FROM settled_date - effective_date) * 1000 AS late FROM change_requests WHERE id = ANY($1)',
        [scheduled],
      );
      expect(settled.filter((r) => r.state !== 'applied')).toEqual([]);
      expect(settled.filter((r) => Number(r.late) < 0)).toEqual([]);
      const perRequest = await sql<{ request: number; entries: string; early: string }>(
        direct,
        `SELECT c.change_request_id AS request, count(*) AS entries, count(*) FILTER (WHERE c."at" < r.effective_date) AS early
           FROM changes c JOIN change_requests r ON r.id = c.change_request_id
          WHERE c.change_request_id = ANY($1) AND c.resource_type = 'brands' GROUP BY c.change_request_id`,
        [scheduled],
      );
      expect(perRequest).toHaveLength(SCHEDULED);
      expect(perRequest.filter((r) => r.entries !== '1' || r.early !== '0')).toEqual([]);

      // Every committed entry numbered (one whose numbering the kill cut off is numbered by the
      // next numbering: a later write's, or a feed's poll), then the log as it is.
      await until(
        async () =>
          (await sql<{ n: string }>(direct, 'SELECT count(*) AS n FROM changes WHERE seq IS NULL'))[0]!.n === '0',
        'every change-log entry numbered',
        15_000,
      );
      const log = await sql<Entry>(
        direct,
        'SELECT seq, resource_type AS type, resource_id AS id, op, version FROM changes ORDER BY seq',
      );
      expect(new Set(log.map((e) => `${e.type}/${e.id}/${e.version}`)).size, 'an entry twice').toBe(log.length);

      // GET /changes from the start: every entry, once, in order.
      expect(await readChanges(frontUrl, token)).toEqual(log);
      // Each brand's versions in the log are 1, 2, 3 … in order: no write missing, none twice.
      const versions = new Map<number, number[]>();
      for (const e of log) if (e.type === 'brands') versions.set(e.id, [...(versions.get(e.id) ?? []), e.version]);
      const holes = [...versions].filter(([, v]) => v.some((version, i) => version !== i + 1));
      expect(holes, 'brands whose versions in the log are not 1, 2, 3 …').toEqual([]);

      // Every acknowledged write: its entry, and the row at that version or later, the row's
      // version its last entry's; each writer's writes numbered in the order it had them acknowledged.
      const entryOf = new Map(log.filter((e) => e.type === 'brands').map((e) => [`${e.id}/${e.version}`, e]));
      expect(
        acks.filter((a) => entryOf.get(`${a.id}/${a.version}`)?.op !== a.kind),
        'acknowledged writes without their entry',
      ).toEqual([]);
      const rows = await sql<{ id: number; version: number }>(
        direct,
        'SELECT id, version FROM brands WHERE id = ANY($1)',
        [[...new Set(acks.map((a) => a.id))]],
      );
      const rowVersion = new Map(rows.map((r) => [r.id, r.version]));
      expect(
        acks.filter((a) => !(rowVersion.get(a.id)! >= a.version)),
        'acknowledged writes not in the database',
      ).toEqual([]);
      expect(
        rows.filter((r) => r.version !== versions.get(r.id)?.at(-1)),
        "rows at another version than their log's",
      ).toEqual([]);
      for (let w = 0; w < WRITERS; w++) {
        const seqs = acks.filter((a) => a.writer === w).map((a) => entryOf.get(`${a.id}/${a.version}`)!.seq);
        expect(
          seqs.filter((s, i) => i > 0 && s < seqs[i - 1]!),
          `writer ${w}: entries numbered before an earlier write's`,
        ).toEqual([]);
      }

      // Each subscriber: every brand entry after `from`, once, in order, over however many connections.
      const expected = log.filter((e) => e.type === 'brands' && e.seq > from).map((e) => e.seq);
      await waitFor(
        () => replicasAlive() && subscribers.every((s) => s.last >= expected.at(-1)!),
        'the subscribers to reach the end of the log',
        30_000,
      );
      for (const subscriber of subscribers)
        expect(subscriber.seqs(), 'what a subscriber received, over all its connections').toEqual(expected);

      // The webhook endpoint: every entry; an entry sent again only with its webhook-id; in order per resource.
      const delivered = () => new Set(receiver.delivered().map((c) => Number(c.data.id)));
      await waitFor(
        () => replicasAlive() && delivered().size >= expected.length,
        'the webhook receiver to get every entry',
        30_000,
      );
      const calls = receiver.delivered();
      const seqOfId = new Map<string, number>();
      for (const call of calls) {
        expect(seqOfId.get(call.id) ?? Number(call.data.id), `webhook-id ${call.id} names one entry`).toBe(
          Number(call.data.id),
        );
        seqOfId.set(call.id, Number(call.data.id));
      }
      expect(new Set(seqOfId.values()).size, 'one webhook-id per entry').toBe(seqOfId.size);
      expect([...delivered()].sort((a, b) => a - b)).toEqual(expected);
      const firsts = new Map<number, number[]>();
      const seen = new Set<string>();
      for (const call of [...calls].sort((a, b) => a.receivedAt - b.receivedAt)) {
        if (seen.has(call.id)) continue;
        seen.add(call.id);
        const resource = call.data.attributes.resource_id;
        firsts.set(resource, [...(firsts.get(resource) ?? []), Number(call.data.id)]);
      }
      const outOfOrder = [...firsts].filter(([, seqs]) => seqs.some((s, i) => i > 0 && s < seqs[i - 1]!));
      expect(outOfOrder, 'brands whose entries were first delivered out of order').toEqual([]);

      const after = await cluster!.state();
      const holderAfter = await leaseHolder(direct, endpoint);
      const late = settled.map((r) => Number(r.late)).sort((a, b) => a - b);
      const fromKill = (t: number) => `${t >= killedAt ? '+' : '-'}${ms(Math.abs(t - killedAt))}`;
      const span = (values: number[]) => `${fromKill(Math.min(...values))} to ${fromKill(Math.max(...values))}`;
      console.info(
        [
          `[failover] ${leader.name}'s postmaster SIGKILLed under load: ${standby!.name} took writes ${ms(promotedAfter)} later (Patroni reported it leader at ${ms(patroniAfter)}, HAProxy sent connections to it at ${ms(haproxyAfter)}); the first write acknowledged after the kill answered at ${ms(firstAck - killedAt)}`,
          `[failover] writes acknowledged: ${acks.length} (${ackedBeforeKill} before the kill, ${acks.filter((a) => a.sentAt > killedAt).length} sent after it), each in the database with its entry; failed: ${failures.length}${failures.length > 0 ? ` (${summary(failures.map((f) => f.status))}), sent at ${span(failures.map((f) => f.sentAt))} from the kill` : ''}`,
          `[failover] change log: ${log.length} entries (cursors 1 to ${log.at(-1)!.seq}: ${log.at(-1)!.seq - log.length} numbers never used), GET /changes from the start each once in order; subscribers: ${subscribers.map((s) => `${s.seqs().length} entries over ${s.connections.length} connection(s)`).join(', ')}; webhook endpoint: ${expected.length} entries, ${calls.length - seqOfId.size} sent again (same webhook-id), its lease ${holder === holderAfter ? 'kept by the same replica' : 'taken by the other replica'}`,
          `[failover] ${SCHEDULED} change requests due ${KILL_BEFORE_DUE_MS} ms after the kill: each applied once, ${ms(late[0]!)} to ${ms(late.at(-1)!)} after their instant; the cluster after: ${after?.map((m) => `${m.name} ${m.role} ${m.state}`).join(', ')}`,
        ].join('\n'),
      );
    } catch (error) {
      const tail = (text: string, lines: number) => text.trimEnd().split('\n').slice(-lines).join('\n');
      console.error(
        [
          '[failover] failed; what the processes said:',
          cluster?.logs(40),
          ...replicas.map(
            (r, i) =>
              `--- replica ${i + 1} (${r.child.exitCode === null && r.child.signalCode === null ? 'running' : `exited ${r.child.exitCode ?? r.child.signalCode}`}): stderr\n${tail(stderrs.get(r)?.join('') ?? '', 30)}\n--- its log, health checks left out\n${tail(
                r
                  .output()
                  .split('\n')
                  .filter((l) => !l.includes('"/readyz"'))
                  .join('\n'),
                30,
              )}`,
          ),
          `--- subscribers: ${subscribers.map((s) => `last ${s.last}, ${s.connections.length} connection(s), errors ${s.errors.slice(-5).join(' | ')}`).join('; ')}`,
          `--- HAProxy: ${JSON.stringify(await pgProxy?.servers().catch(() => undefined))}`,
        ].join('\n'),
      );
      throw error;
    } finally {
      watching.abort();
      await writers?.stop();
      for (const subscriber of subscribers) await subscriber.stop();
      await receiver.stop();
    }
  }, 150_000);
});

/**
 * When HAProxy first sends connections to `to` and no more to `from` (its statistics, polled every
 * 50 ms, until `signal` aborts); NaN if it did not.
 */
async function haproxySwitch(proxy: RunningPostgresHaproxy, from: Member, to: Member, signal: AbortSignal) {
  while (!signal.aborted) {
    const states = await proxy.servers().catch(() => ({}) as Record<string, string>);
    if (states[to.name]?.startsWith('UP') && !states[from.name]?.startsWith('UP')) return performance.now();
    await sleep(50);
  }
  return Number.NaN;
}

interface Entry {
  seq: number;
  type: string;
  id: number;
  op: string;
  version: number;
}

const ms = (value: number) => `${Math.round(value)} ms`;

/** Failures counted by kind: `3 x POST 503, 1 x GraphQL 503`. */
function summary(kinds: string[]): string {
  const counts = new Map<string, number>();
  for (const kind of kinds) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  return [...counts].map(([kind, n]) => `${n} x ${kind}`).join(', ') || 'none';
}

/** One statement on a connection of its own (the one before may have gone with the old primary). */
async function sql<T>(url: string, text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return (await client.query(text, values)).rows as T[];
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function logHead(url: string): Promise<number> {
  return Number((await sql<{ head: string }>(url, 'SELECT coalesce(max(seq), 0) AS head FROM changes'))[0]!.head);
}

async function leaseHolder(url: string, endpoint: number): Promise<string | null> {
  return (
    await sql<{ lease_owner: string | null }>(url, 'SELECT lease_owner FROM webhooks WHERE id = $1', [endpoint])
  )[0]!.lease_owner;
}

/** When the member's PostgreSQL first answers that it is not in recovery (polled every 50 ms). */
async function writable(member: Member, since: number, timeoutMs: number): Promise<number> {
  const deadline = since + timeoutMs;
  for (;;) {
    const primary = await sql<{ recovery: boolean }>(
      `postgresql://postgres@127.0.0.1:${member.pgPort}/postgres`,
      'SELECT pg_is_in_recovery() AS recovery',
    ).then(
      (rows) => rows[0]!.recovery === false,
      () => false,
    );
    if (primary) return performance.now();
    if (performance.now() > deadline) throw new Error(`${member.name} was not promoted within ${timeoutMs / 1000} s`);
    await sleep(50);
  }
}

/** Polls `done` every 25 ms until it holds; fails naming `what` after `timeoutMs`. */
async function waitFor(done: () => boolean, what: string, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!done()) {
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await sleep(25);
  }
}

async function until(check: () => Promise<boolean>, what: string, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting until ${what}`);
    await sleep(100);
  }
}

/** Change requests creating one brand each, due at `due`, approved by `approver`: scheduled. */
async function scheduleRequests(db: Database, approver: string, author: string, due: Date): Promise<number[]> {
  const prisma = db.prisma;
  const idOf = async (client_id: string) => (await prisma.apiClient.findUniqueOrThrow({ where: { client_id } })).id;
  const [approverId, authorId] = [await idOf(approver), await idOf(author)];
  const run = Date.now();
  await prisma.changeRequest.createMany({
    data: Array.from({ length: SCHEDULED }, (_, i) => ({
      operations: JSON.stringify([
        { op: 'add', data: { type: 'brands', attributes: { reference: `FO-CR-${run}-${i}` } } },
      ]),
      types: JSON.stringify(['brands']),
      effective_date: due,
      author_id: authorId,
      state: 'scheduled',
    })),
  });
  const ids = (await prisma.changeRequest.findMany({ where: { author_id: authorId }, select: { id: true } })).map(
    (r) => r.id,
  );
  expect(ids).toHaveLength(SCHEDULED);
  await prisma.changeRequestDecision.createMany({
    data: ids.map((id) => ({
      change_request_id: id,
      api_client_id: approverId,
      decided_by: approver,
      decision: 'approved',
    })),
  });
  return ids;
}

/** GET /changes of brands and change requests from the start, every page. */
async function readChanges(base: string, token: string): Promise<Entry[]> {
  const entries: Entry[] = [];
  let after: string | undefined;
  for (;;) {
    const query = new URLSearchParams({ type: 'brands,change_requests', per_page: '500', ...(after && { after }) });
    const res = await fetch(`${base}/changes?${query}`, { headers: { Authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    const page = (await res.json()) as {
      data: { id: string; attributes: { resource_type: string; resource_id: number; op: string; version: number } }[];
      meta: { cursor: string; has_more: boolean };
    };
    for (const { id, attributes: a } of page.data)
      entries.push({ seq: Number(id), type: a.resource_type, id: a.resource_id, op: a.op, version: a.version });
    if (!page.meta.has_more) return entries;
    after = page.meta.cursor;
  }
}

interface Ack {
  writer: number;
  kind: 'created' | 'updated';
  id: number;
  version: number;
  sentAt: number;
  answeredAt: number;
}

interface Failure {
  writer: number;
  status: string;
  sentAt: number;
  answeredAt: number;
}

interface Writers {
  acks: Ack[];
  failures: Failure[];
  stop(): Promise<{ acks: Ack[]; failures: Failure[] }>;
}

/**
 * WRITERS writers through `base`, each one write at a time without pause: a brand created, then
 * updates of its last three brands, REST (even writers) or GraphQL (odd). A write answered 2xx
 * (GraphQL: without errors) is acknowledged, with the version it answered; anything else failed,
 * and the writer waits 100 ms before its next.
 */
function startWriters(base: string, token: string): Writers {
  const acks: Ack[] = [];
  const failures: Failure[] = [];
  let running = true;
  const tag = `${process.pid}-${Date.now()}`;
  const writer = async (w: number) => {
    const mine: number[] = [];
    for (let i = 0; running; i++) {
      const target =
        mine.length > 0 && i % 3 !== 0 ? mine[mine.length - 1 - (i % Math.min(3, mine.length))] : undefined;
      const reference = `FO-${tag}-${w}-${i}`;
      const sentAt = performance.now();
      const outcome = await (w % 2 === 0 ? restWrite : graphqlWrite)(base, token, reference, target).catch(
        (error: Error) =>
          `${target ? 'update' : 'create'} ${error.cause instanceof Error ? error.cause.message : error.message}`,
      );
      const answeredAt = performance.now();
      if (typeof outcome === 'string') {
        failures.push({ writer: w, status: outcome, sentAt, answeredAt });
        await sleep(100);
        continue;
      }
      acks.push({ writer: w, kind: target ? 'updated' : 'created', ...outcome, sentAt, answeredAt });
      if (!target) mine.push(outcome.id);
    }
  };
  const all = Array.from({ length: WRITERS }, (_, w) => writer(w));
  return {
    acks,
    failures,
    async stop() {
      running = false;
      await Promise.all(all);
      return { acks, failures };
    },
  };
}

type Outcome = { id: number; version: number } | string;

async function restWrite(base: string, token: string, reference: string, id?: number): Promise<Outcome> {
  const res = await fetch(`${base}/brands${id ? `/${id}` : ''}`, {
    method: id ? 'PATCH' : 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/vnd.api+json' },
    body: JSON.stringify({ data: { type: 'brands', ...(id && { id: String(id) }), attributes: { reference } } }),
    signal: AbortSignal.timeout(20_000),
  });
  const text = await res.text();
  if (res.status !== (id ? 200 : 201)) return `REST ${id ? 'PATCH' : 'POST'} ${res.status}`;
  const { data } = JSON.parse(text) as { data: { id: string; meta: { version: number } } };
  return { id: Number(data.id), version: data.meta.version };
}

async function graphqlWrite(base: string, token: string, reference: string, id?: number): Promise<Outcome> {
  const query = id
    ? 'mutation($id: Int!, $r: String!) { write: updateBrand(id: $id, input: { reference: $r }) { id version } }'
    : 'mutation($r: String!) { write: createBrand(input: { reference: $r }) { id version } }';
  const res = await fetch(`${base}/graphql`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify({ query, variables: { id, r: reference } }),
    signal: AbortSignal.timeout(20_000),
  });
  const text = await res.text();
  const body = (() => {
    try {
      return JSON.parse(text) as {
        data?: { write?: { id: number; version: number } };
        errors?: { extensions?: { code?: string } }[];
      };
    } catch {
      return {};
    }
  })();
  if (res.status !== 200 || body.errors || !body.data?.write)
    return `GraphQL ${id ? 'update' : 'create'} ${res.status}${body.errors ? ` ${body.errors[0]?.extensions?.code ?? 'error'}` : ''}`;
  return { id: body.data.write.id, version: body.data.write.version };
}

/**
 * A live subscriber to brands' changes over SSE that, when its stream ends (the service ended it,
 * or the connection was cut), subscribes again after the last cursor it received, as a client
 * should. Keeps what each connection received.
 */
class ResumingSubscriber {
  readonly connections: number[][] = [];
  readonly errors: string[] = [];
  connected = false;
  last: number;
  private stopped = false;
  private stream: SseStream | undefined;
  private readonly running: Promise<void>;

  constructor(
    private readonly base: string,
    private readonly token: string,
    from: number,
  ) {
    this.last = from;
    this.running = this.run();
  }

  /** Every cursor received, over all connections. */
  seqs(): number[] {
    return this.connections.flat();
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      let stream: SseStream;
      try {
        stream = await SseStream.open(over(this.base), {
          query: CHANGES,
          variables: { after: String(this.last), types: ['BRANDS'] },
          token: this.token,
        });
      } catch (error) {
        this.errors.push(`open: ${(error as Error).message}`);
        await sleep(250);
        continue;
      }
      this.stream = stream;
      if (stream.status !== 200) {
        this.errors.push(`open: ${stream.status}`);
        await stream.close();
        await sleep(250);
        continue;
      }
      this.connected = true;
      const seqs: number[] = [];
      this.connections.push(seqs);
      let seen = 0;
      for (;;) {
        const finished = stream.finished;
        for (; seen < stream.results.length; seen++) {
          const { result } = stream.results[seen]!;
          if (result.data?.changes) {
            seqs.push(Number(result.data.changes.cursor));
            this.last = Number(result.data.changes.cursor);
          } else if (result.errors) this.errors.push(`ended: ${JSON.stringify(result.errors).slice(0, 200)}`);
        }
        if (finished || this.stopped) break;
        await sleep(20);
      }
      await stream.close();
      if (!this.stopped) await sleep(250);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.stream?.close();
    await this.running;
  }
}
