/**
 * The DATAIN case (pg20, our server): how fast data comes in.
 *
 * 1. Bulk against COPY: the same 10,000 new products written by PostgreSQL's `COPY` (psql, in a
 *    transaction rolled back: the physical limit, with no checks, versions or log) and through
 *    our GraphQL `upsertProducts`, 1,000 rows a call, one call at a time (each row checked,
 *    versioned and logged). The products the upserts made are removed afterwards, with their log
 *    entries, so that the dataset stays what the other cases expect.
 * 2. An import of the whole dataset from the running server (`npm run import -- --from-service`,
 *    the built CLI) into an empty database: rows per second.
 */
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import pg from 'pg';
import type { Dataset } from './databases.ts';
import type { RunningServer } from './servers.ts';

const run = promisify(execFile);

export interface DataInResult {
  rows: number;
  copyRowsPerSecond: number;
  bulkRowsPerSecond: number;
  /** Bulk upserts against COPY (the contract asks at least 0.25). */
  bulkVsCopy: number;
  import: { rows: number; seconds: number; rowsPerSecond: number; problems: number };
}

const ROWS = 10_000;
const PER_CALL = 1_000;
const PREFIX = 'BENCH-BULK-';

interface ProductRow {
  reference: string;
  nameNl: string;
  nameEn: string;
  consumerPrice: string;
  netWeight: string;
}

function productRows(stamp: number): ProductRow[] {
  return Array.from({ length: ROWS }, (_, i) => ({
    reference: `${PREFIX}${stamp}-${i}`,
    nameNl: `Bulkproduct ${i}`,
    nameEn: `Bulk product ${i}`,
    consumerPrice: (1 + (i % 500) / 100).toFixed(2),
    netWeight: (0.1 + (i % 50) / 10).toFixed(3),
  }));
}

/** COPY of the rows in a transaction rolled back, timed by psql itself: rows per second. */
async function copyRate(url: string, unitId: number, rows: readonly ProductRow[]): Promise<number> {
  const script = [
    'BEGIN;',
    '\\timing on',
    'COPY "products" ("reference", "unit_id", "name_nl", "name_en", "consumer_price", "net_weight_in_kilogram") FROM STDIN WITH (FORMAT csv);',
    ...rows.map((r) => `${r.reference},${unitId},${r.nameNl},${r.nameEn},${r.consumerPrice},${r.netWeight}`),
    '\\.',
    'ROLLBACK;',
    '',
  ].join('\n');
  const child = spawn('psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', url], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  child.stdin.end(script);
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  if (code !== 0) throw new Error(`psql COPY failed: ${out.slice(0, 300)}`);
  // \timing prints one line per statement: BEGIN, COPY, ROLLBACK.
  const times = [...out.matchAll(/Time: ([\d.]+) ms/g)].map((m) => Number(m[1]));
  const copyMs = Math.max(...times);
  return rows.length / (copyMs / 1000);
}

/** The rows through `upsertProducts`, PER_CALL a call, one call at a time: rows per second. */
async function bulkRate(server: RunningServer, unitId: number, rows: readonly ProductRow[]): Promise<number> {
  const query = 'mutation Bulk($inputs: [CreateProductInput!]!) { upsertProducts(inputs: $inputs) { outcome } }';
  const started = performance.now();
  for (let i = 0; i < rows.length; i += PER_CALL) {
    const inputs = rows.slice(i, i + PER_CALL).map((r) => ({
      reference: r.reference,
      unitId,
      name: { nl: r.nameNl, en: r.nameEn },
      consumerPrice: r.consumerPrice,
      netWeightInKilogram: r.netWeight,
    }));
    const res = await fetch(`${server.baseUrl}/graphql`, {
      method: 'POST',
      headers: { ...server.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables: { inputs } }),
    });
    const body = (await res.json()) as { data?: { upsertProducts?: { outcome: string }[] }; errors?: unknown };
    const created = body.data?.upsertProducts?.filter((r) => r.outcome === 'CREATED').length;
    if (res.status !== 200 || created !== inputs.length)
      throw new Error(`upsertProducts answered ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
  }
  return rows.length / ((performance.now() - started) / 1000);
}

/** `npm run import -- --from-service` of the server into a new database of `adminUrl`'s server. */
async function importRate(server: RunningServer, dataset: Dataset, adminUrl: string, checkout: string) {
  const env = { ...process.env, DATABASE_URL: dataset.url };
  const { stdout } = await run(
    process.execPath,
    [
      'dist/auth/cli.js',
      'create',
      '--name',
      `bench-import-${Date.now()}`,
      '--scopes',
      'read',
      '--role',
      'admin',
      '--json',
    ],
    { cwd: checkout, env },
  );
  const client = JSON.parse(stdout) as { client_id: string; client_secret: string };
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  const name = 'mdg_bench_import';
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${name}`);
  const target = new URL(adminUrl);
  target.pathname = `/${name}`;
  try {
    const { stdout: summary } = await run(
      process.execPath,
      ['dist/transfer/import-cli.js', '--from-service', server.baseUrl, '--client-id', client.client_id, '--json'],
      {
        cwd: checkout,
        env: { ...process.env, DATABASE_URL: target.toString(), SOURCE_CLIENT_SECRET: client.client_secret },
        maxBuffer: 64 * 2 ** 20,
      },
    );
    const parsed = JSON.parse(summary) as {
      types: Record<string, { read: number }>;
      seconds: number;
      problems: unknown[];
    };
    const rows = Object.values(parsed.types).reduce((sum, t) => sum + t.read, 0);
    return { rows, seconds: parsed.seconds, rowsPerSecond: rows / parsed.seconds, problems: parsed.problems.length };
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
    await run(process.execPath, ['dist/auth/cli.js', 'revoke', client.client_id], { cwd: checkout, env }).catch(
      () => {},
    );
  }
}

export async function runDataIn(
  server: RunningServer,
  dataset: Dataset,
  adminUrl: string,
  checkout: string,
  log: (line: string) => void,
): Promise<DataInResult> {
  const db = new pg.Client({ connectionString: dataset.url });
  await db.connect();
  try {
    const { rows: units } = await db.query<{ id: number }>('SELECT "id" FROM "units" ORDER BY "id" LIMIT 1');
    const unitId = units[0]!.id;
    const rows = productRows(Date.now());
    const copy = await copyRate(dataset.url, unitId, rows);
    log(`  DATAIN: COPY of ${ROWS} products: ${Math.round(copy)} rows/s`);
    let bulk: number;
    try {
      bulk = await bulkRate(server, unitId, rows);
    } finally {
      await db.query(
        `DELETE FROM "changes" WHERE "resource_type" = 'products' AND "resource_id" IN (SELECT "id" FROM "products" WHERE "reference" LIKE '${PREFIX}%')`,
      );
      await db.query(`DELETE FROM "products" WHERE "reference" LIKE '${PREFIX}%'`);
    }
    log(`  DATAIN: upsertProducts, ${PER_CALL} a call: ${Math.round(bulk)} rows/s, ${(bulk / copy).toFixed(2)}x COPY`);
    const imported = await importRate(server, dataset, adminUrl, checkout);
    log(
      `  DATAIN: import --from-service of ${imported.rows} rows: ${imported.seconds.toFixed(1)} s, ${Math.round(imported.rowsPerSecond)} rows/s`,
    );
    return { rows: ROWS, copyRowsPerSecond: copy, bulkRowsPerSecond: bulk, bulkVsCopy: bulk / copy, import: imported };
  } finally {
    await db.end();
  }
}
