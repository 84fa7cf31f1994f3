/**
 * The fan-out case: many SSE subscribers of `subscription { changes }` on one server process
 * while writes arrive at a steady rate. What it measures:
 *
 * - delivery delay: for every (subscriber, write) pair, the moment the write's change reached the
 *   subscriber minus the moment the write was acknowledged (its answer came back), and minus the
 *   moment it was sent; all on this process's `performance.now()` clock;
 * - delivery itself, against the change log as the database holds it after the writes: every open
 *   subscriber must receive every entry the writes appended, once, in commit order (cursors
 *   increasing), none missing; streams that ended early say why (SUBSCRIBER_BEHIND, ...); and every
 *   acknowledged write must be in the log;
 * - the server's memory (RSS before the subscribers, with them open, peak) and CPU, PostgreSQL's
 *   CPU (the backends on the database), the load generator's own CPU, and the machine's.
 *
 * Writes are open-loop: a timer sends one every 1000/rate ms whatever the answers do (a late
 * timer sends what is due at once), each one of W5's updates (REST PATCH of a product's price and
 * English name, every one a real change; each product once at the default 2,000 writes), so that a
 * log entry's (product id, version) names its write. Subscribers are spread over worker threads
 * (./sse-worker.ts): one Node thread parses about 50,000 events a second at most, and the case
 * asks for 100,000.
 */
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import type { ProductUpdate, UpdateParams } from '../workloads.ts';
import { productUpdate } from '../workloads.ts';
import type { SqlReader } from './databases.ts';
import { cpuSeconds, rssMb, watchMemory, type RunningServer } from './servers.ts';
import type { SseEvents, SseWorkerData, SseWorkerProgress, SseWorkerResult, SubscriberState } from './sse-worker.ts';
import type { HttpRequest } from './targets.ts';

export interface FanoutOptions {
  subscribers: number;
  workers: number;
  /** Writes per second. */
  rate: number;
  /** Seconds of writes. */
  duration: number;
  /** Subscriptions opened at once per worker. */
  openConcurrency: number;
  /**
   * Writes sent one after another before any subscriber opens: a fresh server's first writes are
   * slow (JIT, the pool's connections, prepared statements), and they are no part of fan-out.
   */
  warmupWrites: number;
  /** Seconds to wait for the last answers after the last send, and again for the last deliveries. */
  drainTimeout: number;
}

/** The server's environment for the case: limits that admit the subscribers (one API client). */
export function fanoutServerEnv(subscribers: number): Record<string, string> {
  return {
    SUBSCRIPTIONS_MAX: String(Math.max(2000, subscribers)),
    SUBSCRIPTIONS_PER_CLIENT: String(Math.max(200, subscribers)),
  };
}

/** The subscription each subscriber runs: `version` selected, so that (id, version) names a write. */
export const FANOUT_SUBSCRIPTION = 'subscription FanOut { changes { cursor type id op version at } }';

export interface Distribution {
  count: number;
  /** Below zero for a delay from the answer: the change reached the subscriber before the answer reached the writer. */
  min: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  p999: number;
  max: number;
}

export interface FanoutResult {
  dataset: string;
  subscription: string;
  serverEnv: Record<string, string>;
  options: FanoutOptions;
  subscribers: {
    requested: number;
    /** Streams open (first ping received) and not ended when the writes began. */
    open: number;
    /** Refused or ended before the writes began, by reason. */
    notOpen: Record<string, number>;
    /** Seconds from the first request to the last stream open. */
    openSeconds: number;
    /** Streams that ended while the case ran (not closed by the bench), by reason / error code. */
    endedEarly: Record<string, number>;
    /** The first such ending, for the record. */
    firstEnd?: { subscriber: number; atS: number; end: string; code?: string; message?: string };
  };
  writes: {
    scheduled: number;
    sent: number;
    /** Answered 2xx with a version before the log was read back. */
    acked: number;
    /**
     * Answered 2xx after the log was read back (the case stops waiting for answers 60 s after the
     * last send, and the log read may wait for the server): their changes may come after the log's
     * last entry read, so they are no part of the checks.
     */
    answeredLate: number;
    /** Answered otherwise (status, or a cut connection). */
    errors: number;
    /** No answer within the drain timeout after the last send. */
    unanswered: number;
    /** Writes answered with an error, or not answered, whose change is in the log all the same. */
    committedDespiteError: number;
    committedUnanswered: number;
    /** Writes acknowledged before the log was read back with no entry in it: a lost change. */
    ackedNotLogged: number;
    /** Errors by kind: `status 503`, `request: read ECONNRESET`, ... */
    errorKinds: Record<string, number>;
    /** The distinct error answers (status and body), the first three. */
    errorSamples: string[];
    /** Writes sent per second over the schedule (first send to last send). */
    sendRate: number;
    /** Most a send came after its scheduled moment (the timer's lateness), ms. */
    maxSendLagMs: number;
    /** Sent -> acknowledged, ms (late answers included). */
    ack: Distribution;
  };
  delivery: {
    /** Entries the writes appended to the change log (read from the database after the writes). */
    logEntries: number;
    /** Open subscribers x log entries. */
    expected: number;
    /** Distinct (subscriber, entry) pairs received. */
    delivered: number;
    missing: number;
    /** Subscribers that received every entry. */
    subscribersComplete: number;
    /** Of the missing pairs, those of subscribers whose stream ended early. */
    missingOnEndedStreams: number;
    duplicates: number;
    /** Events whose cursor was not above the previous one of the same subscriber. */
    outOfOrder: number;
    /** Events whose id or version differ from the log's entry at their cursor. */
    mismatched: number;
    /** Events whose cursor is not among the writes' entries, and not after the last one read. */
    unknown: number;
    /** Events after the log's last entry read (changes of writes answered late). */
    afterLastEntry: number;
    /** Events that could not be parsed. */
    parseErrors: number;
    /** Every open stream reached the log's last entry before the drain timeout. */
    caughtUp: boolean;
    /** Seconds from the last answer to the last delivery. */
    drainSeconds: number;
  };
  /** Arrival at a subscriber minus acknowledgement of the write, ms, over all pairs of acknowledged writes received. */
  delayFromAck: Distribution;
  /** Arrival minus the moment the write was sent, ms, over all pairs received. */
  delayFromSend: Distribution;
  /** Per second of the write schedule: the writes sent in it and the delays (from ack) of their deliveries. */
  delayBySecond: { second: number; writes: number; p50: number; p99: number; max: number }[];
  server: {
    pid: number;
    rssBeforeMb?: number;
    rssOpenMb?: number;
    rssAfterWritesMb?: number;
    rssEndMb?: number;
    peakRssMb?: number;
    /**
     * V8's heap in use (/metrics) before the subscribers, with them open, after the writes: with
     * RSS, it tells garbage not yet collected from memory held (RSS alone cannot).
     */
    heapUsedMb: { before?: number; open?: number; afterWrites?: number };
    /** CPU seconds while opening the subscriptions. */
    openCpuSeconds?: number;
    /** CPU seconds per wall second from the first write to the last answer. */
    cpuCores?: number;
    /** The server's CPU over the same period per (subscriber, entry) pair delivered, µs: what one delivery costs it. */
    cpuMicrosPerDelivery?: number;
  };
  /** Seconds from the first write to the last answer (the period of the CPU figures). */
  writeSeconds: number;
  /** The database's backends (pg_stat_activity on this database), cores while writing. */
  postgresCpuCores?: number;
  /** The whole machine while writing (/proc/stat), and what processes other than these three took of it. */
  machine: {
    cores: number;
    busyCores?: number;
    otherCores?: number;
    loadAverage: { before: number[]; after: number[] };
  };
  loadGenerator: {
    /** This whole process (main thread and workers), cores while writing. */
    cpuCores: number;
    /** Event-loop utilisation while writing, per thread. */
    mainThreadBusy: number;
    workerBusy: number[];
  };
  /** Once a second from the first subscription: server RSS and CPU, load generator CPU, deliveries. */
  timeline: {
    s: number;
    phase: string;
    serverRssMb?: number;
    serverCpu?: number;
    generatorCpu: number;
    events: number;
    acked: number;
  }[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Milliseconds of the process's monotonic clock (the same in every thread) minus performance.now(). */
function clockOffset(): number {
  return Number(process.hrtime.bigint()) / 1e6 - performance.now();
}

export function distribution(values: Float64Array): Distribution {
  const n = values.length;
  if (n === 0)
    return {
      count: 0,
      min: Number.NaN,
      mean: Number.NaN,
      p50: Number.NaN,
      p90: Number.NaN,
      p99: Number.NaN,
      p999: Number.NaN,
      max: Number.NaN,
    };
  const sorted = values.slice().sort();
  const at = (q: number) => sorted[Math.min(n - 1, Math.max(0, Math.ceil(q * n) - 1))]!;
  let sum = 0;
  for (const v of sorted) sum += v;
  return {
    count: n,
    min: sorted[0]!,
    mean: sum / n,
    p50: at(0.5),
    p90: at(0.9),
    p99: at(0.99),
    p999: at(0.999),
    max: sorted[n - 1]!,
  };
}

interface Write {
  n: number;
  update: ProductUpdate;
  scheduledAt: number;
  sentAt: number;
  ackAt?: number;
  version?: number;
  error?: string;
}

/** Sends one write; resolves when it is answered (the write records its ack or its error). */
function send(agent: Agent, server: RunningServer, req: HttpRequest, write: Write): Promise<void> {
  return new Promise((resolve) => {
    const url = new URL(req.path, server.baseUrl);
    const r = request(url, {
      method: req.method,
      agent,
      headers: { ...req.headers, 'content-length': Buffer.byteLength(req.body ?? '') },
    });
    r.on('error', (error) => {
      write.error = `request: ${error.message}`;
      resolve();
    });
    r.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const at = performance.now();
        const text = Buffer.concat(chunks).toString('utf8');
        let version: unknown;
        try {
          version = (JSON.parse(text) as any)?.data?.meta?.version;
        } catch {
          version = undefined;
        }
        if (res.statusCode && res.statusCode >= 200 && res.statusCode < 300 && Number.isInteger(version)) {
          write.ackAt = at;
          write.version = version as number;
        } else write.error = `status ${res.statusCode}: ${text.slice(0, 200)}`;
        resolve();
      });
      res.on('error', (error) => {
        write.error = `response: ${error.message}`;
        resolve();
      });
    });
    r.end(req.body);
  });
}

/** CPU seconds the whole machine has been busy (all cores, /proc/stat: everything but idle and iowait). */
function machineBusySeconds(): number | undefined {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const busy = fields.slice(0, 8).reduce((n, v, i) => (i === 3 || i === 4 ? n : n + v), 0);
    return busy / 100;
  } catch {
    return undefined;
  }
}

/** One entry of the change log. */
interface LogEntry {
  seq: number;
  id: number;
  version: number;
  /** Not a product update (the writes make none such). */
  other: boolean;
}

/** The change log's last entry id (insertion order, not `seq`), before the writes. */
async function logMark(sql: SqlReader): Promise<number> {
  const [row] = await sql.all('SELECT coalesce(max(id), 0) AS id FROM changes');
  return Number(row?.id);
}

/**
 * The entries appended after `mark`, in commit order, once every one is numbered (the server
 * numbers them after each commit; its poll numbers any left over), or at `deadline` as they are.
 */
async function loggedEntries(
  sql: SqlReader,
  mark: number,
  deadline: number,
): Promise<{ entries: LogEntry[]; readAt: number }> {
  for (;;) {
    const [row] = await sql.all(`SELECT count(*) AS n FROM changes WHERE id > ${mark} AND seq IS NULL`);
    if (Number(row?.n) === 0 || performance.now() > deadline) break;
    await sleep(200);
  }
  // A write answered before this moment was numbered before its answer (src/data/writes.ts): its
  // entry is in what this reads.
  const readAt = performance.now();
  const rows = await sql.all(
    `SELECT seq, resource_type, resource_id, version, op FROM changes WHERE id > ${mark} AND seq IS NOT NULL ORDER BY seq`,
  );
  const entries = rows.map((r) => ({
    seq: Number(r.seq),
    id: Number(r.resource_id),
    version: Number(r.version),
    other: r.resource_type !== 'products' || r.op !== 'updated',
  }));
  return { entries, readAt };
}

/** Pids of the database's backends now. */
async function backendPids(sql: SqlReader): Promise<number[]> {
  const rows = await sql.all(
    'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
  );
  return rows.map((r) => Number(r.pid));
}

/**
 * The worker is TypeScript: on Node 20 a worker does not inherit the loader hooks that `tsx` (or
 * `--import tsx`) registered in this thread, so it registers tsx's own and then imports the module.
 */
const WORKER_BOOT = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => {
  tsx.register();
  return import(${JSON.stringify(new URL('./sse-worker.ts', import.meta.url).href)});
})`;

interface WorkerHandle {
  worker: Worker;
  progress: SseWorkerProgress;
  result: Promise<SseWorkerResult>;
  /** The worker failed (its module did not load, it threw). */
  failure?: Error;
}

function startWorkers(server: RunningServer, options: FanoutOptions): WorkerHandle[] {
  const body = JSON.stringify({ query: FANOUT_SUBSCRIPTION });
  const per = Math.ceil(options.subscribers / options.workers);
  const handles: WorkerHandle[] = [];
  for (let w = 0, first = 0; first < options.subscribers; w++, first += per) {
    const data: SseWorkerData = {
      baseUrl: server.baseUrl,
      headers: server.headers,
      body,
      first,
      count: Math.min(per, options.subscribers - first),
      concurrency: options.openConcurrency,
      mainOffsetMs: clockOffset(),
    };
    const worker = new Worker(WORKER_BOOT, { eval: true, workerData: data });
    const handle: WorkerHandle = {
      worker,
      progress: { type: 'progress', opened: 0, failed: 0, events: 0, ended: 0, behind: options.subscribers },
      result: new Promise((resolve, reject) => {
        worker.on('message', (m: SseWorkerProgress | SseWorkerResult) => {
          if (m.type === 'progress') handle.progress = m;
          else resolve(m);
        });
        worker.once('error', reject);
        worker.once('exit', (code) => reject(new Error(`SSE worker ${w} exited with ${code} before its result`)));
      }),
    };
    handle.result.catch((error: Error) => (handle.failure = error));
    handles.push(handle);
  }
  return handles;
}

const total = (handles: WorkerHandle[], key: 'opened' | 'failed' | 'events' | 'ended' | 'behind') =>
  handles.reduce((n, h) => n + h.progress[key], 0);

/** Opens every subscription (each to its first ping, or its failure); answers the seconds it took. */
async function openSubscribers(handles: WorkerHandle[], options: FanoutOptions, t0: number): Promise<number> {
  for (const h of handles) h.worker.postMessage({ type: 'open' });
  const deadline = performance.now() + 180_000;
  while (total(handles, 'opened') + total(handles, 'failed') < options.subscribers) {
    const failure = handles.find((h) => h.failure)?.failure;
    if (failure) throw new Error(`fan-out: an SSE worker failed: ${failure.message}`);
    if (performance.now() > deadline)
      throw new Error(
        `fan-out: ${total(handles, 'opened')} of ${options.subscribers} subscriptions open after 180 s (${total(handles, 'failed')} failed)`,
      );
    await sleep(50);
  }
  return (performance.now() - t0) / 1000;
}

/**
 * The writes, open-loop: write n is due at start + n / rate and sent when due, whatever became of
 * the writes before it. Resolves once the last is sent; `answered` settles with the answers.
 */
async function driveWrites(
  server: RunningServer,
  params: UpdateParams,
  updateRequest: (u: ProductUpdate) => HttpRequest,
  options: FanoutOptions,
  agent: Agent,
  start: number,
  onAck: () => void,
): Promise<{ writes: Write[]; answered: Promise<unknown> }> {
  const writes: Write[] = [];
  const answers: Promise<void>[] = [];
  const count = Math.round(options.rate * options.duration);
  const interval = 1000 / options.rate;
  await new Promise<void>((resolve) => {
    let n = 0;
    const tick = () => {
      while (n < count && start + n * interval <= performance.now()) {
        const update = productUpdate(params, options.warmupWrites + n);
        const write: Write = { n, update, scheduledAt: start + n * interval, sentAt: performance.now() };
        writes.push(write);
        answers.push(
          send(agent, server, updateRequest(update), write).then(() => {
            if (write.ackAt !== undefined) onAck();
          }),
        );
        n++;
      }
      if (n >= count) return resolve();
      setTimeout(tick, Math.max(0, start + n * interval - performance.now()));
    };
    setTimeout(tick, Math.max(0, start - performance.now()));
  });
  return { writes, answered: Promise.all(answers) };
}

/**
 * CPU of PostgreSQL's backends on this database over a period: each backend's CPU time (from
 * /proc) when first and last seen, sampled by `sample()` (once a second), so that a backend the
 * pool closes meanwhile loses at most its last second. A backend first seen after the start counts
 * from zero (it was born in the period).
 */
export async function backendMeter(sql: SqlReader) {
  const seen = new Map<number, { first: number; last: number }>();
  let started = false;
  const sample = async () => {
    for (const pid of await backendPids(sql)) {
      const cpu = cpuSeconds(pid);
      if (cpu === undefined) continue;
      const known = seen.get(pid);
      if (known) known.last = cpu;
      else seen.set(pid, { first: started ? 0 : cpu, last: cpu });
    }
  };
  await sample();
  started = true;
  return {
    sample,
    async seconds() {
      await sample();
      let total = 0;
      for (const { first, last } of seen.values()) total += last - first;
      return total;
    },
  };
}

/** CPU of the server, PostgreSQL's backends, this process and the machine, over a period. */
async function cpuMeter(sql: SqlReader, pid: number) {
  const backends = await backendMeter(sql);
  const start = {
    t: performance.now(),
    server: cpuSeconds(pid),
    machine: machineBusySeconds(),
    generator: process.cpuUsage(),
    elu: performance.eventLoopUtilization(),
    load: loadavg(),
  };
  const stop = async () => {
    const wall = (performance.now() - start.t) / 1000;
    const server = cpuSeconds(pid);
    const machine = machineBusySeconds();
    const generator = process.cpuUsage(start.generator);
    const mainThreadBusy = performance.eventLoopUtilization(start.elu).utilization;
    const pg = (await backends.seconds()) / wall;
    const serverSeconds = server !== undefined && start.server !== undefined ? server - start.server : undefined;
    const serverCores = serverSeconds === undefined ? undefined : serverSeconds / wall;
    const busyCores =
      machine !== undefined && start.machine !== undefined ? (machine - start.machine) / wall : undefined;
    const generatorCores = (generator.user + generator.system) / 1e6 / wall;
    return {
      wall,
      serverSeconds,
      serverCores,
      postgresCores: pg,
      generatorCores,
      mainThreadBusy,
      machine: {
        cores: cpus().length,
        busyCores,
        otherCores:
          busyCores !== undefined && serverCores !== undefined
            ? busyCores - serverCores - pg - generatorCores
            : undefined,
        loadAverage: { before: start.load, after: loadavg() },
      },
    };
  };
  return { sample: backends.sample, stop };
}

/** The server's V8 heap in use (`nodejs_heap_size_used_bytes` on /metrics), MB; undefined if it does not answer in 10 s. */
async function heapUsedMb(server: RunningServer): Promise<number | undefined> {
  try {
    const res = await fetch(`${server.baseUrl}/metrics`, { signal: AbortSignal.timeout(10_000) });
    const match = /^nodejs_heap_size_used_bytes\s+(\S+)/m.exec(await res.text());
    return match ? Number(match[1]) / 2 ** 20 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Runs the case against `server` (ours, started with fanoutServerEnv): a few writes to warm it,
 * then opens the subscribers, writes at the rate for the duration, reads the log the writes left,
 * waits until every open stream has its last entry, and works out the result. `updateRequest` makes
 * a write's request (REST PATCH of one of W5's updates).
 */
export async function runFanout(
  server: RunningServer,
  params: UpdateParams,
  updateRequest: (u: ProductUpdate) => HttpRequest,
  sql: SqlReader,
  options: FanoutOptions,
  log: (line: string) => void,
): Promise<FanoutResult> {
  const pid = server.pid;
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  for (let n = 0; n < options.warmupWrites; n++) {
    const write: Write = { n, update: productUpdate(params, n), scheduledAt: 0, sentAt: performance.now() };
    await send(agent, server, updateRequest(write.update), write);
    if (write.error) throw new Error(`fan-out: warm-up write ${n} failed: ${write.error}`);
  }
  const rssBeforeMb = rssMb(pid);
  const heapBeforeMb = await heapUsedMb(server);
  const memory = watchMemory(pid);
  const t0 = performance.now();
  const cpu0 = cpuSeconds(pid);
  const timeline: FanoutResult['timeline'] = [];
  let phase = 'open';
  let acked = 0;
  let last = { t: t0, server: cpu0, generator: process.cpuUsage() };
  let backendSample: (() => Promise<void>) | undefined;
  const handles = startWorkers(server, options);
  const sampler = setInterval(() => {
    const t = performance.now();
    const serverCpu = cpuSeconds(pid);
    const generator = process.cpuUsage();
    const wall = (t - last.t) / 1000;
    timeline.push({
      s: Math.round((t - t0) / 100) / 10,
      phase,
      serverRssMb: rssMb(pid),
      serverCpu: serverCpu !== undefined && last.server !== undefined ? (serverCpu - last.server) / wall : undefined,
      generatorCpu: (generator.user - last.generator.user + generator.system - last.generator.system) / 1e6 / wall,
      events: total(handles, 'events'),
      acked,
    });
    last = { t, server: serverCpu, generator };
    void backendSample?.().catch(() => undefined);
  }, 1000);
  try {
    log(`  fan-out: opening ${options.subscribers} subscriptions over ${handles.length} worker threads`);
    const openSeconds = await openSubscribers(handles, options, t0);
    const openCpu = cpuSeconds(pid);
    // A refusal (TOO_MANY_SUBSCRIPTIONS) comes as a stream that opens and ends at once: give such
    // ends a moment to arrive before the writes start.
    await sleep(1000);
    const rssOpenMb = rssMb(pid);
    const heapOpenMb = await heapUsedMb(server);
    log(
      `  fan-out: ${total(handles, 'opened') - total(handles, 'ended')} open in ${openSeconds.toFixed(1)} s (${total(handles, 'failed')} failed, ${total(handles, 'ended')} ended); server RSS ${rssBeforeMb?.toFixed(0)} -> ${rssOpenMb?.toFixed(0)} MB`,
    );

    phase = 'write';
    const mark = await logMark(sql);
    const meter = await cpuMeter(sql, pid);
    backendSample = meter.sample;
    for (const h of handles) h.worker.postMessage({ type: 'mark' });
    log(
      `  fan-out: ${Math.round(options.rate * options.duration)} writes at ${options.rate}/s (REST PATCH, open-loop; ${options.warmupWrites} before, unmeasured)`,
    );
    const firstWrite = performance.now() + 20;
    const { writes, answered } = await driveWrites(
      server,
      params,
      updateRequest,
      options,
      agent,
      firstWrite,
      () => acked++,
    );
    await Promise.race([answered, sleep(options.drainTimeout * 1000)]);
    const lastAnswer = performance.now();
    const cpu = await meter.stop();
    backendSample = undefined;
    for (const h of handles) h.worker.postMessage({ type: 'measure' });
    const rssAfterWritesMb = rssMb(pid);
    const heapAfterWritesMb = await heapUsedMb(server);

    // The log as the writes left it, and every open stream up to its last entry.
    phase = 'drain';
    const deadline = performance.now() + options.drainTimeout * 1000;
    const { entries, readAt } = await loggedEntries(sql, mark, deadline);
    const target = entries.at(-1)?.seq ?? 0;
    for (const h of handles) h.worker.postMessage({ type: 'target', seq: target });
    await sleep(600); // two progress reports after the target
    while (total(handles, 'behind') > 0 && performance.now() < deadline) await sleep(100);
    const caughtUp = total(handles, 'behind') === 0;
    log(
      `  fan-out: ${entries.length} log entries; ${caughtUp ? 'every open stream reached the last' : `${total(handles, 'behind')} streams short of the last at the drain timeout`} ${((performance.now() - lastAnswer) / 1000).toFixed(1)} s after the last answer`,
    );

    phase = 'close';
    for (const h of handles) h.worker.postMessage({ type: 'finish' });
    const results = await Promise.all(handles.map((h) => h.result));
    const peakRssMb = memory.stop();
    return analyse({
      server,
      options,
      results,
      writes,
      entries,
      readAt,
      caughtUp,
      openSeconds,
      firstWrite,
      lastAnswer,
      server_: {
        pid,
        rssBeforeMb,
        rssOpenMb,
        rssAfterWritesMb,
        rssEndMb: rssMb(pid),
        peakRssMb,
        heapUsedMb: { before: heapBeforeMb, open: heapOpenMb, afterWrites: heapAfterWritesMb },
        openCpuSeconds: openCpu !== undefined && cpu0 !== undefined ? openCpu - cpu0 : undefined,
        cpuCores: cpu.serverCores,
        cpuMicrosPerDelivery: undefined,
      },
      writeSeconds: cpu.wall,
      serverCpuSeconds: cpu.serverSeconds,
      postgresCpuCores: cpu.postgresCores,
      machine: cpu.machine,
      loadGenerator: {
        cpuCores: cpu.generatorCores,
        mainThreadBusy: cpu.mainThreadBusy,
        workerBusy: results.map((r) => r.elu),
      },
      timeline,
    });
  } finally {
    clearInterval(sampler);
    memory.stop();
    agent.destroy();
    await Promise.allSettled(handles.map((h) => h.worker.terminate()));
  }
}

interface Collected {
  server: RunningServer;
  options: FanoutOptions;
  results: SseWorkerResult[];
  writes: Write[];
  entries: LogEntry[];
  /** When the log was read back. */
  readAt: number;
  caughtUp: boolean;
  openSeconds: number;
  firstWrite: number;
  lastAnswer: number;
  server_: FanoutResult['server'];
  writeSeconds: number;
  serverCpuSeconds?: number;
  postgresCpuCores: number;
  machine: FanoutResult['machine'];
  loadGenerator: FanoutResult['loadGenerator'];
  timeline: FanoutResult['timeline'];
}

const countBy = (items: string[]) =>
  items.reduce<Record<string, number>>((acc, k) => {
    acc[k] = (acc[k] ?? 0) + 1;
    return acc;
  }, {});

const reasonOf = (s: SubscriberState) => s.errorCode ?? s.end ?? 'unknown';

function percentile(values: number[], q: number): number {
  const sorted = values.slice().sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
}

/**
 * The write each log entry records: an acknowledged write by (product id, version from its answer);
 * otherwise the first write of that product not matched yet (each product is written once at the
 * default rate and duration, so this is exact there).
 */
function writesOfEntries(entries: LogEntry[], writes: Write[]): (Write | undefined)[] {
  const acked = new Map<string, Write>();
  const pending = new Map<number, Write[]>();
  for (const w of writes) {
    if (w.ackAt !== undefined) acked.set(`${w.update.id}:${w.version}`, w);
    else pending.set(w.update.id, [...(pending.get(w.update.id) ?? []), w]);
  }
  return entries.map((e) => {
    if (e.other) return undefined;
    return acked.get(`${e.id}:${e.version}`) ?? pending.get(e.id)?.shift();
  });
}

/** Matches every event to its log entry (by cursor) and its write; works out delays, completeness and order. */
function analyse(c: Collected): FanoutResult {
  const { options, writes, entries } = c;
  const subscribers: SubscriberState[] = c.results.flatMap((r) => r.subscribers);
  const nSubs = subscribers.length;
  const nEntries = entries.length;
  const entryAt = new Map(entries.map((e, i) => [e.seq, i]));
  const writeOf = writesOfEntries(entries, writes);
  const logged = new Set(writeOf.filter((w) => w !== undefined));
  const open = subscribers.map(
    (s) => s.openedAt !== undefined && (s.endedAt === undefined || s.endedAt > c.firstWrite),
  );
  const nOpen = open.filter(Boolean).length;

  const received = new Uint8Array(nSubs * nEntries);
  const lastSeq = new Float64Array(nSubs).fill(-1);
  const eventCount = c.results.reduce((n, r) => n + r.events.length, 0);
  const fromAck = new Float64Array(eventCount);
  const fromSend = new Float64Array(eventCount);
  const bySecond: number[][] = Array.from({ length: Math.ceil(writes.length / options.rate) + 1 }, () => []);
  let acked = 0;
  let delivered = 0;
  let duplicates = 0;
  let outOfOrder = 0;
  let mismatched = 0;
  let unknown = 0;
  let afterLastEntry = 0;
  const lastEntry = entries.at(-1)?.seq ?? Number.POSITIVE_INFINITY;
  let lastDelivery = c.lastAnswer;
  for (const { events } of c.results) {
    const e: SseEvents = events;
    for (let i = 0; i < e.length; i++) {
      const sub = e.subscriber[i]!;
      const seq = e.seq[i]!;
      if (seq <= lastSeq[sub]!) outOfOrder++;
      lastSeq[sub] = seq;
      const index = entryAt.get(seq);
      if (index === undefined) {
        if (seq > lastEntry) afterLastEntry++;
        else unknown++;
        continue;
      }
      const entry = entries[index]!;
      if (entry.id !== e.id[i] || entry.version !== e.version[i] || entry.other !== (e.other[i] === 1)) mismatched++;
      const slot = sub * nEntries + index;
      if (received[slot]) {
        duplicates++;
        continue;
      }
      received[slot] = 1;
      delivered++;
      const t = e.t[i]!;
      if (t > lastDelivery) lastDelivery = t;
      const write = writeOf[index];
      if (!write) continue;
      fromSend[delivered - 1] = t - write.sentAt;
      if (write.ackAt !== undefined) {
        fromAck[acked++] = t - write.ackAt;
        bySecond[Math.floor(write.n / options.rate)]!.push(t - write.ackAt);
      }
    }
  }
  let subscribersComplete = 0;
  let missing = 0;
  let missingOnEnded = 0;
  for (let s = 0; s < nSubs; s++) {
    if (!open[s]) continue;
    let gaps = 0;
    for (let i = 0; i < nEntries; i++) if (!received[s * nEntries + i]) gaps++;
    if (gaps === 0) subscribersComplete++;
    missing += gaps;
    if (subscribers[s]!.endedAt !== undefined) missingOnEnded += gaps;
  }
  const early = subscribers
    .map((s, i) => ({ s, i }))
    .filter(({ s, i }) => open[i] && s.endedAt !== undefined)
    .sort((a, b) => a.s.endedAt! - b.s.endedAt!);
  const first = early[0];
  const sends = writes.map((w) => w.sentAt);
  const ackedWrites = writes.filter((w) => w.ackAt !== undefined && w.ackAt <= c.readAt);
  const lateWrites = writes.filter((w) => w.ackAt !== undefined && w.ackAt > c.readAt);
  const errors = writes.filter((w) => w.error);
  const unanswered = writes.filter((w) => w.ackAt === undefined && !w.error);
  return {
    dataset: c.server.dataset.id,
    subscription: FANOUT_SUBSCRIPTION,
    serverEnv: fanoutServerEnv(options.subscribers),
    options,
    subscribers: {
      requested: options.subscribers,
      open: nOpen,
      notOpen: countBy(subscribers.filter((_, i) => !open[i]).map(reasonOf)),
      openSeconds: c.openSeconds,
      endedEarly: countBy(early.map(({ s }) => reasonOf(s))),
      firstEnd: first && {
        subscriber: first.i,
        atS: (first.s.endedAt! - c.firstWrite) / 1000,
        end: first.s.end ?? 'unknown',
        code: first.s.errorCode,
        message: first.s.message,
      },
    },
    writes: {
      scheduled: Math.round(options.rate * options.duration),
      sent: writes.length,
      acked: ackedWrites.length,
      answeredLate: lateWrites.length,
      errors: errors.length,
      unanswered: unanswered.length,
      committedDespiteError: errors.filter((w) => logged.has(w)).length,
      committedUnanswered: unanswered.filter((w) => logged.has(w)).length,
      ackedNotLogged: ackedWrites.filter((w) => !logged.has(w)).length,
      errorKinds: countBy(errors.map((w) => (w.error!.startsWith('status') ? w.error!.split(':')[0]! : w.error!))),
      errorSamples: [...new Set(errors.map((w) => w.error!))].slice(0, 3),
      sendRate: sends.length > 1 ? ((sends.length - 1) * 1000) / (sends.at(-1)! - sends[0]!) : Number.NaN,
      maxSendLagMs: writes.reduce((m, w) => Math.max(m, w.sentAt - w.scheduledAt), 0),
      ack: distribution(Float64Array.from([...ackedWrites, ...lateWrites].map((w) => w.ackAt! - w.sentAt))),
    },
    delivery: {
      logEntries: nEntries,
      expected: nOpen * nEntries,
      delivered,
      missing,
      subscribersComplete,
      missingOnEndedStreams: missingOnEnded,
      duplicates,
      outOfOrder,
      mismatched,
      unknown,
      afterLastEntry,
      parseErrors: c.results.reduce((n, r) => n + r.parseErrors, 0),
      caughtUp: c.caughtUp,
      drainSeconds: (lastDelivery - c.lastAnswer) / 1000,
    },
    delayFromAck: distribution(fromAck.subarray(0, acked)),
    delayFromSend: distribution(fromSend.subarray(0, delivered)),
    delayBySecond: bySecond
      .map((values, second) => ({
        second,
        writes: writes.filter((w) => Math.floor(w.n / options.rate) === second).length,
        p50: percentile(values, 0.5),
        p99: percentile(values, 0.99),
        max: values.length ? values.reduce((m, v) => Math.max(m, v), Number.NEGATIVE_INFINITY) : Number.NaN,
      }))
      .filter((s) => s.writes > 0),
    server: {
      ...c.server_,
      cpuMicrosPerDelivery:
        c.serverCpuSeconds === undefined || delivered === 0 ? undefined : (c.serverCpuSeconds * 1e6) / delivered,
    },
    writeSeconds: c.writeSeconds,
    postgresCpuCores: c.postgresCpuCores,
    machine: c.machine,
    loadGenerator: c.loadGenerator,
    timeline: c.timeline,
  };
}
