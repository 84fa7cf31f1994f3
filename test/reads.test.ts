/**
 * The data layer's reads on PostgreSQL go out as named statements, whose text does not change with
 * the size of a batch: the database parses and plans each loader's statement once per connection,
 * not once per request, and they survive a migration that changes a column's type under them
 * (src/db/reads.ts).
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsByIds } from '../src/data/load.ts';
import { NamedStatements } from '../src/db/named-statements.ts';
import { postgresReads } from '../src/db/postgresql.ts';
import type { DataSource } from '../src/db/reads.ts';
import { migratedDatabase, providers, type MigratedDatabase } from './support/databases.ts';

describe.skipIf(!providers.includes('postgresql'))('reads on PostgreSQL', () => {
  let database: MigratedDatabase;
  let pool: pg.Pool;
  let reads: DataSource;
  let statements = 0;
  beforeAll(async () => {
    database = await migratedDatabase('postgresql');
    for (const reference of ['KG', 'L', 'PCS']) await database.db.prisma.unit.create({ data: { reference } });
    // One connection, so that pg_prepared_statements (per session) sees every statement.
    pool = new pg.Pool({ connectionString: database.target.url, max: 1 });
    reads = postgresReads(pool, new NamedStatements(), () => statements++);
  });
  afterAll(async () => {
    await pool?.end();
    await database?.cleanup();
  });

  it('prepare one statement per loader for batches of more than one, whatever their size, and one for a batch of one; answer each batch in key order', async () => {
    const columns = [
      { name: 'id', type: 'integer' as const },
      { name: 'reference', type: 'string' as const },
    ];
    const units = await database.db.prisma.unit.findMany({ orderBy: { id: 'asc' } });
    const [kg, l, pcs] = units.map((u) => u.id);
    const one = await rowsByIds(reads, 'units', [l!], columns);
    const many = await rowsByIds(
      reads,
      'units',
      [pcs!, 999_999, kg!, ...Array.from({ length: 47 }, (_, i) => 1_000_000 + i)],
      columns,
    );
    expect(one.map((r) => r?.reference)).toEqual(['L']);
    expect(many.slice(0, 3).map((r) => r?.reference ?? null)).toEqual(['PCS', null, 'KG']);
    expect(many).toHaveLength(50);
    expect(statements).toBe(2);

    const prepared = await pool.query<{ name: string; statement: string }>(
      'SELECT name, statement FROM pg_prepared_statements',
    );
    const lookups = prepared.rows
      .filter((r) => r.statement.includes('FROM "units"'))
      .sort((a, b) => a.statement.localeCompare(b.statement));
    expect(lookups).toHaveLength(2);
    for (const lookup of lookups) expect(lookup.name).toMatch(/^mdg_\d+_\d+$/);
    // One id: `= $1`, which PostgreSQL plans once (with `= ANY($1)` it plans every execution).
    expect(lookups.map((l) => l.statement.slice(l.statement.indexOf('WHERE')))).toEqual([
      'WHERE t."id" = $1',
      'WHERE t."id" = ANY($1)',
    ]);
  });

  it('read on after another replica changes the type of a column they prepared a statement on', async () => {
    const columns = [
      { name: 'id', type: 'integer' as const },
      { name: 'reference', type: 'string' as const },
    ];
    const ids = (await database.db.prisma.unit.findMany({ select: { id: true } })).map((u) => u.id);
    expect((await rowsByIds(reads, 'units', ids, columns)).map((r) => r?.reference)).toEqual(['KG', 'L', 'PCS']);
    // What a migration run elsewhere does; this connection still holds the statement prepared before it.
    const other = new pg.Client({ connectionString: database.target.url });
    await other.connect();
    try {
      await other.query('ALTER TABLE "units" ALTER COLUMN "reference" TYPE varchar(60)');
    } finally {
      await other.end();
    }
    expect((await rowsByIds(reads, 'units', ids, columns)).map((r) => r?.reference)).toEqual(['KG', 'L', 'PCS']);
    expect((await rowsByIds(reads, 'units', ids, columns)).map((r) => r?.reference)).toEqual(['KG', 'L', 'PCS']);
  });
});

describe.skipIf(!providers.includes('postgresql'))('as-of reads on PostgreSQL', () => {
  let database: MigratedDatabase;
  beforeAll(async () => {
    database = await migratedDatabase('postgresql');
  });
  afterAll(async () => database?.cleanup());

  it('go out as named statements of their own, so that the same text read now and as of an instant, alternately on the same connections, answers each from its own plan', async () => {
    const columns = [
      { name: 'id', type: 'integer' as const },
      { name: 'reference', type: 'string' as const },
    ];
    const { id } = await database.db.prisma.unit.create({ data: { reference: 'KG' } });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const before = new Date();
    await new Promise((resolve) => setTimeout(resolve, 5));
    await database.db.prisma.unit.update({ where: { id }, data: { reference: 'KGM' } });
    for (let i = 0; i < 12; i++) {
      const [now] = await rowsByIds(database.db.primary, 'units', [id], columns);
      expect(now?.reference).toBe('KGM');
      const past = await database.db.past(before, async (source) => {
        const [row] = await rowsByIds(source, 'units', [id], columns);
        const prepared = await source.query<{ name: string }>({
          toString: () => `SELECT name FROM pg_prepared_statements WHERE statement LIKE '%FROM "units"%'`,
          values: [],
        });
        return { reference: row?.reference, names: prepared.map((p) => p.name) };
      });
      expect(past.reference).toBe('KG');
      expect(past.names.length).toBeGreaterThan(0);
      expect(past.names.filter((name) => !/^mdg(_past)?_\d+_\d+$/.test(name))).toEqual([]);
      expect(past.names.some((name) => name.startsWith('mdg_past_'))).toBe(true);
    }
  });
});
