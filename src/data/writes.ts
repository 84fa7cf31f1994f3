/**
 * Writes, one operation per thing a client can change, each in one transaction. Surfaces pass
 * values under the registry's names and get DomainErrors back (./errors.ts); the rules live
 * once: those of the input alone (required fields, relationships that cannot be removed or
 * changed) in ./write-input.ts, those that ask the database here: relationship targets that must
 * exist, uniqueness. The bill-of-material writes (structures and their items) build on these in
 * ./bom-writes.ts.
 *
 * Versions: every resource whose document a write changes gets `version` + 1 and a new
 * `modified_date`, in the write's transaction; a write that changes nothing writes nothing. A
 * write locks the row it changes first (PostgreSQL; SQLite has one writer), so that concurrent
 * writes to one resource take turns, and a conditional write (WriteOptions.expectedVersion)
 * compares against the version it would overwrite.
 */
import type { Database } from '../db/client.ts';
import type { DataSource } from '../db/reads.ts';
import type { WriteTx } from '../db/transactions.ts';
import type { ResourceDefinition } from '../resources/types.ts';
import { type Column, definition, idsKey, relationshipIds } from './columns.ts';
import { asRead, changedColumns, withModifiedDate, withServerDates } from './row-values.ts';
import { notFound, uniqueViolation } from './errors.ts';
import { checkPreconditions, type WriteOptions } from './preconditions.ts';
import { type Row, rowsByIds } from './load.ts';
import { RequestLoaders } from './request.ts';
import { appendUpdate, casUpdate, deleteRows, insertRow, insertRows, lockedRows, updateRow } from './rows.ts';
import { checkInput, type Prepared, type ToManyChange, type WriteInput } from './write-input.ts';
import { actorName, announceWrites, ChangeRecorder, changeEntry } from './change-log.ts';
import { type PlannedUpdate, updateBatches } from './update-batches.ts';
import type { WriteCaller } from './write-caller.ts';
import { authorizeWrite, hiddenAmong, requireCheck, requireRowFor } from './authorize.ts';
import { LinkTargets } from './relationship-rules.ts';
import { readingAs } from './visible.ts';

export type { WriteOptions } from './preconditions.ts';
export type { Prepared, ToManyChange, WriteInput };

/** A resource a write links to that does not exist for its caller, with the first field that names it. */
interface MissingLink {
  type: string;
  id: number;
  field: string;
}

const ID_ONLY: Column[] = [{ name: 'id', type: 'integer' }];

/** Writes for one caller (./write-caller.ts): made per request by the surface that took it. */
export class Writer {
  constructor(
    protected readonly db: Database,
    protected readonly caller: WriteCaller = {},
  ) {}

  /**
   * Runs `work` in one transaction, then appends to the change log what it changed
   * (./change-log.ts), then the caller's `beforeCommit`; storage errors become domain errors.
   */
  protected async transaction<T>(
    type: string,
    work: (tx: WriteTx, log: ChangeRecorder) => Promise<T>,
    /** Runs once everything is written, before the commit: the role's checks of the rows as written (./authorize.ts). */
    written?: (tx: WriteTx, result: T) => Promise<void>,
  ): Promise<T> {
    if (this.joined) return this.join(this.joined, type, work, written);
    try {
      const { result, logged } = await this.db.transaction((tx) => this.within(tx, work, written));
      if (logged) await this.announce();
      return result;
    } catch (error) {
      throw uniqueViolation(error, type) ?? error;
    }
  }

  /** transaction()'s work in `tx`, with the change log's entries and what runs before the commit; whether it logged any. */
  private async within<T>(
    tx: WriteTx,
    work: (tx: WriteTx, log: ChangeRecorder) => Promise<T>,
    written?: (tx: WriteTx, result: T) => Promise<void>,
  ): Promise<{ result: T; logged: boolean }> {
    const { apiClientId, beforeCommit, changeRequestId } = this.caller;
    const log = new ChangeRecorder(this.db, tx, apiClientId, changeRequestId);
    const result = await work(tx, log);
    const logged = await log.append();
    await written?.(tx, result);
    await beforeCommit?.(tx);
    return { result, logged };
  }

  /** The transaction of atomically(), which the writes made meanwhile join instead of starting their own. */
  private joined: { tx: WriteTx; log: ChangeRecorder } | undefined;

  /** The transaction of atomically(), for statements of a subclass's own among its writes; only inside it. */
  protected get joinedTx(): WriteTx {
    if (!this.joined) throw new Error('joinedTx is only inside atomically()');
    return this.joined.tx;
  }

  /**
   * Runs the writes `work` makes as one (JSON:API atomic operations): each joins one transaction,
   * the log gets one entry per resource changed, and all commit together or none does.
   */
  atomically<T>(work: () => Promise<T>): Promise<T> {
    return this.transaction('operations', this.joining(work));
  }

  /**
   * atomically() inside a transaction the caller holds, which other writers' writes share, each
   * with entries of their own (scheduled change requests due at one instant, applied together):
   * nothing is committed or announced here; the caller announces once it committed.
   */
  async atomicallyIn<T>(tx: WriteTx, work: () => Promise<T>): Promise<T> {
    try {
      return (await this.within(tx, this.joining(work))).result;
    } catch (error) {
      throw uniqueViolation(error, 'operations') ?? error;
    }
  }

  /** `work` with the writes it makes joining the transaction and change log given. */
  private joining<T>(work: () => Promise<T>) {
    return async (tx: WriteTx, log: ChangeRecorder): Promise<T> => {
      this.joined = { tx, log };
      try {
        return await work();
      } finally {
        this.joined = undefined;
      }
    };
  }

  /** A write inside atomically(): its statements run in the joined transaction, its last one too before the next write. */
  private async join<T>(
    { tx, log }: { tx: WriteTx; log: ChangeRecorder },
    type: string,
    work: (tx: WriteTx, log: ChangeRecorder) => Promise<T>,
    written?: (tx: WriteTx, result: T) => Promise<void>,
  ): Promise<T> {
    try {
      const result = await work(tx, log);
      await log.flush();
      await written?.(tx, result);
      return result;
    } catch (error) {
      throw uniqueViolation(error, type) ?? error;
    }
  }

  /** ADD / createX: returns the new id. */
  create(type: string, input: WriteInput): Promise<number> {
    const resource = definition(type);
    const { access } = this.caller;
    authorizeWrite(access, type, 'create', input);
    return this.transaction(
      type,
      async (tx, log) => {
        const created = await this.insertPrepared(tx, resource, await this.prepare(tx, resource, input, undefined));
        log.created(type, [created]);
        return created;
      },
      (tx, created) => requireCheck(tx, access, type, [created], 'create'),
    );
  }

  /** Inserts a prepared new row and its links; its id. */
  protected async insertPrepared(tx: WriteTx, resource: ResourceDefinition, data: Prepared): Promise<number> {
    const created = await insertRow(tx, resource.type, withServerDates(resource, data.columns));
    await this.applyToMany(tx, resource, created, data.toMany, undefined);
    return created;
  }

  /**
   * UPDATE / updateX: only what is given changes; a write that changes nothing writes nothing.
   * Answers the resource as it now is, read whole (as RequestLoaders.columns reads it): what
   * was read, with what was written.
   *
   * On PostgreSQL a change to the row alone (no links in join tables, nothing the caller runs before the commit) is
   * written without a transaction of its own: the row is read, then one statement writes it on
   * the condition that its version is still the one read, with its change-log entry (./rows.ts
   * `casUpdate`); a write that came in between makes it start over, and after a few the locking
   * way below takes over. Two round trips instead of four (BEGIN, the locked read, the write,
   * COMMIT): measured, the socket writes of those round trips were a third of the CPU a product
   * update cost this process.
   */
  async update(type: string, resourceId: number, input: WriteInput, options: WriteOptions = {}): Promise<Row> {
    const resource = definition(type);
    const { access } = this.caller;
    authorizeWrite(access, type, 'update', input);
    const alone = !this.joined && !this.caller.beforeCommit;
    if (this.db.provider === 'postgresql' && alone && !changesLinks(resource, input)) {
      // First with the writes that came at the same time, in one statement (./update-batches.ts),
      // a role's checks in its read and its statement.
      const batched = await updateBatches(this.db).update({
        resource,
        id: resourceId,
        clientId: this.caller.apiClientId,
        access,
        plan: (current) => this.planUpdate(resource, resourceId, input, options, current),
      });
      if (batched) return batched;
      // Handed back: a role's write goes the locked way, which checks its row before and after
      // the write in the transaction, and says which check refused it.
      if (!access)
        for (let attempt = 0; attempt < OPTIMISTIC_ATTEMPTS; attempt++) {
          const written = await this.updateIfUnchanged(resource, resourceId, input, options);
          if (written) return written;
        }
    }
    return this.updateLocked(resource, resourceId, input, options);
  }

  /** The update, if the row is still at the version read when it is written; undefined when another write came first. */
  private async updateIfUnchanged(
    resource: ResourceDefinition,
    resourceId: number,
    input: WriteInput,
    options: WriteOptions,
  ): Promise<Row | undefined> {
    const source = this.db.primary;
    const [current] = await rowsByIds(source, resource.type, [resourceId], RequestLoaders.columns(resource.type));
    const plan = await this.planUpdate(resource, resourceId, input, options, current ?? undefined);
    if ('unchanged' in plan) return plan.unchanged;
    try {
      const applied = await casUpdate(source, resource.type, current!, plan.written, plan.entry);
      if (!applied) return undefined;
    } catch (error) {
      throw uniqueViolation(error, resource.type) ?? error;
    }
    await this.announce();
    return plan.now;
  }

  /**
   * An update planned from the row as read (without a lock): what to write, the row it makes and
   * its log entry; the row `unchanged` when nothing would change. Throws what is wrong with the write.
   */
  private async planUpdate(
    resource: ResourceDefinition,
    resourceId: number,
    input: WriteInput,
    options: WriteOptions,
    current: Row | undefined,
  ): Promise<PlannedUpdate | { unchanged: Row }> {
    if (!current) throw notFound(resource.type, resourceId);
    checkPreconditions(resource, current, options);
    const data = await this.prepare(this.db.primary, resource, input, current);
    const columns = changedColumns(data.columns, current);
    if (Object.keys(columns).length === 0) return { unchanged: current };
    const written = withModifiedDate(resource, { ...columns, version: (current.version as number) + 1 });
    const now: Row = { ...current, ...asRead(resource, written) };
    const entry = {
      ...changeEntry(resource.type, current, now)!,
      // Its `at` is the column's default: the instant of the statement's transaction (db/history.ts).
      actor: await actorName(this.db, this.db.primary, this.caller.apiClientId),
    };
    return { written, now, entry };
  }

  /**
   * After a write that logged entries committed: they are numbered before the answer (a client
   * that wrote finds its write in the log), and this process's followers are woken.
   */
  private announce(): Promise<void> {
    return announceWrites(this.db, [this.caller.apiClientId]);
  }

  /** The update in a transaction, under the row's lock. */
  private updateLocked(
    resource: ResourceDefinition,
    resourceId: number,
    input: WriteInput,
    options: WriteOptions,
  ): Promise<Row> {
    const type = resource.type;
    const { access } = this.caller;
    let changed = false;
    return this.transaction(
      type,
      async (tx, log) => {
        // A row the role may not update is not found, before anything is said of its version.
        const current = await this.lockedRow(tx, resource, resourceId, access ? {} : options);
        await requireRowFor(tx, access, type, resourceId, 'update');
        if (access) checkPreconditions(resource, current, options);
        log.before(type, [current]);
        const data = await this.prepare(tx, resource, input, current);
        const columns = changedColumns(data.columns, current);
        const links = await this.applyToMany(tx, resource, resourceId, data.toMany, current);
        if (links.size === 0 && Object.keys(columns).length === 0) return current;
        const written = withModifiedDate(resource, { ...columns, version: (current.version as number) + 1 });
        log.lastly((sql) => appendUpdate(sql, resource.type, resourceId, written));
        const now: Row = { ...current, ...asRead(resource, written) };
        for (const [name, ids] of links) now[idsKey(name)] = ids;
        log.after(type, [now]);
        changed = true;
        return now;
      },
      async (tx) => {
        if (changed) await requireCheck(tx, access, type, [resourceId], 'update');
      },
    );
  }

  /** REL-SET of a to-one relationship. */
  setToOne(
    type: string,
    resourceId: number,
    relationship: string,
    target: number | null,
    options: WriteOptions = {},
  ): Promise<Row> {
    return this.update(type, resourceId, { relationships: { [relationship]: target } }, options);
  }

  /** REL-ADD, REL-REPLACE, REL-REMOVE of a to-many relationship stored in a join table. */
  changeToMany(
    type: string,
    resourceId: number,
    relationship: string,
    change: ToManyChange,
    options: WriteOptions = {},
  ): Promise<Row> {
    return this.update(type, resourceId, { relationships: { [relationship]: change } }, options);
  }

  /**
   * The stored row a write changes, whole (every column and the ids of every relationship, as
   * documents show it; `extra` columns too), locked until the transaction ends, after the checks
   * every such write makes: the resource exists (else not_found, even when a version was
   * expected), and is at an expected version.
   */
  protected async lockedRow(
    tx: WriteTx,
    resource: ResourceDefinition,
    resourceId: number,
    options: WriteOptions,
    extra: readonly Column[] = [],
  ): Promise<Row> {
    const [row] = await lockedRows(
      tx,
      resource.type,
      [resourceId],
      [...RequestLoaders.columns(resource.type), ...extra],
    );
    if (!row) throw notFound(resource.type, resourceId);
    checkPreconditions(resource, row, options);
    return row;
  }

  /** Writes `columns` (changed values) with the next version of the row and a new `modified_date`; answers what it wrote. */
  protected async nextVersion(
    tx: WriteTx,
    resource: ResourceDefinition,
    current: Row,
    columns: Record<string, unknown> = {},
  ): Promise<Record<string, unknown>> {
    const written = withModifiedDate(resource, { ...columns, version: (current.version as number) + 1 });
    await updateRow(tx, resource.type, current.id, written);
    return written;
  }

  /**
   * Checks an input against the rules, and that the resources it links to exist, and turns it
   * into columns to write and to-many changes to apply. `current` is the stored row on update
   * (undefined on create).
   */
  protected async prepare(
    tx: DataSource,
    resource: ResourceDefinition,
    input: WriteInput,
    current: Record<string, unknown> | undefined,
  ): Promise<Prepared> {
    const targets = new LinkTargets();
    const prepared = this.check(resource, input, current, targets);
    await this.verify(tx, targets);
    return prepared;
  }

  /** prepare() without the existence check: the targets linked to are added to `targets` (./write-input.ts). */
  protected check(
    resource: ResourceDefinition,
    input: WriteInput,
    current: Record<string, unknown> | undefined,
    targets: LinkTargets,
    fieldPrefix = '',
  ): Prepared {
    return checkInput(resource, input, current, targets, fieldPrefix, this.caller.takeRuleBreaks);
  }

  /** 404 naming the first field that links to a resource that does not exist (for a role: that it may not read). */
  protected async verify(tx: DataSource, targets: LinkTargets): Promise<void> {
    for await (const { type, id, field } of this.missingLinks(tx, targets)) throw notFound(type, id, field);
  }

  /**
   * The resources `targets` names that do not exist for the caller, each with the first field
   * that names it: those that do not exist, and for a role those it may not read too (what it may
   * not read does not exist for it, even where it may read every row of the type). One statement
   * per linked type, sent as the caller goes on: verify() stops at the first one missing.
   */
  protected async *missingLinks(tx: DataSource, targets: LinkTargets): AsyncGenerator<MissingLink> {
    const reader = readingAs(tx, this.caller.access);
    for (const [type, fields] of targets.byType) {
      const rows = await rowsByIds(reader, type, [...fields.keys()], ID_ONLY);
      const found = new Set(rows.flatMap((row) => (row ? [row.id] : [])));
      for (const [id, field] of fields) if (!found.has(id)) yield { type, id, field };
    }
  }

  /**
   * Applies to-many changes in join tables, touching only the links that differ from the stored
   * ones (those of `current`, read whole; none on create): adding a link already there keeps one,
   * removing one that is not there is no error. Returns the relationships that changed, with their ids now.
   */
  protected async applyToMany(
    tx: WriteTx,
    resource: ResourceDefinition,
    ownerId: number,
    changes: [string, ToManyChange][],
    current: Row | undefined,
  ): Promise<Map<string, number[]>> {
    const changed = new Map<string, number[]>();
    for (const [name, change] of changes) {
      const storage = resource.relationships[name]!.storage;
      if (storage.kind !== 'join') continue;
      const stored = current ? (relationshipIds(current, name) as number[]) : [];
      const present = new Set(stored);
      // Links to rows the caller's role cannot see are neither shown to it nor changed by it: a
      // `set` of what it saw keeps them, a `remove` naming one changes nothing (as for an id not linked).
      const hidden = await hiddenAmong(tx, this.caller.access, resource.relationships[name]!.target, stored);
      const seen = stored.filter((t) => !hidden.has(t));
      // `add` and `remove` together: what is removed goes first, so an id in both stays linked.
      const wanted = new Set(
        'set' in change ? change.set : [...seen.filter((t) => !change.remove?.includes(t)), ...(change.add ?? [])],
      );
      for (const t of hidden) wanted.add(t);
      const removed = stored.filter((targetId) => !wanted.has(targetId));
      const added = [...wanted].filter((targetId) => !present.has(targetId));
      if (removed.length > 0)
        await deleteRows(tx, storage.joinTable, { [storage.ownColumn]: ownerId, [storage.targetColumn]: removed });
      await insertRows(
        tx,
        storage.joinTable,
        added.map((targetId) => ({ [storage.ownColumn]: ownerId, [storage.targetColumn]: targetId })),
      );
      if (removed.length + added.length > 0)
        changed.set(
          name,
          [...wanted].sort((a, b) => a - b),
        );
    }
    return changed;
  }
}

/** Tries of the update without a transaction before it takes the row's lock. */
const OPTIMISTIC_ATTEMPTS = 3;

/** Whether an input changes a to-many relationship (links in a join table: statements of their own). */
function changesLinks(resource: ResourceDefinition, input: WriteInput): boolean {
  return Object.entries(input.relationships ?? {}).some(
    ([name, value]) => value !== undefined && resource.relationships[name]?.cardinality === 'to-many',
  );
}
