/**
 * Bulk writes: many rows of one type created, updated or upserted (matched on the type's business
 * key) in one transaction, all or nothing. Each row goes through the rules of a single write
 * (./writes.ts: validation, links that must exist, the role's fields and rows, versions, one log
 * entry per changed resource), and every bad row is named, in one answer (`inputs[17].unit`,
 * `inputs[412].gtin`: ./bulk-problems.ts), so that the bad rows among a thousand are found at
 * once and nothing is written.
 *
 * The links of all rows are checked together (one statement per linked type), the rows to update
 * are read and locked together, in id order, and the log's entries are appended in one statement.
 * Finding every bad row costs a write that has none no statement more.
 */
import { authorizeWrite, requireCheck, rowsFor } from './authorize.ts';
import { BomWriter } from './bom-writes.ts';
import type { ChangeRecorder } from './change-log.ts';
import { definition, idsKey } from './columns.ts';
import { DomainError, missingField, notFound } from './errors.ts';
import { ofRow, refuseTakenValues, type RowPaths, RowProblems, type RowWrite } from './bulk-problems.ts';
import type { Row } from './load.ts';
import { checkPreconditions } from './preconditions.ts';
import { RequestLoaders } from './request.ts';
import { asRead, changedColumns, withModifiedDate, withServerDates } from './row-values.ts';
import { insertRows, lockedRows, updateRow, valuesWhere } from './rows.ts';
import { id as quoted, Sql } from '../db/sql.ts';
import type { WriteTx } from '../db/transactions.ts';
import type { ResourceDefinition } from '../resources/types.ts';
import { LinkTargets } from './relationship-rules.ts';
import type { Prepared, WriteInput, WriteOptions } from './writes.ts';

/** Most rows one bulk write takes (data-in contract): its cost is like that of as many fields. */
export const MAX_BULK_ROWS = 1000;

/** The attributes an upsert matches rows on, by the first a type has as a unique attribute. */
const BUSINESS_KEYS = ['reference', 'username', 'alpha_2_code', 'alpha_3_code'] as const;

/** The business key of a type (`reference`, ...), or undefined when it has none (no upsert). */
export function businessKey(resource: ResourceDefinition): string | undefined {
  return BUSINESS_KEYS.find(
    (name) => resource.attributes[name]?.unique && resource.attributes[name]?.write === 'client',
  );
}

export interface BulkUpdate {
  id: number;
  input: WriteInput;
  options?: WriteOptions;
}

export type UpsertOutcome = 'created' | 'updated' | 'unchanged';

/** Rows given as a list of inputs (`inputs[3].unit`). */
const inputsAt = (name: string): RowPaths => ({ row: (i) => `${name}[${i}]`, fields: (i) => `${name}[${i}].` });

/** Rows given as a list of updates, each with its input (`updates[3].input.unit`). */
const updatesAt = (name: string): RowPaths => ({
  row: (i) => `${name}[${i}]`,
  fields: (i) => `${name}[${i}].input.`,
});

async function atRow<T>(type: string, paths: RowPaths, index: number, work: () => Promise<T> | T): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw ofRow(error, type, index, paths);
  }
}

function checkCount(count: number, paths: RowPaths): void {
  if (count > MAX_BULK_ROWS)
    throw new DomainError(
      'bad_input',
      `${paths.row(MAX_BULK_ROWS)}: a bulk write takes at most ${MAX_BULK_ROWS} rows (got ${count})`,
      paths.row(MAX_BULK_ROWS),
    );
}

/** The writes both surfaces use, with the bulk ones. */
export class BulkWriter extends BomWriter {
  /** createX for each input, in one transaction: the new ids, in input order. */
  createMany(type: string, inputs: readonly WriteInput[], paths = inputsAt('inputs')): Promise<number[]> {
    const resource = definition(type);
    const { access } = this.caller;
    checkCount(inputs.length, paths);
    const problems = new RowProblems(type, paths);
    const writes: RowWrite[] = [];
    const write = () =>
      this.transaction(
        type,
        async (tx, log) => {
          for (const [i, input] of inputs.entries())
            problems.check(i, () => authorizeWrite(access, type, 'create', input));
          const prepared = await this.prepareRows(tx, resource, inputs, [], problems);
          writes.push(...rowWrites(prepared, []));
          await refuseRows(tx, resource, writes, problems);
          const ids = await this.insertMany(tx, resource, [...prepared.keys()], prepared as Prepared[], problems);
          log.created(type, ids);
          return ids;
        },
        (tx, ids) => requireCheck(tx, access, type, ids, 'create'),
      );
    return this.namingEveryTakenValue(resource, writes, problems, write);
  }

  /** updateX for each row, in one transaction: the rows as they now are, in input order. */
  updateMany(type: string, updates: readonly BulkUpdate[], paths = updatesAt('updates')): Promise<Row[]> {
    const resource = definition(type);
    const { access } = this.caller;
    checkCount(updates.length, paths);
    const problems = new RowProblems(type, paths);
    refuseRepeats(
      updates.map((u) => u.id),
      (i) => `${paths.row(i)}.id`,
      problems,
    );
    const writes: RowWrite[] = [];
    const changed: number[] = [];
    const write = () =>
      this.transaction(
        type,
        async (tx, log) => {
          const ids = updates.map((u) => u.id);
          const current = await this.lockedByIds(tx, resource, ids);
          // The rows the role may update, in one statement: a row outside them is not found (before
          // anything is said of its version), as for a single update.
          const updatable = new Set(await rowsFor(tx, access, type, ids, 'update'));
          for (const [i, update] of updates.entries()) {
            problems.check(i, () => {
              authorizeWrite(access, type, 'update', update.input);
              if (!current[i] || !updatable.has(update.id)) throw notFound(type, update.id, `${paths.row(i)}.id`);
              checkPreconditions(resource, current[i]!, update.options ?? {});
            });
          }
          const rows = current as Row[];
          const inputs = updates.map((u) => u.input);
          const prepared = await this.prepareRows(tx, resource, inputs, rows, problems);
          writes.push(...rowWrites(prepared, rows));
          await refuseRows(tx, resource, writes, problems);
          const now: Row[] = [];
          for (const [i, data] of (prepared as Prepared[]).entries()) {
            const row = await atRow(type, paths, i, () => this.updatePrepared(tx, log, resource, rows[i]!, data));
            if (row !== rows[i]) changed.push(row.id);
            now.push(row);
          }
          return now;
        },
        (tx) => requireCheck(tx, access, type, changed, 'update'),
      );
    return this.namingEveryTakenValue(resource, writes, problems, write);
  }

  /**
   * upsertX: each input matched on the type's business key: created when no row has it, updated
   * when one does, left alone (no new version, no log entry) when it would not change. In one
   * transaction; the ids and what became of each row, in input order.
   */
  upsertMany(
    type: string,
    inputs: readonly WriteInput[],
    paths = inputsAt('inputs'),
  ): Promise<{ id: number; outcome: UpsertOutcome }[]> {
    const resource = definition(type);
    const key = businessKey(resource);
    if (!key) throw new Error(`${type} has no business key to upsert on`);
    checkCount(inputs.length, paths);
    const problems = new RowProblems(type, paths);
    const keys = inputs.map((input, i) => {
      const value = input.attributes?.[key];
      if (value === undefined || value === null) problems.add(i, missingField(key));
      return value;
    });
    refuseRepeats(keys, (i) => `${paths.fields(i)}${key}`, problems);
    const writes: RowWrite[] = [];
    const write = () =>
      this.transaction(
        type,
        async (tx, log) => {
          const current = await this.matched(tx, resource, key, keys, problems);
          for (const [i, input] of inputs.entries()) {
            // The key that matched is not a field the update sets.
            const { [key]: _matched, ...attributes } = input.attributes ?? {};
            const given = current[i] ? { ...input, attributes } : input;
            problems.check(i, () => authorizeWrite(this.caller.access, type, current[i] ? 'update' : 'create', given));
          }
          const prepared = await this.prepareRows(tx, resource, inputs, current, problems);
          // The rows that exist first, then the new ones: a unique value (a GTIN) an update moves
          // off one row is free for a new row of the same call.
          const existing = rowWrites(prepared, current);
          writes.push(...existing.filter((w) => w.current), ...existing.filter((w) => !w.current));
          await refuseRows(tx, resource, writes, problems);
          return this.upsertPrepared(tx, log, resource, prepared as Prepared[], current, problems);
        },
        async (tx, results) => {
          const ids = (outcome: UpsertOutcome) => results.filter((r) => r.outcome === outcome).map((r) => r.id);
          await requireCheck(tx, this.caller.access, type, ids('created'), 'create');
          await requireCheck(tx, this.caller.access, type, ids('updated'), 'update');
        },
      );
    return this.namingEveryTakenValue(resource, writes, problems, write);
  }

  /**
   * The stored rows the inputs of an upsert match on their keys (undefined where none does, and
   * for a row refused already), read whole and locked.
   */
  private async matched(
    tx: WriteTx,
    resource: ResourceDefinition,
    key: string,
    keys: readonly unknown[],
    problems: RowProblems,
  ): Promise<(Row | undefined)[]> {
    const { type } = resource;
    const { access } = this.caller;
    const column = resource.attributes[key]!.column;
    const given = keys.filter((_k, i) => !problems.has(i));
    // A key held by a row the role may not update is no match: the insert then meets the key
    // taken (409), as createX would, and says nothing of that row.
    const ids =
      given.length === 0
        ? []
        : await rowsFor(tx, access, type, await valuesWhere(tx, type, 'id', { [column]: given as never }), 'update');
    const stored = new Map((await this.lockedByIds(tx, resource, ids)).map((row) => [row![column], row!] as const));
    return keys.map((k, i) => (problems.has(i) ? undefined : stored.get(k)));
  }

  /** An upsert's rows written, those that exist first, then the new ones: what became of each, in input order. */
  private async upsertPrepared(
    tx: WriteTx,
    log: ChangeRecorder,
    resource: ResourceDefinition,
    prepared: readonly Prepared[],
    current: readonly (Row | undefined)[],
    problems: RowProblems,
  ): Promise<{ id: number; outcome: UpsertOutcome }[]> {
    const { type } = resource;
    const results: { id: number; outcome: UpsertOutcome }[] = [];
    for (const [i, data] of prepared.entries()) {
      const before = current[i];
      if (!before) continue;
      results[i] = await atRow(type, problems.paths, i, async () => {
        const now = await this.updatePrepared(tx, log, resource, before, data);
        return { id: now.id, outcome: now === before ? ('unchanged' as const) : ('updated' as const) };
      });
    }
    const fresh = [...prepared.keys()].filter((i) => !current[i]);
    const createdIds = await this.insertMany(tx, resource, fresh, prepared, problems);
    for (const [k, i] of fresh.entries()) results[i] = { id: createdIds[k]!, outcome: 'created' };
    log.created(type, createdIds);
    return results;
  }

  /**
   * The new rows `indexes` of `prepared`, inserted: their ids, in that order. On PostgreSQL
   * together, ids taken from the sequence first, then one statement per set of columns (500 rows
   * each), after the unique values were checked (so that a taken one names its row, as a row's
   * own statement would: every one); on SQLite, in-process, one statement a row.
   */
  private async insertMany(
    tx: WriteTx,
    resource: ResourceDefinition,
    indexes: readonly number[],
    prepared: readonly Prepared[],
    problems: RowProblems,
  ): Promise<number[]> {
    const type = resource.type;
    if (tx.provider !== 'postgresql' || indexes.length < 2) {
      const ids: number[] = [];
      for (const i of indexes)
        ids.push(await atRow(type, problems.paths, i, () => this.insertPrepared(tx, resource, prepared[i]!)));
      return ids;
    }
    const writes = indexes.map((index) => ({ index, columns: prepared[index]!.columns }));
    await refuseTakenValues(tx, resource, writes, problems);
    problems.throwAll();
    const sequence = new Sql(tx.provider)
      .text(`SELECT nextval(pg_get_serial_sequence('${quoted(type)}', 'id'))::int AS "id" FROM generate_series(1, `)
      .value(indexes.length)
      .text('::int)');
    const ids = (await tx.query<{ id: unknown }>(sequence)).map((row) => Number(row.id));
    const byShape = new Map<string, Record<string, unknown>[]>();
    for (const [k, i] of indexes.entries()) {
      const row = { id: ids[k], ...withServerDates(resource, prepared[i]!.columns) };
      const shape = Object.keys(row).join(',');
      byShape.get(shape)?.push(row) ?? byShape.set(shape, [row]);
    }
    for (const rows of byShape.values()) await insertRows(tx, type, rows);
    for (const [k, i] of indexes.entries())
      if (prepared[i]!.toMany.length > 0) await this.applyToMany(tx, resource, ids[k]!, prepared[i]!.toMany, undefined);
    return ids;
  }

  /** Rows by id, read whole and locked, in id order (two bulk writes lock in one order: no deadlock); in the order asked. */
  private async lockedByIds(
    tx: WriteTx,
    resource: ResourceDefinition,
    ids: readonly number[],
  ): Promise<(Row | null)[]> {
    const sorted = [...new Set(ids)].sort((a, b) => a - b);
    const rows = await lockedRows(tx, resource.type, sorted, RequestLoaders.columns(resource.type));
    const byId = new Map(rows.filter((r): r is Row => r !== null).map((r) => [r.id, r]));
    return ids.map((id) => byId.get(id) ?? null);
  }

  /**
   * Each row's input checked (its current row when it exists), then the links of all of them,
   * together: the rows as prepared, undefined for a row refused (now or before).
   */
  private async prepareRows(
    tx: WriteTx,
    resource: ResourceDefinition,
    inputs: readonly WriteInput[],
    current: readonly (Row | null | undefined)[],
    problems: RowProblems,
  ): Promise<(Prepared | undefined)[]> {
    const links: LinkTargets[] = [];
    const prepared = inputs.map((input, i) =>
      problems.check(i, () => {
        links[i] = new LinkTargets();
        return this.check(resource, input, current[i] ?? undefined, links[i], problems.paths.fields(i));
      }),
    );
    const targets = new LinkTargets();
    for (const [i, row] of links.entries())
      if (row && !problems.has(i))
        for (const [type, fields] of row.byType) for (const [id, field] of fields) targets.add(type, id, field);
    const missing = new Set<string>();
    for await (const { type, id } of this.missingLinks(tx, targets)) missing.add(`${type} ${id}`);
    // Every row that links to what does not exist, each by its first such field.
    for (const [i, row] of links.entries())
      for (const [type, fields] of row?.byType ?? [])
        for (const [id, field] of fields) if (missing.has(`${type} ${id}`)) problems.add(i, notFound(type, id, field));
    return prepared.map((data, i) => (problems.has(i) ? undefined : data));
  }

  /**
   * `write`, a bulk write's transaction. When the database refuses a row's unique value as it is
   * written (on PostgreSQL that ends the transaction: the rows after it are never tried), every
   * row that would have met a taken value is named, worked out once the transaction is rolled back.
   */
  private async namingEveryTakenValue<T>(
    resource: ResourceDefinition,
    writes: readonly RowWrite[],
    problems: RowProblems,
    write: () => Promise<T>,
  ): Promise<T> {
    try {
      return await write();
    } catch (error) {
      // Problems found before the writes were thrown whole already.
      if (!(error instanceof DomainError) || error.kind !== 'conflict' || problems.any || writes.length < 2)
        throw error;
      await refuseTakenValues(this.db.primary, resource, writes, problems);
      problems.throwAll();
      throw error;
    }
  }

  /** One row's update as prepared: the row as it now is, or `current` itself when nothing changed. */
  private async updatePrepared(
    tx: WriteTx,
    log: ChangeRecorder,
    resource: ResourceDefinition,
    current: Row,
    data: Prepared,
  ): Promise<Row> {
    const columns = changedColumns(data.columns, current);
    const links = await this.applyToMany(tx, resource, current.id, data.toMany, current);
    if (links.size === 0 && Object.keys(columns).length === 0) return current;
    const written = withModifiedDate(resource, { ...columns, version: (current.version as number) + 1 });
    return this.writeRow(tx, log, resource, current, written, links);
  }

  /** Writes `written` (the next version's values) on a stored row read whole, with its log entry; the row as it now is. */
  protected async writeRow(
    tx: WriteTx,
    log: ChangeRecorder,
    resource: ResourceDefinition,
    current: Row,
    written: Record<string, unknown>,
    links: Map<string, number[]>,
  ): Promise<Row> {
    await updateRow(tx, resource.type, current.id, written);
    const now: Row = { ...current, ...asRead(resource, written) };
    for (const [name, ids] of links) now[idsKey(name)] = ids;
    log.before(resource.type, [current]);
    log.after(resource.type, [now]);
    return now;
  }
}

/** Refuses each row that gives a value (an id, a business key) an earlier row gave, naming both. */
function refuseRepeats(values: readonly unknown[], field: (index: number) => string, problems: RowProblems): void {
  const first = new Map<unknown, number>();
  for (const [i, value] of values.entries()) {
    if (problems.has(i)) continue;
    const earlier = first.get(value);
    if (earlier === undefined) first.set(value, i);
    else
      problems.add(
        i,
        new DomainError(
          'bad_input',
          `${field(i)} ${JSON.stringify(value)} repeats ${field(earlier)}: give each row once`,
          field(i),
        ),
      );
  }
}

/** The rows prepared (those not refused), as they are written: their columns and the stored rows they change. */
function rowWrites(
  prepared: readonly (Prepared | undefined)[],
  current: readonly (Row | null | undefined)[],
): RowWrite[] {
  return prepared.flatMap((data, index) =>
    data ? [{ index, columns: data.columns, current: current[index] ?? undefined }] : [],
  );
}

/** When some row is refused: the values the others would take are checked too, then every problem is thrown. */
async function refuseRows(
  tx: WriteTx,
  resource: ResourceDefinition,
  writes: readonly RowWrite[],
  problems: RowProblems,
): Promise<void> {
  if (!problems.any) return;
  await refuseTakenValues(tx, resource, writes, problems);
  problems.throwAll();
}
