/**
 * The change log: every committed write appends, in its own transaction, one entry per resource
 * whose document it changed: created, updated (the fields that changed, before and after) or
 * deleted (a tombstone, with what the resource was), the version, who wrote it and when. Values
 * are in the old interface's forms (./forms.ts), as REST documents show them.
 *
 * Entries are numbered in commit order. A reader that has seen entry N must never later find a
 * new entry below N, which a plain sequence does not promise: two transactions can take numbers
 * in one order and commit in the other. On PostgreSQL a write therefore numbers its entries under
 * an advisory lock it holds until its commit, last thing before committing; the next writer's
 * numbers come after that commit. SQLite has one writer at a time (BEGIN IMMEDIATE), so its
 * numbers are in commit order already.
 *
 * Server-maintained attributes (`modified_date`) change with every write and say nothing the
 * entry's `at` does not: they are left out of an update's `changed`, `before` and `after`.
 */
import type { Database } from '../db/client.ts';
import type { WriteTx } from '../db/transactions.ts';
import { definition } from './columns.ts';
import { attributesOf, relationshipsOf } from './forms.ts';
import { type Row, rowsByIds } from './load.ts';
import { RequestLoaders } from './request.ts';
import { id as quoted, Sql } from './sql.ts';
import { currentActor } from './write-hooks.ts';
import type { ResourceDefinition } from '../resources/types.ts';

/** PostgreSQL advisory lock held from numbering a write's entries to its commit. */
const CHANGE_LOG_LOCK_KEY = 4_201_003;

/**
 * The PostgreSQL channel a write notifies when it commits entries (NOTIFY is delivered at commit,
 * and only then): every replica listening wakes its followers (./change-feed.ts).
 */
export const CHANGES_CHANNEL = 'mdg_changes';

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

  constructor(
    private readonly db: Database,
    private readonly tx: WriteTx,
  ) {}

  /** Remembers how these resources are before the write changes them: rows read whole (RequestLoaders.columns). */
  before(type: string, rows: readonly Row[]): void {
    const resource = definition(type);
    for (const row of rows)
      if (!this.touched.has(key(type, row.id)))
        this.touched.set(key(type, row.id), { type, id: row.id, before: snapshotOf(resource, row) });
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

  /** Remembers these resources as they are, before the write deletes them. */
  async deleting(type: string, ids: readonly number[]): Promise<void> {
    await this.updating(type, ids);
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
    if (entries.length === 0) return false;
    const actor = await actorName(this.db, this.tx);
    const at = new Date();
    const columns = ['resource_type', 'resource_id', 'op', 'version', 'changed', 'before', 'after', 'actor', 'at'];
    const sql = new Sql(this.db.provider).text(`INSERT INTO "changes" (${columns.map((c) => quoted(c)).join(', ')}) `);
    if (this.db.provider === 'postgresql') {
      // One statement: the numbering lock (taken by the subquery before any row gets its number),
      // the notification the commit will deliver, and the entries.
      sql.text(
        `SELECT v.* FROM (SELECT pg_advisory_xact_lock(${CHANGE_LOG_LOCK_KEY}), pg_notify('${CHANGES_CHANNEL}', '')) l CROSS JOIN (VALUES `,
      );
    } else sql.text('VALUES ');
    entries.forEach((entry, i) => {
      const values = [
        entry.resource_type,
        entry.resource_id,
        entry.op,
        entry.version,
        entry.changed,
        entry.before,
        entry.after,
        actor,
        at,
      ];
      sql.text(i > 0 ? ', (' : '(');
      values.forEach((value, v) => {
        sql.text(v > 0 ? ', ' : '').value(value);
        // VALUES in a subquery has no column types to take: say them.
        if (this.db.provider === 'postgresql') sql.text(POSTGRES_CASTS[v]!);
      });
      sql.text(')');
    });
    if (this.db.provider === 'postgresql') sql.text(`) v(${columns.map((c) => quoted(c)).join(', ')})`);
    await this.tx.execute(sql);
    return true;
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

/** The casts of the entry columns' parameters in PostgreSQL's VALUES (in the order of `append`). */
const POSTGRES_CASTS = ['', '::int', '', '::int', '', '', '', '', '::timestamp'];

/** A resource's version and fields, in the old interface's forms, from a row read whole. */
function snapshotOf(resource: ResourceDefinition, row: Row): Snapshot {
  return {
    version: row.version as number,
    fields: { ...attributesOf(resource, row), ...relationshipsOf(resource, row) },
  };
}

/** client_id by API client row id, per database: it never changes, so each is read once. */
const clientIdsByDatabase = new WeakMap<Database, Map<number, string>>();

/** Who the current write is for, as the log names it: the API client's client_id, or `cli` outside HTTP. */
async function actorName(db: Database, tx: WriteTx): Promise<string> {
  const apiClientId = currentActor();
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
