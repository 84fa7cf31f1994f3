/**
 * Writes generated seed data through Prisma, in batches, inside one transaction: a seed that
 * fails half-way leaves the database as it was.
 */
import type { Database, PrismaTx as Tx } from '../db/client.ts';
import { restartChangeLog } from '../data/changes.ts';
import { resources } from '../resources/registry.ts';
import { generateSeed, type SeedTable } from './generate.ts';
import { holdsMasterData } from './master-data.ts';

interface Delegate {
  createMany(args: { data: unknown[] }): Promise<{ count: number }>;
  deleteMany(args?: object): Promise<{ count: number }>;
}
function delegate(tx: Tx, model: string): Delegate {
  return (tx as unknown as Record<string, Delegate>)[model]!;
}

export class SeedRefusedError extends Error {
  override name = 'SeedRefusedError';
}

export interface SeedOptions {
  scale: number;
  seed?: number;
  /** Delete existing master data first (API clients and tokens are kept). */
  replace?: boolean;
  /** Called after each batch with rows written so far and the total. */
  onProgress?: (written: number, total: number) => void;
}

export interface SeedResult {
  rows: number;
  tables: { model: string; rows: number }[];
}

const BATCH_SIZE = 1000;
/** Serialises first-start seeding of replicas sharing one PostgreSQL database. */
const SEED_LOCK_KEY = 4_201_001;

async function lockForSeeding(db: Database, tx: Tx): Promise<void> {
  if (db.provider === 'postgresql') await tx.$executeRawUnsafe(`SELECT pg_advisory_xact_lock(${SEED_LOCK_KEY})`);
}

/** Models whose resources carry a modified_date. */
const DATED_MODELS = new Set(resources.filter((r) => r.attributes.modified_date).map((r) => r.model));
/** Demo data looks edited over the two years before this date, not all at the moment of seeding. */
const SEED_EPOCH = Date.parse('2026-10-01T00:00:00Z');
const DAY_MS = 24 * 3600 * 1000;

/**
 * A modified_date spread over two years, fixed by the row's id (so the same seed gives the same
 * dates), so that `modified_after` filters select a real share of the data.
 */
function seededModifiedDate(id: number): Date {
  const minutes = (id * 7919 + 104729) % (730 * 24 * 60);
  return new Date(SEED_EPOCH - 730 * DAY_MS + minutes * 60_000);
}

async function writeTables(db: Database, tx: Tx, tables: SeedTable[], onProgress?: SeedOptions['onProgress']) {
  const total = tables.reduce((n, t) => n + t.rows.length, 0);
  let written = 0;
  onProgress?.(0, total);
  for (const { model, rows } of tables) {
    const dated = DATED_MODELS.has(model);
    for (let start = 0; start < rows.length; start += BATCH_SIZE) {
      const slice = rows.slice(start, start + BATCH_SIZE);
      const batch = dated
        ? slice.map((row) => ({ modified_date: seededModifiedDate(row.id as number), ...row }))
        : slice;
      await delegate(tx, model).createMany({ data: batch });
      written += batch.length;
      onProgress?.(written, total);
    }
  }
  if (db.provider === 'postgresql') {
    // Rows were written with explicit ids: move each id sequence past them.
    for (const { type } of resources) {
      await tx.$executeRawUnsafe(
        `SELECT setval(pg_get_serial_sequence('"${type}"', 'id'), (SELECT COALESCE(MAX(id), 0) + 1 FROM "${type}"), false)`,
      );
    }
  }
  return total;
}

const TRANSACTION = { maxWait: 60_000, timeout: 15 * 60_000 };

/**
 * Seeds the database. Refuses (SeedRefusedError) when master data exists, unless `replace`.
 */
export async function seedDatabase(db: Database, options: SeedOptions): Promise<SeedResult> {
  const tables = generateSeed(options.scale, options.seed);
  const rows = await db.prisma.$transaction(async (tx) => {
    await lockForSeeding(db, tx);
    if (options.replace) {
      for (const { model } of [...tables].reverse()) await delegate(tx, model).deleteMany();
      // Followers of the log must learn that everything changed: their cursors expire.
      await restartChangeLog(tx, db.provider);
    } else if (await holdsMasterData(tx)) {
      throw new SeedRefusedError('the database already holds master data; pass --replace to delete it and seed anew');
    }
    return writeTables(db, tx, tables, options.onProgress);
  }, TRANSACTION);
  // Fresh planner statistics: without them (autovacuum may be off, and is slow to notice a bulk
  // load) PostgreSQL plans the filtered lists badly.
  await db.prisma.$executeRawUnsafe('ANALYZE');
  return { rows, tables: tables.map((t) => ({ model: t.model, rows: t.rows.length })) };
}
