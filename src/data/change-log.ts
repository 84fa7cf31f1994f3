/**
 * The change log: every committed write appends, in its own transaction, one entry per resource
 * whose document it changed: created, updated (the fields that changed, before and after) or
 * deleted (a tombstone, with what the resource was), the version, who wrote it and when. Values
 * are in the old interface's forms (./forms.ts), as REST documents show them.
 *
 * Entries are numbered (`seq`) in the order they are committed. A reader that has seen entry N
 * must never later find a new entry below N, which a plain sequence does not promise: two
 * transactions can take numbers in one order and commit in the other. So a write numbers its
 * entries only under a lock held to its commit. On SQLite, which has one writer at a time (BEGIN
 * IMMEDIATE), a trigger of the migration numbers each entry as it is inserted. On PostgreSQL an
 * entry is written without a number and `numberChanges` numbers it after its write committed: one
 * numbering transaction at a time across replicas (an advisory lock), which numbers every
 * committed entry still without one, oldest first; readers follow numbered entries only.
 * Numbering at commit inside each write (the lock held to the end of its commit) was measured to
 * cap writes at about 650 a second on this machine against 3,200 without: commits could no longer
 * share a disk flush. A NOTIFY inside each write capped them at 1,000 (PostgreSQL serialises the
 * commits of notifying transactions): the numbering transaction notifies once for all the entries
 * it numbered. The exception is a batch of updates (./update-batches.ts), which one process writes
 * one at a time: in a process without a read replica it numbers its entries and notifies in its
 * own statement, taking the lock before any row lock.
 *
 * Server-maintained attributes (`modified_date`) change with every write and say nothing the
 * entry's `at` does not: they are left out of an update's `changed`, `before` and `after`.
 */
import type { Database } from '../db/client.ts';
import type { DataSource } from '../db/reads.ts';
import type { WriteTx } from '../db/transactions.ts';
import { attributeColumns, definition, idsKey } from './columns.ts';
import { attributeReaders, relationshipValue } from './forms.ts';
import { type Row, rowsByIds } from './load.ts';
import { RequestLoaders } from './request.ts';
import { appendInsert, lockedRows } from './rows.ts';
import { Sql, WRITE_INSTANT } from '../db/sql.ts';
import type { ResourceDefinition } from '../resources/types.ts';

type CommitListener = () => void;
const commitListeners = new WeakMap<Database, Set<CommitListener>>();

/**
 * Calls `listener` after each write through `db` in this process commits entries; returns how to
 * stop. The in-process signal: a follower on the same replica learns at once, without a round
 * trip through the database (and SQLite has no other).
 */
export function onChangesCommitted(db: Database, listener: CommitListener): () => void {
  let listeners = commitListeners.get(db);
  if (!listeners) commitListeners.set(db, (listeners = new Set()));
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Tells this process's listeners that a write through `db` committed entries. */
export function changesCommitted(db: Database): void {
  for (const listener of commitListeners.get(db) ?? []) listener();
}

/**
 * After writes that logged entries committed: their entries are numbered before the writes answer
 * (a client that wrote finds its write in the log), the read replica learns where each client's
 * reads may go next (one that has replayed this far), and this process's followers are woken.
 */
export async function announceWrites(db: Database, clientIds: readonly (number | undefined)[]): Promise<void> {
  const position = await numberChanges(db);
  for (const client of new Set(clientIds)) await db.replica?.wrote(client, position);
  changesCommitted(db);
}

/** The advisory lock a numbering holds to its commit (the key the migrations' `changes_number` takes). */
export const NUMBERING_LOCK = 4201003;

/** Entries numbered per transaction (a backlog is numbered in several, oldest first). */
const NUMBERING_BATCH = 5000;

/** The numbering running in this process for a database, and the one queued behind it. */
interface Numbering {
  running?: Promise<string | undefined>;
  queued?: Promise<string | undefined>;
}
const numberings = new WeakMap<Database, Numbering>();

/**
 * Numbers every committed entry without a number (PostgreSQL; SQLite numbers as it inserts), and
 * notifies the listeners of every replica once. Resolves when a numbering that started after this
 * call has ended, so that the entries of a write that committed before the call are numbered:
 * the calls of concurrent writes share one. Resolves with the primary's WAL position during that
 * numbering: at or after the commit of every write it numbered (not of the numbering itself; a
 * read replica at that position has the writes, src/db/read-replica.ts), undefined on SQLite or
 * when it failed. Never rejects: entries it could
 * not number wait for the next numbering (the next write, a feed's poll).
 */
export function numberChanges(db: Database): Promise<string | undefined> {
  if (db.provider !== 'postgresql') return Promise.resolve(undefined);
  let state = numberings.get(db);
  if (!state) numberings.set(db, (state = {}));
  if (!state.running) return startNumbering(db, state);
  // The one running may have read before the caller's write committed: the next one will not have.
  const numbering = state;
  numbering.queued ??= numbering.running!.then(() => {
    numbering.queued = undefined;
    return startNumbering(db, numbering);
  });
  return numbering.queued;
}

function startNumbering(db: Database, state: Numbering): Promise<string | undefined> {
  const run: Promise<string | undefined> = numberPending(db)
    .catch(() => undefined)
    .finally(() => {
      if (state.running === run) state.running = undefined;
    });
  state.running = run;
  return run;
}

async function numberPending(db: Database): Promise<string> {
  // The numbering function of the change-log migration: the lock, the numbers and the
  // notification in one statement, in a transaction of its own.
  const batch = new Sql(db.provider)
    .text('SELECT "changes_number"(')
    .value(NUMBERING_BATCH)
    .text(') AS "n", pg_current_wal_insert_lsn()::text AS "lsn"');
  for (;;) {
    const [row] = await db.primary.query<{ n: number; lsn: string }>(batch);
    if (Number(row!.n) < NUMBERING_BATCH) return row!.lsn;
  }
}

type Fields = Record<string, unknown>;

interface Snapshot {
  version: number;
  fields: Fields;
}

/** The resources one write touches, as they were before it; the entries it leaves, at its end. */
export class ChangeRecorder {
  /** In the order they were first touched: the order of the entries. */
  private readonly touched = new Map<
    string,
    { type: string; id: number; before?: Snapshot; after?: Snapshot; deleted?: boolean }
  >();

  private lastWrite: ((sql: Sql) => Sql) | undefined;

  constructor(
    private readonly db: Database,
    private readonly tx: WriteTx,
    /** The API client the entries name (./write-caller.ts); undefined: the CLI. */
    private readonly apiClientId: number | undefined,
    /** The change request whose writes these are (src/change-requests), which its entries name. */
    private readonly changeRequestId?: number,
  ) {}

  /** Remembers how these resources are before the write changes them: rows read whole (RequestLoaders.columns). */
  before(type: string, rows: readonly Row[]): void {
    const resource = definition(type);
    for (const row of rows) {
      const touched = this.touched.get(key(type, row.id));
      // Touched before in the same transaction (atomic operations): its first state stays, and
      // what a write said it became is read again at the end, as this write changes it further.
      if (touched) touched.after = undefined;
      else this.touched.set(key(type, row.id), { type, id: row.id, before: snapshotOf(resource, row) });
    }
  }

  /** How these resources are after the write, known without reading them (rows as read whole). */
  after(type: string, rows: readonly Row[]): void {
    const resource = definition(type);
    for (const row of rows) {
      const entry = this.touched.get(key(type, row.id));
      if (entry) entry.after = snapshotOf(resource, row);
    }
  }

  /** Reads how these resources are before the write changes them (call after locking them). */
  async updating(type: string, ids: readonly number[]): Promise<void> {
    const fresh = ids.filter((id) => !this.touched.has(key(type, id)));
    const snapshots = await this.snapshots(type, fresh);
    for (const [i, id] of fresh.entries()) {
      const before = snapshots[i];
      if (before) this.touched.set(key(type, id), { type, id, before });
    }
  }

  /** Marks these resources as added by the write. */
  created(type: string, ids: readonly number[]): void {
    for (const id of ids) this.touched.set(key(type, id), { type, id });
  }

  /**
   * Remembers these resources as they are, before the write deletes them: locked first, so that
   * an update of one committing meanwhile is in what the tombstone says it was.
   */
  async deleting(type: string, ids: readonly number[]): Promise<void> {
    this.before(
      type,
      (await lockedRows(this.tx, type, ids, RequestLoaders.columns(type))).filter((row): row is Row => row !== null),
    );
    for (const id of ids) {
      const entry = this.touched.get(key(type, id));
      if (entry) entry.deleted = true;
    }
  }

  /**
   * Appends an entry for each touched resource whose document changed; answers whether there was
   * any. Runs last in the transaction.
   */
  async append(): Promise<boolean> {
    const entries = await this.entries();
    const last = this.lastWrite;
    this.lastWrite = undefined;
    const sql = new Sql(this.tx.provider);
    if (last && entries.length > 0 && this.tx.provider === 'postgresql') {
      // One round trip for the write's last statement and its entries.
      sql.text('WITH "write" AS (');
      last(sql);
      sql.text(') ');
    } else if (last) await this.tx.execute(last(new Sql(this.tx.provider)));
    if (entries.length === 0) return false;
    const actor = await actorName(this.db, this.tx, this.apiClientId);
    appendInsert(
      sql,
      'changes',
      entries.map((entry) => ({
        ...entry,
        actor,
        at: WRITE_INSTANT,
        ...(this.changeRequestId !== undefined && { change_request_id: this.changeRequestId }),
      })),
    );
    await this.tx.execute(sql);
    return true;
  }

  /** Runs the last statement lastly() left for append() now: another write follows in the same transaction. */
  async flush(): Promise<void> {
    const last = this.lastWrite;
    this.lastWrite = undefined;
    if (last) await this.tx.execute(last(new Sql(this.tx.provider)));
  }

  /**
   * A write's last statement (appended to the SQL it is given), run with the entries: after
   * it, nothing the write does may depend on it having run.
   */
  lastly(statement: (sql: Sql) => Sql): void {
    this.lastWrite = statement;
  }

  private async entries() {
    const after = new Map<string, Snapshot | null>();
    const byType = new Map<string, number[]>();
    for (const { type, id, deleted, after: known } of this.touched.values()) {
      if (!deleted && !known) byType.set(type, [...(byType.get(type) ?? []), id]);
    }
    for (const [type, ids] of byType) {
      const snapshots = await this.snapshots(type, ids);
      for (const [i, id] of ids.entries()) after.set(key(type, id), snapshots[i] ?? null);
    }
    const entries = [];
    for (const [k, { type, id, before, deleted, after: known }] of this.touched) {
      const now = deleted ? null : (known ?? after.get(k));
      const entry = entryOf(type, before, now ?? undefined);
      if (entry) entries.push({ resource_type: type, resource_id: id, ...entry });
    }
    return entries;
  }

  private async snapshots(type: string, ids: readonly number[]): Promise<(Snapshot | null)[]> {
    if (ids.length === 0) return [];
    const resource = definition(type);
    const rows = await rowsByIds(this.tx, type, ids, RequestLoaders.columns(type));
    return rows.map((row) => (row ? snapshotOf(resource, row) : null));
  }
}

/**
 * A resource's version and fields, in the old interface's forms, from a row read whole. Where an
 * attribute and a relationship share a name (a supplier's `currency`, free text, and its link to a
 * currency), the relationship keeps the name and the attribute goes by its column
 * (`currency_text`), as GraphQL names them: the log names fields in one list.
 */
function snapshotOf(resource: ResourceDefinition, row: Row, fields = snapshotFields(resource)): Snapshot {
  const values: Fields = {};
  for (const field of fields) values[field.name] = field.read(row);
  return { version: row.version as number, fields: values };
}

/** A field of the log's snapshots: its name there, the row keys it is read from, and how. */
interface SnapshotField {
  name: string;
  keys: readonly string[];
  read(row: Row): unknown;
}

/** The fields of a type's snapshots, attributes then relationships (worked out once per type). */
const snapshotFieldsByType = new Map<ResourceDefinition, readonly SnapshotField[]>();

function snapshotFields(resource: ResourceDefinition): readonly SnapshotField[] {
  let fields = snapshotFieldsByType.get(resource);
  if (fields) return fields;
  const made: SnapshotField[] = attributeReaders(resource).map(([name, read]) => {
    const attribute = resource.attributes[name]!;
    return {
      name: name in resource.relationships ? attribute.column : name,
      keys: attributeColumns(attribute).map((column) => column.name),
      read,
    };
  });
  for (const [name, relationship] of Object.entries(resource.relationships))
    made.push({
      name,
      keys: [relationship.storage.kind === 'foreignKey' ? relationship.storage.column : idsKey(name)],
      read: (row) => relationshipValue(name, relationship, row),
    });
  snapshotFieldsByType.set(resource, (fields = made));
  return fields;
}

/** client_id by API client row id, per database: it never changes, so each is read once. */
const clientIdsByDatabase = new WeakMap<Database, Map<number, string>>();

/** Who the current write is for, as the log names it: the API client's client_id, or `cli` outside HTTP. */
export async function actorName(db: Database, tx: DataSource, apiClientId: number | undefined): Promise<string> {
  if (apiClientId === undefined) return 'cli';
  let clientIds = clientIdsByDatabase.get(db);
  if (!clientIds) clientIdsByDatabase.set(db, (clientIds = new Map()));
  let name = clientIds.get(apiClientId);
  if (name === undefined) {
    const [client] = await tx.query<{ client_id: string }>(
      new Sql(tx.provider).text('SELECT "client_id" FROM "api_clients" WHERE "id" = ').value(apiClientId),
    );
    name = client?.client_id ?? `client ${apiClientId}`;
    clientIds.set(apiClientId, name);
  }
  return name;
}

function key(type: string, id: number): string {
  return `${type}/${id}`;
}

/**
 * The entry (without actor and time) of a resource read whole as it was and as it is; undefined
 * when its document did not change. Only the fields read from row keys whose values are not the
 * same can differ, so only those are converted and compared: an update's `after` is its `before`
 * with the columns written, and converting both rows whole was a tenth of a write's CPU (bench W5).
 */
export function changeEntry(type: string, before: Row, after: Row) {
  const resource = definition(type);
  const fields = snapshotFields(resource).filter((field) => field.keys.some((k) => before[k] !== after[k]));
  const entry = entryOf(type, snapshotOf(resource, before, fields), snapshotOf(resource, after, fields));
  return entry && { resource_type: type, resource_id: after.id, ...entry };
}

/** The entry for a resource as it was and as it is, or undefined when its document did not change. */
function entryOf(type: string, before: Snapshot | undefined, after: Snapshot | undefined) {
  const json = (value: unknown) => (value === undefined ? null : JSON.stringify(value));
  if (!before && after) {
    return {
      op: 'created',
      version: after.version,
      changed: json(Object.keys(after.fields))!,
      before: null,
      after: json(after.fields),
    };
  }
  if (before && !after) {
    return {
      op: 'deleted',
      version: before.version,
      changed: json(Object.keys(before.fields))!,
      before: json(before.fields),
      after: null,
    };
  }
  if (!before || !after) return undefined;
  const resource = definition(type);
  const changed = Object.keys(after.fields).filter(
    (name) => resource.attributes[name]?.write !== 'server' && json(before.fields[name]) !== json(after.fields[name]),
  );
  if (changed.length === 0) return undefined;
  const pick = (fields: Fields) => Object.fromEntries(changed.map((name) => [name, fields[name]]));
  return {
    op: 'updated',
    version: after.version,
    changed: json(changed)!,
    before: json(pick(before.fields)),
    after: json(pick(after.fields)),
  };
}
