/**
 * Mutations, generated from the registry: `createX(input)` and `updateX(id, input)` (partial)
 * for every type the spec lets clients add and update; product structures only through their
 * product, their items only through their structure. Every mutation is one transaction in the
 * data layer (src/data/writes.ts), which holds the rules; this file maps names and shapes.
 */
import { badInput } from './errors.ts';
import { fieldOfPath } from './input-problems.ts';
import { definition } from '../data/columns.ts';
import { DomainError } from '../data/errors.ts';
import { DomainErrors } from '../data/error-list.ts';
import { ruleNote } from '../data/validate.ts';
import { INT32_MAX } from '../db/integers.ts';
import type { Row } from '../data/load.ts';
import type { ItemInput } from '../data/bom-writes.ts';
import { BulkWriter } from '../data/bulk-writes.ts';
import type { ToManyChange, WriteInput, WriteOptions } from '../data/writes.ts';
import { resources } from '../resources/registry.ts';
import type { ResourceDefinition } from '../resources/types.ts';
import { builder } from './builder.ts';
import type { GraphQLContext } from './context.ts';
import { extensionOf } from '../resources/extensions.ts';
import { attributeField, camel, pascal, typeName } from '../resources/names.ts';
import { refOf } from './objects.ts';
import { forgetLoaded } from './request-loaders.ts';

const LocalizedTextInput = builder.inputType('LocalizedTextInput', {
  description: 'Localized text to write: the languages given are set (null clears one), the others kept.',
  fields: (t) => ({ nl: t.string(), fr: t.string(), en: t.string(), de: t.string() }),
});

const IdsInput = builder.inputType('IdsInput', {
  description:
    'A change of a to-many relationship: `set` replaces all links, or `add` and `remove` change some. Ids already linked, or not linked, are no error.',
  fields: (t) => ({ set: t.intList(), add: t.intList(), remove: t.intList() }),
});

/** How an input field maps to the data layer: an attribute, a to-one id, or a to-many change. */
export type InputField =
  | { attribute: string; objectFields?: Map<string, string> }
  | { toOne: string }
  | { toMany: string };

/** Per GraphQL input type, its fields' meaning; and per resource type, registry name -> GraphQL name. */
const inputFields = new Map<string, Map<string, InputField>>();
const graphqlNames = new Map<string, Map<string, string>>();

/** What each field of a create or update input sets (spec names), by input type name (`UpdateSupplierInput`). */
export function inputFieldsOf(inputName: string): ReadonlyMap<string, InputField> | undefined {
  return inputFields.get(inputName);
}

type InputRef = ReturnType<typeof builder.inputType>;

/** The create and update inputs of each resource type that has them (the bulk mutations take them too). */
export const resourceInputs = new Map<string, { create?: InputRef; update?: InputRef }>();

const objectInputs = new Map<string, InputRef>();
function objectInput(name: string, fields: Record<string, string>) {
  let ref = objectInputs.get(name);
  if (!ref) {
    ref = builder.inputType(`${pascal(name)}Input`, {
      fields: (t) =>
        Object.fromEntries(
          Object.entries(fields).map(([field, type]) => [
            camel(field),
            type === 'decimal' ? t.field({ type: 'Decimal' }) : type === 'boolean' ? t.boolean() : t.string(),
          ]),
        ),
    });
    objectInputs.set(name, ref);
  }
  return ref;
}

/** The create or update input of a resource type. */
function defineInput(resource: ResourceDefinition, inputName: string, mode: 'create' | 'update') {
  const fields = new Map<string, InputField>();
  const names = graphqlNames.get(resource.type) ?? new Map<string, string>();
  graphqlNames.set(resource.type, names);
  inputFields.set(inputName, fields);
  return builder.inputType(inputName, {
    fields: (t) => {
      const result: Record<string, unknown> = {};
      for (const [name, attribute] of Object.entries(resource.attributes)) {
        if (attribute.write === 'server') continue;
        const field = attributeField(resource, name, attribute.column);
        const required = mode === 'create' && attribute.required;
        const objectFields =
          typeof attribute.type === 'object'
            ? new Map(Object.keys(attribute.type.object).map((f) => [camel(f), f]))
            : undefined;
        fields.set(field, { attribute: name, objectFields });
        names.set(name, field);
        const description = [extensionOf(attribute), ruleNote(attribute)].filter(Boolean).join(' ') || undefined;
        if (attribute.type === 'localized') result[field] = t.field({ type: LocalizedTextInput, description });
        else if (typeof attribute.type === 'object')
          result[field] = t.field({ type: objectInput(name, attribute.type.object), description });
        else if (attribute.type === 'decimal') result[field] = t.field({ type: 'Decimal', required, description });
        else if (attribute.type === 'boolean') result[field] = t.boolean({ required, description });
        else if (attribute.type === 'integer') result[field] = t.int({ required, description });
        else result[field] = t.string({ required, description });
      }
      for (const [name, relationship] of Object.entries(resource.relationships)) {
        const refused =
          relationship.forbidden && mode === 'update'
            ? `Always refused (FORBIDDEN): ${relationship.forbidden.message}`
            : undefined;
        if (relationship.cardinality === 'to-one') {
          // A product's structure is added through createProductStructure, never linked.
          if (relationship.storage.kind !== 'foreignKey' && mode === 'create') continue;
          const field = `${camel(name)}Id`;
          fields.set(field, { toOne: name });
          names.set(name, field);
          result[field] = t.int({
            required: mode === 'create' && relationship.required,
            description:
              refused ??
              (relationship.removable
                ? 'The id of the related resource; null removes the link.'
                : 'The id of the related resource; the link cannot be removed.'),
          });
        } else if (relationship.storage.kind === 'join') {
          const field = camel(name);
          fields.set(field, { toMany: name });
          names.set(name, field);
          result[field] = t.field({ type: IdsInput, description: refused });
        }
      }
      return result as never;
    },
  });
}

/**
 * A relationship id that no resource can have (0, negative) is bad input naming the field, not a
 * "not found": GraphQL's Int has checked the type and the 32 bits already.
 */
function checkId(id: number, path: string): number {
  if (id < 1) throw badInput(`${path} must be an id from 1 to ${INT32_MAX} (got ${id})`, fieldOfPath(path));
  return id;
}

function checkIds(ids: number[] | null | undefined, path: string): number[] | null | undefined {
  for (const [i, id] of (ids ?? []).entries()) checkId(id, `${path}[${i}]`);
  return ids;
}

/**
 * GraphQL input values to the data layer's shape; `set` and `add`/`remove` are exclusive. `at`
 * is where the values are in the arguments (`input`, `items[2]`), for messages.
 */
export function toWriteInput(inputName: string, values: Record<string, unknown>, at = 'input'): WriteInput {
  const fields = inputFields.get(inputName)!;
  const input: Required<WriteInput> = { attributes: {}, relationships: {} };
  for (const [field, value] of Object.entries(values)) {
    if (value === undefined) continue;
    const meaning = fields.get(field)!;
    if ('attribute' in meaning) {
      input.attributes[meaning.attribute] =
        meaning.objectFields && value !== null
          ? Object.fromEntries(Object.entries(value as object).map(([k, v]) => [meaning.objectFields!.get(k) ?? k, v]))
          : value;
    } else if ('toOne' in meaning)
      input.relationships[meaning.toOne] = value === null ? null : checkId(value as number, `${at}.${field}`);
    else {
      const change = (value ?? {}) as { set?: number[] | null; add?: number[] | null; remove?: number[] | null };
      for (const key of ['set', 'add', 'remove'] as const) checkIds(change[key], `${at}.${field}.${key}`);
      if (change.set != null && (change.add != null || change.remove != null)) {
        throw badInput(`${field}: give either set, or add and remove`, field);
      }
      input.relationships[meaning.toMany] = (
        change.set != null ? { set: change.set } : { add: change.add ?? [], remove: change.remove ?? [] }
      ) as ToManyChange;
    }
  }
  return input;
}

/** A domain error's field renamed to the GraphQL input's name (`unit` -> `unitId`, `items[0].product` -> `items[0].productId`); each of several. */
function renamed(error: unknown, type: string): unknown {
  // Every row of a bulk write that is refused, each renamed.
  if (error instanceof DomainErrors) return error.map((one) => renamed(one, type) as DomainError);
  if (!(error instanceof DomainError) || !error.field) return error;
  // A bulk write's row (`inputs[3].`, `updates[3].input.`), then a structure's item (`items[0].`).
  const [, row = '', item = '', name = ''] = /^((?:inputs|updates)\[\d+\]\.(?:input\.)?)?(items\[\d+\]\.)?(.*)$/s.exec(
    error.field,
  )!;
  const prefix = row + item;
  const names = graphqlNames.get(item ? 'product_structure_items' : type);
  const field = names?.get(name);
  if (!field) return error;
  // Messages about a field (ours: the data layer's) start with its name, then a space, a colon or a dot.
  const startsWithField =
    error.message.startsWith(error.field) && ' \n:.'.includes(error.message.charAt(error.field.length) || 'x');
  const message = startsWithField ? prefix + field + error.message.slice(error.field.length) : error.message;
  return new DomainError(error.kind, message, prefix + field, error.resource, error.reason, error.currentVersion);
}

export async function write<T>(type: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw renamed(error, type);
  }
}

/** What the `expectedVersion` argument of a mutation that changes an existing resource does. */
export function expectedVersionDescription(of: string): string {
  return `The \`version\` of ${of} you last read: when it is at another, nothing is written and the answer is a CONFLICT error whose \`extensions.currentVersion\` says where it is now. Left out, the write goes ahead.`;
}

/** The data layer's options for a mutation's `expectedVersion` (null and absent alike: no condition). */
export function conditions(expectedVersion: number | null | undefined): WriteOptions {
  if (expectedVersion === null || expectedVersion === undefined) return {};
  // Versions start at 1: a lower one was never read, and would be answered as a stale one.
  if (expectedVersion < 1)
    throw badInput(
      `expectedVersion must be a version from 1 to ${INT32_MAX} (got ${expectedVersion})`,
      'expectedVersion',
    );
  return { expectedVersion };
}

/** After a write, what the operation reads next is read anew, not taken from what it loaded before. */
function fresh(id: number, context: GraphQLContext): number {
  forgetLoaded(context);
  return id;
}

/**
 * A resource just written, as the write left it (read whole), in the shape the operation reads
 * (its plan's columns and names), so that the answer needs no read of it; its id (to be read)
 * where the plan wants a column a whole read does not take (an owner link).
 */
export function written(type: string, row: Row, context: GraphQLContext): Row | number {
  forgetLoaded(context);
  const shaped: Row = { id: row.id };
  for (const column of context.plan.columns(type)) {
    if (!(column.name in row)) return row.id;
    shaped[column.alias ?? column.name] = row[column.name];
  }
  return shaped;
}

// Mutation fields may be null: when one fails, the results of those before it (committed) still
// reach the client instead of the whole `data` becoming null.
builder.mutationType({
  description: 'Writes. Every field needs an access token with the `write` scope; each is one transaction.',
});

export function writer(context: GraphQLContext): BulkWriter {
  return new BulkWriter(context.db, context.writeCaller);
}

/** Whether a client can write anything of the type (supplier evaluation role users hold only server dates). */
function hasWritableFields(resource: ResourceDefinition): boolean {
  return (
    Object.values(resource.attributes).some((a) => a.write === 'client') ||
    Object.keys(resource.relationships).length > 0
  );
}

for (const resource of resources) {
  const name = typeName(resource.type);
  const node = refOf(resource.type);
  const refusesAdd = resource.forbidden?.operations.includes('add');
  if (!hasWritableFields(resource)) {
    if (resource.operations.includes('add')) {
      builder.mutationField(`create${name}`, (t) =>
        t.field({
          type: node,
          description: 'It has no fields a client writes: the server sets its dates.',
          resolve: (_root, _args, context) =>
            write(resource.type, async () => fresh(await writer(context).create(resource.type, {}), context)),
        }),
      );
    }
    continue;
  }
  if (resource.operations.includes('add') && !refusesAdd) {
    const inputName = `Create${name}Input`;
    const input = defineInput(resource, inputName, 'create');
    resourceInputs.set(resource.type, { ...resourceInputs.get(resource.type), create: input });
    builder.mutationField(`create${name}`, (t) =>
      t.field({
        type: node,
        args: { input: t.arg({ type: input, required: true }) },
        resolve: (_root, args, context) =>
          write(resource.type, async () =>
            fresh(await writer(context).create(resource.type, toWriteInput(inputName, args.input as never)), context),
          ),
      }),
    );
  }
  if (resource.operations.includes('update')) {
    const inputName = `Update${name}Input`;
    const input = defineInput(resource, inputName, 'update');
    resourceInputs.set(resource.type, { ...resourceInputs.get(resource.type), update: input });
    builder.mutationField(`update${name}`, (t) =>
      t.field({
        type: node,
        description: 'Changes only what the input gives; localized text is merged language by language.',
        args: {
          id: t.arg.int({ required: true }),
          input: t.arg({ type: input, required: true }),
          expectedVersion: t.arg.int({ description: expectedVersionDescription('this resource') }),
        },
        resolve: (_root, args, context) =>
          write(resource.type, async () => {
            const row = await writer(context).update(
              resource.type,
              args.id,
              toWriteInput(inputName, args.input as never),
              conditions(args.expectedVersion),
            );
            return written(resource.type, row, context);
          }),
      }),
    );
  }
}

// Bills of material: structures through their product, items through their structure.
const structureResource = definition('product_structures');
const itemResource = definition('product_structure_items');
const ItemInputType = defineInput(itemResource, 'ProductStructureItemInput', 'create');
const StructureInput = builder.inputType('CreateProductStructureInput', {
  fields: (t) => ({
    quantity: t.field({ type: 'Decimal', description: 'The batch the structure describes (1 when not given).' }),
    items: t.field({ type: [ItemInputType] }),
  }),
});
const Structure = refOf('product_structures');
const items = (values: unknown[] | null | undefined, at: string): ItemInput[] =>
  (values ?? []).map((v, i) => toWriteInput('ProductStructureItemInput', v as never, `${at}[${i}]`));

builder.mutationFields((t) => ({
  createProductStructure: t.field({
    type: Structure,
    description:
      "Adds a product's bill of material, the only way to add one. A product has at most one (CONFLICT); an item may not make the product part of itself (BOM_CYCLE).",
    args: {
      productId: t.arg.int({ required: true }),
      input: t.arg({ type: StructureInput, required: true }),
      expectedVersion: t.arg.int({
        description: expectedVersionDescription('the product (its structure is part of its document)'),
      }),
    },
    resolve: (_root, args, context) =>
      write(structureResource.type, async () => {
        const quantity = args.input.quantity;
        const attributes = quantity === undefined || quantity === null ? {} : { quantity };
        const options = conditions(args.expectedVersion);
        return fresh(
          await writer(context).createStructure(
            args.productId,
            { attributes, items: items(args.input.items, 'input.items') },
            options,
          ),
          context,
        );
      }),
  }),
  addProductStructureItems: t.field({
    type: Structure,
    description: 'Adds items to a structure; the existing ones are kept.',
    args: {
      structureId: t.arg.int({ required: true }),
      items: t.arg({ type: [ItemInputType], required: true }),
      expectedVersion: t.arg.int({ description: expectedVersionDescription('the structure') }),
    },
    resolve: (_root, args, context) =>
      write(itemResource.type, async () => {
        await writer(context).addItems(args.structureId, items(args.items, 'items'), conditions(args.expectedVersion));
        return fresh(args.structureId, context);
      }),
  }),
  replaceProductStructureItems: t.field({
    type: Structure,
    description: "Replaces all of a structure's items; the old ones are deleted.",
    args: {
      structureId: t.arg.int({ required: true }),
      items: t.arg({ type: [ItemInputType], required: true }),
      expectedVersion: t.arg.int({ description: expectedVersionDescription('the structure') }),
    },
    resolve: (_root, args, context) =>
      write(itemResource.type, async () => {
        await writer(context).replaceItems(
          args.structureId,
          items(args.items, 'items'),
          conditions(args.expectedVersion),
        );
        return fresh(args.structureId, context);
      }),
  }),
  removeProductStructureItems: t.field({
    type: Structure,
    description: "Deletes some of a structure's items; ids it does not hold are ignored.",
    args: {
      structureId: t.arg.int({ required: true }),
      itemIds: t.arg.intList({ required: true }),
      expectedVersion: t.arg.int({ description: expectedVersionDescription('the structure') }),
    },
    resolve: (_root, args, context) =>
      write(itemResource.type, async () => {
        await writer(context).removeItems(args.structureId, args.itemIds, conditions(args.expectedVersion));
        return fresh(args.structureId, context);
      }),
  }),
}));
