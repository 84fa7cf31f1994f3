/**
 * Bulk writes: many rows of one type created, updated or upserted (matched on the type's business
 * key) in one transaction, all or nothing. Each row goes through the rules of a single write
 * (./writes.ts: validation, links that must exist, the role's fields and rows, versions, one log
 * entry per changed resource), and an error names the row it is about (`inputs[17].unit`), so
 * that one bad row among a thousand is found at once and nothing is written.
 *
 * The links of all rows are checked together (one statement per linked type), the rows to update
 * are read and locked together, in id order, and the log's entries are appended in one statement.
 */
import { authorizeWrite, requireCheck, rowsFor } from './authorize.ts';
import { BomWriter } from './bom-writes.ts';
import type { ChangeRecorder } from './change-log.ts';
import { definition, idsKey } from './columns.ts';
import { DomainError, missingField, notFound, uniqueViolation } from './errors.ts';
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

/** Where a bulk write's rows are in the request, for messages: `inputs[3].` and the like. */
export interface RowPaths {
  /** The row (`inputs[3]`). */
  row(index: number): string;
  /** The prefix of the row's fields (`inputs[3].`, `updates[3].input.`). */
  fields(index: number): string;
}

/** Rows given as a list of inputs (`inputs[3].unit`). */
const inputsAt = (name: string): RowPaths => ({ row: (i) => `${name}[${i}]`, fields: (i) => `${name}[${i}].` });

/** Rows given as a list of updates, each with its input (`updates[3].input.unit`). */
const updatesAt = (name: string): RowPaths => ({
  row: (i) => `${name}[${i}]`,
  fields: (i) => `${name}[${i}].input.`,
});

/**
 * A domain error about one row, said of it: its field prefixed with the row's path (when the
 * rules did not name the row already), a storage error (a duplicate key) turned into one first.
 */
function ofRow(error: unknown, type: string, path: string, fields: string): unknown {
  const domain = uniqueViolation(error, type) ?? error;
  if (!(domain instanceof DomainError)) return domain;
  if (domain.field?.startsWith(path)) return domain;
  const field = domain.field ? fields + domain.field : path;
  const startsWithField =
    domain.field !== undefined &&
    domain.message.startsWith(domain.field) &&
    /^[\s:.]/.test(domain.message.slice(domain.field.length));
  const message = startsWithField ? fields + domain.message : `${path}: ${domain.message}`;
  return new DomainError(domain.kind, message, field, domain.resource, domain.reason, domain.currentVersion);
}

async function atRow<T>(type: string, paths: RowPaths, index: number, work: () => Promise<T> | T): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw ofRow(error, type, paths.row(index), paths.fields(index));
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
    return this.transaction(
      type,
      async (tx, log) => {
        for (const [i, input] of inputs.entries())
          await atRow(type, paths, i, () => authorizeWrite(access, type, 'create', input));
        const prepared = await this.prepareRows(tx, resource, inputs, [], paths);
        const ids = await this.insertMany(tx, resource, [...prepared.keys()], prepared, paths);
        log.created(type, ids);
        return ids;
      },
      (tx, ids) => requireCheck(tx, access, type, ids, 'create'),
    );
  }

  /** updateX for each row, in one transaction: the rows as they now are, in input order. */
  updateMany(type: string, updates: readonly BulkUpdate[], paths = updatesAt('updates')): Promise<Row[]> {
    const resource = definition(type);
    const { access } = this.caller;
    checkCount(updates.length, paths);
    refuseRepeats(
      updates.map((u) => u.id),
      (i) => `${paths.row(i)}.id`,
    );
    const changed: number[] = [];
    return this.transaction(
      type,
      async (tx, log) => {
        const ids = updates.map((u) => u.id);
        const current = await this.lockedByIds(tx, resource, ids);
        // The rows the role may update, in one statement: a row outside them is not found (before
        // anything is said of its version), as for a single update.
        const updatable = new Set(await rowsFor(tx, access, type, ids, 'update'));
        for (const [i, update] of updates.entries()) {
          await atRow(type, paths, i, () => {
            authorizeWrite(access, type, 'update', update.input);
            if (!current[i] || !updatable.has(update.id)) throw notFound(type, update.id, `${paths.row(i)}.id`);
            checkPreconditions(resource, current[i]!, update.options ?? {});
          });
        }
        const rows = current as Row[];
        const prepared = await this.prepareRows(
          tx,
          resource,
          updates.map((u) => u.input),
          rows,
          paths,
        );
        const now: Row[] = [];
        for (const [i, data] of prepared.entries()) {
          const row = await atRow(type, paths, i, () => this.updatePrepared(tx, log, resource, rows[i]!, data));
          if (row !== rows[i]) changed.push(row.id);
          now.push(row);
        }
        return now;
      },
      (tx) => requireCheck(tx, access, type, changed, 'update'),
    );
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
    const { access } = this.caller;
    checkCount(inputs.length, paths);
    const keys = inputs.map((input, i) => {
      const value = input.attributes?.[key];
      if (value === undefined || value === null) throw missingField(`${paths.fields(i)}${key}`);
      return value;
    });
    refuseRepeats(keys, (i) => `${paths.fields(i)}${key}`);
    const done = { created: [] as number[], updated: [] as number[] };
    return this.transaction(
      type,
      async (tx, log) => {
        const column = resource.attributes[key]!.column;
        // A key held by a row the role may not update is no match: the insert then meets the key
        // taken (409), as createX would, and says nothing of that row.
        const ids = await rowsFor(
          tx,
          access,
          type,
          await valuesWhere(tx, type, 'id', { [column]: keys as never }),
          'update',
        );
        const stored = new Map((await this.lockedByIds(tx, resource, ids)).map((row) => [row![column], row!] as const));
        const current = keys.map((k) => stored.get(k));
        for (const [i, input] of inputs.entries()) {
          // The key that matched is not a field the update sets.
          const { [key]: _matched, ...attributes } = input.attributes ?? {};
          const given = current[i] ? { ...input, attributes } : input;
          await atRow(type, paths, i, () => authorizeWrite(access, type, current[i] ? 'update' : 'create', given));
        }
        const prepared = await this.prepareRows(tx, resource, inputs, current, paths);
        // The rows that exist first, then the new ones: a unique value (a GTIN) an update moves
        // off one row is free for a new row of the same call.
        const results: { id: number; outcome: UpsertOutcome }[] = [];
        for (const [i, data] of prepared.entries()) {
          const before = current[i];
          if (!before) continue;
          results[i] = await atRow(type, paths, i, async () => {
            const now = await this.updatePrepared(tx, log, resource, before, data);
            return { id: now.id, outcome: now === before ? ('unchanged' as const) : ('updated' as const) };
          });
        }
        const fresh = [...prepared.keys()].filter((i) => !current[i]);
        const createdIds = await this.insertMany(tx, resource, fresh, prepared, paths);
        for (const [k, i] of fresh.entries()) results[i] = { id: createdIds[k]!, outcome: 'created' };
        done.created = results.filter((r) => r.outcome === 'created').map((r) => r.id);
        done.updated = results.filter((r) => r.outcome === 'updated').map((r) => r.id);
        log.created(type, done.created);
        return results;
      },
      async (tx) => {
        await requireCheck(tx, access, type, done.created, 'create');
        await requireCheck(tx, access, type, done.updated, 'update');
      },
    );
  }

  /**
   * The new rows `indexes` of `prepared`, inserted: their ids, in that order. On PostgreSQL
   * together, ids taken from the sequence first, then one statement per set of columns (500 rows
   * each), after the unique values were checked (so that a taken one names its row, as a row's
   * own statement would); on SQLite, in-process, one statement a row.
   */
  private async insertMany(
    tx: WriteTx,
    resource: ResourceDefinition,
    indexes: readonly number[],
    prepared: readonly Prepared[],
    paths: RowPaths,
  ): Promise<number[]> {
    const type = resource.type;
    if (tx.provider !== 'postgresql' || indexes.length < 2) {
      const ids: number[] = [];
      for (const i of indexes)
        ids.push(await atRow(type, paths, i, () => this.insertPrepared(tx, resource, prepared[i]!)));
      return ids;
    }
    await refuseTakenUniques(tx, resource, indexes, prepared, paths);
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

  /** Each row's input checked (its current row when it exists), then the links of all of them, together. */
  private async prepareRows(
    tx: WriteTx,
    resource: ResourceDefinition,
    inputs: readonly WriteInput[],
    current: readonly (Row | null | undefined)[],
    paths: RowPaths,
  ): Promise<Prepared[]> {
    const targets = new LinkTargets();
    const prepared = inputs.map((input, i) =>
      this.check(resource, input, current[i] ?? undefined, targets, paths.fields(i)),
    );
    await this.verify(tx, targets);
    return prepared;
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

/**
 * 409 naming the first new row that gives a unique attribute (a reference, a GTIN) a value another
 * row already has, in the database or earlier in the same write: what inserting it alone would
 * have said, before a statement for many rows fails without saying which.
 */
async function refuseTakenUniques(
  tx: WriteTx,
  resource: ResourceDefinition,
  indexes: readonly number[],
  prepared: readonly Prepared[],
  paths: RowPaths,
): Promise<void> {
  for (const [name, attribute] of Object.entries(resource.attributes)) {
    if (!attribute.unique) continue;
    const given = indexes
      .map((i) => [i, prepared[i]!.columns[attribute.column]] as const)
      .filter(([, value]) => value !== undefined && value !== null);
    if (given.length === 0) continue;
    const taken = new Set<unknown>(
      (
        await tx.query<{ v: unknown }>(
          new Sql(tx.provider)
            .text(
              `SELECT ${quoted(attribute.column)} AS "v" FROM ${quoted(resource.type)} WHERE ${quoted(attribute.column)}`,
            )
            .in(given.map(([, value]) => value)),
        )
      ).map((row) => row.v),
    );
    for (const [i, value] of given) {
      if (taken.has(value))
        throw ofRow(
          new DomainError(
            'conflict',
            `${name} must be unique among ${resource.type}: another one already has this value`,
            name,
          ),
          resource.type,
          paths.row(i),
          paths.fields(i),
        );
      taken.add(value);
    }
  }
}

/** A bad input naming the later of two rows that give the same value (an id, a business key). */
function refuseRepeats(values: readonly unknown[], field: (index: number) => string): void {
  const first = new Map<unknown, number>();
  for (const [i, value] of values.entries()) {
    const earlier = first.get(value);
    if (earlier !== undefined)
      throw new DomainError(
        'bad_input',
        `${field(i)} ${JSON.stringify(value)} repeats ${field(earlier)}: give each row once`,
        field(i),
      );
    first.set(value, i);
  }
}
