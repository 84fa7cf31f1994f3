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
 */
import { Agent, request } from 'node:http';
import { Worker } from 'node:worker_threads';
import type { SqlReader } from './databases.ts';
import { distribution, type Distribution } from './fanout.ts';
import { type RunningServer, watchMemory } from './servers.ts';
import { type ReceiverRecords, records as readRecords } from './webhook-receiver.ts';

export interface WebhookOptions {
  /** The scenarios to run (default: all four). */
  scenarios?: string[];
  rate: number;
  duration: number;
  endpoints: number;
  failRate: number;
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
  };
  delayFromAnswer: Distribution;
  peakRssMb?: number;
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
    const max = (await sql.all('SELECT COALESCE(MAX("seq"), 0) AS max FROM "changes"'))[0]?.max;
    const price = (await sql.all('SELECT COALESCE(MAX("consumer_price"), 0) + 1 AS price FROM "products"'))[0]?.price;
    const memory = watchMemory(server.pid);
    log(
      `  WEBHOOKS ${name}: ${options.rate} writes/s for ${options.duration} s, ${options.endpoints} endpoint(s), ${options.failRate * 100}% failing`,
    );
    const writes = await driveWrites(server, products, options, Number(price));
    const lastAnswer = Math.max(...writes.map((w) => w.ackAt ?? 0));
    const entries = (await sql.all(
      `SELECT "seq", "resource_id", "version" FROM "changes" WHERE "seq" > ${Number(max)} AND "resource_type" = 'products' ORDER BY "seq"`,
    )) as { seq: number; resource_id: number; version: number }[];
    const expected = entries.length * options.endpoints;
    let records = await Promise.all(receivers.map((r) => collect(r.worker)));
    const deadline = now() + 120_000;
    const accepted = () => new Set(records.flatMap((r) => r.accepted())).size;
    while (options.endpoints > 0 && accepted() < expected && now() < deadline) {
      await new Promise((r) => setTimeout(r, 500));
      records = await Promise.all(receivers.map((r) => collect(r.worker)));
    }
    const peakRssMb = memory.stop();
    const result = analyse(name, options, writes, entries, endpoints, records, lastAnswer, peakRssMb);
    log(
      `  WEBHOOKS ${name}: ${result.writes.ackedPerSecond.toFixed(0)} writes/s answered (p99 ${result.writes.answer.p99.toFixed(0)} ms); ${result.delivery.delivered}/${result.delivery.expected} delivered, ${result.delivery.outOfOrder} out of order, ${result.delivery.duplicates} duplicates, ${result.delivery.failedCalls} failed calls; delay from the answer p50 ${result.delayFromAnswer.p50.toFixed(0)} ms, p99 ${result.delayFromAnswer.p99.toFixed(0)} ms; peak RSS ${peakRssMb?.toFixed(0)} MB`,
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
    ['none', { endpoints: 0, failRate: 0 }],
    ['one', { endpoints: 1, failRate: 0 }],
    ['fan-out', { endpoints: options.endpoints, failRate: 0 }],
    ['failing', { endpoints: 1, failRate: options.failRate }],
  ];
  const results: WebhookScenario[] = [];
  for (const [name, overrides] of scenarios.filter(([n]) => !options.scenarios || options.scenarios.includes(n)))
    results.push(
      await runWebhookScenario(name, () => start(`webhooks-${name}`), sql, { ...options, ...overrides }, log),
    );
  return results;
}
