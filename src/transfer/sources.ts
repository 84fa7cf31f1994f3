/**
 * Where an import reads from (./import.ts): a directory `npm run export` wrote (NDJSON or CSV, by
 * its manifest), or one CSV file of one type. A source of the old interface is
 * ./service-source.ts. Each gives its records a page at a time, so that a large file is never
 * held whole.
 */
import { createReadStream, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse';
import { businessKey } from '../data/bulk-writes.ts';
import { definition } from '../data/columns.ts';
import { resourceByType } from '../resources/registry.ts';
import { CSV_READING, ndjsonLines, readManifest, verifyDirectory } from './manifest.ts';
import { fromCsv, fromFlat, type TransferRecord } from './records.ts';
import { UsageError } from './types.ts';

export interface ImportSource {
  /** What it reads, for messages. */
  name: string;
  /** The types it holds. */
  types: string[];
  /** Whether its rows are matched on their business key (a CSV without an `id` column), not kept under their ids. */
  keyed: boolean;
  /** How many records of `type` it holds, when it can say beforehand. */
  total(type: string): Promise<number | undefined>;
  /** The records of `type`, a page at a time, each with where it is in the source (a line of a file). */
  pages(type: string): AsyncIterable<SourcePage>;
}

export interface SourcePage {
  records: TransferRecord[];
  /** Where each record is, for problems: `products.ndjson:17`. */
  places: string[];
}

/** Records per page read from a file. */
const PAGE = 500;

/**
 * A directory `npm run export` wrote: its manifest says the format and the files, and the
 * directory is checked against it first (./manifest.ts), so that nothing of a directory that is
 * not what it says is written.
 */
export async function directorySource(dir: string, only?: readonly string[]): Promise<ImportSource> {
  const manifest = readManifest(dir);
  const absent = (only ?? []).filter((type) => !manifest.types[type]);
  if (absent.length > 0) throw new UsageError(`${join(dir, 'manifest.json')} has no ${absent.join(', ')}`);
  const types = Object.keys(manifest.types).filter((type) => !only || only.includes(type));
  await verifyDirectory(dir, manifest, types);
  return {
    name: dir,
    types,
    keyed: false,
    total: async (type) => manifest.types[type]?.rows,
    pages: (type) => {
      const file = join(dir, manifest.types[type]!.file);
      return manifest.format === 'csv' ? csvPages(type, file) : ndjsonPages(type, file);
    },
  };
}

/** One CSV file of one type, with a header row of the spec's names. */
export function csvFileSource(file: string, type: string): ImportSource {
  if (!resourceByType(type)) throw new UsageError(`unknown type ${type}`);
  if (!existsSync(file)) throw new UsageError(`${file} does not exist`);
  // A byte-order mark (a CSV saved as "CSV UTF-8") is not part of the first column's name.
  const header =
    readFileSync(file, 'utf8')
      .replace(/^\uFEFF/, '')
      .split(/\r?\n/, 1)[0] ?? '';
  const columns = header.split(',').map((c) => c.trim().replace(/^"|"$/g, ''));
  const keyed = !columns.includes('id');
  if (keyed && !businessKey(definition(type)))
    throw new UsageError(`${file} has no id column, and ${type} have no business key to match rows on: give their ids`);
  return {
    name: file,
    types: [type],
    keyed,
    total: async () => undefined,
    pages: () => csvPages(type, file),
  };
}

async function* ndjsonPages(type: string, file: string): AsyncIterable<SourcePage> {
  let page: SourcePage = { records: [], places: [] };
  for await (const { line, number } of ndjsonLines(createReadStream(file))) {
    const place = `${file}:${number}`;
    let flat: unknown;
    try {
      flat = JSON.parse(line);
    } catch {
      throw new SourceError(`${place} is not JSON`);
    }
    if (flat === null || typeof flat !== 'object' || Array.isArray(flat))
      throw new SourceError(`${place} is not a JSON object`);
    page.records.push(fromFlat(type, flat as Record<string, unknown>));
    page.places.push(place);
    if (page.records.length === PAGE) {
      yield page;
      page = { records: [], places: [] };
    }
  }
  if (page.records.length > 0) yield page;
}

async function* csvPages(type: string, file: string): AsyncIterable<SourcePage> {
  const parser = createReadStream(file).pipe(parse({ ...CSV_READING, columns: true, info: true }));
  let page: SourcePage = { records: [], places: [] };
  try {
    for await (const { record, info } of parser as AsyncIterable<{
      record: Record<string, string>;
      info: { lines: number };
    }>) {
      page.records.push(fromCsv(type, record));
      page.places.push(`${file}:${info.lines}`);
      if (page.records.length === PAGE) {
        yield page;
        page = { records: [], places: [] };
      }
    }
  } catch (error) {
    if (error instanceof Error && 'code' in error && String(error.code).startsWith('CSV_'))
      throw new SourceError(`${file}: ${error.message}`);
    throw error;
  }
  if (page.records.length > 0) yield page;
}

/** A source that cannot be read (a file that is not what it says, a service that answers an error): the import stops. */
export class SourceError extends Error {}
