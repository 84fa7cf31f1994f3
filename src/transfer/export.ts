/**
 * `npm run export`: every row of the chosen types, one file per type, taken in one consistent
 * snapshot, with a manifest naming the change-log cursor of that snapshot: a copy that follows
 * `/changes` from it stays exact.
 *
 * A record is flat, by the spec's names: `id`, `version`, every attribute (localized text and
 * small objects as objects in NDJSON, as `name.nl`, `shelf_life.value` columns in CSV), each to-one
 * relationship (and the owner a structure or an item belongs to) as `<name>_id`, each to-many one
 * kept in a join table as `<name>_ids`. Relationships held by the other side (a product's
 * structure, a structure's items) are in the other side's file.
 */
import { createHash } from 'node:crypto';
import { createWriteStream, lstatSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { stringify } from 'csv-stringify/sync';
import { formatCursor, logPosition } from '../data/changes.ts';
import { pagesById } from '../data/load.ts';
import type { Database } from '../db/client.ts';
import { countValue, id, Sql } from '../db/sql.ts';
import type { WriteTx } from '../db/transactions.ts';
import { type CsvColumn, csvColumns, neutralised } from './csv-cells.ts';
import { EXPORT_FORMATS, type ExportFormat, type Manifest, type ManifestEntry } from './manifest.ts';
import { resources } from '../resources/registry.ts';
import type { Progress } from './progress.ts';
import { recordShape } from './records.ts';

/** Rows read per statement. */
const PAGE = 1000;

/** Flags as `true` and `false` (csv-stringify's default writes false as an empty cell, like null). */
const CSV = { cast: { boolean: (value: boolean) => String(value) } };

/** A record's cell in `column`: lists of ids apart by spaces, nothing for null, text neutralised (./csv-cells.ts). */
function csvValue(record: Record<string, unknown>, column: CsvColumn): unknown {
  const whole = record[column.field];
  const value = column.part === undefined ? whole : (whole as Record<string, unknown> | null)?.[column.part];
  if (Array.isArray(value)) return value.join(' ');
  if (column.text && typeof value === 'string') return neutralised(value);
  return value ?? '';
}

/**
 * One type's rows into its file at `path`: its entry of the manifest. The file's bytes go through
 * the digest as they are written; a write that fails (a full disk, a directory in the way) fails
 * the export.
 */
async function exportType(
  tx: WriteTx,
  type: string,
  format: ExportFormat,
  path: string,
  progress: Progress,
): Promise<Omit<ManifestEntry, 'file'>> {
  const { columns, record, fields } = recordShape(type);
  const [counted] = await tx.query<{ n: unknown }>(
    new Sql(tx.provider).text(`SELECT COUNT(*) AS "n" FROM ${id(type)}`),
  );
  const total = countValue(counted);
  progress(type, 0, total);
  const hash = createHash('sha256');
  const header = format === 'csv' ? csvColumns(type, fields) : [];
  let rows = 0;
  const hashed = (text: string) => {
    hash.update(text);
    return text;
  };
  async function* text(): AsyncGenerator<string> {
    if (format === 'csv') yield hashed(stringify([header.map((column) => column.name)], CSV));
    for await (const page of pagesById(tx, type, columns, PAGE)) {
      const records = page.map(record);
      yield hashed(
        format === 'ndjson'
          ? records.map((r) => `${JSON.stringify(r)}\n`).join('')
          : stringify(
              records.map((r) => header.map((column) => csvValue(r, column))),
              CSV,
            ),
      );
      rows += page.length;
      progress(type, rows, total);
    }
  }
  await pipeline(text(), createWriteStream(path));
  return { rows, fields, sha256: hash.digest('hex') };
}

/**
 * What a file is called until the whole export is written: no import takes it for an export's file
 * (./manifest.ts knows only `<type>.<format>` and `manifest.json`), and an earlier export stays
 * whole beside it until then.
 */
const PARTIAL = '.partial';

/** Every name an export writes in its directory, the manifest first: it goes first, so that a directory without one is not taken for a complete export. */
function exportNames(): string[] {
  return ['manifest.json', ...resources.flatMap(({ type }) => EXPORT_FORMATS.map((format) => `${type}.${format}`))];
}

/** Removes the file at `path`, if there is one (a directory of that name is none an export made: left alone). */
function removeFile(path: string): void {
  if (lstatSync(path, { throwIfNoEntry: false })?.isDirectory() === false) rmSync(path);
}

/**
 * The new export in place of an earlier one, once every file of it is complete: the earlier
 * manifest, then the earlier data files (an import refuses a directory holding files its manifest
 * does not name; files of other names are left alone), then the new files moved in under their
 * names, the manifest last.
 */
function putInPlace(dir: string, names: readonly string[]): void {
  for (const name of exportNames()) removeFile(join(dir, name));
  for (const name of names) renameSync(join(dir, `${name}${PARTIAL}`), join(dir, name));
}

/**
 * Writes `types` into `dir` from one snapshot (PostgreSQL: a repeatable-read, read-only
 * transaction; SQLite: its one writer's transaction, which holds other writers back while it
 * runs). Every file is written under a `.partial` name first, and replaces an earlier export only
 * once all are complete, the manifest last: an export that fails (the database gone, a full disk,
 * an interruption) leaves the earlier export as it was, and removes what it wrote. Partial files
 * a killed export left are removed first.
 */
export async function exportData(
  db: Database,
  {
    dir,
    types,
    format,
    progress = () => {},
  }: {
    dir: string;
    types: readonly string[];
    format: ExportFormat;
    progress?: Progress;
  },
): Promise<Manifest> {
  mkdirSync(dir, { recursive: true });
  for (const name of exportNames()) removeFile(join(dir, `${name}${PARTIAL}`));
  const names = [...types.map((type) => `${type}.${format}`), 'manifest.json'];
  try {
    const manifest = await snapshot(db, dir, types, format, progress);
    writeFileSync(join(dir, `manifest.json${PARTIAL}`), `${JSON.stringify(manifest, null, 2)}\n`);
    putInPlace(dir, names);
    return manifest;
  } catch (error) {
    for (const name of names) removeFile(join(dir, `${name}${PARTIAL}`));
    throw error;
  }
}

/** Every type's file under its partial name, from one snapshot: the manifest of them. */
function snapshot(
  db: Database,
  dir: string,
  types: readonly string[],
  format: ExportFormat,
  progress: Progress,
): Promise<Manifest> {
  return db.transaction(async (tx) => {
    if (tx.provider === 'postgresql') {
      await tx.execute(new Sql(tx.provider).text('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY'));
      // Between pages the transaction waits for the files: not the service's idle limit.
      await tx.execute(new Sql(tx.provider).text('SET LOCAL idle_in_transaction_session_timeout = 0'));
    }
    const cursor = await logPosition(tx);
    const made: Manifest = {
      format,
      exported_at: new Date().toISOString(),
      changes_cursor: formatCursor(cursor),
      types: {},
    };
    for (const type of types) {
      const file = `${type}.${format}`;
      made.types[type] = {
        file,
        ...(await exportType(tx, type, format, join(dir, `${file}${PARTIAL}`), progress)),
      };
    }
    return made;
  });
}
