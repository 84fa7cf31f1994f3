/**
 * Relay connections (`edges { cursor node }`, `nodes`, `pageInfo`, `totalCount`). A cursor is a
 * position in the list (the same positions REST's `page` counts) and, where the list is in id
 * order, the row's id: paging forward then reads the rows after that id (keyset), an index range
 * as cheap deep in a list as on its first page, where an offset makes the database step over
 * every row before it. `totalCount` costs a statement only when it is selected.
 */
import { idFromText } from '../db/integers.ts';
import { badInput } from './errors.ts';
import type { Row } from '../data/load.ts';
import { builder, type RowRef } from './builder.ts';
import type { GraphQLContext } from './context.ts';
import type { AggregateRequest, Aggregates } from '../data/aggregate.ts';
import { aggregateTypeOf, resolveAggregate } from './aggregates.ts';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

export interface ConnectionShape {
  rows: Row[];
  /** Position of the first row in the whole list. */
  offset: number;
  /** The list is in id order: cursors carry their row's id. */
  byId: boolean;
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  count(context: GraphQLContext): Promise<number>;
  /** The aggregates of the whole list, as filtered (not of the page). */
  aggregate(context: GraphQLContext, request: AggregateRequest): Promise<Aggregates>;
}

/** A place in a list: the row's position (from 0) and, in a list in id order, its id. */
export interface Cursor {
  position: number;
  id?: number;
}

export function encodeCursor(position: number, id?: number): string {
  return Buffer.from(id === undefined ? `offset:${position}` : `offset:${position}:id:${id}`).toString('base64url');
}

export function decodeCursor(cursor: string, argument: string): Cursor {
  const match = /^offset:(\d{1,9})(?::id:(\d+))?$/.exec(Buffer.from(cursor, 'base64url').toString());
  // An id no row can have (past the database's integers) is no cursor this API issued.
  const id = match?.[2] === undefined ? undefined : idFromText(match[2]);
  if (!match || (match[2] !== undefined && id === undefined))
    throw badInput(`${argument} is not a cursor this API issued`, argument);
  return { position: Number(match[1]), id };
}

/** The cursor of the i-th row of a page. */
function cursorAt(c: ConnectionShape, i: number): string {
  return encodeCursor(c.offset + i, c.byId ? c.rows[i]!.id : undefined);
}

export function checkPageSize(value: number | null | undefined, argument: string): number | undefined {
  if (value === null || value === undefined) return undefined;
  if (value < 0 || value > MAX_PAGE_SIZE)
    throw badInput(`${argument} must be between 0 and ${MAX_PAGE_SIZE} (got ${value})`, argument);
  return value;
}

export const PageInfo = builder.objectRef<ConnectionShape>('PageInfo').implement({
  description: 'Where a page sits in the whole list (Relay cursor connections).',
  fields: (t) => ({
    hasNextPage: t.boolean({ nullable: false, resolve: (c) => c.hasNextPage }),
    hasPreviousPage: t.boolean({ nullable: false, resolve: (c) => c.hasPreviousPage }),
    startCursor: t.string({ resolve: (c) => (c.rows.length > 0 ? cursorAt(c, 0) : null) }),
    endCursor: t.string({ resolve: (c) => (c.rows.length > 0 ? cursorAt(c, c.rows.length - 1) : null) }),
  }),
});

const connections = new Map<string, ReturnType<typeof defineConnection>>();

function defineConnection(name: string, node: RowRef, type: string) {
  const edge = builder.objectRef<{ row: Row; cursor: string }>(`${name}Edge`).implement({
    fields: (t) => ({
      cursor: t.string({ nullable: false, resolve: (e) => e.cursor }),
      node: t.field({ type: node, nullable: false, resolve: (e) => e.row }),
    }),
  });
  return builder.objectRef<ConnectionShape>(`${name}Connection`).implement({
    description: `A page of ${name} objects.`,
    fields: (t) => ({
      // The page size is the connection field's multiplier already: its lists do not multiply again.
      edges: t.field({
        type: [edge],
        nullable: false,
        complexity: { field: 1, multiplier: 1 },
        resolve: (c) => c.rows.map((row, i) => ({ row, cursor: cursorAt(c, i) })),
      }),
      nodes: t.field({
        type: [node],
        nullable: false,
        complexity: { field: 1, multiplier: 1 },
        resolve: (c) => c.rows,
      }),
      pageInfo: t.field({ type: PageInfo, nullable: false, resolve: (c) => c }),
      totalCount: t.int({
        nullable: false,
        description:
          'How many there are in the whole list: read with the page where the list has a `where` or a `search`, else one more statement (only when selected).',
        resolve: (c, _args, context) => c.count(context),
      }),
      aggregate: t.field({
        type: aggregateTypeOf(type),
        nullable: false,
        description:
          'Count, sums, averages, least and greatest values of the whole list, as filtered: read with the page where the list has a `where` or a `search`, else one more statement (only when selected).',
        resolve: (c, _args, context, info) => resolveAggregate(type, (request) => c.aggregate(context, request), info),
      }),
    }),
  });
}

/** The connection type of a resource type's node type, made once. */
export function connectionOf(name: string, node: RowRef, type: string) {
  let connection = connections.get(name);
  if (!connection) connections.set(name, (connection = defineConnection(name, node, type)));
  return connection;
}
