/**
 * Concurrent updates batched (PostgreSQL; the optimistic path of Writer.update: a change to one
 * row). Updates that arrive while batches are being written wait for the next, which then takes
 * them all: at low load a write goes at once, alone; under load a batch costs one statement to
 * read its rows (per type) and one statement per shape of write (type and columns written) that
 * updates every row on the condition that its version is still the one read, and appends the log
 * entries of exactly the rows it updated. The log entries are built here in the process, from the
 * rows read, as for a single write (./change-log.ts). Two batches are written at a time, so that
 * one is read and planned while the other's statement and commit are under way; a batch is taken
 * once the one before it was read and planned, so that it holds what came meanwhile.
 *
 * A row's write that finds another write came first (its version moved), or whose statement
 * fails (a unique value taken: one row can fail the statement for all), is handed back undone,
 * and the caller writes it alone, the way that says which write is at fault. A batch takes each
 * row once, and none that a batch being written holds: a second write to the same row waits for
 * a batch taken after the first one's was written, which reads what it wrote.
 *
 * A client with a role (src/permissions) is batched with the writes of the same role, at the same
 * cost: its rows are read through its `update` rule's `where` and its row filter (a row outside
 * them is not found, as in the locked way), and the statement updates a row only if the row as
 * written meets the rule's `check` and stays one the role may read, evaluated on the values the
 * statement writes. A row that does not is handed back undone, and the caller's locked way says
 * why (403).
 *
 * Measured (bench W5, 10 connections updating products): see bench/README.md "Writes".
 */
import type { Database } from '../db/client.ts';
import { id, Sql } from '../db/sql.ts';
import type { Access } from '../permissions/access.ts';
import type { ResourceDefinition, ScalarType } from '../resources/types.ts';
import { CHANGES_CHANNEL } from '../db/notifications.ts';
import { notificationWithoutPosition } from '../db/read-replica.ts';
import { announceWrites, changesCommitted } from './change-log.ts';
import { attributeColumns } from './columns.ts';
import { type Row, rowsByIds } from './load.ts';
import { RequestLoaders } from './request.ts';
import { andVisible, readingAs, visible } from './visible.ts';

/** A write planned from the row as read: what to write, the row it makes, its log entry. */
export interface PlannedUpdate {
  written: Record<string, unknown>;
  now: Row;
  entry: Record<string, unknown>;
}

/**
 * One update: its row, and how to plan it from the row as read (undefined: there is none). The
 * plan answers the row `unchanged` when nothing would change, and throws what is wrong with the write.
 */
export interface BatchedUpdate {
  resource: ResourceDefinition;
  id: number;
  /** The API client that writes (the entry names it; its reads may go to a replica that has the write). */
  clientId: number | undefined;
  /** The writer's role; none for admin. */
  access: Access | undefined;
  plan(current: Row | undefined): Promise<PlannedUpdate | { unchanged: Row }>;
}

interface Pending extends BatchedUpdate {
  resolve(row: Row | undefined): void;
  reject(error: unknown): void;
}

/** Most writes one batch takes. */
const MAX_BATCH = 200;
/**
 * Batches written at a time. Two: while one batch's statement and commit are under way, the next
 * is read and planned (each batch's cycle is mostly waiting for PostgreSQL). Batches that number
 * their entries take turns at the numbering lock anyway.
 */
const BATCHES_AT_A_TIME = 2;

/** What the log's columns are, for the arrays the statement takes them in (`at` is the column's default, db/history.ts). */
const ENTRY_TYPES: Record<string, string> = {
  resource_type: 'text',
  resource_id: 'int',
  op: 'text',
  version: 'int',
  changed: 'text',
  before: 'text',
  after: 'text',
  actor: 'text',
};

const SQL_TYPES: Record<ScalarType, string> = {
  string: 'text',
  integer: 'int',
  decimal: 'numeric',
  boolean: 'boolean',
  datetime: 'timestamp(3)',
};

export class UpdateBatches {
  private queue: Pending[] = [];
  /** Batches being written. */
  private writing = 0;
  /** Whether a batch is being read and planned: the next one gathers writes meanwhile. */
  private reading = false;
  /** The rows (`type/id`) of the batches being written: no other batch takes them meanwhile. */
  private readonly held = new Set<string>();

  constructor(private readonly db: Database) {}

  /** The row as written; undefined when it was not written here (the caller writes it alone). */
  update(update: BatchedUpdate): Promise<Row | undefined> {
    return new Promise((resolve, reject) => {
      this.queue.push({ ...update, resolve, reject });
      this.start();
    });
  }

  /**
   * Starts a batch when fewer than BATCHES_AT_A_TIME are being written, none is being read, and a
   * queued write may go: the next batch takes what came while the last one was read and planned.
   */
  private start(): void {
    if (this.writing >= BATCHES_AT_A_TIME || this.reading || this.queue.length === 0) return;
    const batch = this.take();
    // Every queued write is to a row being written: the batch that ends starts them.
    if (batch.length === 0) return;
    const rows = batch.map(rowKey);
    for (const row of rows) this.held.add(row);
    this.writing++;
    this.reading = true;
    // This batch's own end of reading (once): the flag is shared with the batches after it.
    let planned = false;
    const read = () => {
      if (planned) return;
      planned = true;
      this.reading = false;
      this.start();
    };
    void this.write(batch, read).finally(() => {
      for (const row of rows) this.held.delete(row);
      this.writing--;
      if (planned) this.start();
      else read();
    });
  }

  /** The next batch: the oldest writes, each row once, none of a batch being written. */
  private take(): Pending[] {
    const batch: Pending[] = [];
    const rows = new Set<string>();
    const rest: Pending[] = [];
    for (const pending of this.queue) {
      const key = rowKey(pending);
      if (batch.length < MAX_BATCH && !rows.has(key) && !this.held.has(key)) {
        rows.add(key);
        batch.push(pending);
      } else rest.push(pending);
    }
    this.queue = rest;
    return batch;
  }

  /** Writes a batch; `read` is called once its rows are read and its writes planned. */
  private async write(batch: Pending[], read: () => void): Promise<void> {
    const planned: { pending: Pending; plan: PlannedUpdate }[] = [];
    try {
      const current = await this.read(batch);
      for (const [i, pending] of batch.entries()) {
        try {
          const plan = await pending.plan(current[i]);
          if ('unchanged' in plan) pending.resolve(plan.unchanged);
          // A link's foreign-key check may wait for a transaction that holds the row linked to:
          // such a write goes alone, so that no batch (and no write queued behind it) waits too.
          else if (Object.keys(plan.written).some((column) => foreignKeys(pending.resource).has(column)))
            pending.resolve(undefined);
          else planned.push({ pending, plan });
        } catch (error) {
          pending.reject(error);
        }
      }
      read();
      const byShape = new Map<string, typeof planned>();
      for (const one of planned) {
        const shape = `${writerKey(one.pending.resource.type, one.pending.access)}:${Object.keys(one.plan.written).join(',')}`;
        byShape.get(shape)?.push(one) ?? byShape.set(shape, [one]);
      }
      const done: { pending: Pending; row: Row }[] = [];
      for (const shaped of byShape.values()) {
        const updated = await this.updateAll(shaped).catch(() => new Set<number>());
        for (const { pending, plan } of shaped) {
          if (updated.has(pending.id)) {
            if (pending.access) seenByTheRole.add(plan.now);
            done.push({ pending, row: plan.now });
          } else pending.resolve(undefined);
        }
      }
      if (done.length === 0) return;
      if (this.numbersItsEntries) {
        changesCommitted(this.db);
        for (const { pending, row } of done) pending.resolve(row);
        return;
      }
      // The next batch need not wait for this one's numbering: its writes are committed.
      // Written whatever befalls the announcement: the answers go out after it in any case.
      void announceWrites(
        this.db,
        done.map(({ pending }) => pending.clientId),
      )
        .catch(() => {})
        .then(() => {
          for (const { pending, row } of done) pending.resolve(row);
        });
    } catch (error) {
      for (const pending of batch) pending.reject(error);
    }
  }

  /**
   * The rows of the batch, whole, one statement per type and role; in batch order. A role's rows
   * are those its `update` rule's `where` and its row filter let it write: others are not found.
   */
  private async read(batch: readonly Pending[]): Promise<(Row | undefined)[]> {
    const groups = new Map<string, { type: string; access: Access | undefined; ids: number[] }>();
    for (const { resource, id, access } of batch) {
      const key = writerKey(resource.type, access);
      groups.get(key)?.ids.push(id) ?? groups.set(key, { type: resource.type, access, ids: [id] });
    }
    const rows = new Map<string, Row>();
    for (const [key, { type, access, ids }] of groups) {
      const source = readingAs(this.db.primary, access);
      const where = access?.rule(type, 'update')?.where;
      // As the role sees it (a related row it may not see left out), so that the row written is
      // what its answer shows: the log is not affected, as a batch changes no relationship.
      for (const row of await rowsByIds(source, type, ids, RequestLoaders.columnsFor(type, access), where))
        if (row) rows.set(`${key}/${row.id}`, row);
    }
    return batch.map(({ resource, id, access }) => rows.get(`${writerKey(resource.type, access)}/${id}`));
  }

  /**
   * One statement for writes of one shape: each row updated if still at the version read, and
   * the entries of the rows it updated. Arrays of values (unnest), so that its text is the same
   * for any number of rows and one prepared statement serves every batch. The ids it updated.
   */
  private async updateAll(shaped: readonly { pending: Pending; plan: PlannedUpdate }[]): Promise<Set<number>> {
    const resource = shaped[0]!.pending.resource;
    const types = columnTypes(resource);
    const columns = Object.keys(shaped[0]!.plan.written);
    const sql = new Sql('postgresql').text('WITH "v" AS (SELECT * FROM ');
    const arrays: [string, string, unknown[]][] = [
      ['id', 'int', shaped.map((s) => s.pending.id)],
      ['__read_version', 'int', shaped.map((s) => (s.plan.now.version as number) - 1)],
      ...columns.map((c): [string, string, unknown[]] => [
        c,
        types.get(c) ?? 'text',
        shaped.map((s) => s.plan.written[c]),
      ]),
    ];
    sql.unnest(arrays.map(([, type, values]) => [type, values] as const));
    sql.text(` AS u(${arrays.map(([name]) => id(name)).join(', ')}))`);
    // A row another transaction holds (a bulk write, an atomic request) is skipped, not waited for:
    // its write goes alone (it waits for that row only), and the batch holds up no other row's.
    sql.text(`, "l" AS (SELECT "id" FROM ${id(resource.type)} WHERE "id" = ANY(`);
    sql.value(shaped.map((s) => s.pending.id)).text('::int[])');
    // The numbering function before any row lock (a one-time filter, evaluated before the scan):
    // it takes the numbering lock, held to the commit, while the statement holds no row lock, and
    // numbers every committed entry still without a number (a write that went alone and is not
    // numbered yet, perhaps an earlier version of a row of this batch), so that the batch's own
    // entries, numbered after them, come after them. It notifies for those with their position.
    const numbered = this.numbersItsEntries;
    if (numbered) sql.text(` AND (SELECT "changes_number"(${2 ** 31 - 1})) >= 0`);
    sql.text(' FOR NO KEY UPDATE SKIP LOCKED)');
    sql.text(`, "w" AS (UPDATE ${id(resource.type)} t SET `);
    sql.text(columns.map((c) => `${id(c)} = "v".${id(c)}`).join(', '));
    sql.text(
      ' FROM "v" JOIN "l" ON "l"."id" = "v"."id" WHERE t."id" = "v"."id" AND t."version" = "v"."__read_version"',
    );
    this.andCheckAsWritten(sql, resource, columns, shaped[0]!.pending.access);
    sql.text(' RETURNING t."id"), ');
    const fields = Object.keys(ENTRY_TYPES);
    const inserted = numbered ? [...fields, 'seq'] : fields;
    sql.text(`"e" AS (INSERT INTO "changes" (${inserted.map(id).join(', ')}) SELECT x.*`);
    sql.text(numbered ? `, nextval('"changes_seq_seq"') FROM ` : ' FROM ');
    sql.unnest(fields.map((field) => [ENTRY_TYPES[field]!, shaped.map((s) => s.plan.entry[field])] as const));
    sql.text(` AS x(${fields.map(id).join(', ')}) JOIN "w" ON "w"."id" = x."resource_id" RETURNING 1) SELECT "id"`);
    if (numbered) {
      // Wakes every process's followers as the numbering function does, once, and only when a row
      // was written (the select list of no row is never computed). No WAL position: one read
      // inside the statement would come before its commit (./../db/read-replica.ts).
      const clients = new Set(shaped.flatMap((s) => (s.pending.clientId === undefined ? [] : [s.pending.clientId])));
      sql.text(`, (SELECT 1 FROM pg_notify('${CHANGES_CHANNEL}', `);
      sql.value(notificationWithoutPosition(clients)).text('::text)) AS "notified"');
    }
    sql.text(' FROM "w"');
    const rows = await this.db.primary.query<{ id: unknown }>(sql);
    return new Set(rows.map((r) => Number(r.id)));
  }

  /**
   * Whether a batch numbers its own entries in its statement, under the numbering lock held to its
   * commit, after every committed entry not numbered yet: in a process without a read replica.
   * One with a replica needs each client's WAL position after the commit (./change-log.ts
   * announceWrites), which the statement cannot read of its own commit; its entries are numbered
   * after it, as every other write's are. Numbering in the statement saves the numbering's
   * statement and its second copy of each entry. Numbering inside each single write capped writes
   * at about a fifth (commits no longer share a disk flush); once per batch it serialises the
   * batches' statements (a batch's reads and planning still overlap the other's statement). While it holds the lock, a statement can still
   * wait: for a unique value another transaction is writing, or for the synchronous standby at its
   * commit; every numbering waits meanwhile.
   */
  private get numbersItsEntries(): boolean {
    return this.db.replica === undefined;
  }

  /**
   * For a role: ` AND` the row as written (the statement's values for the columns it writes, the
   * row's own for the rest, as the derived row "c") meets the `update` rule's `check` and stays
   * one the role may read. Nothing for admin, or a role that neither checks nor filters the type.
   */
  private andCheckAsWritten(sql: Sql, resource: ResourceDefinition, written: string[], access: Access | undefined) {
    if (!access) return;
    const source = readingAs(this.db.primary, access);
    const check = access.rule(resource.type, 'update')?.check;
    if (!visible(source, resource.type, check)) return;
    const given = new Set(written);
    const columns = ['id', ...columnTypes(resource).keys()].map(
      (c) => `${given.has(c) ? '"v"' : 't'}.${id(c)} AS ${id(c)}`,
    );
    sql.text(` AND EXISTS (SELECT 1 FROM (SELECT ${columns.join(', ')}) AS "c" WHERE TRUE`);
    andVisible(sql, source, resource.type, check, 'c');
    sql.text(')');
  }
}

/** A write's row, as batches hold it. */
function rowKey(write: Pending): string {
  return `${write.resource.type}/${write.id}`;
}

/** Rows a batch wrote for a role, read as that role sees them. */
const seenByTheRole = new WeakSet<Row>();

/** Whether a row a write answered is already as the writer's role sees it (no read again for its answer). */
export function asTheRoleSees(row: Row): boolean {
  return seenByTheRole.has(row);
}

/** A batch's writes of one type by one role (admin: none) read and write together. */
function writerKey(type: string, access: Access | undefined): string {
  return `${type}@${access?.key ?? ''}`;
}

/** The SQL type of each column of a type's rows a write may set. */
const typesByResource = new WeakMap<ResourceDefinition, Map<string, string>>();

function columnTypes(resource: ResourceDefinition): Map<string, string> {
  let types = typesByResource.get(resource);
  if (!types) {
    types = new Map<string, string>([['version', 'int']]);
    for (const attribute of Object.values(resource.attributes))
      for (const column of attributeColumns(attribute)) types.set(column.name, SQL_TYPES[column.type]);
    for (const relationship of Object.values(resource.relationships))
      if (relationship.storage.kind === 'foreignKey') types.set(relationship.storage.column, 'int');
    typesByResource.set(resource, types);
  }
  return types;
}

/** The foreign-key columns of a type's rows (its to-one relationships). */
const foreignKeysByResource = new WeakMap<ResourceDefinition, Set<string>>();

function foreignKeys(resource: ResourceDefinition): Set<string> {
  let columns = foreignKeysByResource.get(resource);
  if (!columns) {
    columns = new Set(
      Object.values(resource.relationships).flatMap((r) => (r.storage.kind === 'foreignKey' ? [r.storage.column] : [])),
    );
    foreignKeysByResource.set(resource, columns);
  }
  return columns;
}

/** The batches of a database's writes in this process. */
const batchesByDatabase = new WeakMap<Database, UpdateBatches>();

export function updateBatches(db: Database): UpdateBatches {
  let batches = batchesByDatabase.get(db);
  if (!batches) batchesByDatabase.set(db, (batches = new UpdateBatches(db)));
  return batches;
}
