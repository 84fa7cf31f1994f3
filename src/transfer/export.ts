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
import { once } from 'node:events';
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { attributeParts, definition } from '../data/columns.ts';
import { formatCursor, logPosition } from '../data/changes.ts';
import { pagesById } from '../data/load.ts';
import type { Database } from '../db/client.ts';
import { countValue, id, Sql } from '../db/sql.ts';
import type { WriteTx } from '../db/transactions.ts';
import type { Progress } from './progress.ts';
import { recordShape } from './records.ts';

export type ExportFormat = 'ndjson' | 'csv';

export interface Manifest {
  format: ExportFormat;
  exported_at: string;
  /** The change log's position when the snapshot was taken: follow `/changes?after=` it. */
  changes_cursor: string;
  types: Record<string, { file: string; rows: number; fields: string[] }>;
}

/** Rows read per statement. */
const PAGE = 1000;

/** Flags as `true` and `false` (csv-stringify's default writes false as an empty cell, like null). */
const CSV = { cast: { boolean: (value: boolean) => String(value) } };

/** CSV columns: an attribute of several parts becomes one column per part (`name.nl`). */
function csvColumns(type: string, fields: readonly string[]): string[] {
  const resource = definition(type);
  return fields.flatMap((field) => {
    const attribute = resource.attributes[field];
    if (!attribute || (attribute.type !== 'localized' && typeof attribute.type !== 'object')) return [field];
    return attributeParts(attribute).map(([key]) => `${field}.${key}`);
  });
}

function csvValue(record: Record<string, unknown>, column: string): unknown {
  const dot = column.indexOf('.');
  const value =
    dot < 0
      ? record[column]
      : (record[column.slice(0, dot)] as Record<string, unknown> | null)?.[column.slice(dot + 1)];
  if (Array.isArray(value)) return value.join(' ');
  return value ?? '';
}

async function write(stream: WriteStream, text: string): Promise<void> {
  if (!stream.write(text)) await once(stream, 'drain');
}

async function close(stream: WriteStream): Promise<void> {
  stream.end();
  await once(stream, 'finish');
}

/** One type's rows into its file: how many. */
async function exportType(
  tx: WriteTx,
  type: string,
  format: ExportFormat,
  path: string,
  progress: Progress,
): Promise<{ rows: number; fields: string[] }> {
  const { columns, record, fields } = recordShape(type);
  const [counted] = await tx.query<{ n: unknown }>(
    new Sql(tx.provider).text(`SELECT COUNT(*) AS "n" FROM ${id(type)}`),
  );
  const total = countValue(counted);
  progress(type, 0, total);
  const stream = createWriteStream(path);
  const header = format === 'csv' ? csvColumns(type, fields) : [];
  if (format === 'csv') await write(stream, stringify([header], CSV));
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
      await write(stream, text);
      rows += page.length;
      progress(type, rows, total);
    }
  } finally {
    await close(stream);
  }
  return { rows, fields };
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
      const { rows, fields } = await exportType(tx, type, format, join(dir, file), progress);
      made.types[type] = { file, rows, fields };
    }
    return made;
  });
  const stream = createWriteStream(join(dir, 'manifest.json'));
  await write(stream, `${JSON.stringify(manifest, null, 2)}\n`);
  await close(stream);
  return manifest;
}
