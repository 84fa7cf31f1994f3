/**
 * `tsx bench/run.ts`: our server against PostGraphile 5 on the same PostgreSQL data.
 *
 * 1. Prepares the databases (seed scale 20 on PostgreSQL and SQLite, scale 1 on PostgreSQL for the
 *    growth cases), reusing them when already seeded.
 * 2. Starts the servers the chosen targets need, as child processes (same Node, pool size 10).
 * 3. Verifies before timing: every target answers every case, the page holds the ids the database
 *    says it should, and all answers are equal in the neutral shape; W5's update, written through
 *    each target, is read back from the database.
 * 4. Counts SQL statements per request exactly (sequential requests, counter delta).
 * 5. Times: warm-up for every target, then rounds A B A B ..., autocannon with 10 connections.
 * 6. The fan-out case (FANOUT, lib/fanout.ts): our server alone on pg20 with 1,000 SSE
 *    subscribers while REST writes arrive at 100/s; delivery delay, completeness, memory and CPU.
 * 7. Prints a table (and, for W5, our change-log entries against the writes answered; the fan-out
 *    case in its own section) and writes results/latest.json and results/latest.svg.
 *
 * Run `tsx bench/run.ts --help` for the options.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, release, totalmem } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  BENCH_DIR,
  ROOT_DIR,
  changeLog,
  datasetFor,
  describe,
  openReader,
  prepareDataset,
  type Dataset,
  type SqlReader,
} from './lib/databases.ts';
import { runDataIn } from './lib/data-in.ts';
import { formatAsOf, runAsOf, type AsOfApi, type AsOfOptions, type AsOfReport } from './lib/as-of.ts';
import { installPeerTriggers, peerAuditRows, removePeerTriggers } from './lib/peer-trigger.ts';
import { runWebhooks } from './lib/webhooks.ts';
import { FANOUT_SUBSCRIPTION, fanoutServerEnv, runFanout, type FanoutOptions } from './lib/fanout.ts';
import { fetchOnce, median, statementProbe, timedRun, type Requests, type RunResult } from './lib/load.ts';
import { canonicalDecimal, census, firstDifference, project, type Neutral, type Selection } from './lib/neutral.ts';
import {
  formatFanout,
  formatTable,
  renderSvg,
  type DataInReport,
  type WebhooksReport,
  type FanoutReport,
  type Goal,
  type Measurement,
  type Report,
} from './lib/report.ts';
import {
  counterValue,
  type IdleMemory,
  measureIdle,
  startServer,
  type RunningServer,
  type ServerKind,
} from './lib/servers.ts';
import { defaultTargets, TARGETS, type CaseBinding, type Target, type TargetName } from './lib/targets.ts';
import { OUR_UPDATE, OURS } from './ours.ts';
import { peerRequest, peerUpdate } from './peer/queries.ts';
import {
  isRead,
  productUpdate,
  resolveCases,
  storedProduct,
  workloadCase,
  type ProductUpdate,
  type ReadCase,
  type ResolvedCase,
  type UpdateParams,
  type WorkloadCase,
} from './workloads.ts';

const USAGE = `usage: tsx bench/run.ts [options]

  --targets LIST       postgraphile,postgraphile+trigger,graphql,rest,graphql+role,rest+role,graphql#id,graphql@base,rest@base
                       (default: all but the +role and #id ones; the @base ones only with --baseline).
                       graphql#id sends each GraphQL document by its id, registered as the client's
                       trusted document, instead of its text. The
                       +role ones are our APIs under a restricted role (a field list and a row
                       filter on every type that leave the answers those of admin: bench/lib/role.ts)
  --baseline DIR       another checkout of this project (npm ci done there), e.g. a git worktree of
                       the commit before a change: its server runs beside ours as graphql@base and
                       rest@base, alternating round by round, for paired before/after numbers
  --datasets LIST      pg20,pg1,sqlite20 (default: all that a chosen target can use)
  --workloads LIST     W0,W1,W2,W3,W4,W6,W5,FANOUT,DATAIN,WEBHOOKS,ASOF (default: all; W5 writes, and runs
                       after the reads; FANOUT, SSE subscribers of our server while writes arrive,
                       DATAIN, bulk upserts against COPY and an import from our server, WEBHOOKS,
                       deliveries to local receivers while writes arrive, and ASOF, W2 as of a day
                       before against now after 10,000 writes and W5 with the row history's
                       triggers against without, on a database of its own seeded afresh as pg20, run last)
  --asof-writes N      ASOF: writes spread over the rows before the reads (default 10000)
  --asof-parts LIST    ASOF: reads,writes (default both: W2 as of against now; W5 with and
                       without the history's triggers)
  --asof-keep          ASOF: keep its database (mdg_bench_asof) afterwards, for EXPLAIN ANALYZE
  --webhook-rate N         WEBHOOKS: writes per second (default 500)
  --webhook-duration S     WEBHOOKS: seconds of writes per scenario (default 30)
  --webhook-endpoints N    WEBHOOKS: endpoints of the fan-out scenario (default 50)
  --webhook-scenarios LIST WEBHOOKS: none,one,fan-out,failing (default: all)
  --webhook-floor-duration S WEBHOOKS: seconds each of the floor's clients runs, in the fan-out
                       scenario before its writes (default 5; 0: no floor)
  --no-growth          skip the growth cases (W2 at pages of 10 and 100, scale 1)
  --cpu-prof DIR       our servers write a V8 CPU profile of their whole run into DIR when they
                       stop (node --cpu-prof); \`tsx bench/flame.ts DIR\` draws flame graphs of them
  --no-sweep           skip the concurrency sweep (W0 and W2 at 1 and 50 connections; 10 is the
                       main case)
  --duration S         seconds per timed run (default 5)
  --warmup S           seconds of warm-up per target and case (default 2)
  --rounds N           timed rounds per target and case, alternating targets (default 3)
  --connections N      autocannon connections (default 10)
  --pool-size N        database pool of the PostGraphile peer (default 10, as ours)
  --probe N            sequential requests for the statement count (default 10)
  --fanout-subscribers N   FANOUT: SSE subscriptions (default 1000)
  --fanout-rate N          FANOUT: writes per second (default 100)
  --fanout-duration S      FANOUT: seconds of writes (default 20)
  --fanout-workers N       FANOUT: worker threads the subscribers are spread over (default 4)
  --postgres-url URL   a PostgreSQL URL whose user may create databases
                       (default $BENCH_POSTGRES_URL or postgresql://postgres@127.0.0.1:5432/postgres)
  --out DIR            results directory (default bench/results)
  --prepare-only       prepare the databases and stop
  --verify-only        prepare, start, verify and count statements; no timing
  --print-queries      print each case's PostGraphile query, variables and REST path, and stop`;

function parseCli() {
  const { values } = parseArgs({
    options: {
      targets: { type: 'string' },
      datasets: { type: 'string' },
      workloads: { type: 'string' },
      'no-growth': { type: 'boolean', default: false },
      'no-sweep': { type: 'boolean', default: false },
      'cpu-prof': { type: 'string' },
      duration: { type: 'string', default: '5' },
      warmup: { type: 'string', default: '2' },
      rounds: { type: 'string', default: '3' },
      connections: { type: 'string', default: '10' },
      'pool-size': { type: 'string', default: '10' },
      probe: { type: 'string', default: '10' },
      'fanout-subscribers': { type: 'string', default: '1000' },
      'fanout-rate': { type: 'string', default: '100' },
      'fanout-duration': { type: 'string', default: '20' },
      'fanout-workers': { type: 'string', default: '4' },
      'webhook-rate': { type: 'string', default: '500' },
      'webhook-duration': { type: 'string', default: '30' },
      'webhook-endpoints': { type: 'string', default: '50' },
      'webhook-scenarios': { type: 'string' },
      'webhook-floor-duration': { type: 'string', default: '5' },
      'asof-writes': { type: 'string', default: '10000' },
      'asof-parts': { type: 'string' },
      'asof-keep': { type: 'boolean', default: false },
      'postgres-url': {
        type: 'string',
        default: process.env.BENCH_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres',
      },
      out: { type: 'string', default: join(BENCH_DIR, 'results') },
      'prepare-only': { type: 'boolean', default: false },
      'verify-only': { type: 'boolean', default: false },
      'print-queries': { type: 'boolean', default: false },
      baseline: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const count = (name: string, value: string, min: number) => {
    if (!/^\d+$/.test(value) || Number(value) < min)
      throw new Error(`--${name} must be a whole number >= ${min} (got ${value})`);
    return Number(value);
  };
  const list = (value: string | undefined) =>
    value
      ?.split(',')
      .map((s) => s.trim())
      .filter(Boolean);

  const targets: Target[] =
    list(values.targets)?.map((name) => {
      const target = TARGETS[name as TargetName];
      if (!target) throw new Error(`unknown target ${name} (known: ${Object.keys(TARGETS).join(', ')})`);
      return target;
    }) ?? defaultTargets(values.baseline !== undefined);
  if (targets.some((t) => t.server === 'baseline') && values.baseline === undefined)
    throw new Error('the @base targets need --baseline DIR');
  // FANOUT is a case of its own (lib/fanout.ts), not a workload of the table.
  const named = list(values.workloads);
  const isFanout = (w: string) => w.toUpperCase() === 'FANOUT';
  const isDataIn = (w: string) => w.toUpperCase() === 'DATAIN';
  const isWebhooks = (w: string) => w.toUpperCase() === 'WEBHOOKS';
  const isAsOf = (w: string) => w.toUpperCase() === 'ASOF';
  const workloads = named
    ?.filter((w) => !isFanout(w) && !isDataIn(w) && !isWebhooks(w) && !isAsOf(w))
    .map((w) => workloadCase(w).workload.name);
  const fanout: FanoutOptions = {
    subscribers: count('fanout-subscribers', values['fanout-subscribers'], 1),
    rate: count('fanout-rate', values['fanout-rate'], 1),
    duration: count('fanout-duration', values['fanout-duration'], 1),
    workers: count('fanout-workers', values['fanout-workers'], 1),
    openConcurrency: 25,
    warmupWrites: 50,
    drainTimeout: 60,
  };
  const asOfParts = (list(values['asof-parts']) ?? ['reads', 'writes']).map((part) => {
    if (part !== 'reads' && part !== 'writes') throw new Error(`--asof-parts: reads or writes (got ${part})`);
    return part;
  });
  return {
    targets,
    datasetIds: list(values.datasets),
    asOf:
      named === undefined || named.some(isAsOf)
        ? { writes: count('asof-writes', values['asof-writes'], 2), parts: asOfParts, keep: values['asof-keep'] }
        : undefined,
    workloads,
    fanout: named === undefined || named.some(isFanout) ? fanout : undefined,
    dataIn: named === undefined || named.some(isDataIn),
    webhooks:
      named === undefined || named.some(isWebhooks)
        ? {
            rate: count('webhook-rate', values['webhook-rate'], 1),
            duration: count('webhook-duration', values['webhook-duration'], 1),
            endpoints: count('webhook-endpoints', values['webhook-endpoints'], 1),
            failRate: 0.2,
            floorSeconds: count('webhook-floor-duration', values['webhook-floor-duration'], 0),
            scenarios: list(values['webhook-scenarios']),
          }
        : undefined,
    growth: !values['no-growth'],
    sweep: !values['no-sweep'],
    nodeOptions: values['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${resolve(values['cpu-prof'])}`] : undefined,
    duration: count('duration', values.duration, 1),
    warmup: count('warmup', values.warmup, 0),
    rounds: count('rounds', values.rounds, 1),
    connections: count('connections', values.connections, 1),
    poolSize: count('pool-size', values['pool-size'], 1),
    probe: count('probe', values.probe, 1),
    postgresUrl: values['postgres-url'],
    out: resolve(values.out),
    prepareOnly: values['prepare-only'],
    verifyOnly: values['verify-only'],
    printQueries: values['print-queries'],
    baselineDir: values.baseline && resolve(values.baseline),
  };
}

type Options = ReturnType<typeof parseCli>;

interface Plan {
  dataset: Dataset;
  cases: WorkloadCase[];
  targets: Target[];
}

/**
 * What runs where: the seven workloads on the scale-20 databases; the growth cases (W2 with pages
 * of 10 and 100 at scale 20; W0 and W2 at scale 1) on PostgreSQL, beside the peer. W5 writes, so
 * it comes last on its database: the reads are verified and timed on the data as seeded (and as
 * W5 leaves it, which changes none of their parameters: workloads.ts).
 */
const DATASETS = ['pg20', 'pg1', 'sqlite20'];

/**
 * The concurrency sweep on pg20: a lookup by id (W0) and the deepest list (W2) at 1 and 50
 * connections besides the main cases' 10, to show where each server saturates.
 */
const SWEEP = ['W0@1', 'W0@50', 'W2@1', 'W2@50'];

function plan(options: Options): Plan[] {
  const READS = ['W0', 'W1', 'W2', 'W3', 'W4', 'W6'];
  const MAIN = [...READS, 'W5'];
  const byDataset: Record<string, string[]> = {
    pg20: [...READS, ...(options.growth ? ['W2/10', 'W2/100'] : []), ...(options.sweep ? SWEEP : []), 'W5'],
    pg1: options.growth ? ['W0', 'W2'] : [],
    sqlite20: MAIN,
  };
  const ids = options.datasetIds ?? DATASETS;
  const plans: Plan[] = [];
  for (const id of ids) {
    const dataset = datasetFor(id, options.postgresUrl);
    const targets = options.targets.filter((t) => t.providers.includes(dataset.provider));
    const keys = (byDataset[id] ?? MAIN).filter(
      (k) => !options.workloads || options.workloads.includes(workloadCase(k).workload.name),
    );
    if (targets.length === 0 || keys.length === 0) {
      if (options.datasetIds) console.log(`note: ${id} left out: no chosen target or workload runs on it`);
      continue;
    }
    plans.push({ dataset, cases: keys.map(workloadCase), targets });
  }
  return plans;
}

/** The fan-out case's dataset (pg20, with our server), or undefined when the options leave it out. */
function fanoutDataset(options: Options): Dataset | undefined {
  if (!options.fanout) return undefined;
  if (options.datasetIds && !options.datasetIds.includes('pg20')) {
    console.log('note: FANOUT left out: it runs on pg20, which --datasets leaves out');
    return undefined;
  }
  if (!options.targets.some((t) => t.server === 'ours')) {
    console.log('note: FANOUT left out: it measures our server (targets graphql or rest)');
    return undefined;
  }
  return datasetFor('pg20', options.postgresUrl);
}

/**
 * The fan-out case on its own server process (a fresh one, so that its memory is the case's),
 * started as the others are, with the subscription limits raised to admit every subscriber of the
 * run's one API client. Its writes are W5's updates, found anew (prices above every price W5 left),
 * sent as REST PATCHes.
 */
async function runFanoutCase(dataset: Dataset, options: Options, servers: Set<RunningServer>): Promise<FanoutReport> {
  const fanout = options.fanout!;
  const reader = await openReader(dataset);
  let server: RunningServer | undefined;
  try {
    const [w5] = await resolveCases(reader, [workloadCase('W5')]);
    const env = fanoutServerEnv(fanout.subscribers);
    log(
      `${dataset.id} FANOUT: starting ours (${Object.entries(env)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ')})`,
    );
    server = await startServer('ours', {
      dataset,
      logDir: join(options.out, 'logs'),
      poolSize: options.poolSize,
      env,
      label: 'ours-fanout',
    });
    servers.add(server);
    const running = server;
    const result = await runFanout(
      running,
      w5!.params as UpdateParams,
      (u) => TARGETS.rest.update(u, running),
      reader,
      fanout,
      log,
    );
    return { status: 'measured', ...result };
  } catch (error) {
    log(`  FANOUT: FAILED ${(error as Error).message}`);
    return { status: 'failed', reason: (error as Error).message };
  } finally {
    if (server) {
      await server.stop();
      servers.delete(server);
    }
    await reader.close();
  }
}

/** The WEBHOOKS case (lib/webhooks.ts): each scenario on a server of its own, allowed to call loopback. */
async function runWebhooksCase(
  dataset: Dataset,
  options: Options,
  servers: Set<RunningServer>,
): Promise<WebhooksReport> {
  const reader = await openReader(dataset);
  try {
    const start = async (label: string) => {
      const server = await startServer('ours', {
        dataset,
        logDir: join(options.out, 'logs'),
        poolSize: options.poolSize,
        env: { WEBHOOKS_ALLOW_HTTP: 'true', WEBHOOKS_ALLOWED_NETWORKS: '127.0.0.0/8', WEBHOOKS_FIRST_RETRY_MS: '200' },
        label,
        nodeOptions: options.nodeOptions,
      });
      servers.add(server);
      const stop = server.stop;
      return {
        ...server,
        stop: async () => {
          await stop();
          servers.delete(server);
        },
      };
    };
    log(`${dataset.id} WEBHOOKS`);
    return { status: 'measured', scenarios: await runWebhooks(start, reader, options.webhooks!, log) };
  } catch (error) {
    log(`  WEBHOOKS: FAILED ${(error as Error).message}`);
    return { status: 'failed', reason: (error as Error).message };
  } finally {
    await reader.close();
  }
}

/** The DATAIN case (lib/data-in.ts) on a server of its own. */
async function runDataInCase(dataset: Dataset, options: Options, servers: Set<RunningServer>): Promise<DataInReport> {
  let server: RunningServer | undefined;
  try {
    log(`${dataset.id} DATAIN: starting ours`);
    server = await startServer('ours', {
      dataset,
      logDir: join(options.out, 'logs'),
      poolSize: options.poolSize,
      label: 'ours-data-in',
    });
    servers.add(server);
    return { status: 'measured', ...(await runDataIn(server, dataset, options.postgresUrl, ROOT_DIR, log)) };
  } catch (error) {
    log(`  DATAIN: FAILED ${(error as Error).message}`);
    return { status: 'failed', reason: (error as Error).message };
  } finally {
    if (server) {
      await server.stop();
      servers.delete(server);
    }
  }
}

/** The as-of case's dataset (pg20, with our server), or undefined when the options leave it out. */
function asOfDataset(options: Options): Dataset | undefined {
  if (!options.asOf) return undefined;
  if (options.datasetIds && !options.datasetIds.includes('pg20')) {
    console.log('note: ASOF left out: it runs on (a copy of) pg20, which --datasets leaves out');
    return undefined;
  }
  if (!options.targets.some((t) => t.name === 'graphql' || t.name === 'rest')) {
    console.log('note: ASOF left out: it measures our server (targets graphql or rest)');
    return undefined;
  }
  return datasetFor('pg20', options.postgresUrl);
}

/** The ASOF case (lib/as-of.ts): our server alone on a database of its own, seeded afresh as pg20; with --verify-only, its checks and probes only. */
async function runAsOfCase(dataset: Dataset, options: Options, servers: Set<RunningServer>): Promise<AsOfReport> {
  const asOf: AsOfOptions = {
    ...options.asOf!,
    apis: options.targets.flatMap((t): AsOfApi[] => (t.name === 'graphql' || t.name === 'rest' ? [t.name] : [])),
    rounds: options.rounds,
    duration: options.duration,
    warmup: options.warmup,
    connections: options.connections,
    probe: options.probe,
    verifyOnly: options.verifyOnly,
  };
  const start = async (on: Dataset, label: string): Promise<RunningServer> => {
    const server = await startServer('ours', {
      dataset: on,
      logDir: join(options.out, 'logs'),
      poolSize: options.poolSize,
      label,
      nodeOptions: options.nodeOptions,
    });
    servers.add(server);
    return {
      ...server,
      stop: async () => {
        await server.stop();
        servers.delete(server);
      },
    };
  };
  try {
    return { status: 'measured', ...(await runAsOf(dataset, options.postgresUrl, start, asOf, log)) };
  } catch (error) {
    log(`  ASOF: FAILED ${(error as Error).message}`);
    return { status: 'failed', reason: (error as Error).message };
  }
}

/**
 * The as-of issue's lines, on pg20 after 10,000 writes: W2 as of a day before at least 0.5x the
 * req/s of W2 now and at most twice its statements, GraphQL and REST (paired); W5 with the
 * history within noise of W5 without it, taken as a median paired ratio of at least 0.9 (the
 * band of this README's other paired lines).
 */
function asOfGoals(asOf: AsOfReport | undefined): Goal[] {
  const apis: AsOfApi[] = ['graphql', 'rest'];
  const reads = asOf?.status === 'measured' ? asOf.reads : undefined;
  const w5 = asOf?.status === 'measured' ? asOf.w5 : undefined;
  const reason = asOf?.status === 'failed' ? `failed: ${asOf.reason}` : 'not run';
  const timed = (pairs: typeof reads) => pairs && apis.every((api) => pairs.some((p) => p.api === api && p.paired));
  const statements = (pairs: typeof reads) =>
    pairs && apis.every((api) => pairs.some((p) => p.api === api && p.a.statements !== undefined));
  return [
    {
      goal: 'W2 as of a day before at least 0.5x the req/s of W2 now (pg20 after 10,000 writes, paired; GraphQL and REST)',
      met: Boolean(timed(reads) && reads!.every((p) => p.paired!.median >= 0.5)),
      detail: timed(reads)
        ? reads!
            .map(
              (p) =>
                `${p.api} ${p.paired!.median.toFixed(2)}x (rounds ${p.paired!.min.toFixed(2)}-${p.paired!.max.toFixed(2)})`,
            )
            .join(', ')
        : reason,
    },
    {
      goal: 'W2 as of a day before at most twice the statements of W2 now (GraphQL and REST)',
      met: Boolean(
        statements(reads) &&
          reads!.every(
            (p) => p.b.statements! <= 2 * p.a.statements! && (p.b.wireStatements ?? 0) <= 2 * (p.a.wireStatements ?? 0),
          ),
      ),
      detail: statements(reads)
        ? reads!
            .map(
              (p) =>
                `${p.api} ${p.b.statements} against ${p.a.statements} (on the wire ${p.b.wireStatements} against ${p.a.wireStatements})`,
            )
            .join(', ')
        : reason,
    },
    {
      goal: 'W5 with the row history within noise of W5 without it (paired median at least 0.9x; GraphQL and REST)',
      met: Boolean(timed(w5) && w5!.every((p) => p.paired!.median >= 0.9)),
      detail: timed(w5)
        ? w5!
            .map(
              (p) =>
                `${p.api} ${p.paired!.median.toFixed(2)}x (rounds ${p.paired!.min.toFixed(2)}-${p.paired!.max.toFixed(2)})`,
            )
            .join(', ')
        : reason,
    },
  ];
}

function log(line: string): void {
  console.log(`[${new Date().toISOString().slice(11, 19)}] ${line}`);
}

interface Bound {
  target: Target;
  server: RunningServer;
  /** What is sent: the same request over and over (reads), or the next update each time (W5). */
  request: Requests;
  measurement: Measurement;
}

interface ReadBound extends Bound {
  request: CaseBinding['request'];
  binding: CaseBinding;
}

/** The relationships two selections both follow. */
function intersect(a: Selection, b: Selection): Selection {
  return Object.fromEntries(
    Object.keys(a)
      .filter((name) => name in b)
      .map((name) => [name, intersect(a[name]!, b[name]!)]),
  );
}

/**
 * Fetches every target's answer to the case once and compares them: each must hold the expected
 * ids, and equal the first target's answer (the peer's, when it runs) on the part it covers.
 */
async function verify(c: ReadCase, bound: ReadBound[], probe: number): Promise<void> {
  let reference: { name: TargetName; neutral: Neutral; selection: Selection } | undefined;
  for (const b of bound) {
    const m = b.measurement;
    try {
      const answer = await fetchOnce(b.server, b.binding.request);
      if (answer.status < 200 || answer.status > 299)
        throw new Error(`status ${answer.status}: ${answer.text.slice(0, 200)}`);
      const neutral = b.binding.normalise(answer.body);
      const ids = Array.isArray(neutral) ? neutral.map((r) => r.id) : [neutral?.id];
      const expected = c.params.shape === 'one' ? [c.params.id] : c.params.expectedIds;
      if (JSON.stringify(ids) !== JSON.stringify(expected)) {
        throw new Error(`ids ${JSON.stringify(ids).slice(0, 80)} instead of ${JSON.stringify(expected).slice(0, 80)}`);
      }
      // W6: totalCount and the aggregate must be the database's (only totalCount from a target
      // without aggregates).
      const expectedTotals = c.params.shape === 'list' ? c.params.expectedTotals : undefined;
      if (expectedTotals) {
        if (!b.binding.totals) throw new Error("no totals in this target's answer");
        const totals = b.binding.totals(answer.body);
        const difference = firstDifference(
          totals.aggregate ? expectedTotals : { totalCount: expectedTotals.totalCount },
          totals,
        );
        if (difference) throw new Error(`totals: ${difference}`);
        log(`  ${c.key} ${b.target.name}: totals ${JSON.stringify(totals)}`);
      }
      if (!reference) {
        reference = { name: b.target.name, neutral, selection: b.binding.selection };
        const counts = Object.entries(census(neutral)).map(
          ([type, n]) => `${type} ${n.total}${n.distinct < n.total ? ` (${n.distinct} distinct)` : ''}`,
        );
        log(`  ${c.key}: ${counts.join(', ')}; ${(answer.bytes / 1024).toFixed(1)} KB from ${b.target.name}`);
      } else {
        // Compared on what both answers hold (REST includes one level only).
        const common = intersect(reference.selection, b.binding.selection);
        const difference = firstDifference(project(reference.neutral, common), project(neutral, common));
        if (difference) throw new Error(`differs from ${reference.name}: ${difference}`);
      }
      m.responseBytes = answer.bytes;
      m.statementsPerRequest = await statementProbe(b.server, b.request, probe);
    } catch (error) {
      m.status = 'failed';
      m.reason = `verification: ${(error as Error).message}`;
      log(`  ${c.key} ${b.target.name}: FAILED ${m.reason}`);
    }
  }
}

/**
 * W5 before timing: one update through each target, after which the database must hold the
 * price and the name it sent; then the statements per update (the probe's requests are updates
 * too). A 2xx alone does not say the write happened.
 */
async function verifyUpdates(bound: Bound[], next: () => ProductUpdate, sql: SqlReader, probe: number): Promise<void> {
  for (const b of bound) {
    const m = b.measurement;
    try {
      await countingWrites(b, sql, async () => {
        const update = next();
        const answer = await fetchOnce(b.server, b.target.update(update, b.server));
        if (answer.status < 200 || answer.status > 299 || b.target.bodyOk?.(answer.text) === false)
          throw new Error(`status ${answer.status}: ${answer.text.slice(0, 200)}`);
        const sent = { consumerPrice: canonicalDecimal(update.consumerPrice), nameEn: update.nameEn };
        const difference = firstDifference(sent, await storedProduct(sql, update.id));
        if (difference) throw new Error(`product ${update.id} in the database after the update: ${difference}`);
        log(`  W5 ${b.target.name}: product ${update.id} now holds ${sent.consumerPrice} and "${sent.nameEn}"`);
        m.responseBytes = answer.bytes;
        m.statementsPerRequest = await statementProbe(b.server, b.request, probe);
      });
    } catch (error) {
      m.status = 'failed';
      m.reason = `verification: ${(error as Error).message}`;
      log(`  W5 ${b.target.name}: FAILED ${m.reason}`);
    }
  }
}

/**
 * Runs `action` (writes through one target) and, where the target is ours, adds to its
 * measurement the change-log entries appended meanwhile and the writes its server counted as
 * answered with success. Targets run one at a time, so the entries are this target's.
 */
async function countingWrites<T>(b: Bound, sql: SqlReader, action: () => Promise<T>): Promise<T> {
  const filter = b.target.writesAnswered;
  if (!filter) return action();
  const [before, answeredBefore] = await Promise.all([changeLog(sql), counterValue(b.server, filter)]);
  const result = await action();
  const [after, answeredAfter] = await Promise.all([changeLog(sql, before.last), counterValue(b.server, filter)]);
  const counts = (b.measurement.changeLog ??= { entries: 0, writesAnswered: 0 });
  counts.entries += after.entries;
  counts.writesAnswered += (answeredAfter ?? 0) - (answeredBefore ?? 0);
  return result;
}

function summarise(rounds: RunResult[]): Measurement['summary'] {
  const rss = rounds.map((r) => r.peakRssMb).filter((v): v is number => v !== undefined);
  const cpu = rounds.map((r) => r.cpuUsPerRequest).filter((v): v is number => v !== undefined);
  return {
    rps: median(rounds.map((r) => r.rps)),
    mean: median(rounds.map((r) => r.mean)),
    p50: median(rounds.map((r) => r.p50)),
    p99: median(rounds.map((r) => r.p99)),
    errors: rounds.reduce((n, r) => n + r.errors, 0),
    statementsPerRequestUnderLoad: median(rounds.map((r) => r.statementsPerRequest)),
    peakRssMb: rss.length ? Math.max(...rss) : undefined,
    cpuUsPerRequest: cpu.length ? median(cpu) : undefined,
  };
}

/**
 * Binds every target to one case and verifies it: reads by their answers, W5 by what each target's
 * update left in the database. Returns the targets that passed, to be timed.
 */
async function bindAndVerify(
  c: ResolvedCase,
  p: Plan,
  running: Map<ServerKind, RunningServer>,
  measurements: Measurement[],
  sql: SqlReader,
  probe: number,
): Promise<Bound[]> {
  const measurementOf = (target: Target): Measurement => {
    const measurement: Measurement = {
      dataset: p.dataset.id,
      case: c.key,
      title: c.workload.title,
      target: target.name,
      status: 'verified',
      rounds: [],
    };
    measurements.push(measurement);
    return measurement;
  };
  if (!isRead(c)) {
    // One sequence of updates for all targets, so that no request writes what another wrote.
    let n = 0;
    const next = () => productUpdate(c.params as UpdateParams, n++);
    const bound = p.targets.map((target): Bound => {
      const server = running.get(target.server)!;
      return { target, server, request: () => target.update(next(), server), measurement: measurementOf(target) };
    });
    await verifyUpdates(bound, next, sql, probe);
    return bound.filter((b) => b.measurement.status === 'verified');
  }
  const bound: ReadBound[] = [];
  for (const target of p.targets) {
    const server = running.get(target.server)!;
    const measurement = measurementOf(target);
    if (target.documents) {
      if (!server.register) throw new Error(`${target.name}: the server cannot register documents`);
      await server.register(target.documents(c));
    }
    const binding = target.bind(c, server);
    if (typeof binding === 'string') {
      measurement.status = 'skipped';
      measurement.reason = binding;
      log(`  ${c.key} ${target.name}: skipped (${binding})`);
      continue;
    }
    bound.push({ target, server, binding, request: binding.request, measurement });
  }
  await verify(c, bound, probe);
  return bound.filter((b) => b.measurement.status === 'verified');
}

async function runDataset(
  p: Plan,
  options: Options,
  measurements: Measurement[],
  report: Report,
  servers: Set<RunningServer>,
) {
  // Open for the whole run: W5 reads back what it wrote and counts our change log's entries.
  const reader = await openReader(p.dataset);
  const running = new Map<ServerKind, RunningServer>();
  const cleanups: (() => Promise<void>)[] = [];
  try {
    const cases = await resolveCases(reader, p.cases);
    report.datasets.push({
      id: p.dataset.id,
      provider: p.dataset.provider,
      scale: p.dataset.scale,
      database: describe(p.dataset),
      cases: cases.map((c) => ({ key: c.key, title: c.workload.title, params: c.params })),
    });

    const kinds = new Set(p.targets.map((t) => t.server));
    if (kinds.has('postgraphile-trigger')) {
      await installPeerTriggers(p.dataset.url);
      cleanups.push(() => removePeerTriggers(p.dataset.url));
    }
    for (const kind of kinds) {
      log(`${p.dataset.id}: starting ${kind}`);
      const server = await startServer(kind, {
        dataset: p.dataset,
        logDir: join(options.out, 'logs'),
        poolSize: options.poolSize,
        baselineDir: options.baselineDir,
        nodeOptions: options.nodeOptions,
      });
      servers.add(server);
      running.set(kind, server);
    }

    log(`${p.dataset.id}: verifying answers and counting statements`);
    const perCase: { c: ResolvedCase; bound: Bound[] }[] = [];
    for (const c of cases)
      perCase.push({ c, bound: await bindAndVerify(c, p, running, measurements, reader, options.probe) });
    if (options.verifyOnly) return;

    for (const { c, bound } of perCase) {
      if (bound.length === 0) continue;
      log(
        `${p.dataset.id} ${c.key}: warm-up ${options.warmup} s each, then ${options.rounds} x ${options.duration} s alternating ${bound.map((b) => b.target.name).join(' / ')}`,
      );
      // A run that throws (a server died, say) fails its target for this case; the others go on.
      const run = async (b: Bound, duration: number) => {
        if (b.measurement.status === 'failed') return undefined;
        const timed = () =>
          timedRun({
            server: b.server,
            request: b.request,
            connections: c.connections ?? options.connections,
            duration,
            bodyOk: b.target.bodyOk,
          });
        try {
          return await (isRead(c) ? timed() : countingWrites(b, reader, timed));
        } catch (error) {
          b.measurement.status = 'failed';
          b.measurement.reason = `run: ${(error as Error).message}`;
          log(`  ${b.target.name}: FAILED ${b.measurement.reason}`);
          return undefined;
        }
      };
      if (options.warmup > 0) for (const b of bound) await run(b, options.warmup);
      for (let round = 1; round <= options.rounds; round++) {
        for (const b of bound) {
          const result = await run(b, options.duration);
          if (!result) continue;
          b.measurement.rounds.push(result);
          log(
            `  round ${round} ${b.target.name.padEnd(12)} ${result.rps.toFixed(1).padStart(8)} req/s  p50 ${result.p50.toFixed(1)} ms  p99 ${result.p99.toFixed(1)} ms  ` +
              `errors ${result.errors}  stmts/req ${result.statementsPerRequest.toFixed(2)}  peak ${result.peakRssMb?.toFixed(0) ?? '-'} MB  cpu ${result.cpuUsPerRequest?.toFixed(0) ?? '-'} µs/req (kernel ${result.systemCpuUsPerRequest?.toFixed(0) ?? '-'})`,
          );
        }
      }
      const measured = bound.filter((b) => b.measurement.status === 'verified');
      for (const b of measured) {
        b.measurement.status = 'measured';
        b.measurement.summary = summarise(b.measurement.rounds);
      }
      const peer = measured.find((b) => b.target.name === 'postgraphile')?.measurement.summary;
      if (peer)
        for (const b of measured)
          if (b.target.server === 'ours') b.measurement.ratioToPeer = b.measurement.summary!.rps / peer.rps;
      const triggered = measured.find((b) => b.target.name === 'postgraphile+trigger')?.measurement.summary;
      if (triggered) {
        const ours = measured.filter((b) => b.target.server === 'ours');
        for (const b of ours) b.measurement.ratioToTriggerPeer = b.measurement.summary!.rps / triggered.rps;
        log(
          `  ${c.key} against the peer with triggers (version, modified_date, audit row, NOTIFY; ${await peerAuditRows(p.dataset.url)} audit rows): ${ours
            .map((b) => `${b.target.name} ${b.measurement.ratioToTriggerPeer!.toFixed(2)}x`)
            .join(', ')}`,
        );
      }
    }
  } finally {
    for (const server of running.values()) {
      await server.stop();
      servers.delete(server);
    }
    for (const cleanup of cleanups) await cleanup().catch((e: Error) => log(`cleanup failed: ${e.message}`));
    await reader.close();
  }
}

function gitCommit(): string | undefined {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT_DIR, encoding: 'utf8' }).trim();
  } catch {
    return undefined;
  }
}

function packageVersion(dir: string): string | undefined {
  try {
    return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return undefined;
  }
}

async function printQueries(plans: Plan[]): Promise<void> {
  for (const p of plans) {
    const reader = await openReader(p.dataset);
    const cases = await resolveCases(reader, p.cases).finally(() => reader.close());
    for (const c of cases) {
      console.log(`# ${p.dataset.id} ${c.key}: ${c.workload.title}`);
      if (isRead(c)) {
        const request = peerRequest(c);
        console.log(request.query);
        console.log(`# variables: ${JSON.stringify(request.variables)}`);
        const ours = OURS[c.workload.name];
        if (ours.graphqlTotals) console.log(`# ours: ${JSON.stringify(ours.graphql(c))}`);
        console.log(`# REST (rest.md): ${ours.restMissing ?? `GET ${ours.rest(c) ?? '(not expressible)'}`}\n`);
        continue;
      }
      const update = productUpdate(c.params as UpdateParams, 0);
      const request = peerUpdate(update);
      const rest = OUR_UPDATE.rest(update);
      console.log(request.query);
      console.log(
        `# variables of the first update (each request writes the next): ${JSON.stringify(request.variables)}`,
      );
      console.log(`# ours: ${JSON.stringify(OUR_UPDATE.graphql(update))}`);
      console.log(`# REST (rest.md): PATCH ${rest.path} ${JSON.stringify(rest.body)}\n`);
    }
  }
}

async function main(): Promise<void> {
  const options = parseCli();
  if (options.prepareOnly) {
    // Every chosen dataset, whether or not a chosen target would run on it.
    for (const id of options.datasetIds ?? DATASETS)
      await prepareDataset(datasetFor(id, options.postgresUrl), options.postgresUrl, log);
    return;
  }
  const plans = plan(options);
  const fanout = fanoutDataset(options);
  const dataIn = options.dataIn ? datasetFor('pg20', options.postgresUrl) : undefined;
  const webhooks = options.webhooks ? datasetFor('pg20', options.postgresUrl) : undefined;
  const asOf = asOfDataset(options);
  if (plans.length === 0 && !fanout && !dataIn && !webhooks && !asOf)
    throw new Error('nothing to run: no chosen target runs on a chosen dataset');
  const runs = plans.reduce((n, p) => n + p.cases.length * p.targets.length, 0);
  const seconds =
    runs * (options.warmup + options.rounds * options.duration + 1.5) + (fanout ? options.fanout!.duration + 60 : 0);
  log(
    `plan: ${[
      ...plans.map(
        (p) => `${p.dataset.id} [${p.cases.map((c) => c.key).join(' ')}] x [${p.targets.map((t) => t.name).join(' ')}]`,
      ),
      ...(fanout
        ? [`pg20 FANOUT (${options.fanout!.subscribers} SSE subscribers, ${options.fanout!.rate} writes/s)`]
        : []),
    ].join('; ')}`,
  );

  for (const p of plans) await prepareDataset(p.dataset, options.postgresUrl, log);
  if (fanout && !plans.some((p) => p.dataset.id === fanout.id)) await prepareDataset(fanout, options.postgresUrl, log);
  if (dataIn && !plans.some((p) => p.dataset.id === dataIn.id) && fanout?.id !== dataIn.id)
    await prepareDataset(dataIn, options.postgresUrl, log);
  if (webhooks && !plans.some((p) => p.dataset.id === webhooks.id) && fanout?.id !== webhooks.id && !dataIn)
    await prepareDataset(webhooks, options.postgresUrl, log);
  if (asOf && !plans.some((p) => p.dataset.id === asOf.id) && !fanout && !dataIn && !webhooks)
    await prepareDataset(asOf, options.postgresUrl, log);
  if (options.printQueries) {
    if (fanout)
      console.log(`# FANOUT: each SSE subscriber (POST /graphql, Accept: text/event-stream): ${FANOUT_SUBSCRIPTION}\n`);
    return printQueries(plans);
  }
  if (!options.verifyOnly)
    log(`timing: about ${Math.ceil(seconds / 60)} min for ${runs} target x case pairs (plus server starts)`);

  const servers = new Set<RunningServer>();
  const stopAll = async () => {
    await Promise.allSettled([...servers].map((s) => s.stop()));
    process.exit(130);
  };
  process.once('SIGINT', stopAll);
  process.once('SIGTERM', stopAll);

  const started = new Date();
  const loadBefore = loadavg();
  const measurements: Measurement[] = [];
  const report: Report = { meta: {}, datasets: [], measurements };
  for (const p of plans) await runDataset(p, options, measurements, report, servers);
  if (fanout && !options.verifyOnly) report.fanout = await runFanoutCase(fanout, options, servers);
  if (dataIn && !options.verifyOnly) report.dataIn = await runDataInCase(dataIn, options, servers);
  if (webhooks && !options.verifyOnly) report.webhooks = await runWebhooksCase(webhooks, options, servers);
  if (asOf) report.asOf = await runAsOfCase(asOf, options, servers);
  if (!options.verifyOnly) {
    log('idle: our compiled server on the embedded default (SQLite, demo data), at rest 10 and 30 s');
    report.idle = await measureIdle(join(options.out, 'logs'));
    log(
      `  idle: ready in ${report.idle.startMs.toFixed(0)} ms; RSS ${report.idle.rss10sMb.toFixed(0)} MB at 10 s, ${report.idle.rss30sMb.toFixed(0)} MB at 30 s`,
    );
  }

  const cpu = cpus();
  const machine = `${cpu.length} x ${cpu[0]?.model.trim() ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GB, Linux ${release()}`;
  report.meta = {
    started: started.toISOString(),
    finished: new Date().toISOString(),
    machine,
    loadAverage: { before: loadBefore, after: loadavg() },
    node: process.version,
    commit: gitCommit(),
    postgraphile: packageVersion(join(BENCH_DIR, 'node_modules', 'postgraphile')),
    autocannon: packageVersion(join(ROOT_DIR, 'node_modules', 'autocannon')),
    options: {
      targets: options.targets.map((t) => t.name),
      duration: options.duration,
      warmup: options.warmup,
      rounds: options.rounds,
      connections: options.connections,
      poolSize: options.poolSize,
      probe: options.probe,
      fanout: options.fanout,
      asOf: options.asOf,
    },
    notes: [
      'req/s, mean, p50 and p99 are medians over the rounds; errors are summed; peak RSS is the maximum over the rounds.',
      "stmts/req: sequential requests, each one's db_statements_total delta, the most common (exact); summary.statementsPerRequestUnderLoad is the delta over the timed runs / requests sent.",
      'vs peer: our median req/s over PostGraphile median req/s on the same dataset and case.',
      'W5 writes; changeLog (ours): change-log entries appended over all W5 requests of the target, against the writes the server answered with success by its own count: equal when every write is logged.',
      "fanout: one server of ours on pg20, SSE subscribers of subscription { changes }, REST PATCH writes on an open-loop schedule; delays are arrival at a subscriber minus the write's answer (delayFromAck) or its send (delayFromSend), ms, over every (subscriber, write) pair received; server cpuCores, postgresCpuCores and loadGenerator.cpuCores are CPU seconds per wall second from the first write to the last answer; busy is event-loop utilisation per thread.",
    ],
  };

  const table = formatTable(measurements);
  console.log(`\n${table}\n`);
  if (report.fanout) console.log(`${formatFanout(report.fanout)}\n`);
  if (report.asOf) console.log(`${formatAsOf(report.asOf)}\n`);
  const unlogged = reportChangeLog(measurements);
  report.goals = goals(measurements, report.fanout, report.idle, report.asOf);
  console.log(
    `Goals (the benchmark and speed issues, done when):\n${report.goals.map((g) => `  ${g.met ? 'met    ' : 'NOT MET'}  ${g.goal}: ${g.detail}`).join('\n')}\n`,
  );
  mkdirSync(options.out, { recursive: true });
  const jsonFile = join(options.out, 'latest.json');
  const svgFile = join(options.out, 'latest.svg');
  writeFileSync(jsonFile, `${JSON.stringify(report, null, 2)}\n`);
  if (!options.verifyOnly) {
    const subtitle = `${machine}; Node ${process.version}; ${options.connections} connections, ${options.rounds} x ${options.duration} s rounds, medians; ${started.toISOString().slice(0, 16)}Z`;
    writeFileSync(svgFile, renderSvg(report, subtitle));
  }
  log(
    `wrote ${relative(process.cwd(), jsonFile)}${options.verifyOnly ? '' : ` and ${relative(process.cwd(), svgFile)}`}`,
  );
  const failed = measurements.filter((m) => m.status === 'failed');
  if (failed.length > 0) {
    console.error(`${failed.length} target x case pairs failed verification or a run; see the table`);
    process.exitCode = 1;
  }
  if (unlogged > 0) {
    console.error(`${unlogged} of our W5 targets wrote a change-log entry count other than their writes answered`);
    process.exitCode = 1;
  }
  if (report.asOf?.status === 'failed') {
    console.error(`ASOF: ${report.asOf.reason}`);
    process.exitCode = 1;
  }
  const fanoutFault = fanoutFaults(report.fanout);
  if (fanoutFault) {
    console.error(`FANOUT: ${fanoutFault}`);
    process.exitCode = 1;
  }
}

/** What the fan-out case's contract checks found wrong, if anything (the delay goal is apart). */
function fanoutFaults(fanout: FanoutReport | undefined): string | undefined {
  if (!fanout) return undefined;
  if (fanout.status === 'failed') return `failed: ${fanout.reason}`;
  const { subscribers: s, writes: w, delivery: d } = fanout;
  const faults = [
    s.open < s.requested && `${s.requested - s.open} of ${s.requested} subscriptions did not open`,
    Object.keys(s.endedEarly).length > 0 && `streams ended while running (${JSON.stringify(s.endedEarly)})`,
    w.errors > 0 && `${w.errors} writes failed`,
    w.unanswered > 0 && `${w.unanswered} writes unanswered`,
    w.answeredLate > 0 && `${w.answeredLate} writes answered only after the log was read back`,
    w.committedDespiteError > 0 && `${w.committedDespiteError} writes answered with an error are in the log`,
    w.ackedNotLogged > 0 && `${w.ackedNotLogged} acknowledged writes are not in the log`,
    d.missing > 0 && `${d.missing} of ${d.expected} deliveries missing`,
    d.duplicates > 0 && `${d.duplicates} duplicate deliveries`,
    d.outOfOrder > 0 && `${d.outOfOrder} deliveries out of order`,
    d.mismatched > 0 && `${d.mismatched} deliveries unlike the log's entry at their cursor`,
    d.unknown > 0 && `${d.unknown} deliveries with cursors outside the writes' entries`,
    !d.caughtUp && 'not every open stream reached the last entry',
  ].filter(Boolean);
  return faults.length ? faults.join('; ') : undefined;
}

/**
 * Prints, per W5 target of ours, its change-log entries against its writes answered (one entry
 * per product update); returns how many differ.
 */
function reportChangeLog(measurements: Measurement[]): number {
  const counted = measurements.filter((m) => m.changeLog);
  if (counted.length === 0) return 0;
  const lines = counted.map((m) => {
    const { entries, writesAnswered } = m.changeLog!;
    return `  ${entries === writesAnswered ? 'equal  ' : 'DIFFER '}  ${m.dataset} ${m.case} ${m.target}: ${entries.toLocaleString('en-US')} entries for ${writesAnswered.toLocaleString('en-US')} writes answered with success`;
  });
  console.log(`Change log (W5, ours: one entry per product update):\n${lines.join('\n')}\n`);
  return counted.filter((m) => m.changeLog!.entries !== m.changeLog!.writesAnswered).length;
}

/**
 * The targets of the benchmark and speed issues, checked on this run's numbers (pg20 unless said): where a case or
 * target was not run, the goal says so instead of passing.
 */
function goals(measurements: Measurement[], fanout?: FanoutReport, idle?: IdleMemory, asOf?: AsOfReport): Goal[] {
  const find = (dataset: string, key: string, target: string) =>
    measurements.find((m) => m.dataset === dataset && m.case === key && m.target === target && m.summary);
  const main = ['W0', 'W1', 'W2', 'W3', 'W4'];
  const list = (items: string[]) => items.join(', ') || 'none';
  const result: Goal[] = [];

  // Each of our APIs against the peer on W0-W4: throughput at least `factor` times the peer's,
  // and (GraphQL and REST alike) a p99 no worse than the peer's.
  const againstPeer = (target: 'graphql' | 'rest', factor: number, name: string) => {
    const rows = main
      .map((key) => ({ key, ours: find('pg20', key, target), peer: find('pg20', key, 'postgraphile') }))
      .filter((r) => r.ours && r.peer);
    const ratio = (r: (typeof rows)[number]) => r.ours!.summary!.rps / r.peer!.summary!.rps;
    result.push({
      goal: `${name} at least ${factor}x PostGraphile's throughput on each of W0-W4`,
      met: rows.length === main.length && rows.every((r) => ratio(r) >= factor),
      detail: rows.map((r) => `${r.key} ${ratio(r).toFixed(2)}x`).join(', ') || 'not run',
    });
    const worseP99 = rows.filter((r) => r.ours!.summary!.p99 > r.peer!.summary!.p99).map((r) => r.key);
    result.push({
      goal: `${name} p99 no worse than the peer's on W0-W4`,
      met: rows.length === main.length && worseP99.length === 0,
      detail: rows.length === main.length ? `worse on ${list(worseP99)}` : 'not run',
    });
  };
  againstPeer('graphql', 1.5, 'GraphQL');
  againstPeer('rest', 1.2, 'REST');
  const errors = measurements
    .filter((m) => m.summary && m.summary.errors > 0)
    .map((m) => `${m.dataset} ${m.case} ${m.target}`);
  result.push({
    goal: 'zero errors',
    met: errors.length === 0,
    detail: errors.length ? list(errors) : 'none anywhere',
  });

  const pages = ['W2/10', 'W2', 'W2/100'].map((key) => find('pg20', key, 'graphql')?.statementsPerRequest);
  result.push({
    goal: 'GraphQL statements per request the same at page sizes 10, 50 and 100 (W2)',
    met: pages.every((n) => n !== undefined && n === pages[0]),
    detail: pages.map((n) => n ?? '-').join(' / '),
  });
  const [w0Small, w0Large] = [find('pg1', 'W0', 'graphql'), find('pg20', 'W0', 'graphql')];
  const growth = w0Small && w0Large ? w0Large.summary!.mean / w0Small.summary!.mean : undefined;
  result.push({
    goal: 'GraphQL W0 latency at scale 20 within 1.5x of scale 1',
    met: growth !== undefined && growth <= 1.5,
    detail:
      growth === undefined
        ? 'not run'
        : `mean ${w0Large!.summary!.mean.toFixed(2)} ms against ${w0Small!.summary!.mean.toFixed(2)} ms: ${growth.toFixed(2)}x`,
  });
  result.push(fanoutGoal(fanout));
  result.push(...asOfGoals(asOf));

  // Memory: on each PostgreSQL case both ran, our peak against the peer's.
  const heavier = measurements
    .filter((m) => m.target !== 'postgraphile' && m.summary?.peakRssMb !== undefined)
    .flatMap((m) => {
      const peer = find(m.dataset, m.case, 'postgraphile')?.summary?.peakRssMb;
      return peer !== undefined && m.summary!.peakRssMb! > peer
        ? [`${m.dataset} ${m.case} ${m.target} ${m.summary!.peakRssMb!.toFixed(0)} > ${peer.toFixed(0)} MB`]
        : [];
    });
  result.push({
    goal: 'our peak RSS at most PostGraphile’s on every case',
    met: heavier.length === 0 && measurements.some((m) => m.target === 'postgraphile'),
    detail: heavier.length ? `above on ${heavier.length}: ${heavier.join('; ')}` : 'at most on every case',
  });
  result.push({
    goal: 'idle RSS of npm start on the embedded default at most 120 MB',
    met: idle !== undefined && idle.rss10sMb <= 120,
    detail: idle
      ? `${idle.rss10sMb.toFixed(0)} MB 10 s after ready (${idle.rss30sMb.toFixed(0)} MB at 30 s; start-up peak ${idle.peakMb.toFixed(0)} MB, ready in ${idle.startMs.toFixed(0)} ms)`
      : 'not run',
  });
  return result;
}

/**
 * Fan-out: p99 of the delay from a write's answer to its arrival at a subscriber, over every
 * (subscriber, write) pair, under 500 ms; met only with the case's full load (1,000 subscribers
 * open throughout, 100 writes a second sent) and every pair delivered, since a p99 over what
 * arrived says nothing of what did not.
 */
function fanoutGoal(fanout: FanoutReport | undefined): Goal {
  const goal = 'fan-out p99 delay under 500 ms with 1,000 subscribers at 100 writes/s';
  if (!fanout) return { goal, met: false, detail: 'not run' };
  if (fanout.status === 'failed') return { goal, met: false, detail: `failed: ${fanout.reason}` };
  const { delayFromAck: delay, delivery: d, subscribers: s, writes: w, options: o } = fanout;
  const full = s.open >= 1000 && o.rate >= 100 && w.sendRate >= 0.98 * o.rate;
  const complete = d.expected > 0 && d.missing === 0 && w.errors === 0 && w.unanswered === 0 && w.answeredLate === 0;
  const p99 = Number.isNaN(delay.p99) ? '-' : `${delay.p99.toFixed(1)} ms`;
  return {
    goal,
    met: full && complete && delay.p99 < 500,
    detail: `p99 ${p99} (p50 ${delay.p50.toFixed(1)} ms, max ${delay.max.toFixed(1)} ms) with ${s.open} subscribers open, ${w.sendRate.toFixed(1)} writes/s sent; ${d.delivered.toLocaleString('en-US')} of ${d.expected.toLocaleString('en-US')} deliveries; ${w.acked} of ${w.sent} writes acknowledged${full ? '' : '; not the full load'}`,
  };
}

main().catch((error: unknown) => {
  console.error(`bench: ${(error as Error).message}`);
  process.exit(1);
});
