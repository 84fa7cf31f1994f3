/**
 * Root fields: `x(id)` and `xs(first, after, last, before, filter, orderBy)` for every resource
 * type. Filters are generated from the registry: equality on each plain attribute, `<rel>Id`
 * for each to-one relationship, `modifiedAfter`/`modifiedBefore`, `idIn`, and every REST LIST
 * filter of the spec under its camelCase name.
 */
import { countRows, filterCondition, listRows, type Condition, type ListQuery, type Order } from '../data/list.ts';
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
import type { GraphQLContext } from './context.ts';
import { attributeField, camel, constant, singular, typeName } from '../resources/names.ts';
import { refOf } from './objects.ts';

type FilterValue = string | number | boolean | Date | null;
/** How one filter input field becomes a condition. */
type FilterField = {
  type: 'String' | 'Int' | 'Boolean' | 'DateTime' | ['Int'];
  condition: (value: never) => Condition;
};

/** The GraphQL type of each kind of REST filter's value (see filterCondition). */
const FILTER_TYPES = {
  equals: 'String',
  integer: 'Int',
  flag: 'Boolean',
  gtin: 'String',
  relatedReference: 'String',
  after: 'DateTime',
} as const;

function restFilterField(filter: Filter): FilterField {
  return {
    type: FILTER_TYPES[filter.kind],
    condition: (value: string | number | boolean | Date) => filterCondition(filter, value),
  };
}

/** The filter fields of a type, by GraphQL name. */
export function filterFields(resource: ResourceDefinition): Map<string, FilterField> {
  const fields = new Map<string, FilterField>();
  fields.set('idIn', { type: ['Int'], condition: (values: number[]) => ({ kind: 'in', column: 'id', values }) });
  for (const [name, attribute] of Object.entries(resource.attributes)) {
    const column = attribute.column;
    if (attribute.type === 'string' || attribute.type === 'integer' || attribute.type === 'boolean') {
      const type = attribute.type === 'string' ? 'String' : attribute.type === 'integer' ? 'Int' : 'Boolean';
      fields.set(attributeField(resource, name, column), {
        type,
        condition: (value: FilterValue) => ({ kind: 'equals', column, value: value as string }),
      });
    } else if (attribute.type === 'datetime') {
      fields.set(`${camel(name).replace(/Date$/, '')}After`, {
        type: 'DateTime',
        condition: (value: Date) => ({ kind: 'after', column, value }),
      });
      fields.set(`${camel(name).replace(/Date$/, '')}Before`, {
        type: 'DateTime',
        condition: (value: Date) => ({ kind: 'before', column, value }),
      });
    }
  }
  for (const [name, relationship] of Object.entries(resource.relationships)) {
    const storage = relationship.storage;
    if (storage.kind !== 'foreignKey') continue;
    fields.set(`${camel(name)}Id`, {
      type: 'Int',
      condition: (value: number | null) => ({ kind: 'equals', column: storage.column, value }),
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
      fields.set(name, restFilterField(filter));
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
  const connection = connectionOf(name, node);
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

  builder.queryField(camel(singular(resource.type)), (t) =>
    t.field({
      type: node,
      nullable: true,
      description: `One ${name} by id, or null.`,
      args: { id: t.arg.int({ required: true }) },
      resolve: (_root, args) => args.id,
    }),
  );

  builder.queryField(camel(resource.type), (t) =>
    t.field({
      type: connection,
      nullable: false,
      description: `${name} objects, ${DEFAULT_PAGE_SIZE} at a time unless \`first\` or \`last\` says otherwise (at most 100).`,
      args: {
        first: t.arg.int(),
        after: t.arg.string(),
        last: t.arg.int(),
        before: t.arg.string(),
        filter: t.arg({ type: FilterInput }),
        orderBy: t.arg({
          type: [OrderBy],
          description: 'Ties, and everything by default, are ordered by id ascending.',
        }),
      },
      complexity: (args) => ({
        field: 1,
        multiplier: (args.first as number | null) ?? (args.last as number | null) ?? DEFAULT_PAGE_SIZE,
      }),
      extensions: boundedArguments({ first: PAGE_SIZE, last: PAGE_SIZE }),
      resolve: (_root, args, context) => listPage(resource, filters, args, context),
    }),
  );
}

/** What `first` and `last` of a connection take. */
const PAGE_SIZE = { min: 0, max: MAX_PAGE_SIZE };

builder.queryType({ description: 'Reads. Every field needs an access token with the `read` scope.' });
for (const resource of resources) defineList(resource);

/** The arguments of a list field, as Pothos hands them over. */
interface ListArgs {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
  filter?: unknown;
  orderBy?: unknown;
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
): Promise<ConnectionShape> {
  const conditions: Condition[] = [];
  for (const [field, value] of Object.entries((args.filter ?? {}) as Record<string, unknown>)) {
    if (value === undefined) continue;
    const filter = filters.get(field)!;
    if (value === null && Array.isArray(filter.type))
      throw badInput(`filter.${field} cannot be null`, `filter.${field}`);
    conditions.push(filter.condition(value as never));
  }
  // Counted once, whether `last` needs the total, `totalCount` is selected, or both.
  let total: Promise<number> | undefined;
  const count = (ctx: GraphQLContext) => (total ??= countRows(ctx.source, resource.type, conditions));
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
  const byId = orderBy.length === 0;
  // Forward from a cursor of a list in id order: the rows after its id, not `start` rows skipped.
  const keyset = byId && after?.id !== undefined && start === after.position + 1;
  const page: ListQuery = keyset
    ? {
        conditions: [...conditions, { kind: 'after', column: 'id', value: after.id! }],
        orderBy,
        limit: limit + 1,
        offset: 0,
      }
    : { conditions, orderBy, limit: limit + 1, offset: start };
  // One row more than asked tells whether another page follows.
  const rows =
    limit === 0 ? [] : await listRows(context.source, resource.type, page, context.plan.columns(resource.type));
  return {
    rows: rows.slice(0, limit),
    offset: start,
    byId,
    hasNextPage: rows.length > limit || (args.before !== undefined && args.before !== null),
    hasPreviousPage: start > 0,
    count,
  };
}
