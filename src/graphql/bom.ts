/**
 * `Product.bom(levels, quantity)` and `Product.whereUsed(levels)`: what only a master-data
 * gateway offers. The arithmetic and the batching live in the data layer (src/data/bom.ts).
 */
import { badInput } from './errors.ts';
import { boundedArguments, outOfBounds } from './limits.ts';
import {
  explode,
  ExplosionTooLargeError,
  structureItems,
  usages,
  whereUsed,
  type BomLine,
  type WhereUsedLine,
} from '../data/bom.ts';
import { toOutputNumber } from '../db/decimal.ts';
import { builder } from './builder.ts';
import type { GraphQLContext } from './context.ts';
import { refOf } from './objects.ts';
import { requestLoader } from './request-loaders.ts';
import { loadAll } from '../data/request.ts';

export const DEFAULT_LEVELS = 10;
export const MAX_LEVELS = 20;
/** Lines one explosion may return; a longer one is refused with a clear error, not cut. */
export const MAX_LINES = 10_000;
/** What `levels` takes. */
const LEVELS = { min: 1, max: MAX_LEVELS };

const Product = refOf('products');
const Item = refOf('product_structure_items');
const Unit = refOf('units');

const quantity = (value: Parameters<typeof toOutputNumber>[0] | null) =>
  value === null ? null : toOutputNumber(value);

const BomLineType = builder.objectRef<BomLine>('BomLine').implement({
  description: 'A component needed to make a quantity of a product, at some level of its bill of material.',
  fields: (t) => ({
    level: t.exposeInt('level', {
      nullable: false,
      description: '1 for the direct items, 2 for their items, and so on.',
    }),
    product: t.field({ type: Product, nullable: false, resolve: (line) => line.productId }),
    path: t.field({
      type: [Product],
      nullable: false,
      description: 'The products from the exploded one down to the parent of this line.',
      resolve: (line) => line.path,
    }),
    item: t.field({
      type: Item,
      nullable: false,
      description: 'The structure item this line comes from.',
      resolve: (line) => line.itemId,
    }),
    unit: t.field({
      type: Unit,
      description: "The quantity's unit: the item's, or the component's own.",
      resolve: (line) => line.unitId,
    }),
    netQuantity: t.field({
      type: 'Decimal',
      description: 'Needed without losses.',
      resolve: (line) => quantity(line.netQuantity),
    }),
    grossQuantity: t.field({
      type: 'Decimal',
      description: 'Needed with losses: what must be provided.',
      resolve: (line) => quantity(line.grossQuantity),
    }),
    isPhantom: t.boolean({ nullable: false, resolve: (line) => line.isPhantom }),
  }),
});

const WhereUsedLineType = builder.objectRef<WhereUsedLine>('WhereUsedLine').implement({
  description: 'A product whose bill of material uses the queried one, directly (level 1) or through others.',
  fields: (t) => ({
    level: t.exposeInt('level', { nullable: false }),
    product: t.field({
      type: Product,
      nullable: false,
      description: 'The product whose structure holds the item.',
      resolve: (line) => line.productId,
    }),
    path: t.field({
      type: [Product],
      nullable: false,
      description: 'The products from the queried one up to the component this line uses.',
      resolve: (line) => line.path,
    }),
    item: t.field({ type: Item, nullable: false, resolve: (line) => line.itemId }),
    netQuantity: t.field({
      type: 'Decimal',
      description: "The item's net quantity, per the structure's quantity.",
      resolve: (line) => quantity(line.netQuantity),
    }),
    grossQuantity: t.field({ type: 'Decimal', resolve: (line) => quantity(line.grossQuantity) }),
    structureQuantity: t.field({
      type: 'Decimal',
      description: 'The batch the structure describes.',
      resolve: (line) => quantity(line.structureQuantity),
    }),
  }),
});

function checkLevels(levels: number | null | undefined): number {
  const value = levels ?? DEFAULT_LEVELS;
  if (!Number.isInteger(value) || value < 1 || value > MAX_LEVELS) {
    throw badInput(outOfBounds('levels', LEVELS, value), 'levels');
  }
  return value;
}

function tooLarge(error: unknown): never {
  if (error instanceof ExplosionTooLargeError) throw badInput(error.message, 'levels');
  throw error;
}

const itemsLoader = (context: GraphQLContext) =>
  requestLoader(context, 'bom:items', (ids) => structureItems(context.source, ids));
const usagesLoader = (context: GraphQLContext) =>
  requestLoader(context, 'bom:usages', (ids) => usages(context.source, ids));

builder.objectFields(Product, (t) => ({
  bom: t.field({
    type: [BomLineType],
    nullable: false,
    description: `The exploded bill of material: every component needed to make \`quantity\` of this product (default: the batch its structure describes), to \`levels\` deep (default ${DEFAULT_LEVELS}, at most ${MAX_LEVELS}), each line followed by its own components. Empty for a product without a structure.`,
    args: {
      levels: t.arg.int(),
      quantity: t.arg({ type: 'Decimal' }),
    },
    complexity: (args) => ({ field: 5, multiplier: 10 * ((args.levels as number | null) ?? DEFAULT_LEVELS) }),
    extensions: boundedArguments({ levels: LEVELS }),
    resolve: (product, args, context) =>
      explode((ids) => loadAll(itemsLoader(context), ids) as never, product.id, args.quantity ?? null, {
        levels: checkLevels(args.levels),
        maxLines: MAX_LINES,
      }).catch(tooLarge),
  }),
  whereUsed: t.field({
    type: [WhereUsedLineType],
    nullable: false,
    description: `The products that use this one in their bill of material, directly and through others, to \`levels\` up (default ${DEFAULT_LEVELS}, at most ${MAX_LEVELS}).`,
    args: { levels: t.arg.int() },
    complexity: (args) => ({ field: 5, multiplier: 10 * ((args.levels as number | null) ?? DEFAULT_LEVELS) }),
    extensions: boundedArguments({ levels: LEVELS }),
    resolve: (product, args, context) =>
      whereUsed((ids) => loadAll(usagesLoader(context), ids) as never, product.id, {
        levels: checkLevels(args.levels),
        maxLines: MAX_LINES,
      }).catch(tooLarge),
  }),
}));
