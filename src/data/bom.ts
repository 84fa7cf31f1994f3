/**
 * Bill-of-material explosion and where-used, level by level: each level of every explosion
 * running in the same request is one statement (the loads are batched), so the cost grows with
 * the number of levels asked for, never with the width of the trees.
 *
 * Quantities (graphql.md "Bill-of-material explosion"): a structure's `quantity` is the batch it
 * describes; an item needs required(parent) x item quantity / structure quantity, net and gross,
 * where a missing gross quantity is net x (1 + loss_percentage / 100). A component with a
 * structure of its own is exploded further with its gross requirement. Arithmetic is exact
 * (decimal.js); results are cut to the 15 significant digits the API carries.
 */
import { Decimal as BaseDecimal } from 'decimal.js';
import { groupBy, type DataSource } from './load.ts';
import { andVisible } from './visible.ts';
import { Sql, decimalAsNumber, id } from '../db/sql.ts';

/** Enough digits that a chain of multiplications and divisions loses nothing before the final cut. */
const Decimal = BaseDecimal.clone({ precision: 40 });
type Decimal = InstanceType<typeof Decimal>;

/** One item of a structure, as the explosion needs it. */
export interface StructureItem {
  owner: number;
  structureQuantity: number | null;
  itemId: number;
  productId: number;
  /** The item's unit, or the component's own when the item names none. */
  unitId: number | null;
  net: number | null;
  gross: number | null;
  loss: number | null;
  isPhantom: boolean;
}

/** The items of the structures of the given products (none where a product has no structure), in one statement. */
export async function structureItems(db: DataSource, productIds: readonly number[]): Promise<StructureItem[][]> {
  const dec = (column: string, alias: string) => decimalAsNumber(db.provider, column, alias);
  const sql = new Sql(db.provider)
    .text(
      `SELECT s."product_id" AS "owner", ${dec('s."quantity"', 'structureQuantity')}, i."id" AS "itemId", i."product_id" AS "productId",`,
    )
    .text(
      ` COALESCE(i."unit_id", p."unit_id") AS "unitId", ${dec('i."net_quantity"', 'net')}, ${dec('i."gross_quantity"', 'gross')},`,
    )
    .text(` ${dec('i."loss_percentage"', 'loss')}, i."is_phantom" AS "isPhantom"`)
    .text(
      ` FROM ${id('product_structures')} s JOIN ${id('product_structure_items')} i ON i."product_structure_id" = s."id"`,
    )
    .text(` JOIN ${id('products')} p ON p."id" = i."product_id" WHERE s."product_id"`)
    .in(productIds);
  // A role sees the lines of the structures, items and components it may read, no others.
  andVisible(sql, db, 'product_structures', undefined, 's');
  andVisible(sql, db, 'product_structure_items', undefined, 'i');
  andVisible(sql, db, 'products', undefined, 'p');
  sql.text(` ORDER BY s."product_id", i."id"`);
  // An expression's type is not declared in SQLite: its integers come back as bigint.
  const rows = (await db.query<StructureItem>(sql)).map((raw) => ({
    ...raw,
    unitId: raw.unitId === null ? null : Number(raw.unitId),
  }));
  return groupBy(rows, 'owner', productIds);
}

/** One place a product is used: the item, and the product whose structure holds it. */
export interface Usage {
  component: number;
  parentId: number;
  itemId: number;
  net: number | null;
  gross: number | null;
  structureQuantity: number | null;
}

/** Where each product is an item, in one statement. */
export async function usages(db: DataSource, productIds: readonly number[]): Promise<Usage[][]> {
  const dec = (column: string, alias: string) => decimalAsNumber(db.provider, column, alias);
  const sql = new Sql(db.provider)
    .text(`SELECT i."product_id" AS "component", s."product_id" AS "parentId", i."id" AS "itemId",`)
    .text(
      ` ${dec('i."net_quantity"', 'net')}, ${dec('i."gross_quantity"', 'gross')}, ${dec('s."quantity"', 'structureQuantity')}`,
    )
    .text(
      ` FROM ${id('product_structure_items')} i JOIN ${id('product_structures')} s ON s."id" = i."product_structure_id"`,
    )
    .text(` WHERE i."product_id"`)
    .in(productIds);
  andVisible(sql, db, 'product_structure_items', undefined, 'i');
  andVisible(sql, db, 'product_structures', undefined, 's');
  if (db.access) {
    // The parent, when the role may see only some products.
    sql.text(` AND EXISTS (SELECT 1 FROM ${id('products')} pp WHERE pp."id" = s."product_id"`);
    andVisible(sql, db, 'products', undefined, 'pp');
    sql.text(')');
  }
  sql.text(` ORDER BY i."product_id", s."product_id", i."id"`);
  return groupBy(await db.query<Usage>(sql), 'component', productIds);
}

export interface BomLine {
  level: number;
  productId: number;
  /** Products from the exploded one down to this line's parent. */
  path: number[];
  itemId: number;
  unitId: number | null;
  /** Null where the structure's quantity is zero or missing: a requirement cannot be derived. */
  netQuantity: Decimal | null;
  grossQuantity: Decimal | null;
  isPhantom: boolean;
}

export interface ExplosionLimits {
  levels: number;
  /** Lines at most; an explosion that would be longer is refused rather than cut. */
  maxLines: number;
}

export class ExplosionTooLargeError extends Error {}

const decimal = (value: number | null) => (value === null ? null : new Decimal(String(value)));

/**
 * Explodes `productId` for `quantity` (default: the batch its own structure describes) down to
 * `levels` levels, in depth-first order (each line followed by the lines of its components).
 */
export async function explode(
  loadItems: (productIds: number[]) => Promise<StructureItem[][]>,
  productId: number,
  quantity: string | null,
  { levels, maxLines }: ExplosionLimits,
): Promise<BomLine[]> {
  type Node = { productId: number; required: Decimal | null; path: number[]; order: number[] };
  const lines: (BomLine & { order: number[] })[] = [];
  let frontier: Node[] = [
    { productId, required: quantity === null ? null : new Decimal(quantity), path: [productId], order: [] },
  ];
  for (let level = 1; level <= levels && frontier.length > 0; level++) {
    const structures = await loadItems(frontier.map((n) => n.productId));
    const next: Node[] = [];
    frontier.forEach((node, n) => {
      const items = structures[n]!;
      if (items.length === 0) return;
      const batch = decimal(items[0]!.structureQuantity);
      // At the top, without a quantity asked for, the structure's own batch is made.
      const required = node.required ?? batch;
      const usable = batch !== null && !batch.isZero() && required !== null;
      items.forEach((item, i) => {
        const net = decimal(item.net) ?? new Decimal(0);
        const gross =
          decimal(item.gross) ?? net.times(new Decimal(1).plus((decimal(item.loss) ?? new Decimal(0)).div(100)));
        const line = {
          level,
          productId: item.productId,
          path: node.path,
          itemId: item.itemId,
          unitId: item.unitId,
          netQuantity: usable ? required!.times(net).div(batch!) : null,
          grossQuantity: usable ? required!.times(gross).div(batch!) : null,
          isPhantom: item.isPhantom,
          order: [...node.order, i],
        };
        lines.push(line);
        if (lines.length > maxLines)
          throw new ExplosionTooLargeError(`the explosion has more than ${maxLines} lines: ask for fewer levels`);
        // Stored data is acyclic (writes refuse cycles); a cycle from elsewhere is not followed.
        if (!node.path.includes(item.productId)) {
          next.push({
            productId: item.productId,
            required: line.grossQuantity,
            path: [...node.path, item.productId],
            order: line.order,
          });
        }
      });
    });
    // A component whose requirement is unknown cannot be exploded for a quantity.
    frontier = next.filter((n) => n.required !== null);
  }
  return lines.sort((a, b) => compareOrder(a.order, b.order)).map(({ order: _order, ...line }) => line);
}

function compareOrder(a: number[], b: number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

export interface WhereUsedLine {
  level: number;
  /** The product whose structure uses the one below it. */
  productId: number;
  /** Products from the queried one up to this line's child. */
  path: number[];
  itemId: number;
  netQuantity: Decimal | null;
  grossQuantity: Decimal | null;
  structureQuantity: Decimal | null;
}

/** The products whose structures use `productId`, directly (level 1) and through others, up to `levels`. */
export async function whereUsed(
  loadUsages: (productIds: number[]) => Promise<Usage[][]>,
  productId: number,
  { levels, maxLines }: ExplosionLimits,
): Promise<WhereUsedLine[]> {
  const lines: WhereUsedLine[] = [];
  let frontier = [{ productId, path: [productId] }];
  for (let level = 1; level <= levels && frontier.length > 0; level++) {
    const found = await loadUsages(frontier.map((n) => n.productId));
    const next: typeof frontier = [];
    frontier.forEach((node, n) => {
      for (const usage of found[n]!) {
        lines.push({
          level,
          productId: usage.parentId,
          path: node.path,
          itemId: usage.itemId,
          netQuantity: decimal(usage.net),
          grossQuantity: decimal(usage.gross),
          structureQuantity: decimal(usage.structureQuantity),
        });
        if (lines.length > maxLines)
          throw new ExplosionTooLargeError(`where-used has more than ${maxLines} lines: ask for fewer levels`);
        if (!node.path.includes(usage.parentId))
          next.push({ productId: usage.parentId, path: [...node.path, usage.parentId] });
      }
    });
    frontier = next;
  }
  return lines;
}
