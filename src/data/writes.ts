/**
 * Writes, one operation per thing a client can change, each in one transaction. Surfaces pass
 * values under the registry's names and get DomainErrors back (./errors.ts); the rules live
 * here once: required fields, relationship targets that must exist, relationships that cannot
 * be removed or changed, uniqueness, and bills of material without cycles.
 */
import type { Database, PrismaTx } from '../db/client.ts';
import type { Relationship, ResourceDefinition } from '../resources/types.ts';
import { definition } from './columns.ts';
import { DomainError, notFound } from './errors.ts';
import { prismaReads } from '../db/reads.ts';
import { Sql, id } from './sql.ts';
import { attributeData, checkAttribute } from './validate.ts';

/** A to-many change: the whole new set, or links to add and remove. */
export type ToManyChange = { set: readonly number[] } | { add?: readonly number[]; remove?: readonly number[] };

export interface WriteInput {
  /** Attribute values by registry name; server-maintained attributes are ignored. */
  attributes?: Record<string, unknown>;
  /** To-one: the target id or null; to-many: a change. By registry name. */
  relationships?: Record<string, number | null | ToManyChange>;
}

/** A new structure item: its attributes and relationships (`product` required). */
export type ItemInput = WriteInput;

type Delegate = {
  create(args: object): Promise<{ id: number }>;
  update(args: object): Promise<unknown>;
  findUnique(args: object): Promise<Record<string, unknown> | null>;
  findMany(args: object): Promise<Record<string, unknown>[]>;
  createMany(args: object): Promise<unknown>;
  deleteMany(args: object): Promise<unknown>;
};

/** PostgreSQL advisory lock serialising the writes that add structure items. (SQLite has one writer.) */
const BOM_LOCK_KEY = 4_201_002;

const STRUCTURES = 'product_structures';
const ITEMS = 'product_structure_items';

interface Prepared {
  columns: Record<string, unknown>;
  toMany: [string, ToManyChange][];
}

/** The resources a write links to, by type, each with the first input field that names it. */
class LinkTargets {
  readonly byType = new Map<string, Map<number, string>>();

  add(type: string, id: number, field: string): void {
    let fields = this.byType.get(type);
    if (!fields) this.byType.set(type, (fields = new Map()));
    if (!fields.has(id)) fields.set(id, field);
  }
}

export class Writer {
  constructor(private readonly db: Database) {}

  private delegate(tx: PrismaTx, model: string): Delegate {
    return (tx as unknown as Record<string, Delegate>)[model]!;
  }

  /** Runs `work` in one transaction, turning storage errors into domain errors. */
  private async transaction<T>(type: string, work: (tx: PrismaTx) => Promise<T>): Promise<T> {
    try {
      return await this.db.prisma.$transaction(work);
    } catch (error) {
      throw uniqueViolation(error, type) ?? error;
    }
  }

  /** ADD / createX: returns the new id. */
  create(type: string, input: WriteInput): Promise<number> {
    const resource = definition(type);
    return this.transaction(type, async (tx) => {
      const data = await this.prepare(tx, resource, input, undefined);
      const created = await this.delegate(tx, resource.model).create({ data: data.columns, select: { id: true } });
      await this.applyToMany(tx, resource, created.id, data.toMany, true);
      return created.id;
    });
  }

  /** UPDATE / updateX: only what is given changes; `modified_date` always moves. */
  update(type: string, resourceId: number, input: WriteInput): Promise<void> {
    const resource = definition(type);
    return this.transaction(type, async (tx) => {
      const current = await this.delegate(tx, resource.model).findUnique({ where: { id: resourceId } });
      if (!current) throw notFound(type, resourceId);
      const data = await this.prepare(tx, resource, input, current);
      await this.delegate(tx, resource.model).update({ where: { id: resourceId }, data: touched(resource, data.columns) });
      await this.applyToMany(tx, resource, resourceId, data.toMany, false);
    });
  }

  /** REL-SET of a to-one relationship. */
  setToOne(type: string, resourceId: number, relationship: string, target: number | null): Promise<void> {
    return this.update(type, resourceId, { relationships: { [relationship]: target } });
  }

  /** REL-ADD, REL-REPLACE, REL-REMOVE of a to-many relationship stored in a join table. */
  changeToMany(type: string, resourceId: number, relationship: string, change: ToManyChange): Promise<void> {
    return this.update(type, resourceId, { relationships: { [relationship]: change } });
  }

  /** The only way to add a product structure: through its product, with its items. */
  createStructure(productId: number, input: WriteInput & { items?: readonly ItemInput[] }): Promise<number> {
    const structures = definition(STRUCTURES);
    return this.transaction(STRUCTURES, async (tx) => {
      await this.lockBillsOfMaterial(tx);
      const product = await tx.product.findUnique({ where: { id: productId }, select: { id: true } });
      if (!product) throw notFound('products', productId);
      const existing = await tx.productStructure.findUnique({ where: { product_id: productId }, select: { id: true } });
      if (existing) throw new DomainError('conflict', `products ${productId} already has a product structure (product_structures ${existing.id})`, 'product_structure');
      const data = await this.prepare(tx, structures, { attributes: input.attributes }, undefined);
      const created = await tx.productStructure.create({ data: { ...(data.columns as object), product_id: productId }, select: { id: true } });
      await this.insertItems(tx, created.id, productId, input.items ?? []);
      return created.id;
    });
  }

  /** Adds items to a structure (POST /product_structures/{id}/items); returns their ids. */
  addItems(structureId: number, items: readonly ItemInput[]): Promise<number[]> {
    return this.transaction(ITEMS, async (tx) => {
      await this.lockBillsOfMaterial(tx);
      const structure = await this.structure(tx, structureId);
      const ids = await this.insertItems(tx, structureId, structure.product_id, items);
      await this.touchStructure(tx, structureId);
      return ids;
    });
  }

  /** Replaces all items of a structure (old ones are deleted). */
  replaceItems(structureId: number, items: readonly ItemInput[]): Promise<number[]> {
    return this.transaction(ITEMS, async (tx) => {
      await this.lockBillsOfMaterial(tx);
      const structure = await this.structure(tx, structureId);
      await tx.productStructureItem.deleteMany({ where: { product_structure_id: structureId } });
      const ids = await this.insertItems(tx, structureId, structure.product_id, items);
      await this.touchStructure(tx, structureId);
      return ids;
    });
  }

  /** Deletes the given items of a structure; ids it does not hold are ignored. */
  removeItems(structureId: number, itemIds: readonly number[]): Promise<void> {
    return this.transaction(ITEMS, async (tx) => {
      await this.lockBillsOfMaterial(tx);
      await this.structure(tx, structureId);
      await tx.productStructureItem.deleteMany({ where: { product_structure_id: structureId, id: { in: [...itemIds] } } });
      await this.touchStructure(tx, structureId);
    });
  }

  /**
   * Changes to bills of material take turns (PostgreSQL; SQLite has one writer): two concurrent
   * additions (A into B's structure, B into A's) would each find no cycle in the committed graph
   * and together make one, and two concurrent replaces would each keep the other's items.
   */
  private async lockBillsOfMaterial(tx: PrismaTx): Promise<void> {
    if (this.db.provider === 'postgresql') await tx.$executeRawUnsafe(`SELECT pg_advisory_xact_lock(${BOM_LOCK_KEY})`);
  }

  private async structure(tx: PrismaTx, structureId: number): Promise<{ product_id: number }> {
    const structure = await tx.productStructure.findUnique({ where: { id: structureId }, select: { product_id: true } });
    if (!structure) throw notFound(STRUCTURES, structureId);
    return structure;
  }

  private async touchStructure(tx: PrismaTx, structureId: number): Promise<void> {
    await tx.productStructure.update({ where: { id: structureId }, data: { modified_date: new Date() } });
  }

  private async insertItems(tx: PrismaTx, structureId: number, ownerProductId: number, items: readonly ItemInput[]): Promise<number[]> {
    const resource = definition(ITEMS);
    const prepared: Record<string, unknown>[] = [];
    // The items' products, units and types are checked together: one statement per type, not per item.
    const targets = new LinkTargets();
    for (const [i, item] of items.entries()) {
      const data = await this.check(tx, resource, item, undefined, targets, `items[${i}].`);
      prepared.push({ ...data.columns, product_structure_id: structureId });
    }
    await this.verify(tx, targets);
    await refuseCycles(tx, this.db, ownerProductId, prepared.map((p) => p.product_id as number));
    const ids: number[] = [];
    for (const data of prepared) ids.push((await tx.productStructureItem.create({ data: data as never, select: { id: true } })).id);
    return ids;
  }

  /**
   * Checks an input against the rules, and that the resources it links to exist, and turns it
   * into columns to write and to-many changes to apply. `current` is the stored row on update
   * (undefined on create).
   */
  private async prepare(tx: PrismaTx, resource: ResourceDefinition, input: WriteInput, current: Record<string, unknown> | undefined): Promise<Prepared> {
    const targets = new LinkTargets();
    const prepared = await this.check(tx, resource, input, current, targets);
    await this.verify(tx, targets);
    return prepared;
  }

  /** prepare() without the existence check: the targets linked to are added to `targets`. */
  private async check(
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
      if (!attribute) throw new DomainError('bad_input', `${fieldPrefix}${name} is not an attribute of ${resource.type}`, fieldPrefix + name, undefined, 'unknown_field');
      if (attribute.write === 'server' || value === undefined) continue;
      values[name] = checkAttribute(resource, name, value, fieldPrefix + name);
    }
    if (creating) {
      for (const [name, attribute] of Object.entries(resource.attributes)) {
        if (attribute.required && (values[name] === undefined || values[name] === null)) {
          throw new DomainError('bad_input', `${fieldPrefix}${name} is required`, fieldPrefix + name, undefined, 'missing_field');
        }
      }
    }
    const columns = attributeData(resource, values, current);

    const toMany: [string, ToManyChange][] = [];
    const relationships = input.relationships ?? {};
    for (const [name, value] of Object.entries(relationships)) {
      const relationship = resource.relationships[name];
      const field = fieldPrefix + name;
      if (!relationship) throw new DomainError('bad_input', `${field} is not a relationship of ${resource.type}`, field, undefined, 'unknown_field');
      if (value === undefined) continue;
      // A document read with GET and sent back unchanged is accepted: a relationship that cannot
      // be changed may be given as it is.
      if (!creating && (value === null || !isWritable(relationship)) && (await this.unchanged(tx, relationship, value, current))) continue;
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
        if (relationship.storage.kind !== 'join') throw new DomainError('forbidden', `${field} cannot be changed here`, field);
        const change = value as ToManyChange;
        for (const targetId of 'set' in change ? change.set : [...(change.add ?? [])]) targets.add(relationship.target, targetId, field);
        toMany.push([name, change]);
      }
    }
    if (creating) {
      for (const [name, relationship] of Object.entries(resource.relationships)) {
        if (relationship.required && (relationships[name] === undefined || relationships[name] === null)) {
          throw new DomainError('bad_input', `${fieldPrefix}${name} is required`, fieldPrefix + name, undefined, 'missing_field');
        }
      }
    }
    return { columns, toMany };
  }

  /** 404 naming the first field that links to a resource that does not exist. */
  private async verify(tx: PrismaTx, targets: LinkTargets): Promise<void> {
    for (const [type, fields] of targets.byType) {
      const ids = [...fields.keys()];
      const found = new Set((await this.delegate(tx, definition(type).model).findMany({ where: { id: { in: ids } }, select: { id: true } })).map((r) => r.id as number));
      const missing = ids.find((i) => !found.has(i));
      if (missing !== undefined) throw notFound(type, missing, fields.get(missing));
    }
  }

  /** Whether `value` is what the relationship already holds for the stored row `current`. */
  private async unchanged(tx: PrismaTx, relationship: Relationship, value: number | null | ToManyChange, current: Record<string, unknown>): Promise<boolean> {
    const storage = relationship.storage;
    const target = definition(relationship.target);
    if (storage.kind === 'foreignKey') return (current[storage.column] ?? null) === value;
    if (storage.kind === 'inverse') {
      const row = await this.delegate(tx, target.model).findMany({ where: { [storage.targetColumn]: current.id }, select: { id: true } });
      return (row[0]?.id ?? null) === value;
    }
    if (value === null || typeof value === 'number' || !('set' in value)) return false;
    const ids =
      storage.kind === 'children'
        ? (await this.delegate(tx, target.model).findMany({ where: { [storage.targetColumn]: current.id }, select: { id: true } })).map((r) => r.id as number)
        : (await this.delegate(tx, storage.joinModel).findMany({ where: { [storage.ownColumn]: current.id }, select: { [storage.targetColumn]: true } })).map((r) => r[storage.targetColumn] as number);
    const given = [...new Set(value.set)].sort((a, b) => a - b);
    return given.length === ids.length && ids.sort((a, b) => a - b).every((id, i) => id === given[i]);
  }

  private async applyToMany(tx: PrismaTx, resource: ResourceDefinition, ownerId: number, changes: [string, ToManyChange][], creating: boolean) {
    for (const [name, change] of changes) {
      const storage = resource.relationships[name]!.storage;
      if (storage.kind !== 'join') continue;
      const links = this.delegate(tx, storage.joinModel);
      const owner = { [storage.ownColumn]: ownerId };
      let add: readonly number[] = [];
      if ('set' in change) {
        if (!creating) await links.deleteMany({ where: owner });
        add = change.set;
      } else {
        if (change.remove?.length) await links.deleteMany({ where: { ...owner, [storage.targetColumn]: { in: [...change.remove] } } });
        add = change.add ?? [];
      }
      // After `set`, no link is left (or none was there yet).
      const present = 'set' in change
        ? new Set<number>()
        : new Set((await links.findMany({ where: owner, select: { [storage.targetColumn]: true } })).map((r) => r[storage.targetColumn] as number));
      // Adding a link already there keeps one (idempotent).
      const missing = [...new Set(add)].filter((targetId) => !present.has(targetId));
      if (missing.length > 0) await links.createMany({ data: missing.map((targetId) => ({ ...owner, [storage.targetColumn]: targetId })) });
    }
  }
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

/** `modified_date` set by the server on every update, even one that changes nothing else. */
function touched(resource: ResourceDefinition, columns: Record<string, unknown>): Record<string, unknown> {
  return resource.attributes.modified_date ? { ...columns, modified_date: new Date() } : columns;
}

/**
 * Refuses items that would make the owner product part of itself: an item's product may not be
 * the owner, nor any product whose structure contains the owner at any depth. One recursive
 * statement walks down from the candidate products (UNION makes it stop on existing cycles too).
 */
async function refuseCycles(tx: PrismaTx, db: Database, ownerProductId: number, candidates: readonly number[]): Promise<void> {
  if (candidates.length === 0) return;
  const direct = candidates.indexOf(ownerProductId);
  if (direct >= 0) {
    throw new DomainError('bom_cycle', `items[${direct}].product: products ${ownerProductId} cannot be an item of its own structure`, `items[${direct}].product`);
  }
  const sql = new Sql(db.provider)
    .text(`WITH RECURSIVE reach("root", "id") AS (SELECT p."id", p."id" FROM ${id('products')} p WHERE p."id"`)
    .in([...new Set(candidates)])
    .text(` UNION SELECT r."root", i."product_id" FROM reach r JOIN ${id(STRUCTURES)} s ON s."product_id" = r."id"`)
    .text(` JOIN ${id(ITEMS)} i ON i."product_structure_id" = s."id") SELECT "root" FROM reach WHERE "id" = `)
    .value(ownerProductId)
    .text(' LIMIT 1');
  const [cycle] = await prismaReads(db.provider, tx).query<{ root: number | bigint }>(sql);
  if (cycle) {
    // A recursive query's columns have no declared type in SQLite: integers come back as bigint.
    const root = Number(cycle.root);
    const index = candidates.indexOf(root);
    throw new DomainError(
      'bom_cycle',
      `items[${index}].product: products ${root} contains products ${ownerProductId} in its bill of material, so it cannot be an item of it`,
      `items[${index}].product`,
    );
  }
}

/**
 * A unique constraint violated by a write, as a conflict naming the field (P2002 from Prisma's
 * model API; the constraint's fields from the driver adapter).
 */
function uniqueViolation(error: unknown, type: string): DomainError | undefined {
  const e = error as { code?: string; meta?: { target?: unknown; driverAdapterError?: { cause?: { kind?: string; constraint?: { fields?: string[] } } } } };
  const cause = e?.meta?.driverAdapterError?.cause;
  if (e?.code !== 'P2002' && cause?.kind !== 'UniqueConstraintViolation') return undefined;
  const fields = cause?.constraint?.fields ?? (Array.isArray(e.meta?.target) ? (e.meta!.target as string[]) : []);
  const field = fields.map((f) => f.replace(/"/g, '')).join(', ') || 'a unique field';
  return new DomainError('conflict', `${field} must be unique among ${type}: another one already has this value`, field);
}
