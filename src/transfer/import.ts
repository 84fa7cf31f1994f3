/**
 * `npm run import`: every record of a source (./sources.ts, ./service-source.ts) checked and
 * written into the database, type after type in the order their links need (./records.ts).
 *
 * - Rows keep their ids, versions and dates (../data/import-writes.ts), one transaction per
 *   batch with the change-log entries of what it changed; a row already as the source has it is
 *   left alone. So a second run writes only what differs, and an interrupted run, run again,
 *   goes on from where it stopped.
 * - A CSV without an `id` column is matched on its business key instead, through the bulk
 *   upsert of the API (../data/bulk-writes.ts), new rows getting new ids.
 * - Every record is checked first: the type of each value, the clean-data rules (unless
 *   `acceptInvalid`: such rows are taken and listed), required fields, and that every link
 *   leads to a resource of the source or of the database. A batch with a problem is not written
 *   and the import stops there, naming each problem by type, id and field; `check` reads and
 *   checks everything, writes nothing and lists every problem.
 */
import { businessKey } from '../data/bulk-writes.ts';
import { definition } from '../data/columns.ts';
import { DomainErrors, RowError } from '../data/error-list.ts';
import { DomainError } from '../data/errors.ts';
import { type ImportRow, ImportWriter } from '../data/import-writes.ts';
import { valuesWhere } from '../data/rows.ts';
import { parseAttribute, ruleProblem } from '../data/validate.ts';
import type { WriteInput } from '../data/writes.ts';
import type { Database } from '../db/client.ts';
import { isId } from '../db/integers.ts';
import { id as quoted, Sql } from '../db/sql.ts';
import type { ResourceDefinition } from '../resources/types.ts';
import type { Progress } from './progress.ts';
import { missingOfNew } from './record-checks.ts';
import { importOrder, type TransferRecord } from './records.ts';
import type { ImportSource, SourcePage } from './sources.ts';

/** Something wrong with one record: where it is, which field, what. */
export interface Problem {
  type: string;
  /** The record's id, where it has one. */
  id?: number;
  /** Where it is in the source: a file's line, a service's URL. */
  at: string;
  field: string;
  message: string;
}

export interface TypeSummary {
  read: number;
  created: number;
  updated: number;
  unchanged: number;
}

export interface ImportSummary {
  source: string;
  /** `check`: nothing was written. */
  mode: 'import' | 'check';
  types: Record<string, TypeSummary>;
  /** What was refused: with these the import stopped (or, checking, what it would refuse). */
  problems: Problem[];
  /** Values the clean-data rules refuse, taken with --accept-invalid. */
  accepted: Problem[];
  seconds: number;
}

export interface ImportOptions {
  check?: boolean;
  acceptInvalid?: boolean;
  progress?: Progress;
}

/** Records written per transaction. */
const BATCH = 500;

export async function importData(
  db: Database,
  source: ImportSource,
  options: ImportOptions = {},
): Promise<ImportSummary> {
  const started = Date.now();
  const summary: ImportSummary = {
    source: source.name,
    mode: options.check ? 'check' : 'import',
    types: {},
    problems: [],
    accepted: [],
    seconds: 0,
  };
  const importer = new Importer(db, source, options, summary);
  for (const type of importOrder(source.types)) {
    if (!(await importer.importType(type))) break;
  }
  summary.seconds = (Date.now() - started) / 1000;
  return summary;
}

class Importer {
  /** The ids each type of the source has, as read so far: links to them are good before they are written (checking). */
  private readonly seen = new Map<string, Set<number>>();
  /** Where each business key of a source matched on them was first given, by type. */
  private readonly keys = new Map<string, Map<unknown, string>>();
  /** Who holds each unique value of the source read so far, by `type.attribute`. */
  private readonly uniques = new Map<string, Map<unknown, number>>();
  private readonly rows: ImportWriter;

  constructor(
    private readonly db: Database,
    private readonly source: ImportSource,
    private readonly options: ImportOptions,
    private readonly summary: ImportSummary,
  ) {
    this.rows = new ImportWriter(db, { takeRuleBreaks: options.acceptInvalid === true });
  }

  /** One type, batch by batch; false when it stopped on a problem. */
  async importType(type: string): Promise<boolean> {
    const progress = this.options.progress ?? (() => {});
    const counts: TypeSummary = { read: 0, created: 0, updated: 0, unchanged: 0 };
    this.summary.types[type] = counts;
    const total = await this.source.total(type);
    progress(type, 0, total ?? 0);
    let batch: SourcePage = { records: [], places: [] };
    for await (const page of this.source.pages(type)) {
      batch.records.push(...page.records);
      batch.places.push(...page.places);
      if (batch.records.length < BATCH) continue;
      if (!(await this.importBatch(type, batch, counts))) return false;
      progress(type, counts.read, Math.max(total ?? 0, counts.read));
      batch = { records: [], places: [] };
    }
    if (batch.records.length > 0 && !(await this.importBatch(type, batch, counts))) return false;
    progress(type, counts.read, Math.max(total ?? 0, counts.read));
    return true;
  }

  private async importBatch(type: string, batch: SourcePage, counts: TypeSummary): Promise<boolean> {
    const resource = definition(type);
    const checked = batch.records.map((record, i) => this.checkRecord(resource, record, batch.places[i]!));
    await this.resolveKeyedLinks(resource, checked);
    await this.checkLinks(resource, checked);
    if (this.source.keyed) await this.checkKeys(resource, checked);
    else await this.checkUniques(resource, checked);
    counts.read += batch.records.length;
    const problems = checked.flatMap((c) => c.problems);
    this.summary.problems.push(...problems);
    // Listed as accepted what was taken: checking, what would be; importing, what a batch written holds.
    const accepted = checked.flatMap((c) => c.accepted);
    if (this.options.check) {
      this.summary.accepted.push(...accepted);
      return true;
    }
    if (problems.length > 0) return false;
    const written = this.source.keyed
      ? await this.upsertByKey(resource, checked, counts)
      : await this.writeById(resource, checked, counts);
    if (written) this.summary.accepted.push(...accepted);
    return written;
  }

  /** A batch written under the source's ids; false (and the problem listed) when the database refused it. */
  private async writeById(resource: ResourceDefinition, checked: Checked[], counts: TypeSummary): Promise<boolean> {
    try {
      const written = await this.rows.importRows(
        resource.type,
        checked.map((c) => c.row),
      );
      counts.created += written.created;
      counts.updated += written.updated;
      counts.unchanged += written.unchanged;
      return true;
    } catch (error) {
      // What the checks could not see coming (a row written meanwhile by someone else): the batch is not written.
      if (!(error instanceof DomainError)) throw error;
      const at = `${checked[0]!.at} to ${checked.at(-1)!.at}`;
      this.summary.problems.push({ type: resource.type, at, field: error.field ?? '', message: error.message });
      return false;
    }
  }

  /** A record's values checked and put in the form writes take; its problems. */
  private checkRecord(resource: ResourceDefinition, record: TransferRecord, at: string): Checked {
    const type = resource.type;
    const checked: Checked = {
      row: { id: record.id ?? 0, version: record.version, values: {}, keys: {}, sets: {} },
      record,
      at,
      problems: [],
      accepted: [],
      links: [],
    };
    const problem = (field: string, message: string, list = checked.problems) =>
      list.push({ type, ...(record.id !== undefined && { id: record.id }), at, field, message });
    for (const field of record.unknown) problem(field, `${field} is not a field of ${type}`);
    if (!this.source.keyed) {
      if (!isId(record.id)) problem('id', `id must be a positive integer (got ${JSON.stringify(record.id)})`);
      else if (this.seenIds(type).has(record.id)) problem('id', `id ${record.id} is given twice`);
      else this.seenIds(type).add(record.id);
    }
    if (record.version !== undefined && record.version !== null && !isId(record.version))
      problem('version', `version must be a positive integer (got ${JSON.stringify(record.version)})`);
    for (const [name, value] of Object.entries(record.attributes)) {
      const attribute = resource.attributes[name]!;
      if (attribute.write === 'server') {
        if (attribute.type !== 'datetime' || value === null || value === undefined) continue;
        const date = new Date(String(value));
        if (typeof value !== 'string' || Number.isNaN(date.getTime()))
          problem(name, `${name} must be a date-time (got ${JSON.stringify(value)})`);
        else checked.row.values[name] = date;
        continue;
      }
      try {
        const parsed = parseAttribute(attribute, value, name);
        const rule = ruleProblem(attribute, parsed);
        if (rule) problem(name, `${name} ${rule}`, this.options.acceptInvalid ? checked.accepted : checked.problems);
        checked.row.values[name] = parsed;
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        problem(error.field ?? name, error.message);
      }
    }
    // Matched on a business key, a row may give only what changes: new rows are asked the rest (checkKeys).
    if (!this.source.keyed) for (const [field, message] of missingOfNew(resource, record)) problem(field, message);
    this.checkRecordLinks(resource, checked, problem);
    return checked;
  }

  /** The record's links in the form writes take them (foreign keys, sets of ids), and the targets to look for. */
  private checkRecordLinks(
    resource: ResourceDefinition,
    checked: Checked,
    problem: (field: string, message: string) => void,
  ): void {
    const { record, row } = checked;
    for (const [name, relationship] of Object.entries(resource.relationships)) {
      const value = record.links[name];
      if (relationship.storage.kind === 'join') {
        if (value === undefined) continue;
        if (!Array.isArray(value) || !value.every(isId)) {
          problem(`${name}_ids`, `${name}_ids must be a list of ids (got ${JSON.stringify(value)})`);
          continue;
        }
        row.sets[name] = value as number[];
        for (const target of value as number[])
          checked.links.push({ type: relationship.target, id: target, field: `${name}_ids` });
      } else if (relationship.storage.kind === 'foreignKey') {
        if (name in record.keyedLinks) continue;
        if (value === undefined) continue;
        if (value !== null && !isId(value))
          problem(`${name}_id`, `${name}_id must be an id (got ${JSON.stringify(value)})`);
        else row.keys[relationship.storage.column] = value as number | null;
        if (isId(value)) checked.links.push({ type: relationship.target, id: value, field: `${name}_id` });
      }
    }
    for (const [name, owner] of Object.entries(resource.ownerLinks ?? {})) {
      const value = record.links[name];
      if (!isId(value)) {
        problem(
          `${name}_id`,
          `${name}_id must be the id of its owner, one of the ${owner.target} (got ${JSON.stringify(value ?? null)})`,
        );
        continue;
      }
      row.keys[owner.column] = value;
      checked.links.push({ type: owner.target, id: value, field: `${name}_id` });
    }
  }

  /** Links given by business key (`unit.reference`): the ids of the rows of the database that have them. */
  private async resolveKeyedLinks(resource: ResourceDefinition, checked: Checked[]): Promise<void> {
    for (const [name, relationship] of Object.entries(resource.relationships)) {
      if (relationship.storage.kind !== 'foreignKey') continue;
      const keyed = checked.filter(
        (c) => c.record.keyedLinks[name] !== undefined && c.record.keyedLinks[name] !== null,
      );
      if (keyed.length === 0) continue;
      const column = relationship.storage.column;
      const target = definition(relationship.target);
      const key = businessKey(target);
      if (!key) {
        for (const c of keyed)
          c.problems.push(
            this.problemOf(resource, c, `${name}.`, `${relationship.target} have no business key: give ${name}_id`),
          );
        continue;
      }
      const keyColumn = target.attributes[key]!.column;
      const values = [...new Set(keyed.map((c) => String(c.record.keyedLinks[name])))];
      const found = new Map<string, number>();
      const sql = new Sql(this.db.provider)
        .text(`SELECT "id", ${quoted(keyColumn)} AS "k" FROM ${quoted(target.type)} WHERE ${quoted(keyColumn)}`)
        .in(values);
      for (const row of await this.db.primary.query<{ id: unknown; k: unknown }>(sql))
        found.set(String(row.k), Number(row.id));
      for (const c of keyed) {
        const value = String(c.record.keyedLinks[name]);
        const targetId = found.get(value);
        if (targetId === undefined)
          c.problems.push(
            this.problemOf(
              resource,
              c,
              `${name}.${key}`,
              `${name}.${key}: none of the ${relationship.target} has ${key} ${JSON.stringify(value)}`,
            ),
          );
        else c.row.keys[column] = targetId;
      }
    }
  }

  /** Every link leads to a resource the source gave or the database has: else a dangling reference. */
  private async checkLinks(resource: ResourceDefinition, checked: Checked[]): Promise<void> {
    const byType = new Map<string, Set<number>>();
    for (const c of checked)
      for (const link of c.links)
        if (!this.seen.get(link.type)?.has(link.id))
          byType.get(link.type)?.add(link.id) ?? byType.set(link.type, new Set([link.id]));
    const missing = new Map<string, Set<number>>();
    for (const [type, ids] of byType) {
      const found = new Set(await valuesWhere(this.db.primary, type, 'id', { id: [...ids] }));
      missing.set(type, new Set([...ids].filter((id) => !found.has(id))));
    }
    for (const c of checked)
      for (const link of c.links)
        if (missing.get(link.type)?.has(link.id))
          c.problems.push(
            this.problemOf(
              resource,
              c,
              link.field,
              `${link.field}: dangling reference, ${link.type} ${link.id} does not exist`,
            ),
          );
  }

  /**
   * A unique value (a reference, a GTIN) held by another resource: of the source (given twice) or
   * of the database (a row under another id), which the copy cannot take.
   */
  private async checkUniques(resource: ResourceDefinition, checked: Checked[]): Promise<void> {
    for (const [name, attribute] of Object.entries(resource.attributes)) {
      if (!attribute.unique || attribute.write !== 'client') continue;
      let holders = this.uniques.get(`${resource.type}.${name}`);
      if (!holders) this.uniques.set(`${resource.type}.${name}`, (holders = new Map()));
      const given = checked.filter((c) => (c.row.values[name] ?? null) !== null);
      if (given.length === 0) continue;
      const sql = new Sql(this.db.provider)
        .text(
          `SELECT "id", ${quoted(attribute.column)} AS "v" FROM ${quoted(resource.type)} WHERE ${quoted(attribute.column)}`,
        )
        .in([...new Set(given.map((c) => c.row.values[name]))]);
      const stored = new Map<unknown, number>();
      for (const row of await this.db.primary.query<{ id: unknown; v: unknown }>(sql))
        stored.set(row.v, Number(row.id));
      for (const c of given) {
        const value = c.row.values[name];
        const other = holders.get(value) ?? stored.get(value);
        if (other !== undefined && other !== c.row.id)
          c.problems.push(
            this.problemOf(
              resource,
              c,
              name,
              `${name} ${JSON.stringify(value)} is already held by ${resource.type} ${other}`,
            ),
          );
        else holders.set(value, c.row.id);
      }
    }
  }

  /**
   * Rows matched on their business key, as the upsert will take them: each key given, and given
   * once in the source; a row whose key no resource has (a new one) with what a new one must have.
   */
  private async checkKeys(resource: ResourceDefinition, checked: Checked[]): Promise<void> {
    const key = businessKey(resource)!;
    const column = resource.attributes[key]!.column;
    let first = this.keys.get(resource.type);
    if (!first) this.keys.set(resource.type, (first = new Map()));
    const values = [...new Set(checked.map((c) => c.row.values[key] ?? null).filter((v) => v !== null))];
    const sql = new Sql(this.db.provider)
      .text(`SELECT ${quoted(column)} AS "v" FROM ${quoted(resource.type)} WHERE ${quoted(column)}`)
      .in(values);
    const stored = new Set(
      values.length === 0 ? [] : (await this.db.primary.query<{ v: unknown }>(sql)).map((r) => r.v),
    );
    for (const c of checked) {
      const value = c.row.values[key] ?? null;
      const problem = (field: string, message: string) => c.problems.push(this.problemOf(resource, c, field, message));
      if (value === null) {
        // A key of the wrong type, or null where it cannot be, is named already.
        if (!c.problems.some((p) => p.field === key)) problem(key, `${key} is required: rows are matched on it`);
      } else if (first.has(value))
        problem(key, `${key} ${JSON.stringify(value)} is given twice (first at ${first.get(value)})`);
      else {
        first.set(value, c.at);
        if (!stored.has(value))
          for (const [field, message] of missingOfNew(resource, c.record)) problem(field, message);
      }
    }
  }

  private problemOf(resource: ResourceDefinition, c: Checked, field: string, message: string): Problem {
    return {
      type: resource.type,
      ...(c.record.id !== undefined && { id: c.record.id }),
      at: c.at,
      field,
      message,
    };
  }

  private seenIds(type: string): Set<number> {
    let ids = this.seen.get(type);
    if (!ids) this.seen.set(type, (ids = new Set()));
    return ids;
  }

  /** A CSV without ids: each batch upserted on the business key as `upsert<Types>` does it. */
  private async upsertByKey(resource: ResourceDefinition, checked: Checked[], counts: TypeSummary): Promise<boolean> {
    const inputs: WriteInput[] = checked.map(({ record, row }) => ({
      attributes: Object.fromEntries(
        Object.entries(record.attributes).filter(([name]) => resource.attributes[name]!.write === 'client'),
      ),
      relationships: {
        ...Object.fromEntries(
          Object.entries(resource.relationships)
            .filter(([, r]) => r.storage.kind === 'foreignKey')
            .map(([name, r]) => [name, row.keys[(r.storage as { column: string }).column]])
            .filter(([, value]) => value !== undefined),
        ),
        ...Object.fromEntries(Object.entries(row.sets).map(([name, set]) => [name, { set }])),
      },
    }));
    try {
      // Rows named by their place in the source: what the upsert says of a row without its index (below) reads right too.
      const results = await this.rows.upsertMany(resource.type, inputs, {
        row: (i) => checked[i]!.at,
        fields: (i) => `${checked[i]!.at}: `,
      });
      for (const { outcome } of results) counts[outcome]++;
      return true;
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      // The upsert names every row it refuses (several as DomainErrors): each is listed, past the hundred an answer shows too.
      const errors = error instanceof DomainErrors ? error.all : [error];
      this.summary.problems.push(...errors.map((e) => keyedProblem(resource, checked, e)));
      return false;
    }
  }
}

interface Checked {
  row: ImportRow;
  record: TransferRecord;
  /** Where the record is in the source. */
  at: string;
  problems: Problem[];
  accepted: Problem[];
  /** The resources it links to, each with the field that names it. */
  links: { type: string; id: number; field: string }[];
}

/**
 * What the upsert refused, said as a record's problem: the row its index names, with the field and
 * message the rules gave. An error without a row (one the database met as a row was written, not
 * foreseen) names the batch, and says the row in its message.
 */
function keyedProblem(resource: ResourceDefinition, checked: readonly Checked[], error: DomainError): Problem {
  if (!(error instanceof RowError))
    return {
      type: resource.type,
      at: `${checked[0]!.at} to ${checked.at(-1)!.at}`,
      field: error.field ?? '',
      message: error.message,
    };
  const { record, at } = checked[error.row]!;
  const { field = '', message } = error.unplaced;
  return { type: resource.type, ...(record.id !== undefined && { id: record.id }), at, field, message };
}
