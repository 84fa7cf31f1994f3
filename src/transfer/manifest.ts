/**
 * `manifest.json`, what `npm run export` says of the directory it wrote (./export.ts): the format,
 * the change-log cursor of the snapshot, and for each type its file, how many rows it holds, their
 * fields and the file's SHA-256. An import (`--from DIR`, ./sources.ts) checks the directory
 * against it before it writes anything: a file cut short (a copy that stopped, a full disk), one
 * changed or swapped since, one missing or one the manifest does not name is refused whole, rather
 * than imported as if it were complete. Counting rows alone would catch a cut at a line's end only
 * after the rows before it were written; the digest catches any change, before, and costs a read
 * of the bytes, not a parse (rows and fields are counted only to say what changed). An export made
 * before the digest was added has none: its row counts and fields are still checked.
 */
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { type Duplex, PassThrough, pipeline, type Readable } from 'node:stream';
import { parse } from 'csv-parse';
import { z } from 'zod';
import { resourceByType } from '../resources/registry.ts';
import { csvColumns } from './csv-cells.ts';
import { recordShape } from './records.ts';
import { UsageError } from './types.ts';
import { count } from '../words.ts';

export const EXPORT_FORMATS = ['ndjson', 'csv'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export interface ManifestEntry {
  /** The file's name in the directory: `<type>.<format>`. */
  file: string;
  rows: number;
  /** The fields of its records (CSV: made columns by ./csv-cells.ts csvColumns). */
  fields: string[];
  /** The file's SHA-256, in hex. */
  sha256?: string;
}

export interface Manifest {
  format: ExportFormat;
  exported_at: string;
  /** The change log's position when the snapshot was taken: follow `/changes?after=` it. */
  changes_cursor: string;
  types: Record<string, ManifestEntry>;
}

const manifestSchema = z.object({
  format: z.enum(['ndjson', 'csv']),
  exported_at: z.string(),
  changes_cursor: z.string().regex(/^\d+$/, 'must be digits'),
  types: z.record(
    z.string(),
    z.object({
      file: z.string(),
      rows: z.number().int().nonnegative(),
      fields: z.array(z.string()),
      sha256: z
        .string()
        .regex(/^[0-9a-f]{64}$/, 'must be 64 hex digits')
        .optional(),
    }),
  ),
}) satisfies z.ZodType<Manifest>;

/** The options both the check and the import read a CSV with: they count the same records. */
export const CSV_READING = { bom: true, skip_empty_lines: true } as const;

/** The lines of an NDJSON file that hold a record (blank ones do not), with their numbers: for the check and the import alike. */
export async function* ndjsonLines(input: Readable): AsyncIterable<{ line: string; number: number }> {
  let number = 0;
  for await (const line of createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY })) {
    number++;
    if (line.trim() !== '') yield { line, number };
  }
}

/** `DIR/manifest.json`, read and checked for its form. */
export function readManifest(dir: string): Manifest {
  const path = join(dir, 'manifest.json');
  if (!existsSync(path))
    throw new UsageError(`${dir} has no manifest.json: --from takes a directory \`npm run export\` wrote`);
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    throw new UsageError(`${path} is not JSON`);
  }
  const parsed = manifestSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new UsageError(`${path}: ${issue.path.join('.') || 'the manifest'} ${issue.message}`);
  }
  const manifest = parsed.data;
  const unknown = Object.keys(manifest.types).filter((type) => !resourceByType(type));
  if (unknown.length > 0) throw new UsageError(`${path} names unknown types: ${unknown.join(', ')}`);
  return manifest;
}

/**
 * Refuses (UsageError, exit code 2) a directory that is not what its manifest says: a file it
 * names that is missing, an export file it does not name, and, for the files of `types` (those
 * the import reads), a file whose rows, fields or SHA-256 are not the manifest's. Every such
 * file is named, with what it holds and what the manifest declares.
 */
export async function verifyDirectory(dir: string, manifest: Manifest, types: readonly string[]): Promise<void> {
  const problems: string[] = [];
  const named = new Set<string>();
  for (const [type, entry] of Object.entries(manifest.types)) {
    const expected = `${type}.${manifest.format}`;
    named.add(entry.file);
    if (entry.file !== expected)
      problems.push(`the manifest names ${JSON.stringify(entry.file)} for ${type}: an export writes ${expected}`);
    else if (!existsSync(join(dir, entry.file)) || !statSync(join(dir, entry.file)).isFile())
      problems.push(`${join(dir, entry.file)} is missing: the manifest declares ${count(entry.rows, 'row')} in it`);
    else if (types.includes(type)) problems.push(...(await verifyFile(dir, manifest.format, type, entry)));
  }
  for (const file of readdirSync(dir).filter((name) => /\.(ndjson|csv)$/i.test(name) && !named.has(name)))
    problems.push(
      `${join(dir, file)} is not in the manifest: it was put there after the export; move it out of the directory`,
    );
  if (problems.length > 0)
    throw new UsageError(
      `${dir} is not what its manifest.json says; nothing was imported:\n${problems.map((p) => `  ${p}`).join('\n')}`,
    );
}

/**
 * What is wrong with one file of the manifest, in the order it is worth saying: rows, fields, then
 * the digest. A file whose SHA-256 is the manifest's is the bytes the export wrote with those rows
 * and fields: it is only hashed (read as bytes, nothing parsed), and the import parses it once. A
 * file whose digest differs is read record by record to say what changed, and so is a file of an
 * export made before digests, which has only its rows and fields to be checked by.
 */
async function verifyFile(dir: string, format: ExportFormat, type: string, entry: ManifestEntry): Promise<string[]> {
  const path = join(dir, entry.file);
  const known = new Set(recordShape(type).fields);
  const unknown = entry.fields.filter((field) => !known.has(field));
  if (unknown.length > 0) return [`${path}: the manifest declares fields ${type} does not have: ${unknown.join(', ')}`];
  let digest: string | undefined;
  if (entry.sha256 !== undefined) {
    try {
      digest = await digestOf(path);
    } catch (error) {
      return [readProblem(path, error)];
    }
    if (digest === entry.sha256) return [];
  }
  const scan = format === 'csv' ? scanCsv(path, type, entry) : scanNdjson(path, entry);
  const { rows, problem } = await scan.catch((error: unknown) => ({
    rows: undefined,
    problem: readProblem(path, error),
  }));
  if (problem) return [problem];
  if (rows !== entry.rows) return [`${path} holds ${count(rows!, 'row')}, the manifest declares ${entry.rows}`];
  if (digest !== undefined)
    return [`${path} has SHA-256 ${digest}, the manifest declares ${entry.sha256}: it changed after the export`];
  return [];
}

/** The SHA-256 of the file's bytes, in hex. */
async function digestOf(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** The file's bytes into `reader`, which a read error ends with that error. */
function readInto<T extends Duplex>(path: string, reader: T): T {
  pipeline(createReadStream(path), reader, () => {});
  return reader;
}

async function scanNdjson(path: string, entry: ManifestEntry): Promise<{ rows: number; problem?: string }> {
  let rows = 0;
  let problem: string | undefined;
  const declared = new Set(entry.fields);
  for await (const { line, number } of ndjsonLines(readInto(path, new PassThrough()))) {
    rows++;
    if (problem) continue;
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      problem = `${path}:${number} is not JSON`;
      continue;
    }
    if (record === null || typeof record !== 'object' || Array.isArray(record))
      problem = `${path}:${number} is not a JSON object`;
    else {
      const fields = Object.keys(record);
      if (fields.length !== declared.size || !fields.every((field) => declared.has(field)))
        problem = fieldsProblem(`${path}:${number}`, 'fields', fields, entry.fields);
    }
  }
  return { rows, problem };
}

async function scanCsv(path: string, type: string, entry: ManifestEntry): Promise<{ rows: number; problem?: string }> {
  let rows = -1;
  let problem: string | undefined;
  const expected = csvColumns(type, entry.fields).map((column) => column.name);
  for await (const record of readInto(path, parse(CSV_READING)) as AsyncIterable<string[]>) {
    if (rows++ === -1) problem = fieldsProblem(path, 'columns', record, expected);
  }
  return { rows: Math.max(rows, 0), problem };
}

/** What a record's fields (a header's columns) lack and have beyond what the manifest declares, if anything. */
function fieldsProblem(
  at: string,
  what: string,
  given: readonly string[],
  declared: readonly string[],
): string | undefined {
  const missing = declared.filter((name) => !given.includes(name));
  const extra = given.filter((name) => !declared.includes(name));
  if (missing.length === 0 && extra.length === 0) return undefined;
  const parts = [
    missing.length > 0 && `lacks the ${what} ${missing.join(', ')}`,
    extra.length > 0 && `has ${what} the manifest does not declare: ${extra.join(', ')}`,
  ].filter(Boolean);
  return `${at} ${parts.join(' and ')}`;
}

/** A file that cannot be read through (a CSV that does not parse: CSV_*; a read error: E*), in a line. */
function readProblem(path: string, error: unknown): string {
  if (!(error instanceof Error && 'code' in error && /^(CSV_|E)/.test(String(error.code)))) throw error;
  return `${path}: ${error.message.split('\n')[0]!}`;
}
