/**
 * The bill-of-material writes: a product structure is added only through its product, with its
 * items; items are added, replaced and removed through their structure. Each runs under one
 * lock for all bills of material (PostgreSQL) and refuses an item that would make a product part
 * of itself, at any depth. The structure (or product) whose document lists what changed gets a
 * new version, as every write does (./writes.ts).
 */
import type { Access } from '../permissions/access.ts';
import { authorizeWrite, requireCheck, requireRowFor, rowsFor } from './authorize.ts';
import { checkPreconditions } from './preconditions.ts';
import type { WriteTx } from '../db/transactions.ts';
import { definition } from './columns.ts';
import type { ChangeRecorder } from './change-log.ts';
import { DomainError } from './errors.ts';
import type { Row } from './load.ts';
import { deleteRows, insertRow, valuesWhere } from './rows.ts';
import { id, Sql } from '../db/sql.ts';
import { withServerDates } from './row-values.ts';
import { LinkTargets } from './relationship-rules.ts';
import { Writer, type WriteInput, type WriteOptions } from './writes.ts';

/** A new structure item: its attributes and relationships (`product` required). */
export type ItemInput = WriteInput;

/** PostgreSQL advisory lock serialising the writes that add structure items. (SQLite has one writer.) */
const BOM_LOCK_KEY = 4_201_002;

const PRODUCTS = 'products';
const STRUCTURES = 'product_structures';
const ITEMS = 'product_structure_items';

/** The generic writes of ./writes.ts and those of bills of material: what both surfaces write with. */
export class BomWriter extends Writer {
  /**
   * The only way to add a product structure: through its product, with its items. The product's
   * document changes too (its `product_structure`), so it gets a new version; `options` are about it.
   */
  createStructure(
    productId: number,
    input: WriteInput & { items?: readonly ItemInput[] },
    options: WriteOptions = {},
  ): Promise<number> {
    const structures = definition(STRUCTURES);
    const products = definition(PRODUCTS);
    const { access } = this.caller;
    authorizeWrite(access, STRUCTURES, 'create', { attributes: input.attributes });
    authorizeItems(access, input.items ?? []);
    let items: number[] = [];
    return this.transaction(
      STRUCTURES,
      async (tx, log) => {
        await this.lockBillsOfMaterial(tx);
        // A product the role cannot see is not found, before anything is said of its version.
        const product = await this.lockedRow(tx, products, productId, access ? {} : options);
        await requireRowFor(tx, access, PRODUCTS, productId, 'read');
        if (access) checkPreconditions(products, product, options);
        log.before(PRODUCTS, [product]);
        const [existing] = await valuesWhere(tx, STRUCTURES, 'id', { product_id: productId });
        if (existing !== undefined)
          throw new DomainError(
            'conflict',
            // Not naming a structure the role may not see.
            `products ${productId} already has a product structure${access ? '' : ` (product_structures ${existing})`}`,
            'product_structure',
          );
        const data = await this.prepare(tx, structures, { attributes: input.attributes }, undefined);
        const created = await insertRow(
          tx,
          STRUCTURES,
          withServerDates(structures, { ...data.columns, product_id: productId }),
        );
        log.created(STRUCTURES, [created]);
        items = await this.insertItems(tx, created, productId, input.items ?? []);
        log.created(ITEMS, items);
        await this.nextVersion(tx, products, product);
        return created;
      },
      async (tx, created) => {
        await requireCheck(tx, access, STRUCTURES, [created], 'create');
        await requireCheck(tx, access, ITEMS, items, 'create', (i) => `items[${i}]`);
      },
    );
  }

  /** Adds items to a structure (POST /product_structures/{id}/items); returns their ids. `options` are about the structure. */
  addItems(structureId: number, items: readonly ItemInput[], options: WriteOptions = {}): Promise<number[]> {
    authorizeItems(this.caller.access, items);
    return this.changeItems(structureId, options, async (tx, log, structure) => {
      const ids = await this.insertItems(tx, structureId, structure.product_id as number, items);
      log.created(ITEMS, ids);
      return { result: ids, changed: ids.length > 0, created: ids };
    });
  }

  /** Replaces all items of a structure (old ones are deleted). */
  replaceItems(structureId: number, items: readonly ItemInput[], options: WriteOptions = {}): Promise<number[]> {
    const { access } = this.caller;
    authorizeWrite(access, ITEMS, 'delete');
    authorizeItems(access, items);
    return this.changeItems(structureId, options, async (tx, log, structure) => {
      const where = { product_structure_id: structureId };
      const old = await valuesWhere(tx, ITEMS, 'id', where);
      // Replacing deletes every item: the role must be allowed to delete each.
      const deletable = await rowsFor(tx, access, ITEMS, old, 'delete');
      if (deletable.length < old.length)
        throw new DomainError(
          'forbidden',
          `items: the role ${access!.name} may not delete every item of product_structures ${structureId}; remove and add items instead`,
          'items',
        );
      await log.deleting(ITEMS, old);
      const count = await deleteRows(tx, ITEMS, where);
      const ids = await this.insertItems(tx, structureId, structure.product_id as number, items);
      log.created(ITEMS, ids);
      return { result: ids, changed: count + ids.length > 0, created: ids };
    });
  }

  /** Deletes the given items of a structure; ids it does not hold are ignored. */
  removeItems(structureId: number, itemIds: readonly number[], options: WriteOptions = {}): Promise<void> {
    const { access } = this.caller;
    authorizeWrite(access, ITEMS, 'delete');
    return this.changeItems(structureId, options, async (tx, log) => {
      // Items the role may not delete are left, as items the structure does not hold are.
      const where = { product_structure_id: structureId, id: await rowsFor(tx, access, ITEMS, itemIds, 'delete') };
      await log.deleting(ITEMS, await valuesWhere(tx, ITEMS, 'id', where));
      const count = await deleteRows(tx, ITEMS, where);
      return { result: undefined, changed: count > 0 };
    });
  }

  /**
   * A change to a structure's items, under the bill-of-material lock and the structure's row
   * lock: the structure's document lists its items, so it gets a new version when they change.
   */
  private changeItems<T>(
    structureId: number,
    options: WriteOptions,
    change: (
      tx: WriteTx,
      log: ChangeRecorder,
      structure: Row,
    ) => Promise<{ result: T; changed: boolean; created?: number[] }>,
  ): Promise<T> {
    const structures = definition(STRUCTURES);
    const { access } = this.caller;
    let created: number[] = [];
    return this.transaction(
      ITEMS,
      async (tx, log) => {
        await this.lockBillsOfMaterial(tx);
        const structure = await this.lockedRow(tx, structures, structureId, access ? {} : options, [
          { name: 'product_id', type: 'integer' },
        ]);
        await requireRowFor(tx, access, STRUCTURES, structureId, 'read');
        if (access) checkPreconditions(structures, structure, options);
        log.before(STRUCTURES, [structure]);
        const changes = await change(tx, log, structure);
        created = changes.created ?? [];
        if (changes.changed) await this.nextVersion(tx, structures, structure);
        return changes.result;
      },
      (tx) => requireCheck(tx, access, ITEMS, created, 'create', (i) => `items[${i}]`),
    );
  }

  /**
   * Changes to bills of material take turns (PostgreSQL; SQLite has one writer): two concurrent
   * additions (A into B's structure, B into A's) would each find no cycle in the committed graph
   * and together make one, and two concurrent replaces would each keep the other's items.
   */
  protected async lockBillsOfMaterial(tx: WriteTx): Promise<void> {
    if (this.db.provider === 'postgresql')
      await tx.query(new Sql(tx.provider).text(`SELECT pg_advisory_xact_lock(${BOM_LOCK_KEY})`));
  }

  private async insertItems(
    tx: WriteTx,
    structureId: number,
    ownerProductId: number,
    items: readonly ItemInput[],
  ): Promise<number[]> {
    const resource = definition(ITEMS);
    const prepared: Record<string, unknown>[] = [];
    // The items' products, units and types are checked together: one statement per type, not per item.
    const targets = new LinkTargets();
    for (const [i, item] of items.entries()) {
      const data = this.check(resource, item, undefined, targets, `items[${i}].`);
      prepared.push({ ...data.columns, product_structure_id: structureId });
    }
    await this.verify(tx, targets);
    await refuseCycles(
      tx,
      ownerProductId,
      prepared.map((p) => p.product_id as number),
    );
    const ids: number[] = [];
    for (const data of prepared) ids.push(await insertRow(tx, ITEMS, withServerDates(resource, data)));
    return ids;
  }
}

/** 403 unless the role may create items with the fields each sets (named `items[i].field`). */
function authorizeItems(access: Access | undefined, items: readonly ItemInput[]): void {
  for (const [i, item] of items.entries()) authorizeWrite(access, ITEMS, 'create', item, `items[${i}].`);
}

/**
 * Refuses items that would make the owner product part of itself: an item's product may not be
 * the owner, nor any product whose structure contains the owner at any depth. One recursive
 * statement walks down from the candidate products (UNION makes it stop on existing cycles too).
 */
async function refuseCycles(tx: WriteTx, ownerProductId: number, candidates: readonly number[]): Promise<void> {
  if (candidates.length === 0) return;
  const direct = candidates.indexOf(ownerProductId);
  if (direct >= 0) {
    throw new DomainError(
      'bom_cycle',
      `items[${direct}].product: products ${ownerProductId} cannot be an item of its own structure`,
      `items[${direct}].product`,
    );
  }
  const sql = new Sql(tx.provider)
    .text(`WITH RECURSIVE reach("root", "id") AS (SELECT p."id", p."id" FROM ${id('products')} p WHERE p."id"`)
    .in([...new Set(candidates)])
    .text(` UNION SELECT r."root", i."product_id" FROM reach r JOIN ${id(STRUCTURES)} s ON s."product_id" = r."id"`)
    .text(` JOIN ${id(ITEMS)} i ON i."product_structure_id" = s."id") SELECT "root" FROM reach WHERE "id" = `)
    .value(ownerProductId)
    .text(' LIMIT 1');
  const [cycle] = await tx.query<{ root: number | bigint }>(sql);
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
