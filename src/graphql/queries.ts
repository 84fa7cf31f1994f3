/**
 * Root fields: `x(id)` and `xs(first, after, last, before, filter, orderBy)` for every resource
 * type. Filters are generated from the registry: equality on each plain attribute, `<rel>Id`
 * for each to-one relationship, `modifiedAfter`/`modifiedBefore`, `idIn`, and every REST LIST
 * filter of the spec under its camelCase name.
 */
import { listRows, type ListRows, type Order } from '../data/list.ts';
import type { Row } from '../data/load.ts';
import { SEARCHABLE_TYPES, searchInput } from '../query/search.ts';
import {
  columnCondition,
  filterReads,
  filterWhere,
  type NamedField,
  relationshipIdCondition,
} from '../query/filters.ts';
import { keyOfColumn } from '../query/fields.ts';
import { type WhereNode, WhereInputError } from '../query/where.ts';
import { resources } from '../resources/registry.ts';
import type { Filter, ResourceDefinition } from '../resources/types.ts';
import { builder } from './builder.ts';
import {
  checkPageSize,
  connectionOf,
  decodeCursor,
  DEFAULT_PAGE_SIZE,
  MAX_PAGE_SIZE,
  type ConnectionShape,
} from './connections.ts';
import { badInput } from './errors.ts';
import { boundedArguments } from './limits.ts';
import { whereArgument, whereCost, whereRefOf } from './where.ts';
import { GraphQLError, type GraphQLResolveInfo } from 'graphql';
import { HistoryPurgedError } from '../db/past.ts';
import { pastRoot } from './past.ts';
import { aggregateRows, type Aggregates, COUNT_ONLY, type PageOfList, pageWithAggregates } from '../data/aggregate.ts';
import { requestedTotals } from './aggregates.ts';

import type { GraphQLContext } from './context.ts';
import { attributeField, camel, constant, singular, typeName } from '../resources/names.ts';
import { refOf } from './objects.ts';

const SEARCH_DESCRIPTIONS = 'the business key, the GTIN or GLN, the names in every language and the contact details';

/**
 * How one filter input field becomes a condition (its value checked, or WhereInputError), and
 * the fields of the spec it reads (a role that cannot see one of them has no such filter).
 */
export type FilterField = {
  type: 'String' | 'Int' | 'Boolean' | 'DateTime' | ['Int'];
  condition: (value: never, path: string) => WhereNode;
  reads: readonly NamedField[];
};

/** The GraphQL type of each kind of REST filter's value (see filterWhere). */
const FILTER_TYPES = {
  equals: 'String',
  integer: 'Int',
  flag: 'Boolean',
  gtin: 'String',
  relatedReference: 'String',
  after: 'DateTime',
} as const;

function restFilterField(resource: ResourceDefinition, filter: Filter): FilterField {
  const type = resource.type;
  return {
    type: FILTER_TYPES[filter.kind],
    condition: (value: string | number | boolean | Date, path) => filterWhere(type, filter, value, path),
    reads: filterReads(type, filter),
  };
}

/** The filter fields of a type, by GraphQL name. */
export function filterFields(resource: ResourceDefinition): Map<string, FilterField> {
  const fields = new Map<string, FilterField>();
  const on = (column: string, op: 'equals' | 'in' | 'gt' | 'lt') => (value: unknown, path: string) =>
    columnCondition(resource.type, column, op, value, path);
  fields.set('idIn', { type: ['Int'], condition: on('id', 'in'), reads: [] });
  // What a filter on a plain attribute reads: the field its column is (localized text and small
  // objects, whose parts have the columns, have no such filter).
  const readsColumn = (column: string): NamedField[] => [[resource.type, keyOfColumn(resource.type, column)!]];
  for (const [name, attribute] of Object.entries(resource.attributes)) {
    const column = attribute.column;
    if (attribute.type === 'string' || attribute.type === 'integer' || attribute.type === 'boolean') {
      const type = attribute.type === 'string' ? 'String' : attribute.type === 'integer' ? 'Int' : 'Boolean';
      const reads = readsColumn(column);
      fields.set(attributeField(resource, name, column), { type, condition: on(column, 'equals'), reads });
    } else if (attribute.type === 'datetime') {
      const reads = readsColumn(column);
      const prefix = camel(name).replace(/Date$/, '');
      fields.set(`${prefix}After`, { type: 'DateTime', condition: on(column, 'gt'), reads });
      fields.set(`${prefix}Before`, { type: 'DateTime', condition: on(column, 'lt'), reads });
    }
  }
  for (const [name, relationship] of Object.entries(resource.relationships)) {
    const storage = relationship.storage;
    if (storage.kind !== 'foreignKey') continue;
    fields.set(`${camel(name)}Id`, {
      type: 'Int',
      condition: (value, path) => relationshipIdCondition(resource.type, name, value, path),
      reads: [[resource.type, name]],
    });
  }
  // The REST filters, where their meaning differs from the generic one (gtin without leading
  // zeros) or their name is new (productGroupTypeId, preferredSupplierReference).
  for (const [param, filter] of Object.entries(resource.filters)) {
    const name =
      filter.kind === 'relatedReference'
        ? `${camel(filter.relationship)}Reference`
        : camel(param.replace(/^filter\[(.*)\]$/, '$1'));
    if (filter.kind === 'gtin' || !fields.has(name)) {
      if (filter.kind === 'flag' || filter.kind === 'after') continue; // isActive, isSales, modifiedAfter already say it
      fields.set(name, restFilterField(resource, filter));
    }
  }
  return fields;
}

/** Plain attributes a list can be ordered by. */
function orderableColumns(resource: ResourceDefinition): [string, string][] {
  const columns: [string, string][] = [['ID', 'id']];
  for (const [name, attribute] of Object.entries(resource.attributes)) {
    if (typeof attribute.type === 'string' && attribute.type !== 'localized')
      columns.push([constant(name), attribute.column]);
  }
  return columns;
}

function defineList(resource: ResourceDefinition): void {
  const name = typeName(resource.type);
  const node = refOf(resource.type);
  const connection = connectionOf(name, node, resource.type);
  const filters = filterFields(resource);

  const FilterInput = builder.inputType(`${name}Filter`, {
    description: `Conditions on ${resource.type}; all given must hold. A field given as null matches a missing value.`,
    fields: (t) =>
      Object.fromEntries(
        [...filters].map(([field, f]) => [
          field,
          Array.isArray(f.type)
            ? t.field({ type: [f.type[0]] as never, required: false })
            : t.field({ type: f.type, required: false }),
        ]),
      ),
  });
  const orderable = orderableColumns(resource);
  const OrderBy = builder.enumType(`${name}OrderBy`, {
    values: Object.fromEntries(
      orderable.flatMap(([value, column]) => [
        [`${value}_ASC`, { value: { column, direction: 'asc' } }],
        [`${value}_DESC`, { value: { column, direction: 'desc' } }],
      ]),
    ) as never,
  });

  readRootField(camel(singular(resource.type)), (t) =>
    t.field({
      type: node,
      nullable: true,
      description: `One ${name} by id, or null.`,
      args: { id: t.arg.int({ required: true }) },
      resolve: (_root, args) => args.id,
    }),
  );

  readRootField(camel(resource.type), (t) =>
    t.field({
      type: connection,
      nullable: false,
      description: `${name} objects, ${DEFAULT_PAGE_SIZE} at a time unless \`first\` or \`last\` says otherwise (at most 100).`,
      args: {
        first: t.arg.int(),
        after: t.arg.string(),
        last: t.arg.int(),
        before: t.arg.string(),
        filter: t.arg({ type: FilterInput, description: 'Equality on a few fields, in short; `where` says more.' }),
        where: t.arg({
          type: whereRefOf(resource.type),
          description: 'Which rows: conditions on fields and related rows.',
        }),
        ...(SEARCHABLE_TYPES.has(resource.type)
          ? {
              search: t.arg.string({
                description: `Words to find (each a word's beginning, case and accents ignored) in ${SEARCH_DESCRIPTIONS}; ordered by relevance when \`orderBy\` is not given.`,
              }),
            }
          : {}),
        orderBy: t.arg({
          type: [OrderBy],
          description: 'Ties, and everything by default, are ordered by id ascending.',
        }),
      },
      complexity: (args) => {
        const rows = (args.first as number | null) ?? (args.last as number | null) ?? DEFAULT_PAGE_SIZE;
        return { field: 1 + whereCost(resource.type, args.where, rows), multiplier: rows };
      },
      extensions: boundedArguments({ first: PAGE_SIZE, last: PAGE_SIZE }),
      resolve: (_root, args, context, info) => listPage(resource, filters, args, context, info),
    }),
  );
}

/** What `first` and `last` of a connection take. */
const PAGE_SIZE = { min: 0, max: MAX_PAGE_SIZE };

builder.queryType({ description: 'Reads. Every field needs an access token with the `read` scope.' });

const PastQuery = builder.objectRef<object>('PastQuery').implement({
  description:
    'Extension (not in the master-data spec): the reads of Query, answered as the hub was committed at the instant `asOf` was given. Everything selected under it (relationships, reverse links, `where`, `search`, `totalCount`, `aggregate`, `version`, `bom`, `whereUsed`, `history`) reads that instant.',
});

/** A read root field: on Query, and the same on PastQuery (./past.ts). */
function readRootField(name: string, field: Parameters<typeof builder.queryField>[1]): void {
  builder.queryField(name, field);
  builder.objectField(PastQuery, name, field as never);
}

builder.queryField('asOf', (t) =>
  t.field({
    type: PastQuery,
    nullable: false,
    description:
      'Extension (not in the master-data spec): reads of the hub as committed at `at` (RFC 3339), from the oldest instant it keeps (before it: HISTORY_PURGED, naming that instant) to now.',
    args: { at: t.arg({ type: 'DateTime', required: true }) },
    resolve: async (_root, args, context) => {
      try {
        return pastRoot(await context.pastReads.contextAt(context, args.at));
      } catch (error) {
        if (error instanceof HistoryPurgedError)
          throw new GraphQLError(error.message, { extensions: { code: 'HISTORY_PURGED', oldest: error.oldest } });
        throw error;
      }
    },
  }),
);

for (const resource of resources) defineList(resource);

/** The arguments of a list field, as Pothos hands them over. */
interface ListArgs {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
  filter?: unknown;
  where?: unknown;
  search?: string | null;
  orderBy?: unknown;
}

/** The words of a `search` argument (undefined: no search), or BAD_USER_INPUT saying why none. */
function searchArgument(text: string | null | undefined): readonly string[] | undefined {
  if (text === undefined || text === null) return undefined;
  try {
    return searchInput(text, 'search');
  } catch (error) {
    if (error instanceof WhereInputError) throw badInput(error.message, 'search');
    throw error;
  }
}

/** The rows `filter` and `where` ask for, both checked (BAD_USER_INPUT naming the field at fault). */
function listWhere(resource: ResourceDefinition, filters: Map<string, FilterField>, args: ListArgs): WhereNode {
  const items: WhereNode[] = [];
  try {
    for (const [field, value] of Object.entries((args.filter ?? {}) as Record<string, unknown>)) {
      if (value === undefined) continue;
      const filter = filters.get(field)!;
      if (value === null && Array.isArray(filter.type)) throw new WhereInputError(`filter.${field}`, 'cannot be null');
      items.push(filter.condition(value as never, `filter.${field}`));
    }
  } catch (error) {
    if (error instanceof WhereInputError) throw badInput(error.message, 'filter');
    throw error;
  }
  const where = whereArgument(resource.type, args.where);
  if (where) items.push(where);
  return items.length === 1 ? items[0]! : { kind: 'and', items };
}

/**
 * One page of a list: `first`/`after` and `last`/`before` over the filtered, ordered rows; forward
 * from a cursor in id order by keyset, otherwise by offset; one row more than asked, to tell
 * whether another page follows.
 */
async function listPage(
  resource: ResourceDefinition,
  filters: Map<string, FilterField>,
  args: ListArgs,
  context: GraphQLContext,
  info: GraphQLResolveInfo,
): Promise<ConnectionShape> {
  const list: ListRows = { where: listWhere(resource, filters, args), search: searchArgument(args.search) };
  // What `totalCount` and `aggregate` ask (the count at least), read once for both. With a
  // `where` or a search, in one statement with the page (pageWithAggregates: the conditions are
  // evaluated once, not for the page and again for the count); without, apart, where a count and
  // a page cut early by LIMIT cost less than collecting every row of the list first. Apart too
  // where `last` needs the count first.
  const totals = requestedTotals(resource.type, info);
  const together = totals && (args.where !== undefined || list.search !== undefined);
  let summary: Promise<Aggregates> | undefined;
  const aggregate = (ctx: GraphQLContext) =>
    (summary ??= aggregateRows(ctx.source, resource.type, list, totals ?? COUNT_ONLY));
  const count = (ctx: GraphQLContext) => aggregate(ctx).then((a) => a.count);
  const first = checkPageSize(args.first, 'first');
  const last = checkPageSize(args.last, 'last');
  const after = args.after ? decodeCursor(args.after, 'after') : undefined;
  let start = after ? after.position + 1 : 0;
  let end = args.before ? decodeCursor(args.before, 'before').position : undefined;
  if (last !== undefined && end === undefined) end = await count(context);
  if (first !== undefined || last === undefined) {
    const size = first ?? DEFAULT_PAGE_SIZE;
    end = end === undefined ? start + size : Math.min(end, start + size);
  }
  if (last !== undefined) start = Math.max(start, end! - last);
  const limit = Math.max(0, end! - start);
  const orderBy = (args.orderBy ?? []) as unknown as Order[];
  const byId = orderBy.length === 0 && !list.search;
  // Forward from a cursor of a list in id order: the rows after its id, not `start` rows skipped.
  // One row more than asked tells whether another page follows.
  const page: PageOfList =
    byId && after?.id !== undefined && start === after.position + 1
      ? { orderBy, limit: limit + 1, offset: 0, afterId: after.id }
      : { orderBy, limit: limit + 1, offset: start };
  const columns = context.plan.columns(resource.type);
  let rows: Row[] = [];
  if (limit > 0 && together && !summary) {
    const read = await pageWithAggregates(context.source, resource.type, list, page, columns, totals);
    rows = read.rows;
    if (read.aggregates) summary = Promise.resolve(read.aggregates);
  } else if (limit > 0) {
    const where: WhereNode =
      page.afterId === undefined
        ? list.where
        : { kind: 'and', items: [list.where, columnCondition(resource.type, 'id', 'gt', page.afterId, 'after')] };
    rows = await listRows(context.source, resource.type, { ...list, ...page, where }, columns);
  }
  return {
    rows: rows.slice(0, limit),
    offset: start,
    byId,
    hasNextPage: rows.length > limit || (args.before !== undefined && args.before !== null),
    hasPreviousPage: start > 0,
    count,
    aggregate,
  };
}
