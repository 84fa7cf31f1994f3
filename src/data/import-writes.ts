/**
 * Imports that keep the source's ids (`npm run import`, src/transfer/import.ts): rows checked by
 * the importer are written under their own ids, with their own version (when new) and dates, in
 * one transaction per batch, each changed resource with its change-log entry as any write's.
 * A row that is already there as the source has it is left alone, so a second run writes only
 * what differs and an interrupted run, run again, goes on where it stopped.
 *
 * The relationship rules of the API (a structure is made through its product, an item's product
 * never changes) are not applied: an import copies resources as the source holds them.
 */
import type { WriteTx } from '../db/transactions.ts';
import { id, Sql } from '../db/sql.ts';
import type { ResourceDefinition } from '../resources/types.ts';
import type { ChangeRecorder } from './change-log.ts';
import { type Column, columnsOf, definition } from './columns.ts';
import { holdsAlready } from './relationship-rules.ts';
import type { Row } from './load.ts';
import { RequestLoaders } from './request.ts';
import { changedColumns, withModifiedDate } from './row-values.ts';
import { insertRows, lockedRows } from './rows.ts';
import { attributeData } from './validate.ts';
import { BulkWriter } from './bulk-writes.ts';

/** A row as the importer checked it: values in the form writes take them. */
export interface ImportRow {
  id: number;
  /** The source's version, kept on a new row (1 when the source has none). */
  version?: number;
  /** Checked attribute values by name; the server's dates as Date, when the source gives them. */
  values: Record<string, unknown>;
  /** Foreign-key columns (to-one relationships, the owner a structure or an item belongs to). */
  keys: Record<string, number | null>;
  /** To-many relationships kept in join tables: the whole set of ids. */
  sets: Record<string, number[]>;
}

export interface ImportCounts {
  created: number;
  updated: number;
  unchanged: number;
}

/** The server's dates (`modified_date`, `created_date`): kept from the source, but not what makes a row differ. */
function serverDates(resource: ResourceDefinition): string[] {
  return Object.values(resource.attributes)
    .filter((a) => a.write === 'server' && a.type === 'datetime')
    .map((a) => a.column);
}

export class ImportWriter extends BulkWriter {
  /** Writes one batch of checked rows of `type` in one transaction: how many were new, changed and left alone. */
  importRows(type: string, rows: readonly ImportRow[]): Promise<ImportCounts> {
    const resource = definition(type);
    const counts: ImportCounts = { created: 0, updated: 0, unchanged: 0 };
    return this.transaction(type, async (tx, log) => {
      // Structures and items may move to another owner, which is then locked after them: first
      // the lock every bill-of-material write of the API takes before its rows, so that no such
      // write holds an owner while waiting for one of these rows.
      if (resource.ownerLinks) await this.lockBillsOfMaterial(tx);
      const ids = rows.map((r) => r.id).sort((a, b) => a - b);
      const stored = new Map(
        (await lockedRows(tx, type, ids, [...RequestLoaders.columns(type), ...ownerColumns(resource)]))
          .filter((row): row is Row => row !== null)
          .map((row) => [row.id, row]),
      );
      const fresh = rows.filter((row) => !stored.has(row.id));
      await this.insertAll(tx, resource, fresh);
      log.created(
        type,
        fresh.map((row) => row.id),
      );
      counts.created = fresh.length;
      for (const row of rows) {
        const current = stored.get(row.id);
        if (!current) continue;
        if (await this.updateOne(tx, log, resource, row, current)) counts.updated++;
        else counts.unchanged++;
      }
      if (fresh.length > 0) await followIds(tx, type);
      return counts;
    });
  }

  /** New rows under their own ids, in one statement per set of columns, and their links. */
  private async insertAll(tx: WriteTx, resource: ResourceDefinition, rows: readonly ImportRow[]): Promise<void> {
    const now = new Date();
    const dates = Object.fromEntries(serverDates(resource).map((column) => [column, now]));
    const byShape = new Map<string, Record<string, unknown>[]>();
    for (const row of rows) {
      const data: Record<string, unknown> = {
        id: row.id,
        version: row.version ?? 1,
        ...dates,
        ...attributeData(resource, row.values),
        ...row.keys,
      };
      const shape = Object.keys(data).join(',');
      byShape.get(shape)?.push(data) ?? byShape.set(shape, [data]);
    }
    for (const shaped of byShape.values()) await insertRows(tx, resource.type, shaped);
    // The links of all new rows, one statement per join table.
    for (const [name, relationship] of Object.entries(resource.relationships)) {
      const storage = relationship.storage;
      if (storage.kind !== 'join') continue;
      const links = rows.flatMap((row) =>
        [...new Set(row.sets[name] ?? [])].map((target) => ({
          [storage.ownColumn]: row.id,
          [storage.targetColumn]: target,
        })),
      );
      await insertRows(tx, storage.joinTable, links);
    }
  }

  /** An existing row brought to the source's values; false when it already had them. */
  private async updateOne(
    tx: WriteTx,
    log: ChangeRecorder,
    resource: ResourceDefinition,
    row: ImportRow,
    current: Row,
  ): Promise<boolean> {
    const dates = serverDates(resource);
    const columns = changedColumns({ ...attributeData(resource, row.values, current), ...row.keys }, current);
    const differs = Object.keys(columns).some((column) => !dates.includes(column));
    const sets = Object.entries(row.sets).filter(
      ([name, set]) => !holdsAlready(resource.relationships[name]!, name, { set }, current),
    );
    if (!differs && sets.length === 0) return false;
    await this.ownersMoved(tx, log, resource, row, current);
    const links = await this.applyToMany(
      tx,
      resource,
      row.id,
      sets.map(([name, set]) => [name, { set }]),
      current,
    );
    // The source's modified_date when it gives one (a copy shows what the source shows), else now.
    const next = { ...columns, version: (current.version as number) + 1 };
    const written = row.values.modified_date === undefined ? withModifiedDate(resource, next) : next;
    await this.writeRow(tx, log, resource, current, written, links);
    return true;
  }

  /**
   * A structure or an item moved to another owner: the documents of both owners change (their
   * structure, their items), so both get a new version and an entry in the change log, as a
   * product does when the API gives it a structure. Without them a consumer following the log
   * would keep the structure on its old product. Read before the row moves.
   */
  private async ownersMoved(
    tx: WriteTx,
    log: ChangeRecorder,
    resource: ResourceDefinition,
    row: ImportRow,
    current: Row,
  ): Promise<void> {
    for (const owner of Object.values(resource.ownerLinks ?? {})) {
      const to = row.keys[owner.column];
      const from = current[owner.column] as number | null;
      if (to === undefined || to === from) continue;
      const ids = [from, to].filter((ownerId): ownerId is number => ownerId !== null).sort((a, b) => a - b);
      const owners = (await lockedRows(tx, owner.target, ids, RequestLoaders.columns(owner.target))).filter(
        (ownerRow): ownerRow is Row => ownerRow !== null,
      );
      log.before(owner.target, owners);
      for (const ownerRow of owners) await this.nextVersion(tx, definition(owner.target), ownerRow);
    }
  }
}

/** The columns of the owner a structure or an item belongs to, which documents do not show but an import writes. */
function ownerColumns(resource: ResourceDefinition): Column[] {
  return columnsOf(resource.type, {
    attributes: [],
    relationships: [],
    ownerLinks: Object.keys(resource.ownerLinks ?? {}),
  });
}

/**
 * PostgreSQL: the id sequence of `type` moved past the highest id, so that the next resource
 * made through the API gets a new id after the imported ones (never back: an id once given is
 * not given again). SQLite's AUTOINCREMENT follows the highest id written by itself.
 */
async function followIds(tx: WriteTx, type: string): Promise<void> {
  if (tx.provider !== 'postgresql') return;
  const table = id(type);
  const sequence = `pg_get_serial_sequence('${table}', 'id')`;
  await tx.query(
    new Sql(tx.provider).text(
      `SELECT setval(${sequence}, GREATEST((SELECT MAX("id") FROM ${table}), COALESCE(pg_sequence_last_value(${sequence}::regclass), 1)))`,
    ),
  );
}
