/**
 * `npm run export` as an operator runs it, on both databases: one file per type with every row,
 * by the spec's names, relationships as ids; CSV with one column per language; a manifest with
 * the row counts and the change-log cursor of the snapshot, from which `/changes` brings exactly
 * the writes made after it; an earlier export in the same directory replaced, but only once the
 * new one is complete.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BulkWriter } from '../src/data/bulk-writes.ts';
import { changesAfter } from '../src/data/changes.ts';
import { importData } from '../src/transfer/import.ts';
import { directorySource } from '../src/transfer/sources.ts';
import { resources } from '../src/resources/registry.ts';
import { seedDatabase } from '../src/seed/write.ts';
import { migratedDatabase, type MigratedDatabase, providers } from './support/databases.ts';
import { runScript } from './support/process.ts';

describe.each(providers)('export on %s', (provider) => {
  let database: MigratedDatabase;
  let dir: string;
  /** Every type exported as NDJSON, with --json. */
  let exported: Awaited<ReturnType<typeof runScript>>;
  const prisma = () => database.db.prisma as any;
  const exportTo = (out: string, ...args: string[]) =>
    runScript('src/transfer/export-cli.ts', ['--out', out, ...args], { DATABASE_URL: database.target.url }, 60_000);
  const lines = (file: string) =>
    readFileSync(join(dir, file), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));

  beforeAll(async () => {
    database = await migratedDatabase(provider);
    await seedDatabase(database.db, { scale: 1 });
    dir = mkdtempSync(join(tmpdir(), 'export-'));
    exported = await exportTo(join(dir, 'all'), '--json');
  });
  afterAll(async () => {
    await database?.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes every row of every type, and a manifest with the counts and the cursor', async () => {
    const run = exported;
    expect(run.code, run.stderr).toBe(0);
    const manifest = JSON.parse(run.stdout);
    expect(JSON.parse(readFileSync(join(dir, 'all', 'manifest.json'), 'utf8'))).toEqual(manifest);
    expect(Object.keys(manifest.types).sort()).toEqual(resources.map((r) => r.type).sort());
    for (const resource of resources) {
      const count = await prisma()[resource.model].count();
      expect(manifest.types[resource.type].rows, resource.type).toBe(count);
    }
    expect(manifest.changes_cursor).toMatch(/^\d+$/);
  });

  it('NDJSON records by the spec names: attributes, to-one links as <name>_id, to-many as <name>_ids', async () => {
    const products = lines('all/products.ndjson');
    const stored = await prisma().product.findFirst({ where: { gtin: { not: null } }, orderBy: { id: 'asc' } });
    const record = products.find((p) => p.id === stored.id);
    expect(record).toMatchObject({
      id: stored.id,
      version: stored.version,
      reference: stored.reference,
      gtin: stored.gtin,
      name: { nl: stored.name_nl, fr: stored.name_fr, en: stored.name_en, de: stored.name_de },
      unit_id: stored.unit_id,
      brand_id: stored.brand_id,
    });
    // Dates in the interface's ATOM form, as documents show them.
    expect(record.modified_date).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/);
    expect(new Date(record.modified_date).getTime()).toBe(
      stored.modified_date.getTime() - (stored.modified_date.getTime() % 1000),
    );
    const customer = await prisma().customer.findFirst({
      where: { commercial_resolve_responsible_users: { some: {} } },
      include: { commercial_resolve_responsible_users: true },
    });
    const exported = lines('all/customers.ndjson').find((c) => c.id === customer.id);
    expect(exported.commercial_resolve_responsible_users_ids).toEqual(
      customer.commercial_resolve_responsible_users
        .map((u: { user_id: number }) => u.user_id)
        .sort((a: number, b: number) => a - b),
    );
    const item = lines('all/product_structure_items.ndjson')[0];
    expect(item).toHaveProperty('product_structure_id');
    expect(item).toHaveProperty('product_id');
  });

  it('CSV: a header of spec names, one column per language, every row', async () => {
    const out = join(dir, 'csv');
    const run = await exportTo(out, '--format', 'csv', '--types', 'products,units');
    expect(run.code, run.stderr).toBe(0);
    const rows = parse(readFileSync(join(out, 'products.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
    expect(rows).toHaveLength(await prisma().product.count());
    const stored = await prisma().product.findFirst({ orderBy: { id: 'asc' } });
    expect(rows[0]).toMatchObject({
      id: String(stored.id),
      reference: stored.reference,
      'name.nl': stored.name_nl ?? '',
      'name.fr': stored.name_fr ?? '',
      unit_id: String(stored.unit_id),
    });
    // Flags as true and false: an empty cell is null.
    expect(new Set(rows.map((r) => r.is_sales))).toEqual(new Set(['true', 'false']));
    expect(JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')).types).toHaveProperty('units');
  });

  it('the cursor of the snapshot: /changes after it brings the writes made after the export, and nothing before', async () => {
    const writer = new BulkWriter(database.db);
    const [before] = await writer.createMany('brands', [{ attributes: { reference: `before-${provider}` } }]);
    const run = await exportTo(join(dir, 'cursor'), '--types', 'brands', '--json');
    const manifest = JSON.parse(run.stdout);
    const brands = lines('cursor/brands.ndjson');
    expect(brands.map((b) => b.id)).toContain(before);
    const [after] = await writer.createMany('brands', [{ attributes: { reference: `after-${provider}` } }]);
    const page = await changesAfter(database.db.primary, Number(manifest.changes_cursor), { limit: 100 });
    expect(page.entries.map((e) => [e.type, e.id])).toEqual([['brands', after]]);
  });

  it('replaces an earlier export in the same directory, and leaves other files alone', async () => {
    const out = join(dir, 'cursor'); // the brands of the test above
    writeFileSync(join(out, 'notes.txt'), 'kept');
    const run = await exportTo(out, '--types', 'units', '--format', 'csv');
    expect(run.code, run.stderr).toBe(0);
    expect(readdirSync(out).sort()).toEqual(['manifest.json', 'notes.txt', 'units.csv']);
    expect(Object.keys(JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')).types)).toEqual(['units']);
  });

  it('an export that fails part-way leaves the earlier export as it was, importable, and removes its own files', async () => {
    const out = join(dir, 'kept');
    const earlier = await exportTo(out, '--types', 'brands,units', '--format', 'csv');
    expect(earlier.code, earlier.stderr).toBe(0);
    const files = () =>
      Object.fromEntries(
        readdirSync(out, { withFileTypes: true })
          .filter((entry) => entry.isFile())
          .map((entry) => [entry.name, readFileSync(join(out, entry.name))]),
      );
    const before = files();
    // What an export killed part-way leaves: its partial files, which the next export removes.
    writeFileSync(join(out, 'brands.csv.partial'), 'id,reference\n1,');
    writeFileSync(join(out, 'manifest.json.partial'), '{');
    // The products are written; the units cannot be: a directory stands where their file is written first.
    mkdirSync(join(out, 'units.csv.partial'));
    const failed = await exportTo(out, '--types', 'products,units', '--format', 'csv');
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/^export: failed: EISDIR: .*units\.csv\.partial/m);
    // Byte for byte the earlier export: nothing of the failed one, nor of the killed one before it.
    expect(files()).toEqual(before);
    // Taken whole by the import, a killed export's partial files beside it.
    writeFileSync(join(out, 'products.csv.partial'), 'id,reference\n1,');
    const checked = await importData(database.db, await directorySource(out), { check: true });
    expect(checked.problems).toEqual([]);
    expect(checked.types.units!.read).toBe(await prisma().unit.count());
  });

  it('refuses an unknown type or format, and a missing --out, with exit code 2', async () => {
    expect((await exportTo(join(dir, 'x'), '--types', 'productz')).code).toBe(2);
    expect((await exportTo(join(dir, 'x'), '--format', 'xml')).code).toBe(2);
    const missing = await runScript('src/transfer/export-cli.ts', [], { DATABASE_URL: database.target.url });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--out DIR is required');
  });
});
