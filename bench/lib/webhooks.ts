/**
 * The webhook case (WEBHOOKS): our server on pg20 calls local receivers while writes arrive at a
 * steady rate (open loop: one PATCH of a product's price every 1000/rate ms, whatever the answers
 * do), each scenario on a fresh server so that its memory is the scenario's:
 *
 * - `none`: no endpoint: the write path's own throughput and answer times;
 * - `one`: one endpoint, the receiver answering 204;
 * - `fan-out`: 50 endpoints, each told of every write;
 * - `failing`: one endpoint whose receiver answers 500 to 20% of calls at random.
 *
 * What is measured: for every write, its answer time; for every (endpoint, entry), the moment the
 * receiver first accepted it (2xx) minus the moment the write's answer came back (delay from the
 * answer), on one clock (`performance.timeOrigin + now()`, shared by the threads of this process);
 * that every entry the writes appended reached every endpoint; that each endpoint accepted each
 * product's entries in log order (duplicates dropped by `webhook-id`, as receivers are told to);
 * the server's peak RSS.
 *
 * The receivers run on worker threads (./webhook-receiver.ts), apart from the writer's event loop.
 *
 * The fan-out scenario also measures its floor first (./webhook-floor.ts), on the same server's
 * endpoints and receivers before any write: the receivers' calls per second driven by the
 * leanest client on this machine, with pre-built signed calls of the size and headers of one of
 * our deliveries (a first write, delivered to every endpoint, is the sample), no database. Calls
 * per second are counted the same way for both: the calls the receivers answered, over the time
 * from the start (the floor's first call; our first write) to the last answer. Ours is the rate
 * while there is a backlog: 50 endpoints told of 500 writes a second ask for 25,000 calls a
 * second, so the server is behind from the first writes to its last delivery. The ratio
 * ours / floor is printed and kept in the results.
 */
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { Worker } from 'node:worker_threads';
import type { SqlReader } from './databases.ts';
import { backendMeter, distribution, type Distribution } from './fanout.ts';
import { cpuSeconds, type RunningServer, watchMemory } from './servers.ts';
import { FLOOR_CLIENTS, type FloorClient, tryFloorClient } from './webhook-floor.ts';
import {
  type ReceiverCall,
  type ReceiverRecords,
  type ReceiverSample,
  records as readRecords,
} from './webhook-receiver.ts';

export interface WebhookOptions {
  /** The scenarios to run (default: all four). */
  scenarios?: string[];
  rate: number;
  duration: number;
  endpoints: number;
  failRate: number;
  /** Seconds each of the floor's clients runs (fan-out only; 0: no floor). */
  floorSeconds: number;
}

/** Calls the receivers answered (any status) per second, over `seconds` from the start to the last answer. */
export interface CallRate {
  calls: number;
  seconds: number;
  perSecond: number;
  /** The median of the whole seconds in between (the first and the last, partial, left out). */
  medianSecond: number;
}

/** CPU over a period, in cores (CPU seconds per second). */
export interface CpuUse {
  /** The period, seconds. */
  wall: number;
  /** Our server's process (the floor: none, it is idle). */
  server?: number;
  /** PostgreSQL's backends of the benchmark's database. */
  postgres: number;
  /** The bench process: the writer, the receivers' threads, the floor's. */
  bench: number;
  /** The whole machine (other work on it included). */
  machine?: number;
}

export interface FloorTryReport {
  client: FloorClient;
  /** As the receivers counted it. */
  rate: CallRate;
  /** As the client counted it (answers 2xx), and its errors. */
  clientCalls: number;
  errors: number;
  cpu: CpuUse;
}

export interface WebhookFloor {
  /** The call the floor's calls copy: its size and header names. */
  sample: { bodyBytes: number; headers: string[] };
  tries: FloorTryReport[];
  /** The fastest try. */
  best: FloorTryReport;
  /** The fastest client again, after our deliveries (the machine is shared: its load may have changed). */
  again?: FloorTryReport;
  /** The floor: the higher of best's and again's rates. */
  perSecond: number;
}

export interface WebhookScenario {
  name: string;
  endpoints: number;
  failRate: number;
  writes: {
    sent: number;
    acked: number;
    errors: number;
    /** Errors by kind (`status 503`, a connection error). */
    errorKinds: Record<string, number>;
    ackedPerSecond: number;
    answer: Distribution;
  };
  delivery: {
    logEntries: number;
    expected: number;
    delivered: number;
    missing: number;
    /** Entries an endpoint accepted after a later entry of the same product (duplicates dropped). */
    outOfOrder: number;
    /** Calls beyond the first accepted one of an entry. */
    duplicates: number;
    failedCalls: number;
    /** Seconds from the last write's answer to the last delivery. */
    drainSeconds: number;
    /** Whether the wait for the deliveries ended with some not delivered (the wait gives up after 20 s without one). */
    gaveUp: boolean;
    /** Product entries others wrote to the database during the scenario (delivered too, not checked). */
    foreignEntries?: number;
  };
  delayFromAnswer: Distribution;
  peakRssMb?: number;
  /** Our calls per second, counted as the floor's: from the first write to the last answer. */
  calls?: CallRate;
  /** The same while the writes were sent (first write to last write's answer), and after (to the last answer). */
  callsDuringWrites?: CallRate;
  callsAfterWrites?: CallRate;
  /** CPU from the first write to the last delivery; while the writes were sent; after. */
  cpu?: CpuUse;
  cpuDuringWrites?: CpuUse;
  cpuAfterWrites?: CpuUse;
  /** The server's CPU per call (the writes' included), µs. */
  serverMicrosPerCall?: number;
  floor?: WebhookFloor;
  /** calls.perSecond / floor.best.rate.perSecond. */
  ratio?: number;
}

const now = () => performance.timeOrigin + performance.now();

interface Write {
  id: number;
  sentAt: number;
  ackAt?: number;
  version?: number;
  error?: string;
}

function patch(agent: Agent, server: RunningServer, write: Write, price: number): Promise<void> {
  const body = JSON.stringify({ data: { type: 'products', id: write.id, attributes: { consumer_price: price } } });
  return new Promise((resolve) => {
    const r = request(new URL(`/products/${write.id}`, server.baseUrl), {
      method: 'PATCH',
      agent,
      headers: { ...server.headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    });
    r.on('error', (error) => {
      write.error = error.message;
      resolve();
    });
    r.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const at = now();
        if (res.statusCode === 200) {
          write.ackAt = at;
          write.version = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as any).data.meta.version;
        } else write.error = `status ${res.statusCode}: ${Buffer.concat(chunks).toString('utf8').slice(0, 120)}`;
        resolve();
      });
    });
    r.end(body);
  });
}

/** Sends `rate` writes a second for `duration` seconds over `products`, each a new price; resolves when all are answered. */
async function driveWrites(server: RunningServer, products: number[], options: WebhookOptions, priceBase: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const writes: Write[] = [];
  const pending: Promise<void>[] = [];
  const total = options.rate * options.duration;
  const start = now();
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / options.rate;
    const wait = due - now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    const write: Write = { id: products[i % products.length]!, sentAt: now() };
    writes.push(write);
    pending.push(patch(agent, server, write, Math.round(priceBase * 100 + i) / 100));
  }
  await Promise.all(pending);
  agent.destroy();
  return writes;
}

/** The receiver's module, loaded through tsx in the worker (as ./fanout.ts starts its workers). */
const RECEIVER_BOOT = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => {
  tsx.register();
  return import(${JSON.stringify(new URL('./webhook-receiver.ts', import.meta.url).href)});
})`;

function startReceiver(failRate: number): Promise<{ worker: Worker; port: number }> {
  const worker = new Worker(RECEIVER_BOOT, { eval: true, workerData: { failRate } });
  return new Promise((resolve, reject) => {
    worker.once('message', (m: { port: number }) => resolve({ worker, port: m.port }));
    worker.once('error', reject);
  });
}

function collect(worker: Worker): Promise<ReceiverRecords> {
  return new Promise((resolve) => {
    worker.once('message', (raw: Omit<ReceiverRecords, 'calls' | 'accepted'>) => resolve(readRecords(raw)));
    worker.postMessage('collect');
  });
}

/** How many distinct entries the receiver accepted (each endpoint calls one receiver only: the sum is the total). */
function acceptedCount(worker: Worker): Promise<number> {
  return new Promise((resolve) => {
    worker.once('message', (m: { accepted: number }) => resolve(m.accepted));
    worker.postMessage('count');
  });
}

function reset(worker: Worker): Promise<void> {
  return new Promise((resolve) => {
    worker.once('message', () => resolve());
    worker.postMessage('reset');
  });
}

/** CPU seconds the whole machine has been busy (all cores, /proc/stat: everything but idle and iowait). */
function machineBusySeconds(): number | undefined {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    return fields.slice(0, 8).reduce((n, v, i) => (i === 3 || i === 4 ? n : n + v), 0) / 100;
  } catch {
    return undefined;
  }
}

/** CPU of the server, PostgreSQL's backends, this process and the machine from now to `stop()`. */
async function cpuMeter(sql: SqlReader, pid: number | undefined) {
  const backends = await backendMeter(sql);
  const sampler = setInterval(() => void backends.sample(), 1000);
  const start = {
    t: performance.now(),
    server: pid === undefined ? undefined : cpuSeconds(pid),
    machine: machineBusySeconds(),
    bench: process.cpuUsage(),
  };
  return async (): Promise<CpuUse> => {
    clearInterval(sampler);
    const wall = (performance.now() - start.t) / 1000;
    const server = pid === undefined ? undefined : cpuSeconds(pid);
    const machine = machineBusySeconds();
    const bench = process.cpuUsage(start.bench);
    return {
      wall,
      ...(server !== undefined && start.server !== undefined && { server: (server - start.server) / wall }),
      postgres: (await backends.seconds()) / wall,
      bench: (bench.user + bench.system) / 1e6 / wall,
      ...(machine !== undefined && start.machine !== undefined && { machine: (machine - start.machine) / wall }),
    };
  };
}

function cpuText(cpu: CpuUse): string {
  return `server ${cpu.server?.toFixed(2)}, PostgreSQL ${cpu.postgres.toFixed(2)}, bench ${cpu.bench.toFixed(2)}, machine ${cpu.machine?.toFixed(2)}`;
}

/** The calls answered from `from` to `to` (ms, the shared clock), as a rate over that time. */
export function callRate(calls: readonly ReceiverCall[], from: number, to: number): CallRate {
  const within = calls.filter((c) => c.at >= from && c.at <= to);
  const seconds = (to - from) / 1000;
  const bins = new Map<number, number>();
  for (const c of within) {
    const bin = Math.floor((c.at - from) / 1000);
    bins.set(bin, (bins.get(bin) ?? 0) + 1);
  }
  const whole = Math.floor(seconds);
  const perBin = Array.from({ length: Math.max(0, whole - 1) }, (_, i) => bins.get(i + 1) ?? 0).sort((a, b) => a - b);
  return {
    calls: within.length,
    seconds,
    perSecond: seconds > 0 ? within.length / seconds : Number.NaN,
    medianSecond: perBin.length > 0 ? perBin[Math.floor(perBin.length / 2)]! : Number.NaN,
  };
}

/**
 * The floor: each of FLOOR_CLIENTS in turn against the receivers and endpoints of this scenario,
 * counted by the receivers (whose records are emptied after each).
 */
async function measureFloor(
  receivers: { worker: Worker }[],
  targets: { endpoint: number; url: string }[],
  sql: SqlReader,
  seconds: number,
  log: (line: string) => void,
): Promise<WebhookFloor> {
  const sample = (await Promise.all(receivers.map((r) => collect(r.worker)))).find((r) => r.sample)?.sample;
  if (!sample) throw new Error('no delivery came to serve as the floor calls’ sample');
  const tries: FloorTryReport[] = [];
  for (const client of FLOOR_CLIENTS) tries.push(await tryFloor(receivers, targets, sql, sample, client, seconds, log));
  await Promise.all(receivers.map((r) => reset(r.worker)));
  const best = tries.reduce((a, b) => (b.rate.perSecond > a.rate.perSecond ? b : a));
  return {
    sample: { bodyBytes: Buffer.byteLength(sample.body), headers: Object.keys(sample.headers) },
    tries,
    best,
    perSecond: best.rate.perSecond,
  };
}

/** One floor client's try, counted by the receivers (emptied before and after). */
async function tryFloor(
  receivers: { worker: Worker }[],
  targets: { endpoint: number; url: string }[],
  sql: SqlReader,
  sample: ReceiverSample,
  client: FloorClient,
  seconds: number,
  log: (line: string) => void,
): Promise<FloorTryReport> {
  await Promise.all(receivers.map((r) => reset(r.worker)));
  const meter = await cpuMeter(sql, undefined);
  const run = await tryFloorClient({ targets, sample, client, durationMs: seconds * 1000 });
  const cpu = await meter();
  const calls = (await Promise.all(receivers.map((r) => collect(r.worker)))).flatMap((r) => r.calls());
  const rate = callRate(calls, run.startedAt, run.endedAt);
  await Promise.all(receivers.map((r) => reset(r.worker)));
  log(
    `  WEBHOOKS floor: ${client.name}: ${rate.perSecond.toFixed(0)} calls/s (median second ${rate.medianSecond}), ${run.errors} errors; CPU: bench ${cpu.bench.toFixed(2)}, machine ${cpu.machine?.toFixed(2)} cores`,
  );
  return { client, rate, clientCalls: run.calls, errors: run.errors, cpu };
}

/** One write to a product, and every endpoint's delivery of it: the floor's sample. */
async function warmUp(server: RunningServer, product: number, receivers: { worker: Worker }[], endpoints: number) {
  const agent = new Agent({ keepAlive: true });
  const write: Write = { id: product, sentAt: now() };
  await patch(agent, server, write, 0.01);
  agent.destroy();
  if (write.error) throw new Error(`warm-up write: ${write.error}`);
  const deadline = now() + 30_000;
  for (;;) {
    const records = await Promise.all(receivers.map((r) => collect(r.worker)));
    if (new Set(records.flatMap((r) => r.accepted())).size >= endpoints) return;
    if (now() > deadline) throw new Error('warm-up write: not delivered to every endpoint within 30 s');
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function createEndpoints(server: RunningServer, ports: number[], count: number): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < count; i++) {
    const res = await fetch(new URL('/webhooks', server.baseUrl), {
      method: 'POST',
      headers: { ...server.headers, 'content-type': 'application/json' },
      body: JSON.stringify({
        data: {
          type: 'webhooks',
          attributes: { url: `http://127.0.0.1:${ports[i % ports.length]}/hook`, types: ['products'] },
        },
      }),
    });
    if (res.status !== 201) throw new Error(`webhook not created: ${res.status} ${await res.text()}`);
    ids.push(Number(((await res.json()) as any).data.id));
  }
  return ids;
}

/** One scenario on a fresh server (made by `start`): writes, then waits for the deliveries, then checks them. */
export async function runWebhookScenario(
  name: string,
  start: () => Promise<RunningServer>,
  sql: SqlReader,
  options: WebhookOptions,
  log: (line: string) => void,
): Promise<WebhookScenario> {
  const server = await start();
  const receivers = await Promise.all(
    Array.from({ length: options.endpoints > 0 ? 2 : 0 }, () => startReceiver(options.failRate)),
  );
  try {
    const endpoints = await createEndpoints(
      server,
      receivers.map((r) => r.port),
      options.endpoints,
    );
    const products = (await sql.all('SELECT "id" FROM "products" ORDER BY "id" LIMIT 200')).map((r) => Number(r.id));
    let floor: WebhookFloor | undefined;
    const floorTargets = endpoints.map((endpoint, i) => ({
      endpoint,
      url: `http://127.0.0.1:${receivers[i % receivers.length]!.port}/hook`,
    }));
    if (options.floorSeconds > 0) {
      await warmUp(server, products[0]!, receivers, options.endpoints);
      floor = await measureFloor(receivers, floorTargets, sql, options.floorSeconds, log);
    }
    const max = (await sql.all('SELECT COALESCE(MAX("seq"), 0) AS max FROM "changes"'))[0]?.max;
    const price = (await sql.all('SELECT COALESCE(MAX("consumer_price"), 0) + 1 AS price FROM "products"'))[0]?.price;
    const memory = watchMemory(server.pid);
    const meter = await cpuMeter(sql, server.pid);
    log(
      `  WEBHOOKS ${name}: ${options.rate} writes/s for ${options.duration} s, ${options.endpoints} endpoint(s), ${options.failRate * 100}% failing`,
    );
    const writingMeter = await cpuMeter(sql, server.pid);
    const writes = await driveWrites(server, products, options, Number(price));
    const cpuDuringWrites = await writingMeter();
    const afterMeter = await cpuMeter(sql, server.pid);
    const lastAnswer = Math.max(...writes.map((w) => w.ackAt ?? 0));
    // The entries of these writes: their client's (others may write to the same database meanwhile).
    const acked = writes.find((w) => w.version !== undefined);
    const actor = acked
      ? String(
          (
            await sql.all(
              `SELECT "actor" FROM "changes" WHERE "seq" > ${Number(max)} AND "resource_type" = 'products' AND "resource_id" = ${Number(acked.id)} AND "version" = ${Number(acked.version)}`,
            )
          )[0]?.actor,
        )
      : '';
    if (!/^[\w.-]*$/.test(actor)) throw new Error(`unexpected actor ${actor}`);
    const logged = (await sql.all(
      `SELECT "seq", "resource_id", "version", "actor" FROM "changes" WHERE "seq" > ${Number(max)} AND "resource_type" = 'products' ORDER BY "seq"`,
    )) as { seq: number; resource_id: number; version: number; actor: string }[];
    const entries = logged.filter((e) => e.actor === actor);
    const foreignEntries = logged.length - entries.length;
    if (foreignEntries > 0)
      log(
        `  WEBHOOKS ${name}: ${foreignEntries} product entries written by others meanwhile (delivered too, not checked)`,
      );
    const expected = entries.length * options.endpoints;
    // Each receiver is told the (endpoint, entry) pairs it should accept: it counts those alone.
    await Promise.all(
      receivers.map(
        (r, i) =>
          new Promise<void>((resolve) => {
            const keys = endpoints
              .filter((_, e) => e % receivers.length === i)
              .flatMap((endpoint) => entries.map((x) => endpoint * 2 ** 32 + Number(x.seq)));
            r.worker.once('message', () => resolve());
            r.worker.postMessage({ expect: Float64Array.from(keys) });
          }),
      ),
    );
    // Waits while deliveries go on: until all are in, or none came for 20 s (10 minutes at most).
    const accepted = async () =>
      (await Promise.all(receivers.map((r) => acceptedCount(r.worker)))).reduce((a, b) => a + b, 0);
    const hardDeadline = now() + 600_000;
    let progress = { count: await accepted(), at: now() };
    let gaveUp = false;
    while (options.endpoints > 0 && progress.count < expected) {
      if (now() - progress.at > 20_000 || now() > hardDeadline) {
        gaveUp = true;
        break;
      }
      await new Promise((r) => setTimeout(r, 500));
      const count = await accepted();
      if (count > progress.count) progress = { count, at: now() };
    }
    const cpu = await meter();
    const cpuAfterWrites = await afterMeter();
    const records = await Promise.all(receivers.map((r) => collect(r.worker)));
    const peakRssMb = memory.stop();
    const result = analyse(name, options, writes, entries, endpoints, records, lastAnswer, peakRssMb, gaveUp);
    result.delivery.foreignEntries = foreignEntries;
    if (options.endpoints > 0) {
      const calls = records.flatMap((r) => r.calls());
      const first = Math.min(...writes.map((w) => w.sentAt));
      const last = calls.reduce((latest, c) => Math.max(latest, c.at), first);
      result.calls = callRate(calls, first, last);
      result.callsDuringWrites = callRate(calls, first, lastAnswer);
      result.callsAfterWrites = callRate(calls, lastAnswer, last);
      result.cpu = cpu;
      result.cpuDuringWrites = cpuDuringWrites;
      result.cpuAfterWrites = cpuAfterWrites;
      if (cpu.server !== undefined) result.serverMicrosPerCall = (cpu.server * cpu.wall * 1e6) / calls.length;
    }
    if (floor && result.calls) {
      const sample = (await Promise.all(receivers.map((r) => collect(r.worker)))).find((r) => r.sample)?.sample;
      floor.again = await tryFloor(receivers, floorTargets, sql, sample!, floor.best.client, options.floorSeconds, log);
      floor.perSecond = Math.max(floor.best.rate.perSecond, floor.again.rate.perSecond);
      result.floor = floor;
      result.ratio = result.calls.perSecond / floor.perSecond;
    }
    log(
      `  WEBHOOKS ${name}: ${result.writes.ackedPerSecond.toFixed(0)} writes/s answered (p99 ${result.writes.answer.p99.toFixed(0)} ms); ${result.delivery.delivered}/${result.delivery.expected} delivered (${result.delivery.missing} lost${gaveUp ? ', the wait gave up' : ''}), ${result.delivery.outOfOrder} out of order, ${result.delivery.duplicates} duplicates, ${result.delivery.failedCalls} failed calls; delay from the answer p50 ${result.delayFromAnswer.p50.toFixed(0)} ms, p99 ${result.delayFromAnswer.p99.toFixed(0)} ms; peak RSS ${peakRssMb?.toFixed(0)} MB`,
    );
    if (result.calls)
      log(
        `  WEBHOOKS ${name}: ${result.calls.perSecond.toFixed(0)} calls/s over ${result.calls.seconds.toFixed(1)} s from the first write to the last call (median second ${result.calls.medianSecond}; ${result.callsDuringWrites!.perSecond.toFixed(0)}/s while writing, ${result.callsAfterWrites!.perSecond.toFixed(0)}/s after); CPU cores: ${cpuText(cpu)} (while writing: ${cpuText(cpuDuringWrites)}; after: ${cpuText(cpuAfterWrites)}); server ${result.serverMicrosPerCall?.toFixed(0)} µs per call`,
      );
    if (result.ratio !== undefined)
      log(
        `  WEBHOOKS ${name}: ours ${result.calls!.perSecond.toFixed(0)} calls/s against the floor's ${result.floor!.perSecond.toFixed(0)} (${result.floor!.best.client.name}; ${result.floor!.best.rate.perSecond.toFixed(0)} before our deliveries, ${result.floor!.again!.rate.perSecond.toFixed(0)} after): ${result.ratio.toFixed(2)}x`,
      );
    return result;
  } finally {
    await Promise.all(receivers.map((r) => r.worker.terminate()));
    await server.stop();
  }
}

function analyse(
  name: string,
  options: WebhookOptions,
  writes: Write[],
  entries: { seq: number; resource_id: number; version: number }[],
  endpoints: number[],
  records: ReceiverRecords[],
  lastAnswer: number,
  peakRssMb: number | undefined,
  gaveUp: boolean,
): WebhookScenario {
  const acked = writes.filter((w) => w.ackAt !== undefined);
  const ackAt = new Map(acked.map((w) => [`${w.id}/${w.version}`, w.ackAt!]));
  const entryBySeq = new Map(entries.map((e) => [Number(e.seq), e]));
  const delays: number[] = [];
  let outOfOrder = 0;
  let duplicates = 0;
  let failedCalls = 0;
  let lastDelivery = lastAnswer;
  const seen = new Set<string>();
  const lastSeqOf = new Map<string, number>();
  const calls = records.flatMap((r) => r.calls()).sort((a, b) => a.at - b.at);
  for (const call of calls) {
    if (call.status >= 300) {
      failedCalls += 1;
      continue;
    }
    const key = `${call.endpoint}/${call.seq}`;
    if (seen.has(key)) {
      duplicates += 1;
      continue;
    }
    seen.add(key);
    lastDelivery = Math.max(lastDelivery, call.at);
    const entry = entryBySeq.get(call.seq);
    if (!entry) continue;
    const answeredAt = ackAt.get(`${entry.resource_id}/${entry.version}`);
    if (answeredAt !== undefined) delays.push(call.at - answeredAt);
    const line = `${call.endpoint}/${entry.resource_id}`;
    if ((lastSeqOf.get(line) ?? 0) > call.seq) outOfOrder += 1;
    lastSeqOf.set(line, call.seq);
  }
  const wanted = new Set(endpoints.flatMap((e) => entries.map((x) => `${e}/${x.seq}`)));
  const delivered = [...wanted].filter((k) => seen.has(k)).length;
  const span = (Math.max(...acked.map((w) => w.ackAt!)) - Math.min(...writes.map((w) => w.sentAt))) / 1000;
  return {
    name,
    endpoints: options.endpoints,
    failRate: options.failRate,
    writes: {
      sent: writes.length,
      acked: acked.length,
      errors: writes.length - acked.length,
      errorKinds: writes.reduce<Record<string, number>>((kinds, w) => {
        if (w.error) kinds[w.error] = (kinds[w.error] ?? 0) + 1;
        return kinds;
      }, {}),
      ackedPerSecond: acked.length / span,
      answer: distribution(Float64Array.from(acked.map((w) => w.ackAt! - w.sentAt))),
    },
    delivery: {
      logEntries: entries.length,
      expected: wanted.size,
      delivered,
      missing: wanted.size - delivered,
      outOfOrder,
      duplicates,
      failedCalls,
      drainSeconds: (lastDelivery - lastAnswer) / 1000,
      gaveUp,
    },
    delayFromAnswer: distribution(Float64Array.from(delays)),
    peakRssMb,
  };
}

/** The four scenarios, each on a fresh server: none, one endpoint, fan-out, one endpoint failing at random. */
export async function runWebhooks(
  start: (label: string) => Promise<RunningServer>,
  sql: SqlReader,
  options: WebhookOptions,
  log: (line: string) => void,
): Promise<WebhookScenario[]> {
  const scenarios: [string, Partial<WebhookOptions>][] = [
    ['none', { endpoints: 0, failRate: 0, floorSeconds: 0 }],
    ['one', { endpoints: 1, failRate: 0, floorSeconds: 0 }],
    ['fan-out', { endpoints: options.endpoints, failRate: 0, floorSeconds: options.floorSeconds }],
    ['failing', { endpoints: 1, failRate: options.failRate, floorSeconds: 0 }],
  ];
  const results: WebhookScenario[] = [];
  for (const [name, overrides] of scenarios.filter(([n]) => !options.scenarios || options.scenarios.includes(n)))
    results.push(
      await runWebhookScenario(name, () => start(`webhooks-${name}`), sql, { ...options, ...overrides }, log),
    );
  return results;
}
