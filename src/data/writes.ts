/**
 * Writes, one operation per thing a client can change, each in one transaction. Surfaces pass
 * values under the registry's names and get DomainErrors back (./errors.ts); the rules live
 * here once: required fields, relationship targets that must exist, relationships that cannot
 * be removed or changed, uniqueness. The bill-of-material writes (structures and their items)
 * build on these in ./bom-writes.ts.
 *
 * Versions: every resource whose document a write changes gets `version` + 1 and a new
 * `modified_date`, in the write's transaction; a write that changes nothing writes nothing. A
 * write locks the row it changes first (PostgreSQL; SQLite has one writer), so that concurrent
 * writes to one resource take turns, and a conditional write (WriteOptions.expectedVersion)
 * compares against the version it would overwrite.
 */
import type { Database, PrismaTx } from '../db/client.ts';
import { uniqueViolationFields } from '../db/errors.ts';
import type { Relationship, ResourceDefinition } from '../resources/types.ts';
import { definition } from './columns.ts';
import { DomainError, notFound, staleVersion } from './errors.ts';
import { id } from './sql.ts';
import { Decimal } from './decimal.ts';
import { attributeData, checkAttribute } from './validate.ts';
import { ChangeRecorder, changesCommitted } from './change-log.ts';
import { currentWriteHooks } from './write-hooks.ts';

/** A to-many change: the whole new set, or links to add and remove. */
export type ToManyChange = { set: readonly number[] } | { add?: readonly number[]; remove?: readonly number[] };

export interface WriteInput {
  /** Attribute values by registry name; server-maintained attributes are ignored. */
  attributes?: Record<string, unknown>;
  /** To-one: the target id or null; to-many: a change. By registry name. */
  relationships?: Record<string, number | null | ToManyChange>;
}

/** What a client may ask of a write besides its content. */
export interface WriteOptions {
  /**
   * The version the client last read, or several of which any will do (REST's If-Match,
   * GraphQL's expectedVersion): when the resource is at another, nothing is written and the
   * write fails with `precondition_failed`.
   */
  expectedVersion?: number | readonly number[];
}

type Delegate = {
  create(args: object): Promise<{ id: number }>;
  update(args: object): Promise<unknown>;
  updateMany(args: object): Promise<{ count: number }>;
  findUnique(args: object): Promise<Record<string, unknown> | null>;
  findMany(args: object): Promise<Record<string, unknown>[]>;
  createMany(args: object): Promise<unknown>;
  deleteMany(args: object): Promise<{ count: number }>;
};

interface Prepared {
  columns: Record<string, unknown>;
  toMany: [string, ToManyChange][];
}

/** The resources a write links to, by type, each with the first input field that names it. */
export class LinkTargets {
  readonly byType = new Map<string, Map<number, string>>();

  add(type: string, id: number, field: string): void {
    let fields = this.byType.get(type);
    if (!fields) this.byType.set(type, (fields = new Map()));
    if (!fields.has(id)) fields.set(id, field);
  }
}

export class Writer {
  constructor(protected readonly db: Database) {}

  protected delegate(tx: PrismaTx, model: string): Delegate {
    return (tx as unknown as Record<string, Delegate>)[model]!;
  }

  /**
   * Runs `work` in one transaction, then appends to the change log what it changed
   * (./change-log.ts), then the caller's hooks (./write-hooks.ts); storage errors become domain errors.
   */
  protected async transaction<T>(type: string, work: (tx: PrismaTx, log: ChangeRecorder) => Promise<T>): Promise<T> {
    const hooks = currentWriteHooks();
    let logged = false;
    try {
      const result = await this.db.prisma.$transaction(async (tx) => {
        const log = new ChangeRecorder(this.db, tx);
        const result = await work(tx, log);
        logged = await log.append();
        await hooks?.beforeCommit(tx);
        return result;
      });
      if (logged) changesCommitted(this.db);
      return result;
    } catch (error) {
      throw uniqueViolation(error, type) ?? error;
    }
  }

  /** ADD / createX: returns the new id. */
  create(type: string, input: WriteInput): Promise<number> {
    const resource = definition(type);
    return this.transaction(type, async (tx, log) => {
      const data = await this.prepare(tx, resource, input, undefined);
      const created = await this.delegate(tx, resource.model).create({ data: data.columns, select: { id: true } });
      await this.applyToMany(tx, resource, created.id, data.toMany, true);
      log.created(type, [created.id]);
      return created.id;
    });
  }

  /** UPDATE / updateX: only what is given changes; a write that changes nothing writes nothing. */
  update(type: string, resourceId: number, input: WriteInput, options: WriteOptions = {}): Promise<void> {
    const resource = definition(type);
    return this.transaction(type, async (tx, log) => {
      const current = await this.lockedRow(tx, resource, resourceId, options);
      await log.updating(type, [resourceId]);
      const data = await this.prepare(tx, resource, input, current);
      const columns = changedColumns(data.columns, current);
      const linksChanged = await this.applyToMany(tx, resource, resourceId, data.toMany, false);
      if (linksChanged || Object.keys(columns).length > 0) await this.nextVersion(tx, resource, current, columns);
    });
  }

  /** REL-SET of a to-one relationship. */
  setToOne(
    type: string,
    resourceId: number,
    relationship: string,
    target: number | null,
    options: WriteOptions = {},
  ): Promise<void> {
    return this.update(type, resourceId, { relationships: { [relationship]: target } }, options);
  }

  /** REL-ADD, REL-REPLACE, REL-REMOVE of a to-many relationship stored in a join table. */
  changeToMany(
    type: string,
    resourceId: number,
    relationship: string,
    change: ToManyChange,
    options: WriteOptions = {},
  ): Promise<void> {
    return this.update(type, resourceId, { relationships: { [relationship]: change } }, options);
  }

  /**
   * The stored row a write changes (`select`: some of its columns), locked until the transaction
   * ends (PostgreSQL: FOR NO KEY UPDATE, which still lets other transactions insert rows that
   * refer to it; SQLite has one writer), after the checks every such write makes: the resource
   * exists (else not_found, even when a version was expected), and is at an expected version.
   */
  protected async lockedRow(
    tx: PrismaTx,
    resource: ResourceDefinition,
    resourceId: number,
    options: WriteOptions,
    select?: Record<string, true>,
  ): Promise<Record<string, unknown>> {
    if (this.db.provider === 'postgresql') {
      await tx.$executeRawUnsafe(`SELECT 1 FROM ${id(resource.type)} WHERE "id" = $1 FOR NO KEY UPDATE`, resourceId);
    }
    const row = await this.delegate(tx, resource.model).findUnique({
      where: { id: resourceId },
      ...(select && { select }),
    });
    if (!row) throw notFound(resource.type, resourceId);
    const expected = options.expectedVersion;
    if (expected !== undefined) {
      const versions = typeof expected === 'number' ? [expected] : expected;
      if (!versions.includes(row.version as number))
        throw staleVersion(resource.type, resourceId, row.version as number, versions);
    }
    return row;
  }

  /** Writes `columns` (changed values) with the next version of the row and a new `modified_date`. */
  protected async nextVersion(
    tx: PrismaTx,
    resource: ResourceDefinition,
    current: Record<string, unknown>,
    columns: Record<string, unknown> = {},
  ): Promise<void> {
    const data = { ...columns, version: (current.version as number) + 1 };
    await this.delegate(tx, resource.model).update({
      where: { id: current.id },
      data: resource.attributes.modified_date ? { ...data, modified_date: new Date() } : data,
    });
  }

  /**
   * Checks an input against the rules, and that the resources it links to exist, and turns it
   * into columns to write and to-many changes to apply. `current` is the stored row on update
   * (undefined on create).
   */
  protected async prepare(
    tx: PrismaTx,
    resource: ResourceDefinition,
    input: WriteInput,
    current: Record<string, unknown> | undefined,
  ): Promise<Prepared> {
    const targets = new LinkTargets();
    const prepared = await this.check(tx, resource, input, current, targets);
    await this.verify(tx, targets);
    return prepared;
  }

  /** prepare() without the existence check: the targets linked to are added to `targets`. */
  protected async check(
    tx: PrismaTx,
    resource: ResourceDefinition,
    input: WriteInput,
    current: Record<string, unknown> | undefined,
    targets: LinkTargets,
    fieldPrefix = '',
  ): Promise<Prepared> {
    const creating = current === undefined;
    const values: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(input.attributes ?? {})) {
      const attribute = resource.attributes[name];
      if (!attribute) throw unknownField(fieldPrefix + name, 'an attribute', resource.type);
      if (attribute.write === 'server' || value === undefined) continue;
      values[name] = checkAttribute(resource, name, value, fieldPrefix + name);
    }
    if (creating) {
      for (const [name, attribute] of Object.entries(resource.attributes)) {
        if (attribute.required && (values[name] === undefined || values[name] === null)) {
          throw missingField(fieldPrefix + name);
        }
      }
    }
    const columns = attributeData(resource, values, current);

    const toMany: [string, ToManyChange][] = [];
    const relationships = input.relationships ?? {};
    for (const [name, value] of Object.entries(relationships)) {
      const relationship = resource.relationships[name];
      const field = fieldPrefix + name;
      if (!relationship) throw unknownField(field, 'a relationship', resource.type);
      if (value === undefined) continue;
      // A document read with GET and sent back unchanged is accepted: a relationship that cannot
      // be changed may be given as it is.
      if (
        !creating &&
        (value === null || !isWritable(relationship)) &&
        (await this.unchanged(tx, relationship, value, current))
      )
        continue;
      // On creation there is nothing to change: an empty link is no link (a document copied from another resource).
      if (creating && !isWritable(relationship) && isEmpty(value)) continue;
      refuseForbidden(relationship, creating, field);
      if (relationship.cardinality === 'to-one') {
        if (relationship.storage.kind !== 'foreignKey') {
          throw new DomainError('forbidden', `${field} cannot be set here`, field);
        }
        if (value === null) {
          if (!relationship.removable || (creating && relationship.required)) {
            throw new DomainError('bad_input', `${field} cannot be removed`, field, undefined, 'invalid_relationship');
          }
          columns[relationship.storage.column] = null;
        } else {
          targets.add(relationship.target, value as number, field);
          columns[relationship.storage.column] = value;
        }
      } else {
        if (relationship.storage.kind !== 'join')
          throw new DomainError('forbidden', `${field} cannot be changed here`, field);
        const change = value as ToManyChange;
        for (const targetId of 'set' in change ? change.set : [...(change.add ?? [])])
          targets.add(relationship.target, targetId, field);
        toMany.push([name, change]);
      }
    }
    if (creating) {
      for (const [name, relationship] of Object.entries(resource.relationships)) {
        if (relationship.required && (relationships[name] === undefined || relationships[name] === null)) {
          throw missingField(fieldPrefix + name);
        }
      }
    }
    return { columns, toMany };
  }

  /** 404 naming the first field that links to a resource that does not exist. */
  protected async verify(tx: PrismaTx, targets: LinkTargets): Promise<void> {
    for (const [type, fields] of targets.byType) {
      const ids = [...fields.keys()];
      const found = new Set(
        (
          await this.delegate(tx, definition(type).model).findMany({ where: { id: { in: ids } }, select: { id: true } })
        ).map((r) => r.id as number),
      );
      const missing = ids.find((i) => !found.has(i));
      if (missing !== undefined) throw notFound(type, missing, fields.get(missing));
    }
  }

  /** Whether `value` is what the relationship already holds for the stored row `current`. */
  private async unchanged(
    tx: PrismaTx,
    relationship: Relationship,
    value: number | null | ToManyChange,
    current: Record<string, unknown>,
  ): Promise<boolean> {
    const storage = relationship.storage;
    const target = definition(relationship.target);
    if (storage.kind === 'foreignKey') return (current[storage.column] ?? null) === value;
    if (storage.kind === 'inverse') {
      const row = await this.delegate(tx, target.model).findMany({
        where: { [storage.targetColumn]: current.id },
        select: { id: true },
      });
      return (row[0]?.id ?? null) === value;
    }
    if (value === null || typeof value === 'number' || !('set' in value)) return false;
    const ids =
      storage.kind === 'children'
        ? (
            await this.delegate(tx, target.model).findMany({
              where: { [storage.targetColumn]: current.id },
              select: { id: true },
            })
          ).map((r) => r.id as number)
        : (
            await this.delegate(tx, storage.joinModel).findMany({
              where: { [storage.ownColumn]: current.id },
              select: { [storage.targetColumn]: true },
            })
          ).map((r) => r[storage.targetColumn] as number);
    const given = [...new Set(value.set)].sort((a, b) => a - b);
    return given.length === ids.length && ids.sort((a, b) => a - b).every((id, i) => id === given[i]);
  }

  /**
   * Applies to-many changes in join tables, touching only the links that differ from the stored
   * ones: adding a link already there keeps one, removing one that is not there is no error.
   * Returns whether any link was added or removed.
   */
  private async applyToMany(
    tx: PrismaTx,
    resource: ResourceDefinition,
    ownerId: number,
    changes: [string, ToManyChange][],
    creating: boolean,
  ): Promise<boolean> {
    let changed = false;
    for (const [name, change] of changes) {
      const storage = resource.relationships[name]!.storage;
      if (storage.kind !== 'join') continue;
      const links = this.delegate(tx, storage.joinModel);
      const owner = { [storage.ownColumn]: ownerId };
      const stored = creating
        ? []
        : (await links.findMany({ where: owner, select: { [storage.targetColumn]: true } })).map(
            (r) => r[storage.targetColumn] as number,
          );
      const present = new Set(stored);
      // `add` and `remove` together: what is removed goes first, so an id in both stays linked.
      const wanted = new Set(
        'set' in change ? change.set : [...stored.filter((t) => !change.remove?.includes(t)), ...(change.add ?? [])],
      );
      const removed = stored.filter((targetId) => !wanted.has(targetId));
      const added = [...wanted].filter((targetId) => !present.has(targetId));
      if (removed.length > 0) await links.deleteMany({ where: { ...owner, [storage.targetColumn]: { in: removed } } });
      if (added.length > 0)
        await links.createMany({ data: added.map((targetId) => ({ ...owner, [storage.targetColumn]: targetId })) });
      changed ||= removed.length + added.length > 0;
    }
    return changed;
  }
}

/** The columns whose value would change: decimals compare as numbers, exactly (1.50 is 1.5). */
function changedColumns(columns: Record<string, unknown>, current: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(columns).filter(([column, value]) => !sameValue(current[column], value)));
}

function sameValue(stored: unknown, given: unknown): boolean {
  if (stored === null || stored === undefined || given === null || given === undefined)
    return (stored ?? null) === (given ?? null);
  // Prisma reads decimals as its own Decimal class; checked values are canonical decimal strings.
  if (typeof stored === 'object' && typeof (stored as { toFixed?: unknown }).toFixed === 'function')
    return new Decimal(String(stored)).equals(new Decimal(String(given)));
  return stored === given;
}

function isEmpty(value: number | null | ToManyChange): boolean {
  return value === null || (typeof value === 'object' && 'set' in value && value.set.length === 0);
}

/** Whether an update may change the relationship (others may only be given as they are). */
export function isWritable(relationship: Relationship): boolean {
  const forbidden = relationship.forbidden?.operations.some((op) => op === 'set' || op === 'add');
  return !forbidden && (relationship.storage.kind === 'foreignKey' || relationship.storage.kind === 'join');
}

/** The always-refused changes (rest.md "Operations that are always refused"), inside a body too. */
function refuseForbidden(relationship: Relationship, creating: boolean, field: string): void {
  const forbidden = relationship.forbidden;
  if (!forbidden?.operations.includes('set') && !forbidden?.operations.includes('add')) return;
  // These links (a customer product's customer, an item's product and type) are given when the
  // resource is created and never changed afterwards.
  if (creating && relationship.storage.kind === 'foreignKey') return;
  throw new DomainError('forbidden', `${field}: ${forbidden.message}`, field);
}

/** A field the type does not have (400 `unknown_field` in REST). */
function unknownField(field: string, kind: 'an attribute' | 'a relationship', type: string): DomainError {
  return new DomainError('bad_input', `${field} is not ${kind} of ${type}`, field, undefined, 'unknown_field');
}

/** A field required on create that was not given (400 `missing_field` in REST). */
function missingField(field: string): DomainError {
  return new DomainError('bad_input', `${field} is required`, field, undefined, 'missing_field');
}

/** A unique constraint violated by a write, as a conflict naming the field. */
function uniqueViolation(error: unknown, type: string): DomainError | undefined {
  const fields = uniqueViolationFields(error);
  if (!fields) return undefined;
  const field = fields.join(', ') || 'a unique field';
  return new DomainError(
    'conflict',
    `${field} must be unique among ${type}: another one already has this value`,
    field,
  );
}
