/**
 * `aggregate { count sum { .. } avg { .. } min { .. } max { .. } }` on every connection, over the
 * whole filtered list: one statement for everything an operation selects under it (src/data/aggregate.ts).
 * Sums and averages take the numeric attributes (Decimal stays Decimal; whole numbers give a
 * Float), least and greatest the date-times too.
 */
import type { FieldNode, FragmentDefinitionNode, GraphQLResolveInfo, SelectionSetNode } from 'graphql';
import { Kind } from 'graphql';
import {
  type AggregateFunction,
  type AggregateRequest,
  type Aggregates,
  type AggregateValue,
  COUNT_ONLY,
} from '../data/aggregate.ts';
import { type ScalarField, whereFields } from '../query/fields.ts';
import { camel, typeName } from '../resources/names.ts';
import { builder } from './builder.ts';

const FUNCTIONS = ['sum', 'avg', 'min', 'max'] as const;

/** The attributes of `type` each function applies to, by GraphQL field name. */
function aggregatable(type: string, fn: AggregateFunction): Map<string, ScalarField> {
  const fields = new Map<string, ScalarField>();
  for (const [key, field] of whereFields(type)) {
    if (field.kind !== 'scalar' || key === 'id' || key === 'version') continue;
    const numeric = field.type === 'integer' || field.type === 'decimal';
    if (numeric || ((fn === 'min' || fn === 'max') && field.type === 'datetime')) fields.set(camel(key), field);
  }
  return fields;
}

/** The fields of the selection sets under `nodes`, fragments spread. */
function selected(sets: readonly (SelectionSetNode | undefined)[], fragments: Record<string, FragmentDefinitionNode>) {
  const fields: FieldNode[] = [];
  const walk = (set: SelectionSetNode | undefined) => {
    for (const selection of set?.selections ?? []) {
      if (selection.kind === Kind.FIELD) fields.push(selection);
      else if (selection.kind === Kind.INLINE_FRAGMENT) walk(selection.selectionSet);
      else walk(fragments[selection.name.value]?.selectionSet);
    }
  };
  for (const set of sets) walk(set);
  return fields;
}

/** What the `aggregate` fields among `nodes` select, or undefined when none is selected. */
function requestOf(
  type: string,
  nodes: readonly FieldNode[],
  fragments: Record<string, FragmentDefinitionNode>,
): AggregateRequest | undefined {
  if (nodes.length === 0) return undefined;
  const request: Record<AggregateFunction, ScalarField[]> = { sum: [], avg: [], min: [], max: [] };
  for (const field of selected(
    nodes.map((n) => n.selectionSet),
    fragments,
  )) {
    const fn = field.name.value as AggregateFunction;
    if (!FUNCTIONS.includes(fn as never)) continue;
    const columns = aggregatable(type, fn);
    for (const inner of selected([field.selectionSet], fragments)) {
      const column = columns.get(inner.name.value);
      if (column && !request[fn].includes(column)) request[fn].push(column);
    }
  }
  return request;
}

/**
 * What a connection field's selection asks of the whole list (from the list's resolver): the
 * aggregates of its `aggregate` fields, or nothing but the count for `totalCount` alone;
 * undefined when it asks for neither.
 */
export function requestedTotals(type: string, info: GraphQLResolveInfo): AggregateRequest | undefined {
  const fields = selected(
    info.fieldNodes.map((n) => n.selectionSet),
    info.fragments,
  );
  const aggregates = fields.filter((f) => f.name.value === 'aggregate');
  if (aggregates.length > 0) return requestOf(type, aggregates, info.fragments);
  return fields.some((f) => f.name.value === 'totalCount') ? COUNT_ONLY : undefined;
}

/** Something that computes a list's aggregates for a request. */
export type Aggregating = (request: AggregateRequest) => Promise<Aggregates>;

interface Resolved {
  aggregates: Aggregates;
}

const aggregateTypes = new Map<string, ReturnType<typeof defineAggregate>>();

function defineAggregate(type: string) {
  const name = typeName(type);
  const parts: Partial<Record<AggregateFunction, unknown>> = {};
  for (const fn of FUNCTIONS) {
    const columns = aggregatable(type, fn);
    if (columns.size === 0) continue;
    const numbers = fn === 'sum' || fn === 'avg';
    parts[fn] = builder
      .objectRef<Resolved>(
        `${name}${numbers ? (fn === 'sum' ? 'Sums' : 'Averages') : fn === 'min' ? 'Minimums' : 'Maximums'}`,
      )
      .implement({
        fields: (t) =>
          Object.fromEntries(
            [...columns].map(([field, column]) => [
              field,
              t.field({
                type:
                  column.type === 'decimal'
                    ? 'Decimal'
                    : column.type === 'datetime'
                      ? 'DateTime'
                      : numbers
                        ? 'Float'
                        : 'Int',
                nullable: true,
                resolve: (r: Resolved) => r.aggregates.values[fn][column.column] as never,
              } as never),
            ]),
          ),
      });
  }
  return builder.objectRef<Resolved>(`${name}Aggregate`).implement({
    description: `Aggregates over all the ${type} of the list (every page), as filtered. Empty: count 0, the others null.`,
    fields: (t) => ({
      count: t.int({ nullable: false, resolve: (r) => r.aggregates.count }),
      ...Object.fromEntries(
        Object.entries(parts).map(([fn, ref]) => [
          fn,
          t.field({
            type: ref as never,
            nullable: false,
            description: DESCRIPTIONS[fn as AggregateFunction],
            resolve: (r: Resolved) => r as never,
          }),
        ]),
      ),
    }),
  });
}

const DESCRIPTIONS: Record<AggregateFunction, string> = {
  sum: 'Sums of the values present (exact for decimals).',
  avg: 'Averages of the values present (exact sum over count, to 15 significant digits).',
  min: 'The least value present.',
  max: 'The greatest value present.',
};

/** The `aggregate` field's type for a resource type, made once. */
export function aggregateTypeOf(type: string) {
  let ref = aggregateTypes.get(type);
  if (!ref) aggregateTypes.set(type, (ref = defineAggregate(type)));
  return ref;
}

/** Resolves an `aggregate` field: what its own selection asks, computed by the connection. */
export async function resolveAggregate(
  type: string,
  aggregating: Aggregating,
  info: GraphQLResolveInfo,
): Promise<Resolved> {
  const request = requestOf(type, info.fieldNodes, info.fragments)!;
  return { aggregates: await aggregating(request) };
}

export type { AggregateValue };
