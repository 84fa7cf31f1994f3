/**
 * Files that must be what they claim, on both databases, through the command lines an operator
 * runs: an export directory that is not what its manifest says (a file cut short, a row added, a
 * file missing or one the manifest does not name, other fields, a changed byte) is refused whole,
 * exit code 2, naming the file and both numbers, with nothing written; a CSV export neutralises
 * text a spreadsheet would run as a formula, and the import takes it back exactly;
 * `--accept-invalid` lists as accepted only what it took, in every mode; and every row the
 * upsert of a CSV without ids refuses is listed at its line, however many.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BulkWriter } from '../src/data/bulk-writes.ts';
import { withCheckDigit } from '../src/data/formats.ts';
import { exportData } from '../src/transfer/export.ts';
import { importData } from '../src/transfer/import.ts';
import { csvFileSource, directorySource } from '../src/transfer/sources.ts';
import { UsageError } from '../src/transfer/types.ts';
import { migratedDatabase, type MigratedDatabase, providers } from './support/databases.ts';
import { runScript } from './support/process.ts';

/** Text a spreadsheet would take for a formula, and text that only looks like the export's own quote. */
const TRICKY = [
  '=HYPERLINK("http://127.0.0.1/x","click")',
  '+31 20 555 0100',
  '-minus',
  '@SUM(A1:A9)',
  '\tafter a tab',
  '\rafter a carriage return',
  '\uFF1Dfull-width equals',
  "'quoted",
  "''quoted twice",
  "'=quoted formula",
  "it's plain",
  'plain',
];

const read = (file: string) => readFileSync(file, 'utf8');
/** The manifest of the export in `dir` as an export made before digests wrote it. */
function withoutDigests(dir: string): void {
  const manifest = JSON.parse(read(join(dir, 'manifest.json')));
  for (const entry of Object.values(manifest.types) as { sha256?: string }[]) delete entry.sha256;
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest));
}
const ndjson = (file: string) =>
  read(file)
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));

describe.each(providers)('export and import files on %s', (provider) => {
  let source: MigratedDatabase;
  let target: MigratedDatabase;
  let dir: string;
  const prisma = (database: MigratedDatabase) => database.db.prisma as any;
  const importCli = (database: MigratedDatabase, ...args: string[]) =>
    runScript('src/transfer/import-cli.ts', [...args, '--json'], { DATABASE_URL: database.target.url }, 60_000);
  /** A copy of the export `name`, changed by `change`. */
  const tampered = (name: string, change: (copy: string) => void) => {
    const copy = mkdtempSync(join(dir, `${name}-`));
    cpSync(join(dir, name), copy, { recursive: true });
    change(copy);
    return copy;
  };

  beforeAll(async () => {
    source = await migratedDatabase(provider);
    target = await migratedDatabase(provider);
    const writer = new BulkWriter(source.db);
    const units = await writer.createMany('units', [
      { attributes: { reference: 'KG', description: { en: '=1+1', nl: "'kilo" } } },
      { attributes: { reference: '@UNIT', description: { en: 'plain' } } },
    ]);
    const products = await writer.createMany(
      'products',
      TRICKY.map((text, i) => ({
        attributes: {
          reference: i === 0 ? '-REF-0' : `REF-${i}`,
          name: { nl: text, en: TRICKY[(i + 1) % TRICKY.length] },
          intrastat_code: '-5',
          shelf_life: { value: 3, interval: '+Days' },
          consumer_price: 2.5,
        },
        relationships: { unit: units[i % 2]! },
      })),
    );
    // A row stored before the clean-data rules: a negative price stays a number in CSV.
    await prisma(source).product.update({ where: { id: products[1] }, data: { consumer_price: -5 } });
    dir = mkdtempSync(join(tmpdir(), 'import-files-'));
    for (const format of ['ndjson', 'csv'] as const)
      await exportData(source.db, { dir: join(dir, format), types: ['units', 'products'], format });
  });
  afterAll(async () => {
    await source?.cleanup();
    await target?.cleanup();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the manifest gives each file its SHA-256', async () => {
    const { createHash } = await import('node:crypto');
    for (const format of ['ndjson', 'csv']) {
      const manifest = JSON.parse(read(join(dir, format, 'manifest.json')));
      for (const entry of Object.values(manifest.types) as { file: string; sha256: string }[])
        expect(entry.sha256).toBe(
          createHash('sha256')
            .update(readFileSync(join(dir, format, entry.file)))
            .digest('hex'),
        );
    }
  });

  it('CSV: text that begins like a formula gets a quote before it, numbers stay numbers; NDJSON keeps the text as it is', () => {
    const rows = parse(read(join(dir, 'csv', 'products.csv')), { columns: true }) as Record<string, string>[];
    expect(rows.map((r) => r['name.nl'])).toEqual([
      '\'=HYPERLINK("http://127.0.0.1/x","click")',
      "'+31 20 555 0100",
      "'-minus",
      "'@SUM(A1:A9)",
      "'\tafter a tab",
      "'\rafter a carriage return",
      "'\uFF1Dfull-width equals",
      "''quoted",
      "'''quoted twice",
      "''=quoted formula",
      "it's plain",
      'plain',
    ]);
    expect(rows[0]).toMatchObject({ reference: "'-REF-0", intrastat_code: "'-5", 'shelf_life.interval': "'+Days" });
    expect(rows.map((r) => r.consumer_price)).toEqual(['2.5', '-5', ...Array(TRICKY.length - 2).fill('2.5')]);
    const units = parse(read(join(dir, 'csv', 'units.csv')), { columns: true }) as Record<string, string>[];
    expect(units.map((u) => [u.reference, u['description.en'], u['description.nl']])).toEqual([
      ['KG', "'=1+1", "''kilo"],
      ["'@UNIT", 'plain', ''],
    ]);
    // No text cell of the file begins as a formula would.
    for (const row of [...rows, ...units])
      for (const cell of Object.values(row)) expect(cell, JSON.stringify(cell)).not.toMatch(/^[=+@\t\r\uFF1D]/);
    expect(ndjson(join(dir, 'ndjson', 'products.ndjson')).map((p) => p.name.nl)).toEqual(TRICKY);
  });

  it('a directory that is not what its manifest says is refused whole: exit code 2, the file and both numbers named, nothing written', async () => {
    const products = parse(read(join(dir, 'csv', 'products.csv'))) as string[][];
    const count = products.length - 1;
    const writeCsv = (file: string, records: string[][]) => writeFileSync(file, stringify(records));
    const cases: [string, string, (copy: string) => void, string][] = [
      [
        'a CSV with a row less',
        'csv',
        (copy) => writeCsv(join(copy, 'products.csv'), products.slice(0, -1)),
        `products.csv holds ${count - 1} rows, the manifest declares ${count}`,
      ],
      [
        'a CSV with a row more',
        'csv',
        (copy) => writeCsv(join(copy, 'products.csv'), [...products, ['999', ...products.at(-1)!.slice(1)]]),
        `products.csv holds ${count + 1} rows, the manifest declares ${count}`,
      ],
      [
        'an NDJSON file cut inside a line',
        'ndjson',
        (copy) => {
          const file = join(copy, 'products.ndjson');
          writeFileSync(file, read(file).slice(0, -40));
        },
        `products.ndjson:${count} is not JSON`,
      ],
      [
        'a file the manifest names, missing',
        'ndjson',
        (copy) => rmSync(join(copy, 'units.ndjson')),
        'units.ndjson is missing: the manifest declares 2 rows in it',
      ],
      [
        'a file of one row the manifest names, missing (the count in the singular)',
        'ndjson',
        (copy) => {
          rmSync(join(copy, 'units.ndjson'));
          const manifest = JSON.parse(read(join(copy, 'manifest.json')));
          manifest.types.units.rows = 1;
          writeFileSync(join(copy, 'manifest.json'), JSON.stringify(manifest));
        },
        'units.ndjson is missing: the manifest declares 1 row in it',
      ],
      [
        'a file the manifest does not name',
        'ndjson',
        (copy) => writeFileSync(join(copy, 'brands.ndjson'), '{"id":1,"reference":"X"}\n'),
        'brands.ndjson is not in the manifest',
      ],
      [
        'a CSV whose header is not the manifest fields',
        'csv',
        (copy) =>
          writeCsv(join(copy, 'products.csv'), [
            products[0]!.map((c) => (c === 'name.nl' ? 'naam.nl' : c)),
            ...products.slice(1),
          ]),
        'products.csv lacks the columns name.nl and has columns the manifest does not declare: naam.nl',
      ],
      [
        'an NDJSON record with a field the manifest does not declare',
        'ndjson',
        (copy) => {
          const file = join(copy, 'products.ndjson');
          const lines = ndjson(file);
          lines[2].colour = 'red';
          writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
        },
        'products.ndjson:3 has fields the manifest does not declare: colour',
      ],
      [
        'a value changed, rows and fields as declared',
        'ndjson',
        (copy) => {
          const file = join(copy, 'products.ndjson');
          writeFileSync(file, read(file).replace('"plain"', '"PLAIN"'));
        },
        'products.ndjson has SHA-256 ',
      ],
      [
        'a manifest naming a file outside the directory',
        'ndjson',
        (copy) => {
          const manifest = JSON.parse(read(join(copy, 'manifest.json')));
          manifest.types.units.file = '../units.ndjson';
          writeFileSync(join(copy, 'manifest.json'), JSON.stringify(manifest));
        },
        'the manifest names "../units.ndjson" for units: an export writes units.ndjson',
      ],
      [
        'an export made before digests, a row less: its rows are still counted',
        'csv',
        (copy) => {
          withoutDigests(copy);
          writeCsv(join(copy, 'products.csv'), products.slice(0, -1));
        },
        `products.csv holds ${count - 1} rows, the manifest declares ${count}`,
      ],
    ];
    for (const [what, format, change, message] of cases) {
      const copy = tampered(format, change);
      const refused = directorySource(copy);
      await expect(refused, what).rejects.toThrow(UsageError);
      await expect(refused, what).rejects.toThrow(`${copy} is not what its manifest.json says; nothing was imported`);
      await expect(refused, what).rejects.toThrow(message);
    }
    // As an operator sees it: exit code 2, the file and both numbers, nothing written.
    const cut = tampered('csv', (copy) => writeCsv(join(copy, 'products.csv'), products.slice(0, -2)));
    const run = await importCli(target, '--from', cut);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain(
      `${join(cut, 'products.csv')} holds ${count - 2} rows, the manifest declares ${count}`,
    );
    expect(run.stdout).toBe('');
    expect(await prisma(target).unit.count()).toBe(0);
    expect(await prisma(target).change.count()).toBe(0);
    // An export made before digests, whole, is taken.
    const old = await directorySource(tampered('ndjson', withoutDigests));
    expect(old.types).toEqual(['units', 'products']);
  }, 60_000);

  it.each(['csv', 'ndjson'])(
    'an export in %s, imported, is the same to the last character',
    async (format) => {
      const copy = await migratedDatabase(provider);
      try {
        // A negative price is a row stored before the rules: taken, and listed, with --accept-invalid.
        if (format === 'csv') {
          const run = await importCli(copy, '--from', join(dir, format), '--accept-invalid');
          expect(run.code, run.stderr + run.stdout).toBe(0);
          expect(JSON.parse(run.stdout).accepted.map((p: any) => p.field)).toEqual(['consumer_price']);
        } else {
          const summary = await importData(copy.db, await directorySource(join(dir, format)), { acceptInvalid: true });
          expect(summary.problems).toEqual([]);
        }
        const again = join(dir, `again-${format}`);
        await exportData(copy.db, { dir: again, types: ['units', 'products'], format: 'ndjson' });
        for (const file of ['units.ndjson', 'products.ndjson'])
          expect(ndjson(join(again, file)), file).toEqual(ndjson(join(dir, 'ndjson', file)));
      } finally {
        await copy.cleanup();
      }
    },
    60_000,
  );

  it("a user's CSV is read by the same rule: one quote before a formula's first character or a quote is taken off", async () => {
    const file = join(dir, 'user-units.csv');
    writeFileSync(
      file,
      "reference,description.en,description.nl,description.fr\n'=U1,'+1,''two,'kept\nU2,=raw,-1,\"''\"\n",
    );
    expect((await importData(target.db, csvFileSource(file, 'units'))).problems).toEqual([]);
    const units = await prisma(target).unit.findMany({
      where: { reference: { in: ['=U1', 'U2'] } },
      orderBy: { reference: 'asc' },
    });
    expect(units.map((u: any) => [u.reference, u.description_en, u.description_nl, u.description_fr])).toEqual([
      ['=U1', '+1', "'two", "'kept"],
      ['U2', '=raw', '-1', "'"],
    ]);
  });

  it('refuses up front what cannot be what it is asked for: a type the manifest lacks, a CSV without ids of a type without a business key', async () => {
    await expect(directorySource(join(dir, 'ndjson'), ['brands'])).rejects.toThrow(
      `${join(dir, 'ndjson', 'manifest.json')} has no brands`,
    );
    const file = join(dir, 'structures.csv');
    writeFileSync(file, 'quantity\n1\n');
    expect(() => csvFileSource(file, 'product_structures')).toThrow(
      `${file} has no id column, and product_structures have no business key to match rows on: give their ids`,
    );
  });

  describe('--accept-invalid lists as accepted what it took, and only that', () => {
    // GTINs with a wrong check digit.
    const GTIN = '4006381333932';
    const OTHER_GTIN = '4006381333933';
    const fromCsv = (file: string, type: string, options: { check?: boolean; acceptInvalid?: boolean } = {}) =>
      importData(target.db, csvFileSource(file, type), options);
    const placed = (problems: { at: string; field: string }[]) => problems.map((p) => [p.at, p.field]);
    beforeAll(async () => {
      const writer = new BulkWriter(target.db);
      const [kg] = await writer.upsertMany('units', [{ attributes: { reference: 'KG' } }]);
      await writer.createMany('products', [{ attributes: { reference: 'STORED' }, relationships: { unit: kg!.id } }]);
    });

    it('a CSV without ids: the row is taken, listed once, exit code 0; without the flag it is a problem named by line and field', async () => {
      const file = join(dir, 'keyed.csv');
      writeFileSync(file, `reference,unit.reference,gtin,name.nl\nKEYED-1,KG,${GTIN},'=kept\n`);

      const refused = await fromCsv(file, 'products');
      expect(placed(refused.problems)).toEqual([[`${file}:2`, 'gtin']]);
      const checked = await fromCsv(file, 'products', { check: true, acceptInvalid: true });
      expect(checked.problems).toEqual([]);
      expect(placed(checked.accepted)).toEqual([[`${file}:2`, 'gtin']]);

      const run = await importCli(target, '--from-csv', file, '--type', 'products', '--accept-invalid');
      expect(run.code, run.stderr).toBe(0);
      const summary = JSON.parse(run.stdout);
      expect(summary.problems).toEqual([]);
      expect(placed(summary.accepted)).toEqual([[`${file}:2`, 'gtin']]);
      expect(summary.types.products).toMatchObject({ read: 1, created: 1 });
      expect(await prisma(target).product.findUnique({ where: { reference: 'KEYED-1' } })).toMatchObject({
        gtin: GTIN,
        name_nl: '=kept',
      });
    });

    it('a batch the import stops on: nothing of it is listed as accepted (with ids, and without)', async () => {
      const unit = (await prisma(target).unit.findFirst({ where: { reference: 'KG' } })).id;
      const withIds = join(dir, 'ids.csv');
      writeFileSync(withIds, `id,reference,unit_id,gtin\n501,IDS-1,${unit},${OTHER_GTIN}\n502,IDS-2,987654,\n`);
      const stopped = await fromCsv(withIds, 'products', { acceptInvalid: true });
      expect(stopped.problems.map((p) => [p.id, p.field])).toEqual([[502, 'unit_id']]);
      expect(stopped.accepted).toEqual([]);
      expect(await prisma(target).product.count({ where: { id: { in: [501, 502] } } })).toBe(0);

      // Matched on the key: what only the upsert finds (two new rows taking one GTIN), each row named by its line and field.
      const keyed = join(dir, 'keyed-stop.csv');
      writeFileSync(keyed, `reference,unit.reference,gtin\nKEYED-2,KG,${OTHER_GTIN}\nKEYED-3,KG,${OTHER_GTIN}\n`);
      const refused = await fromCsv(keyed, 'products', { acceptInvalid: true });
      expect(refused.accepted).toEqual([]);
      expect(refused.problems.map((p) => [p.at, p.field, p.message])).toEqual([
        [`${keyed}:3`, 'gtin', 'gtin must be unique among products: another one already has this value'],
      ]);
      expect(await prisma(target).product.count({ where: { reference: { in: ['KEYED-2', 'KEYED-3'] } } })).toBe(0);
    });

    it('a CSV without ids: every row the upsert refuses is listed with its line and field, past the hundred an API answer lists', async () => {
      const unit = (await prisma(target).unit.findFirst({ where: { reference: 'KG' } })).id;
      // GTINs held by stored rows: only the write meets them (no row of the file gives one twice).
      const gtins = Array.from({ length: 120 }, (_, i) => withCheckDigit(`871000${String(i).padStart(6, '0')}`));
      await new BulkWriter(target.db).createMany(
        'products',
        gtins.map((gtin, i) => ({ attributes: { reference: `HOLDER-${i}`, gtin }, relationships: { unit } })),
      );
      const file = join(dir, 'taken-gtins.csv');
      writeFileSync(
        file,
        `reference,unit.reference,gtin\n${gtins.map((gtin, i) => `TAKER-${i},KG,${gtin}`).join('\n')}\n`,
      );
      const refused = await fromCsv(file, 'products');
      expect(refused.problems.map((p) => [p.at, p.field, p.message])).toEqual(
        gtins.map((_, i) => [
          `${file}:${i + 2}`,
          'gtin',
          'gtin must be unique among products: another one already has this value',
        ]),
      );
      expect(await prisma(target).product.count({ where: { reference: { startsWith: 'TAKER-' } } })).toBe(0);
    });

    it('a CSV without ids, checked, lists what its import would stop on: a key missing or given twice, a new row without what it must have', async () => {
      const file = join(dir, 'keyed-check.csv');
      writeFileSync(
        file,
        'reference,unit.reference,name.nl\nNEW-1,,a\n,KG,b\nKG-TWICE,KG,c\nKG-TWICE,KG,d\nSTORED,,e\n',
      );
      const expected = [
        [`${file}:2`, 'unit_id', 'unit_id is required'],
        [`${file}:3`, 'reference', 'reference cannot be null'],
        [`${file}:5`, 'reference', `reference "KG-TWICE" is given twice (first at ${file}:4)`],
      ];
      const checked = await fromCsv(file, 'products', { check: true });
      expect(checked.problems.map((p) => [p.at, p.field, p.message])).toEqual(expected);
      const stopped = await fromCsv(file, 'products');
      expect(stopped.problems.map((p) => [p.at, p.field, p.message])).toEqual(expected);
      expect(await prisma(target).product.count({ where: { reference: { in: ['NEW-1', 'KG-TWICE'] } } })).toBe(0);
    });
  });
});
