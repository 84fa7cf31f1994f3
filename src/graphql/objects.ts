/**
 * One GraphQL object type per resource type, generated from the registry: every attribute, every
 * relationship (each through a per-request DataLoader), the reverse links, all under the
 * contract's names. Each type is a loadable object: a field that returns an id is loaded, in one
 * statement per type and level, reading only the columns the operation selects (./plan.ts).
 */
import type { ObjectRef } from '@pothos/core';
import { partsReader, relationshipIds } from '../data/columns.ts';
import { countByColumn, pageByColumn, rowsByColumn, rowsByIds, rowsThroughJoin, type Row } from '../data/load.ts';
import { whereFields } from '../query/fields.ts';
import { EVERY_ROW, type WhereNode } from '../query/where.ts';
import { aggregateRowsByColumn } from '../data/aggregate.ts';
import { resources, resourceByType } from '../resources/registry.ts';
import { extensionOf } from '../resources/extensions.ts';
import { LOCALES, type Attribute, type Locale, type ResourceDefinition } from '../resources/types.ts';
import { builder, type RowRef, type Types } from './builder.ts';
import {
  checkPageSize,
  connectionOf,
  decodeCursor,
  DEFAULT_PAGE_SIZE,
  MAX_PAGE_SIZE,
  type ConnectionShape,
} from './connections.ts';
import { boundedArguments, LIST_MULTIPLIER } from './limits.ts';
import type { GraphQLContext } from './context.ts';
import { attributeField, camel, pascal, typeName } from '../resources/names.ts';
import { fieldSources, type FieldSource } from './plan.ts';
import { requestLoader } from './request-loaders.ts';
import { tracedBatch } from '../observability/tracing.ts';
import { whereArgument, whereCost, whereRefOf } from './where.ts';

/** A resource's object type: fields may return a row, or an id that its loader turns into one. */

export const LocaleEnum = builder.enumType('Locale', {
  description: 'A language of localized text.',
  values: Object.fromEntries(LOCALES.map((l) => [l.toUpperCase(), { value: l }])) as Record<
    Uppercase<Locale>,
    { value: Locale }
  >,
});

interface LocalizedShape {
  values: Record<Locale, string | null>;
  chain: readonly Locale[];
}

const LocalizedText = builder.objectRef<LocalizedShape>('LocalizedText').implement({
  description: 'Text in the four languages of the master data.',
  fields: (t) => ({
    ...Object.fromEntries(LOCALES.map((l) => [l, t.string({ resolve: (s: LocalizedShape) => s.values[l] })])),
    text: t.string({
      description:
        "The text in the field's `locale`, or, where that is missing or no locale was asked for, the first present along the fallback chain (by default en, nl, fr, de).",
      resolve: (s) => s.chain.map((l) => s.values[l]).find((v) => v !== null && v !== '') ?? null,
    }),
  }),
});

/** The object types of `object` attributes (shelf_life, transport_packaging_settings), by attribute name. */
const objectTypes = new Map<string, ObjectRef<Types, Record<string, unknown>>>();

function objectTypeFor(name: string, attribute: Attribute): ObjectRef<Types, Record<string, unknown>> {
  let ref = objectTypes.get(name);
  if (ref) return ref;
  const fields = (attribute.type as { object: Record<string, string> }).object;
  ref = builder.objectRef<Record<string, unknown>>(pascal(name)).implement({
    fields: (t) =>
      Object.fromEntries(
        Object.entries(fields).map(([field, type]) => [
          camel(field),
          type === 'decimal'
            ? t.field({ type: 'Decimal', resolve: (o) => o[field] as number | null })
            : type === 'boolean'
              ? t.boolean({ resolve: (o) => o[field] as boolean | null })
              : t.string({ resolve: (o) => o[field] as string | null }),
        ]),
      ),
  });
  objectTypes.set(name, ref);
  return ref;
}

/** The loadable object type of each resource type, by spec type name. */
export const objectRefs = new Map<string, RowRef>();

for (const resource of resources) {
  const ref = builder.loadableObjectRef<Row, number>(typeName(resource.type), {
    // A missing id loads as null: `product(id: 999)` is null, not an error.
    load: tracedBatch(
      resource.type,
      (ids: number[], context: GraphQLContext) =>
        rowsByIds(context.source, resource.type, ids, context.plan.columns(resource.type)) as Promise<Row[]>,
    ),
  });
  objectRefs.set(resource.type, ref);
}

export function refOf(type: string): RowRef {
  return objectRefs.get(type)!;
}

function implement(resource: ResourceDefinition): void {
  const sources = new Map<string, FieldSource>();
  fieldSources.set(typeName(resource.type), { type: resource.type, fields: sources });

  refOf(resource.type).implement({
    description: extensionOf(resource) ?? `The spec's \`${resource.type}\` resource.`,
    fields: (t) => {
      const fields: Fields = {
        // Exposed (graphql-js's default resolver, which graphql-jit inlines and ./past.ts leaves as it is).
        id: t.expose(
          'id' as never,
          { type: 'Int', nullable: false, description: 'The same id as in the REST API.' } as never,
        ),
        // Every load reads it (data/columns.ts), under its own name.
        version: t.expose(
          'version' as never,
          {
            type: 'Int',
            nullable: false,
            description:
              'Extension (not in the master-data spec): 1 when created, one more with every write that changes this resource. Give it as `expectedVersion` to a mutation to refuse the write when someone else changed the resource since you read it.',
          } as never,
        ),
      };
      addAttributeFields(t, resource, sources, fields);
      addRelationshipFields(t, resource, sources, fields);
      addOwnerLinkFields(t, resource, sources, fields);
      addReverseLinkFields(t, resource, fields);
      return fields as never;
    },
  });
}

/** The object type's field builder, and the fields it makes, by GraphQL field name. */
type FieldBuilder = PothosSchemaTypes.ObjectFieldBuilder<Types, Row>;
type Fields = Record<string, unknown>;

/** Attributes: localized text with its `locale` argument, small objects, and plain values exposed as loaded. */
function addAttributeFields(
  t: FieldBuilder,
  resource: ResourceDefinition,
  sources: Map<string, FieldSource>,
  fields: Fields,
): void {
  for (const [name, attribute] of Object.entries(resource.attributes)) {
    const field = attributeField(resource, name, attribute.column);
    sources.set(field, { attribute: name });
    const { nullable } = attribute;
    const description = extensionOf(attribute);
    if (attribute.type === 'localized') {
      const read = partsReader(attribute);
      fields[field] = t.field({
        type: LocalizedText,
        nullable: false,
        description,
        args: { locale: t.arg({ type: LocaleEnum, description: 'The language `text` gives first.' }) },
        resolve: (row, args, context) => ({
          values: read(row) as Record<Locale, string | null>,
          chain: args.locale
            ? [args.locale, ...context.localeChain.filter((l) => l !== args.locale)]
            : context.localeChain,
        }),
      });
    } else if (typeof attribute.type === 'object') {
      fields[field] = t.field({
        type: objectTypeFor(name, attribute),
        nullable: false,
        description,
        resolve: partsReader(attribute),
      });
    } else {
      // Loads put plain attributes under their field names (plan.ts): exposed, they need no resolver.
      const type = (
        { decimal: 'Decimal', datetime: 'DateTime', boolean: 'Boolean', integer: 'Int', string: 'String' } as const
      )[attribute.type];
      fields[field] = t.expose(field as never, { type, nullable, description } as never);
    }
  }
}

/** The spec's relationships, each loaded the way it is stored (./plan.ts reads what a query selects). */
function addRelationshipFields(
  t: FieldBuilder,
  resource: ResourceDefinition,
  sources: Map<string, FieldSource>,
  fields: Fields,
): void {
  for (const [name, relationship] of Object.entries(resource.relationships)) {
    const field = camel(name);
    const target = refOf(relationship.target);
    const storage = relationship.storage;
    const deprecationReason =
      relationship.deprecated &&
      `Deprecated by the master-data spec: use ${camel(relationship.deprecated.replacedBy)}.`;
    const description = extensionOf(relationship);
    // The targets that hold a key to these resources in `column` (a product's structure, a structure's items).
    const targetsOf = (column: string, ids: number[], context: GraphQLContext) =>
      rowsByColumn(context.source, relationship.target, column, ids, context.plan.columns(relationship.target));
    if (storage.kind === 'foreignKey') {
      sources.set(field, { relationship: name });
      fields[field] = t.field({
        type: target,
        nullable: !relationship.required,
        description,
        deprecationReason,
        resolve: (row) => row[storage.column] as number | null,
      });
    } else if (storage.kind === 'inverse') {
      fields[field] = t.loadable({
        type: target,
        nullable: true,
        description,
        load: tracedBatch(`${resource.type}.${name}`, (ids: number[], context: GraphQLContext) =>
          targetsOf(storage.targetColumn, ids, context).then((groups) => groups.map((rows) => rows[0] ?? null)),
        ),
        resolve: (row) => row.id,
      });
    } else {
      fields[field] = t.field({
        type: [target],
        nullable: false,
        description,
        deprecationReason,
        args: {
          where: t.arg({
            type: whereRefOf(relationship.target),
            description: `Only the ${relationship.target} that match.`,
          }),
        },
        complexity: (args: { where?: unknown }) => ({
          field: 1 + whereCost(relationship.target, args.where, LIST_MULTIPLIER),
          multiplier: LIST_MULTIPLIER,
        }),
        resolve: (row, args, context) => {
          const where = whereArgument(relationship.target, args.where);
          // The row carries a join's linked ids (plan.ts; for a role, only those of rows it sees):
          // the target's id loader loads them.
          if (!where && storage.kind === 'join') return relationshipIds(row, name) as number[];
          return filteredTargets(context, resource.type, name, where).load(row.id);
        },
      });
      if (storage.kind === 'join') sources.set(field, { relationship: name });
    }
  }
}

/**
 * The targets of a to-many relationship for each row, where given: one per-request loader per
 * relationship and where, so that a level of the query is one statement whatever the rows.
 */
function filteredTargets(context: GraphQLContext, type: string, name: string, where: WhereNode | undefined) {
  const field = whereFields(type).get(name);
  if (field?.kind !== 'toMany') throw new Error(`${type}.${name} is not to-many`);
  const { link } = field;
  const columns = () => context.plan.columns(link.target);
  return requestLoader(
    context,
    `${type}.${name}:${JSON.stringify(where ?? null)}`,
    tracedBatch(`${type}.${name}`, (ids: readonly number[]) =>
      link.via === 'join'
        ? rowsThroughJoin(context.source, link, ids, columns(), where ?? EVERY_ROW)
        : rowsByColumn(context.source, link.target, link.targetColumn, ids, columns(), where),
    ),
  );
}

/** The resource this one belongs to (a structure's product, an item's structure). */
function addOwnerLinkFields(
  t: FieldBuilder,
  resource: ResourceDefinition,
  sources: Map<string, FieldSource>,
  fields: Fields,
): void {
  for (const [name, link] of Object.entries(resource.ownerLinks ?? {})) {
    const field = camel(name);
    sources.set(field, { ownerLink: name });
    fields[field] = t.field({
      type: refOf(link.target),
      nullable: false,
      description: `The ${link.target} resource this one belongs to.`,
      resolve: (row) => row[link.column] as number,
    });
  }
}

interface ReverseLinkArgs {
  first?: number | null;
  after?: string | null;
  where?: unknown;
}

/** The resources whose to-one relationship points here, a page at a time (a product's structure items elsewhere). */
function addReverseLinkFields(t: FieldBuilder, resource: ResourceDefinition, fields: Fields): void {
  for (const [name, link] of Object.entries(resource.reverseLinks ?? {})) {
    const rel = resourceByType(link.type)!.relationships[link.relationship]!;
    if (rel.storage.kind !== 'foreignKey') continue;
    const column = rel.storage.column;
    fields[camel(name)] = t.loadable({
      type: connectionOf(typeName(link.type), refOf(link.type), link.type),
      nullable: false,
      byPath: true,
      description: `The ${link.type} whose \`${link.relationship}\` is this one, a page at a time.`,
      args: {
        first: t.arg.int({ description: `At most ${DEFAULT_PAGE_SIZE} by default, 100 at most.` }),
        after: t.arg.string(),
        where: t.arg({ type: whereRefOf(link.type), description: `Only the ${link.type} that match.` }),
      },
      complexity: (args: { first?: number | null; where?: unknown }) => {
        const rows = args.first ?? DEFAULT_PAGE_SIZE;
        return { field: 1 + whereCost(link.type, args.where, rows), multiplier: rows };
      },
      extensions: boundedArguments({ first: { min: 0, max: MAX_PAGE_SIZE } }),
      load: tracedBatch(
        `${resource.type}.${name}`,
        async (ids: number[], context: GraphQLContext, args: ReverseLinkArgs) => {
          const first = checkPageSize(args.first, 'first') ?? DEFAULT_PAGE_SIZE;
          const offset = args.after ? decodeCursor(args.after, 'after').position + 1 : 0;
          const where = whereArgument(link.type, args.where);
          const pages = await pageByColumn(context.source, link.type, column, ids, context.plan.columns(link.type), {
            first,
            offset,
            where,
          });
          return pages.map(
            (page, i): ConnectionShape => ({
              rows: page.rows,
              offset,
              byId: false,
              hasNextPage: page.hasMore,
              hasPreviousPage: offset > 0,
              count: (ctx) =>
                requestLoader(ctx, `count:${link.type}.${column}:${JSON.stringify(where ?? null)}`, (keys) =>
                  countByColumn(ctx.source, link.type, column, keys, where),
                ).load(ids[i]!),
              aggregate: (ctx, request) =>
                requestLoader(
                  ctx,
                  `aggregate:${link.type}.${column}:${JSON.stringify([where ?? null, request])}`,
                  (keys) => aggregateRowsByColumn(ctx.source, link.type, column, keys, where ?? EVERY_ROW, request),
                ).load(ids[i]!),
            }),
          );
        },
      ),
      resolve: (row) => row.id,
    });
  }
}

for (const resource of resources) implement(resource);
