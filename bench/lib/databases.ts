/**
 * Benchmark databases: created, migrated and seeded with the project's own seed CLI
 * (`npm run seed -- --scale N --replace`, which migrates first), and reused when they already hold
 * exactly that scale's data under the current migrations.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import Sqlite from 'better-sqlite3';
import pg from 'pg';

export const BENCH_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const ROOT_DIR = resolve(BENCH_DIR, '..');

export type Provider = 'postgresql' | 'sqlite';

export interface Dataset {
  /** Short name used in tables and on the command line: pg20, pg1, sqlite20. */
  id: string;
  provider: Provider;
  scale: number;
  /** The DATABASE_URL our server and the seed CLI take. */
  url: string;
}

/** Rows the seed writes per unit of scale (src/seed/generate.ts PER_SCALE). */
const PER_SCALE = { products: 500, customers: 500, product_structures: 250, suppliers: 50 } as const;

export function datasetFor(id: string, postgresAdminUrl: string): Dataset {
  const match = /^(pg|sqlite)(\d+)$/.exec(id);
  if (!match) throw new Error(`unknown dataset ${id} (pg<scale> or sqlite<scale>, e.g. pg20, pg1, sqlite20)`);
  const scale = Number(match[2]);
  if (match[1] === 'pg') {
    const url = new URL(postgresAdminUrl);
    url.pathname = `/${scale === 20 ? 'mdg_bench' : `mdg_bench_s${scale}`}`;
    return { id, provider: 'postgresql', scale, url: url.toString() };
  }
  return { id, provider: 'sqlite', scale, url: `file:${join(BENCH_DIR, 'data', `mdg_bench_s${scale}.db`)}` };
}

/** Read-only SQL over a dataset, for the checks here and for resolving workload parameters. */
export interface SqlReader {
  all(sql: string): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

const TIMESTAMP_OID = 1114;

export async function openReader(dataset: Dataset): Promise<SqlReader> {
  if (dataset.provider === 'postgresql') {
    // `timestamp without time zone` (Prisma's DateTime, in UTC) stays text: node-pg would read it
    // as local time, and W4's date would move with the machine's time zone.
    const getTypeParser = (oid: number, format?: 'text' | 'binary') =>
      oid === TIMESTAMP_OID ? (value: string) => value : pg.types.getTypeParser(oid, format);
    const client = new pg.Client({
      connectionString: dataset.url,
      types: { getTypeParser: getTypeParser as typeof pg.types.getTypeParser },
    });
    await client.connect();
    return { all: async (sql) => (await client.query(sql)).rows, close: () => client.end() };
  }
  const db = new Sqlite(sqliteFile(dataset), { readonly: true, fileMustExist: true });
  return {
    all: async (sql) => db.prepare(sql).all() as Record<string, unknown>[],
    close: async () => void db.close(),
  };
}

/**
 * Our server's change log: the number of its last entry (`seq`, in commit order), and how many
 * entries come after `since`: those of the writes since the call that returned it.
 */
export async function changeLog(sql: SqlReader, since = 0): Promise<{ last: number; entries: number }> {
  const [row] = await sql.all(
    `SELECT coalesce(max(seq), ${since}) AS last, count(*) AS entries FROM changes WHERE seq > ${since}`,
  );
  return { last: Number(row?.last), entries: Number(row?.entries) };
}

function sqliteFile(dataset: Dataset): string {
  return dataset.url.slice('file:'.length);
}

/**
 * The committed migrations by name, each with the checksum the service's migrator records
 * (`_prisma_migrations.checksum`: SHA-256 of migration.sql, src/db/migrate.ts).
 */
function migrationChecksums(provider: Provider): Map<string, string> {
  const dir = join(ROOT_DIR, 'prisma', provider, 'migrations');
  return new Map(
    readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory() && existsSync(join(dir, e.name, 'migration.sql')))
      .map((e) => [
        e.name,
        createHash('sha256')
          .update(readFileSync(join(dir, e.name, 'migration.sql'), 'utf8'))
          .digest('hex'),
      ]),
  );
}

const MIGRATIONS_CHANGED = 'migrations changed since applied';

/** Why the dataset cannot be reused as it is, or undefined when it can. */
async function staleReason(dataset: Dataset): Promise<string | undefined> {
  let reader: SqlReader;
  try {
    reader = await openReader(dataset);
  } catch (error) {
    return `cannot open (${(error as Error).message.split('\n')[0]})`;
  }
  try {
    const tables = await reader.all(
      dataset.provider === 'postgresql'
        ? "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public'"
        : "SELECT name FROM sqlite_master WHERE type = 'table'",
    );
    if (!tables.some((t) => t.name === '_prisma_migrations')) return 'not migrated';
    const applied = new Map(
      (
        await reader.all(
          'SELECT migration_name, checksum FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
        )
      ).map((r) => [r.migration_name as string, r.checksum as string]),
    );
    const committed = migrationChecksums(dataset.provider);
    const missing = [...committed.keys()].filter((m) => !applied.has(m)).sort();
    if (missing.length > 0) return `migrations not applied: ${missing.join(', ')}`;
    // A migration edited since it was applied (the server refuses to start on such a database).
    const changed = [...committed].filter(([name, checksum]) => applied.get(name) !== checksum).map(([name]) => name);
    if (changed.length > 0) return `${MIGRATIONS_CHANGED}: ${changed.join(', ')}`;
    for (const [table, perScale] of Object.entries(PER_SCALE)) {
      const [row] = await reader.all(`SELECT count(*) AS n FROM ${table}`);
      const count = Number(row?.n);
      if (count !== perScale * dataset.scale)
        return `${table}: ${count} rows, scale ${dataset.scale} has ${perScale * dataset.scale}`;
    }
    return undefined;
  } finally {
    await reader.close();
  }
}

async function ensurePostgresDatabase(dataset: Dataset, adminUrl: string): Promise<void> {
  const name = new URL(dataset.url).pathname.slice(1);
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) await admin.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
  } finally {
    await admin.end();
  }
}

/**
 * Starts the dataset afresh: the benchmark's own PostgreSQL database dropped and created again, or
 * its SQLite file removed.
 */
async function recreateDataset(dataset: Dataset, adminUrl: string): Promise<void> {
  if (dataset.provider === 'sqlite') {
    for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${sqliteFile(dataset)}${suffix}`, { force: true });
    return;
  }
  const name = new URL(dataset.url).pathname.slice(1);
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${name.replace(/"/g, '""')}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
  await ensurePostgresDatabase(dataset, adminUrl);
}

/** Runs the project's seed CLI (tsx src/seed/cli.ts) against the dataset, output passed through. */
function runSeed(dataset: Dataset): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/seed/cli.ts', '--scale', String(dataset.scale), '--replace'],
      {
        cwd: ROOT_DIR,
        env: { ...process.env, DATABASE_URL: dataset.url },
        stdio: ['ignore', 'inherit', 'inherit'],
      },
    );
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolvePromise() : reject(new Error(`seed of ${dataset.id} exited with ${code}`)),
    );
  });
}

/**
 * Planner statistics and the visibility map, as a production database kept by autovacuum would
 * have them. The seed does not vacuum what it writes and autovacuum is off on these machines'
 * PostgreSQL. Without statistics the planner chose a bitmap scan and sort for W4 and the peer ran
 * it three times slower; without the visibility map an index-only scan (REST's page counts) still
 * reads every heap page: W4's count took 2.0 ms instead of 0.6 ms (EXPLAIN ANALYZE). Run on every
 * preparation (cheap at these sizes), so that every run starts alike.
 */
async function vacuumAnalyse(dataset: Dataset): Promise<void> {
  const client = new pg.Client({ connectionString: dataset.url });
  await client.connect();
  try {
    await client.query('VACUUM (ANALYZE)');
  } finally {
    await client.end();
  }
}

/** Makes the dataset ready: reused when it holds this scale's data, otherwise (re)seeded. */
export async function prepareDataset(dataset: Dataset, adminUrl: string, log: (line: string) => void): Promise<void> {
  if (dataset.provider === 'postgresql') await ensurePostgresDatabase(dataset, adminUrl);
  else mkdirSync(dirname(sqliteFile(dataset)), { recursive: true });
  const reason =
    dataset.provider === 'sqlite' && !existsSync(sqliteFile(dataset)) ? 'no database file' : await staleReason(dataset);
  if (reason === undefined) {
    log(`${dataset.id}: reusing ${describe(dataset)} (scale ${dataset.scale})`);
  } else {
    log(`${dataset.id}: seeding scale ${dataset.scale} into ${describe(dataset)} (${reason})`);
    const started = Date.now();
    // Always afresh: a seed that replaces the data leaves the history of the rows it replaced
    // (versions that ended), which the as-of case would then read through; and a migration edited
    // since it was applied leaves nothing the migrator builds on.
    await recreateDataset(dataset, adminUrl);
    await runSeed(dataset);
    const still = await staleReason(dataset);
    if (still) throw new Error(`${dataset.id}: still not usable after seeding: ${still}`);
    log(`${dataset.id}: seeded in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  }
  if (dataset.provider === 'postgresql') await vacuumAnalyse(dataset);
}

export function describe(dataset: Dataset): string {
  if (dataset.provider === 'sqlite') return sqliteFile(dataset);
  const url = new URL(dataset.url);
  return `postgresql ${url.host}${url.pathname}`;
}
