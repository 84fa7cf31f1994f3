/**
 * ASOF: what the row history (prisma/postgresql/migrations/*_row_history) costs, on pg20, with
 * our server alone, in two parts:
 *
 * - reads: W2 as of a day before against W2 now, paired (rounds alternating now / as of, GraphQL
 *   and REST), after 10,000 writes spread over the rows: W2's request as it is, and the same
 *   request read `asOf(at:)` (GraphQL) or with `as_of=` (REST);
 * - writes: W5 with the history's triggers enabled against W5 with them disabled (ALTER TABLE ...
 *   DISABLE TRIGGER <t>_history_write on every table), paired the same way: the write cost of the
 *   history.
 *
 * On a database of its own, `mdg_bench_asof`, seeded afresh as pg20 is in every run (dropped at the
 * end unless --asof-keep): its writes and the disabled triggers (which leave the history without
 * the versions written meanwhile) never reach the database the other cases reuse, and every run
 * starts from the same state, whatever the other cases wrote to pg20 before it.
 *
 * "A day before" made answerable: a database's history begins at its migration (every row's first
 * version valid from then), minutes before the run. So, before the writes, the whole recorded past
 * is moved two days back: every version's `valid_from` and every closed version's `valid_to`, the
 * change log's `at` and `history_horizon.oldest` (the same shift everywhere, so versions still
 * follow each other without gap or overlap). Then the writes, through our server: each one a
 * GraphQL update of one row, a product's English name or a structure item's net quantity (each
 * value new, so that every write writes), the rows drawn uniformly (seeded) from all products and
 * all items, half and half. As of now minus one day, then, is the state before the writes, while
 * the history holds the 10,000 newer versions.
 *
 * Checked before timing: every write answered, logged (change-log entries) and versioned (history
 * rows newer than the instant); W2 now differs from W2 before the writes on exactly the resources
 * of the page that were written; W2 as of the instant equals W2 before the writes, every attribute
 * of every resource at every level, on both APIs; an instant before the horizon is refused
 * (GraphQL HISTORY_PURGED, REST 410). W5: one write through each API with the triggers on leaves a
 * new open version holding what it sent, one with them off leaves none.
 *
 * Statements per request: our server's counter (db_statements_total: the data layer's statements,
 * as everywhere in the bench) and the statements PostgreSQL received (./wire-count.ts: Query and
 * Execute messages, so also BEGIN, the as-of read's set_config and COMMIT), the latter from a
 * second server of ours started on a relay for the probes only. CPU per request of the server and
 * of PostgreSQL's backends on the database (the history's cost lands there).
 */
import pg from 'pg';
import { firstLevel, OURS } from '../ours.ts';
import type { GraphQLRequest } from '../peer/queries.ts';
import {
  productUpdate,
  resolveCases,
  storedProduct,
  workloadCase,
  type ReadCase,
  type UpdateParams,
} from '../workloads.ts';
import { changeLog, openReader, prepareDataset, type Dataset, type SqlReader } from './databases.ts';
import { backendMeter } from './fanout.ts';
import { fetchOnce, median, statementProbe, timedRun, type Requests, type RunResult } from './load.ts';
import {
  canonicalDecimal,
  census,
  firstDifference,
  fromJsonApi,
  project,
  type JsonApiDocument,
  type Neutral,
  type NeutralResource,
} from './neutral.ts';
import { counterValue, type CounterFilter, type RunningServer } from './servers.ts';
import { TARGETS, type HttpRequest } from './targets.ts';
import { wireCounter } from './wire-count.ts';

export type AsOfApi = 'graphql' | 'rest';

export interface AsOfOptions {
  /** Writes between the shift and the reads (default 10,000). */
  writes: number;
  /** reads (W2 as of against now), writes (W5 with and without the history's triggers). */
  parts: ('reads' | 'writes')[];
  apis: AsOfApi[];
  /** Keep its database afterwards (for EXPLAIN ANALYZE of the as-of statements). */
  keep: boolean;
  rounds: number;
  duration: number;
  warmup: number;
  connections: number;
  probe: number;
  /** Set up, verify and probe only. */
  verifyOnly: boolean;
}

/** How far the recorded past is moved back, and how far back the reads read. */
const SHIFT_DAYS = 2;
const DAYS_BEFORE = 1;
const OWN_DATABASE = 'mdg_bench_asof';
const OPEN = '9999-12-31 00:00:00';

/** One side of a pair: a request, timed in alternating rounds. */
export interface AsOfSide {
  name: string;
  /** Statements per request: our server's counter, and as PostgreSQL received them (undefined: not probed). */
  statements?: number;
  wireStatements?: number;
  responseBytes?: number;
  rounds: (RunResult & { pgCpuUsPerRequest: number | undefined })[];
  summary?: {
    rps: number;
    p50: number;
    p99: number;
    mean: number;
    errors: number;
    cpuUsPerRequest: number | undefined;
    pgCpuUsPerRequest: number | undefined;
  };
  /** W5: change-log entries appended against the writes the server answered with success. */
  changeLog?: { entries: number; writesAnswered: number };
}

/** Two sides of one API, B against A (as of against now; history on against off). */
export interface AsOfPair {
  api: AsOfApi;
  a: AsOfSide;
  b: AsOfSide;
  /** B's req/s over A's: the median of the rounds' ratios (and their range), and the ratio of the medians. */
  paired?: { median: number; min: number; max: number; ofMedians: number };
}

export interface AsOfResult {
  database: string;
  /** The instant the reads read, and the instants around it. */
  at?: string;
  horizon?: string;
  writesFrom?: string;
  setup: string[];
  reads?: AsOfPair[];
  w5?: AsOfPair[];
}

const log0 = (line: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${line}`);

/** Our server of the case, started by the runner (so that it is stopped on SIGINT). */
export type StartOurs = (dataset: Dataset, label: string) => Promise<RunningServer>;

export async function runAsOf(
  dataset: Dataset,
  adminUrl: string,
  start: StartOurs,
  options: AsOfOptions,
  log: (line: string) => void = log0,
): Promise<AsOfResult> {
  const own = await freshDatabase(dataset, adminUrl, log);
  const result: AsOfResult = { database: `${OWN_DATABASE} (seeded afresh at scale ${dataset.scale})`, setup: [] };
  const note = (line: string) => {
    result.setup.push(line);
    log(`  ${line}`);
  };
  const reader = await openReader(own);
  const admin = new pg.Client({ connectionString: own.url });
  await admin.connect();
  let server: RunningServer | undefined;
  try {
    note(await shiftHistory(admin));
    const [w2, w5] = (await resolveCases(reader, [workloadCase('W2'), workloadCase('W5')])) as [
      ReadCase,
      { params: UpdateParams },
    ];
    server = await start(own, 'ours-as-of');
    if (options.parts.includes('reads'))
      result.reads = await reads(server, w2!, reader, admin, start, own, options, result, note, log);
    if (options.parts.includes('writes'))
      result.w5 = await writes(server, w5!.params, reader, admin, options, note, log);
    return result;
  } finally {
    if (server) await server.stop();
    await setHistory(admin, true).catch(() => undefined);
    await admin.end();
    await reader.close();
    if (options.keep) log(`  kept ${OWN_DATABASE} (drop it with: psql -c 'DROP DATABASE ${OWN_DATABASE}')`);
    else await dropDatabase(adminUrl, log);
  }
}

// ---------------------------------------------------------------------------------------------
// The database, the shift, the writes
// ---------------------------------------------------------------------------------------------

/**
 * The case's own database, seeded afresh as pg20 is (same scale, same seed), never a copy of pg20:
 * the other cases' writes (W5's, hundreds of thousands in a full run) would leave every product
 * with tens of versions, and an as-of list walks every version of its type (docs/guides/looking-back.md).
 */
async function freshDatabase(dataset: Dataset, adminUrl: string, log: (line: string) => void): Promise<Dataset> {
  await dropDatabase(adminUrl, log);
  const url = new URL(dataset.url);
  url.pathname = `/${OWN_DATABASE}`;
  const fresh = { ...dataset, id: `${dataset.id} ASOF`, url: url.toString() };
  await prepareDataset(fresh, adminUrl, log);
  return fresh;
}

async function dropDatabase(adminUrl: string, log: (line: string) => void): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${OWN_DATABASE} WITH (FORCE)`);
    log(`  dropped ${OWN_DATABASE}`);
  } finally {
    await client.end();
  }
}

/** The history tables of the database (`<t>_history`), and their data tables. */
async function historyTables(admin: pg.Client): Promise<string[]> {
  const { rows } = await admin.query<{ name: string }>(
    "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name LIKE '%\\_history' ORDER BY 1",
  );
  return rows.map((r) => r.name);
}

/**
 * Moves the whole recorded past SHIFT_DAYS back, in one transaction: every version's valid_from,
 * every closed version's valid_to, the change log's `at`, the horizon. Returns what it did.
 */
async function shiftHistory(admin: pg.Client): Promise<string> {
  const tables = await historyTables(admin);
  const shift = `interval '${SHIFT_DAYS} days'`;
  let versions = 0;
  await admin.query('BEGIN');
  try {
    for (const table of tables) {
      const { rowCount } = await admin.query(
        `UPDATE "${table}" SET "valid_from" = "valid_from" - ${shift}, "valid_to" = CASE WHEN "valid_to" = '${OPEN}' THEN "valid_to" ELSE "valid_to" - ${shift} END`,
      );
      versions += rowCount ?? 0;
    }
    const changes = await admin.query(`UPDATE "changes" SET "at" = "at" - ${shift}`);
    await admin.query(`UPDATE "history_horizon" SET "oldest" = "oldest" - ${shift} WHERE "id" = 1`);
    await admin.query('COMMIT');
    const { rows } = await admin.query<{ oldest: string; newest: string }>(
      `SELECT (SELECT "oldest" FROM "history_horizon" WHERE "id" = 1)::text AS oldest, (SELECT max(m) FROM (${tables
        .map((t) => `SELECT max("valid_from") AS m FROM "${t}"`)
        .join(' UNION ALL ')}) x)::text AS newest`,
    );
    return `shifted the recorded past ${SHIFT_DAYS} days back: ${versions.toLocaleString('en-US')} versions in ${tables.length} history tables, ${(changes.rowCount ?? 0).toLocaleString('en-US')} change-log entries; horizon now ${rows[0]!.oldest}, newest version from ${rows[0]!.newest}`;
  } catch (error) {
    await admin.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/** A small seeded generator (mulberry32): the same rows are written in every run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One of the writes: write n updates a product's English name (even n) or an item's net quantity (odd n). */
function asOfWrite(n: number, productId: number, itemId: number): { key: string; request: GraphQLRequest } {
  if (n % 2 === 0)
    return {
      key: `products:${productId}`,
      request: {
        query:
          'mutation AsOfProduct($id: Int!, $en: String!) { updateProduct(id: $id, input: { name: { en: $en } }) { id } }',
        variables: { id: productId, en: `As-of write ${n}` },
      },
    };
  return {
    key: `product_structure_items:${itemId}`,
    request: {
      query:
        'mutation AsOfItem($id: Int!, $q: Decimal!) { updateProductStructureItem(id: $id, input: { netQuantity: $q }) { id } }',
      // 1000.000 to 1009.999: above every seeded quantity, and new with every write.
      variables: { id: itemId, q: (1000 + n / 1000).toFixed(3) },
    },
  };
}

function graphqlPost(server: RunningServer, body: GraphQLRequest): HttpRequest {
  return {
    method: 'POST',
    path: '/graphql',
    headers: { ...server.headers, 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
  };
}

/**
 * The writes, ten at a time through our GraphQL API; returns the rows written (`type:id`) and
 * checks that each was answered, logged and versioned.
 */
async function writeRows(
  server: RunningServer,
  reader: SqlReader,
  count: number,
  note: (line: string) => void,
): Promise<{ written: Set<string>; from: string }> {
  const ids = async (table: string) =>
    (await reader.all(`SELECT id FROM ${table} ORDER BY id`)).map((r) => Number(r.id));
  const [products, items] = [await ids('products'), await ids('product_structure_items')];
  const random = seeded(20261127);
  const plan = Array.from({ length: count }, (_, n) =>
    asOfWrite(n, products[Math.floor(random() * products.length)]!, items[Math.floor(random() * items.length)]!),
  );
  const [{ from }] = (await reader.all(
    "SELECT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.MS') AS from",
  )) as [{ from: string }];
  const before = await changeLog(reader);
  const started = performance.now();
  let next = 0;
  const failures: string[] = [];
  const worker = async () => {
    while (next < plan.length) {
      const write = plan[next++]!;
      const answer = await fetchOnce(server, graphqlPost(server, write.request));
      const data = (answer.body as { data?: Record<string, { id: number } | null> } | undefined)?.data;
      if (answer.status !== 200 || answer.text.includes('"errors":') || !data || !Object.values(data)[0]?.id)
        failures.push(`${write.key}: ${answer.status} ${answer.text.slice(0, 160)}`);
    }
  };
  await Promise.all(Array.from({ length: 10 }, worker));
  const seconds = (performance.now() - started) / 1000;
  if (failures.length) throw new Error(`${failures.length} of ${count} writes failed, e.g. ${failures[0]}`);
  const logged = await changeLog(reader, before.last);
  const [versions] = await reader.all(
    `SELECT (SELECT count(*) FROM products_history WHERE valid_from >= '${from}') + (SELECT count(*) FROM product_structure_items_history WHERE valid_from >= '${from}') AS n`,
  );
  const written = new Set(plan.map((w) => w.key));
  const kinds = (prefix: string) => [...written].filter((k) => k.startsWith(prefix)).length;
  note(
    `${count.toLocaleString('en-US')} writes through our GraphQL API in ${seconds.toFixed(1)} s (${(count / seconds).toFixed(0)}/s, 10 at a time): ${kinds('products:').toLocaleString('en-US')} of ${products.length.toLocaleString('en-US')} products and ${kinds('product_structure_items:').toLocaleString('en-US')} of ${items.length.toLocaleString('en-US')} structure items (seeded uniform draws, half each); ${logged.entries.toLocaleString('en-US')} change-log entries, ${Number(versions!.n).toLocaleString('en-US')} new versions in the history`,
  );
  if (logged.entries !== count) throw new Error(`${logged.entries} change-log entries for ${count} writes`);
  if (Number(versions!.n) !== count) throw new Error(`${versions!.n} new history versions for ${count} writes`);
  return { written, from };
}

// ---------------------------------------------------------------------------------------------
// W2 as of against W2 now
// ---------------------------------------------------------------------------------------------

interface Binding {
  request: HttpRequest;
  normalise(body: unknown): Neutral;
}

/** W2's GraphQL request read under `asOf(at: $at)`: the same selection, one level down. */
export function graphqlAsOf(request: GraphQLRequest, at: string): GraphQLRequest {
  const lines = request.query.split('\n');
  const head = lines[0]!.replace(/^query (\w+)\(/, 'query $1_asOf($at: DateTime!, ');
  if (head === lines[0] || lines.at(-1) !== '}') throw new Error('unexpected shape of our W2 query');
  const body = lines.slice(1, -1).map((l) => `  ${l}`);
  return {
    query: [head, '  asOf(at: $at) {', ...body, '  }', '}'].join('\n'),
    variables: { ...request.variables, at },
  };
}

function bindW2(api: AsOfApi, c: ReadCase, server: RunningServer, at?: string): Binding {
  const slot = OURS.W2;
  if (api === 'graphql') {
    const request = slot.graphql(c);
    return {
      request: graphqlPost(server, at ? graphqlAsOf(request, at) : request),
      normalise: (body) => {
        const b = body as { data?: { asOf?: unknown } | null; errors?: unknown };
        return slot.normaliseGraphql(c, at ? { ...b, data: b.data?.asOf ?? null } : body);
      },
    };
  }
  const path = slot.rest(c)!;
  const selection = firstLevel(c.workload.include);
  return {
    request: {
      method: 'GET',
      path: at ? `${path}&as_of=${at}` : path,
      headers: { ...server.headers, accept: 'application/json' },
    },
    normalise: (body) => fromJsonApi(body as JsonApiDocument, selection),
  };
}

/** Every resource of an answer at any depth, by `type:id`, with its attributes (the same wherever it appears). */
function resourcesOf(value: Neutral): Map<string, string> {
  const found = new Map<string, string>();
  const visit = (r: NeutralResource) => {
    found.set(`${r.type}:${r.id}`, JSON.stringify(r.attributes));
    for (const related of Object.values(r.relationships)) {
      if (Array.isArray(related)) related.forEach(visit);
      else if (related) visit(related);
    }
  };
  if (Array.isArray(value)) value.forEach(visit);
  else if (value) visit(value);
  return found;
}

async function fetchNeutral(server: RunningServer, binding: Binding): Promise<{ neutral: Neutral; bytes: number }> {
  const answer = await fetchOnce(server, binding.request);
  if (answer.status !== 200) throw new Error(`status ${answer.status}: ${answer.text.slice(0, 200)}`);
  return { neutral: binding.normalise(answer.body), bytes: answer.bytes };
}

async function reads(
  server: RunningServer,
  c: ReadCase,
  reader: SqlReader,
  admin: pg.Client,
  start: StartOurs,
  own: Dataset,
  options: AsOfOptions,
  result: AsOfResult,
  note: (line: string) => void,
  log: (line: string) => void,
): Promise<AsOfPair[]> {
  if (c.params.shape !== 'list') throw new Error('W2 is a list');
  const expectedIds = JSON.stringify(c.params.expectedIds);
  // Before the writes: W2 now, on both APIs, the state the as-of reads must give back.
  const before = new Map<AsOfApi, Neutral>();
  for (const api of options.apis) {
    const { neutral } = await fetchNeutral(server, bindW2(api, c, server));
    before.set(api, neutral);
  }
  if (before.has('graphql') && before.has('rest')) {
    const common = firstLevel(c.workload.include);
    const difference = firstDifference(project(before.get('graphql')!, common), project(before.get('rest')!, common));
    if (difference) throw new Error(`W2 before the writes: REST differs from GraphQL: ${difference}`);
  }

  const { written, from } = await writeRows(server, reader, options.writes, note);
  await admin.query('VACUUM (ANALYZE)');
  // The instant: a day before now, to the second; between the shifted past and the writes.
  const at = new Date(Math.floor((Date.now() - DAYS_BEFORE * 86_400_000) / 1000) * 1000);
  const atText = at.toISOString().replace('.000Z', 'Z');
  const [row] = await reader.all(
    `SELECT (SELECT oldest FROM history_horizon WHERE id = 1)::text AS horizon, (SELECT count(*) FROM products_history WHERE valid_from > '${atText.replace('Z', '')}') + (SELECT count(*) FROM product_structure_items_history WHERE valid_from > '${atText.replace('Z', '')}') AS newer`,
  );
  const horizon = String(row!.horizon);
  result.at = atText;
  result.horizon = horizon;
  result.writesFrom = from;
  if (
    !(
      Date.parse(`${horizon.replace(' ', 'T')}Z`) < at.getTime() &&
      at.getTime() < Date.parse(`${from.replace(' ', 'T')}Z`)
    )
  )
    throw new Error(`as of ${atText} is not between the horizon (${horizon}) and the writes (${from})`);
  note(
    `reads as of ${atText}: after the horizon (${horizon}), before the writes (from ${from}); ${Number(row!.newer).toLocaleString('en-US')} product and item versions in the history are newer than it`,
  );

  // Verify: now differs from before on exactly the written resources of the page; as of equals before.
  for (const api of options.apis) {
    const now = await fetchNeutral(server, bindW2(api, c, server));
    const past = await fetchNeutral(server, bindW2(api, c, server, atText));
    for (const [what, answer] of [
      ['now', now],
      ['as of', past],
    ] as const) {
      const ids = JSON.stringify((answer.neutral as NeutralResource[]).map((r) => r.id));
      if (ids !== expectedIds)
        throw new Error(`W2 ${api} ${what}: ids ${ids.slice(0, 80)} instead of ${expectedIds.slice(0, 80)}`);
    }
    const then = resourcesOf(before.get(api)!);
    const current = resourcesOf(now.neutral);
    const changed = [...current].filter(([key, attributes]) => then.get(key) !== attributes).map(([key]) => key);
    const expected = [...current.keys()].filter((key) => written.has(key));
    const unexpected = changed.filter((key) => !written.has(key));
    const unchanged = expected.filter((key) => !changed.includes(key));
    if (unexpected.length || unchanged.length || changed.length === 0)
      throw new Error(
        `W2 ${api} now against before the writes: changed ${changed.length}, of them not written ${unexpected.slice(0, 5).join(' ')}; written but unchanged ${unchanged.slice(0, 5).join(' ')}`,
      );
    const difference = firstDifference(before.get(api), past.neutral);
    if (difference) throw new Error(`W2 ${api} as of ${atText} differs from W2 before the writes: ${difference}`);
    const byType = (keys: string[]) => {
      const counts = new Map<string, number>();
      for (const key of keys) counts.set(key.split(':')[0]!, (counts.get(key.split(':')[0]!) ?? 0) + 1);
      return [...counts].map(([type, n]) => `${type} ${n}`).join(', ');
    };
    note(
      `W2 ${api}: now differs from before the writes on exactly the ${changed.length} written resources of its answer (${byType(changed)}) of ${current.size} (${Object.entries(
        census(now.neutral),
      )
        .map(([type, n]) => `${type} ${n.distinct}`)
        .join(
          ', ',
        )}); as of ${atText} equals before the writes on every resource and attribute (${(past.bytes / 1024).toFixed(1)} KB against ${(now.bytes / 1024).toFixed(1)} KB now)`,
    );
  }
  // Before the horizon: refused.
  const tooOld = new Date(Date.parse(`${horizon.replace(' ', 'T')}Z`) - 3_600_000).toISOString().replace('.000Z', 'Z');
  for (const api of options.apis) {
    const answer = await fetchOnce(server, bindW2(api, c, server, tooOld).request);
    const refused =
      api === 'rest'
        ? answer.status === 410
        : (answer.body as { errors?: { extensions?: { code?: string } }[] })?.errors?.[0]?.extensions?.code ===
          'HISTORY_PURGED';
    if (!refused)
      throw new Error(
        `W2 ${api} as of ${tooOld} (before the horizon): not refused (${answer.status} ${answer.text.slice(0, 120)})`,
      );
  }
  note(`as of ${tooOld}, an hour before the horizon: refused (REST 410, GraphQL HISTORY_PURGED)`);

  const pairs: AsOfPair[] = options.apis.map((api) => ({
    api,
    a: { name: `${api} now`, rounds: [] },
    b: { name: `${api} as of`, rounds: [] },
  }));
  const requestOf = (pair: AsOfPair, side: AsOfSide, on: RunningServer) =>
    bindW2(pair.api, c, on, side === pair.b ? atText : undefined).request;

  // Statements: the server's counter, then on the wire through a second server on a relay.
  for (const pair of pairs)
    for (const side of [pair.a, pair.b]) {
      side.statements = await statementProbe(server, requestOf(pair, side, server), options.probe);
      side.responseBytes = (await fetchOnce(server, requestOf(pair, side, server))).bytes;
    }
  const relay = await wireCounter(own.url);
  try {
    const probeServer = await start({ ...own, url: relay.url }, 'ours-as-of-wire');
    try {
      for (const pair of pairs)
        for (const side of [pair.a, pair.b])
          side.wireStatements = await wireProbe(
            probeServer,
            requestOf(pair, side, probeServer),
            relay.counts,
            options.probe,
          );
    } finally {
      await probeServer.stop();
    }
  } finally {
    await relay.close();
  }
  for (const pair of pairs)
    note(
      `W2 ${pair.api} statements per request, now / as of: ${pair.a.statements} / ${pair.b.statements} counted by our server, ${pair.a.wireStatements} / ${pair.b.wireStatements} received by PostgreSQL`,
    );
  if (!options.verifyOnly)
    await timePairs('W2', pairs, server, reader, options, log, (pair, side) => requestOf(pair, side, server));
  return pairs;
}

/** Statements PostgreSQL received per request: sequential requests, the most common delta. */
async function wireProbe(
  server: RunningServer,
  request: HttpRequest,
  counts: () => { statements: number },
  probe: number,
): Promise<number> {
  const deltas: number[] = [];
  for (let i = 0; i < probe + 1; i++) {
    const before = counts().statements;
    const answer = await fetchOnce(server, request);
    if (answer.status !== 200) throw new Error(`wire probe: status ${answer.status}`);
    await new Promise((r) => setTimeout(r, 20));
    // The first request of a fresh server prepares its statements and warms its caches.
    if (i > 0) deltas.push(counts().statements - before);
  }
  const tally = new Map<number, number>();
  for (const d of deltas) tally.set(d, (tally.get(d) ?? 0) + 1);
  return [...tally].sort(([a, x], [b, y]) => y - x || a - b)[0]![0];
}

// ---------------------------------------------------------------------------------------------
// W5 with the history's triggers on and off
// ---------------------------------------------------------------------------------------------

let historyOn = true;

/** Enables or disables every `<t>_history_write` trigger, in one transaction. */
async function setHistory(admin: pg.Client, on: boolean): Promise<void> {
  if (on === historyOn) return;
  const { rows } = await admin.query<{ t: string; g: string }>(
    "SELECT c.relname AS t, tg.tgname AS g FROM pg_trigger tg JOIN pg_class c ON c.oid = tg.tgrelid WHERE NOT tg.tgisinternal AND tg.tgname LIKE '%\\_history\\_write'",
  );
  await admin.query('BEGIN');
  for (const { t, g } of rows) await admin.query(`ALTER TABLE "${t}" ${on ? 'ENABLE' : 'DISABLE'} TRIGGER "${g}"`);
  await admin.query('COMMIT');
  historyOn = on;
}

const WRITES_ANSWERED: Record<AsOfApi, CounterFilter> = {
  graphql: TARGETS.graphql.writesAnswered!,
  rest: TARGETS.rest.writesAnswered!,
};

async function writes(
  server: RunningServer,
  params: UpdateParams,
  reader: SqlReader,
  admin: pg.Client,
  options: AsOfOptions,
  note: (line: string) => void,
  log: (line: string) => void,
): Promise<AsOfPair[]> {
  let n = 0;
  const next = () => productUpdate(params, n++);
  const pairs: AsOfPair[] = options.apis.map((api) => ({
    api,
    a: { name: `${api} W5 without history`, rounds: [] },
    b: { name: `${api} W5 with history`, rounds: [] },
  }));
  const on = (pair: AsOfPair, side: AsOfSide) => side === pair.b;
  const requestOf =
    (pair: AsOfPair): Requests =>
    () =>
      TARGETS[pair.api].update(next(), server);
  // One write through each: the product holds what was sent; a new open version holds it with the
  // triggers on, none does with them off. Then the statements per write.
  for (const pair of pairs)
    for (const side of [pair.a, pair.b]) {
      await setHistory(admin, on(pair, side));
      await countingWrites(side, pair.api, server, reader, async () => {
        const update = next();
        const answer = await fetchOnce(server, TARGETS[pair.api].update(update, server));
        if (answer.status !== 200 || answer.text.includes('"errors":'))
          throw new Error(`W5 ${side.name}: ${answer.status} ${answer.text.slice(0, 160)}`);
        const sent = { consumerPrice: canonicalDecimal(update.consumerPrice), nameEn: update.nameEn };
        const difference = firstDifference(sent, await storedProduct(reader, update.id));
        if (difference) throw new Error(`W5 ${side.name}: product ${update.id} after the update: ${difference}`);
        const [version] = await reader.all(
          `SELECT consumer_price, name_en FROM products_history WHERE id = ${update.id} AND valid_to = '${OPEN}'`,
        );
        const recorded =
          canonicalDecimal(version?.consumer_price) === sent.consumerPrice && version?.name_en === sent.nameEn;
        if (recorded !== on(pair, side))
          throw new Error(
            `W5 ${side.name}: the history ${recorded ? 'recorded' : 'did not record'} product ${update.id}'s update`,
          );
        side.statements = await statementProbe(server, requestOf(pair), options.probe);
      });
    }
  note(
    `W5: with the triggers on, a write leaves a new open version holding what it sent; with them off (${await triggerCount(admin)} triggers disabled), none. Statements per write (our counter) without / with: ${pairs.map((p) => `${p.api} ${p.a.statements} / ${p.b.statements}`).join(', ')}`,
  );
  if (!options.verifyOnly)
    await timePairs('W5', pairs, server, reader, options, log, (pair) => requestOf(pair), {
      before: (pair, side) => setHistory(admin, on(pair, side)),
      around: (pair, side, run) => countingWrites(side, pair.api, server, reader, run),
    });
  await setHistory(admin, true);
  for (const pair of pairs)
    for (const side of [pair.a, pair.b])
      if (side.changeLog && side.changeLog.entries !== side.changeLog.writesAnswered)
        throw new Error(
          `W5 ${side.name}: ${side.changeLog.entries} change-log entries for ${side.changeLog.writesAnswered} writes answered`,
        );
  return pairs;
}

async function triggerCount(admin: pg.Client): Promise<number> {
  const { rows } = await admin.query<{ n: string }>(
    "SELECT count(*) AS n FROM pg_trigger WHERE NOT tgisinternal AND tgname LIKE '%\\_history\\_write'",
  );
  return Number(rows[0]!.n);
}

/** As the runner's countingWrites: change-log entries appended meanwhile against the writes the server answered. */
async function countingWrites<T>(
  side: AsOfSide,
  api: AsOfApi,
  server: RunningServer,
  reader: SqlReader,
  action: () => Promise<T>,
): Promise<T> {
  const [before, answeredBefore] = await Promise.all([changeLog(reader), counterValue(server, WRITES_ANSWERED[api])]);
  const result = await action();
  const [after, answeredAfter] = await Promise.all([
    changeLog(reader, before.last),
    counterValue(server, WRITES_ANSWERED[api]),
  ]);
  const counts = (side.changeLog ??= { entries: 0, writesAnswered: 0 });
  counts.entries += after.entries;
  counts.writesAnswered += (answeredAfter ?? 0) - (answeredBefore ?? 0);
  return result;
}

// ---------------------------------------------------------------------------------------------
// Timing: warm-up, then rounds A B A B ... (both APIs), with PostgreSQL's CPU per request
// ---------------------------------------------------------------------------------------------

async function timePairs(
  label: string,
  pairs: AsOfPair[],
  server: RunningServer,
  reader: SqlReader,
  options: AsOfOptions,
  log: (line: string) => void,
  requestOf: (pair: AsOfPair, side: AsOfSide) => Requests,
  hooks: {
    /** Before a side's run, outside its measurement (W5: the triggers set for the side). */
    before?: (pair: AsOfPair, side: AsOfSide) => Promise<void>;
    /** Around a side's run (W5: its change-log entries counted). */
    around?: (pair: AsOfPair, side: AsOfSide, run: () => Promise<RunResult>) => Promise<RunResult>;
  } = {},
): Promise<void> {
  const order = pairs.flatMap((pair) => [pair.a, pair.b].map((side) => ({ pair, side })));
  log(
    `  ${label}: warm-up ${options.warmup} s each, then ${options.rounds} x ${options.duration} s alternating ${order.map((o) => o.side.name).join(' / ')}`,
  );
  const around = hooks.around ?? ((_p: AsOfPair, _s: AsOfSide, run: () => Promise<RunResult>) => run());
  const run = async (pair: AsOfPair, side: AsOfSide, duration: number) => {
    await hooks.before?.(pair, side);
    const meter = await backendMeter(reader);
    const timer = setInterval(() => void meter.sample().catch(() => undefined), 1000);
    let result: RunResult;
    try {
      result = await around(pair, side, () =>
        timedRun({
          server,
          request: requestOf(pair, side),
          connections: options.connections,
          duration,
          bodyOk: pair.api === 'graphql' ? (body) => !body.includes('"errors":') : undefined,
        }),
      );
    } finally {
      clearInterval(timer);
    }
    // Per response (autocannon does not say how many it sent): PostgreSQL's backends on the database.
    return { ...result, pgCpuUsPerRequest: ((await meter.seconds()) * 1e6) / Math.max(1, result.requests) };
  };
  if (options.warmup > 0) for (const { pair, side } of order) await run(pair, side, options.warmup);
  for (let round = 1; round <= options.rounds; round++)
    for (const { pair, side } of order) {
      const r = await run(pair, side, options.duration);
      side.rounds.push(r);
      log(
        `  round ${round} ${side.name.padEnd(26)} ${r.rps.toFixed(1).padStart(8)} req/s  p50 ${r.p50.toFixed(1)} ms  p99 ${r.p99.toFixed(1)} ms  errors ${r.errors}  stmts/req ${r.statementsPerRequest.toFixed(2)}  cpu ${r.cpuUsPerRequest?.toFixed(0) ?? '-'} µs/req  PostgreSQL ${r.pgCpuUsPerRequest?.toFixed(0) ?? '-'} µs/req`,
      );
    }
  for (const pair of pairs) {
    for (const side of [pair.a, pair.b]) {
      const rs = side.rounds;
      const cpu = rs.map((r) => r.cpuUsPerRequest).filter((v): v is number => v !== undefined);
      const pgCpu = rs.map((r) => r.pgCpuUsPerRequest).filter((v): v is number => v !== undefined);
      side.summary = {
        rps: median(rs.map((r) => r.rps)),
        p50: median(rs.map((r) => r.p50)),
        p99: median(rs.map((r) => r.p99)),
        mean: median(rs.map((r) => r.mean)),
        errors: rs.reduce((n, r) => n + r.errors, 0),
        cpuUsPerRequest: cpu.length ? median(cpu) : undefined,
        pgCpuUsPerRequest: pgCpu.length ? median(pgCpu) : undefined,
      };
    }
    const ratios = pair.b.rounds.map((r, i) => r.rps / pair.a.rounds[i]!.rps);
    pair.paired = {
      median: median(ratios),
      min: Math.min(...ratios),
      max: Math.max(...ratios),
      ofMedians: pair.b.summary!.rps / pair.a.summary!.rps,
    };
  }
}

// ---------------------------------------------------------------------------------------------
// Report
// ---------------------------------------------------------------------------------------------

const fmt = (v: number | undefined, digits = 0) =>
  v === undefined || Number.isNaN(v)
    ? '-'
    : v.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

function sideLine(side: AsOfSide): string {
  const s = side.summary;
  const statements =
    side.statements === undefined ? '' : `, ${side.statements} stmts (${side.wireStatements ?? '-'} on the wire)`;
  if (!s) return `${side.name}: not timed${statements}`;
  return `${side.name}: ${fmt(s.rps, s.rps < 100 ? 1 : 0)} req/s, p50 ${fmt(s.p50, 1)} / p99 ${fmt(s.p99, 1)} ms${statements}, CPU ${fmt(s.cpuUsPerRequest)} µs/req, PostgreSQL ${fmt(s.pgCpuUsPerRequest)} µs/req${s.errors ? `, ${s.errors} errors` : ''}${side.changeLog ? `, ${side.changeLog.entries} log entries for ${side.changeLog.writesAnswered} writes` : ''}`;
}

export function formatAsOf(result: AsOfReport): string {
  if (result.status === 'failed') return `As-of (ASOF): FAILED ${result.reason}`;
  const lines = [`As-of (ASOF): ${result.database}`, ...result.setup.map((l) => `  ${l}`)];
  const pairLines = (title: string, pairs: AsOfPair[] | undefined, b: string, a: string) => {
    if (!pairs) return;
    lines.push(`  ${title}`);
    for (const p of pairs) {
      lines.push(`    ${sideLine(p.a)}`, `    ${sideLine(p.b)}`);
      if (p.paired)
        lines.push(
          `    ${p.api}: ${b} / ${a} req/s ${p.paired.median.toFixed(2)}x paired (rounds ${p.paired.min.toFixed(2)}-${p.paired.max.toFixed(2)}), ${p.paired.ofMedians.toFixed(2)}x of the medians`,
        );
    }
  };
  pairLines(`W2 as of ${result.at ?? '-'} against now`, result.reads, 'as of', 'now');
  pairLines('W5 with the history against without', result.w5, 'with', 'without');
  return lines.join('\n');
}

export type AsOfReport = ({ status: 'measured' } & AsOfResult) | { status: 'failed'; reason: string };
