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
import { createHash, type Hash } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream, mkdirSync, rmSync, type WriteStream } from 'node:fs';
import { join } from 'node:path';
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

/** Writes `text` to `stream`, and into `hash` when given: the digest of the file's bytes, for the manifest. */
async function write(stream: WriteStream, text: string, hash?: Hash): Promise<void> {
  hash?.update(text);
  if (!stream.write(text)) await once(stream, 'drain');
}

async function close(stream: WriteStream): Promise<void> {
  stream.end();
  await once(stream, 'finish');
}

/** One type's rows into its file: its entry of the manifest. */
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
  const stream = createWriteStream(path);
  const hash = createHash('sha256');
  const header = format === 'csv' ? csvColumns(type, fields) : [];
  if (format === 'csv') await write(stream, stringify([header.map((column) => column.name)], CSV), hash);
  let rows = 0;
  try {
    for await (const page of pagesById(tx, type, columns, PAGE)) {
      const records = page.map(record);
      const text =
        format === 'ndjson'
          ? records.map((r) => `${JSON.stringify(r)}\n`).join('')
          : stringify(
              records.map((r) => header.map((column) => csvValue(r, column))),
              CSV,
            );
      await write(stream, text, hash);
      rows += page.length;
      progress(type, rows, total);
    }
  } finally {
    await close(stream);
  }
  return { rows, fields, sha256: hash.digest('hex') };
}

/**
 * An earlier export in `dir` is replaced, not mixed with this one (an import refuses a directory
 * holding files its manifest does not name): its manifest first, so that a directory left
 * without one by a failed export is not taken for a complete one, then its data files. Files of
 * other names are left alone.
 */
function removeEarlierExport(dir: string): void {
  rmSync(join(dir, 'manifest.json'), { force: true });
  for (const { type } of resources)
    for (const format of EXPORT_FORMATS) rmSync(join(dir, `${type}.${format}`), { force: true });
}

/**
 * Writes `types` into `dir` from one snapshot (PostgreSQL: a repeatable-read, read-only
 * transaction; SQLite: its one writer's transaction, which holds other writers back while it
 * runs), and the manifest last, so that a directory with a manifest is complete.
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
  removeEarlierExport(dir);
  const manifest = await db.transaction(async (tx) => {
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
      made.types[type] = { file, ...(await exportType(tx, type, format, join(dir, file), progress)) };
    }
    return made;
  });
  const stream = createWriteStream(join(dir, 'manifest.json'));
  await write(stream, `${JSON.stringify(manifest, null, 2)}\n`);
  await close(stream);
  return manifest;
}
