/**
 * The change log in GraphQL: `changes` (the log after a cursor, as REST's /changes), `history`
 * on every object type (a resource's entries, newest first), and the `Change` type both use.
 * The live side, `subscription { changes }`, is in ./subscriptions.ts.
 *
 * Entries name fields and carry values as the log records them: in the spec's (REST's) names
 * and forms, the same whichever API wrote them, so that a consumer of either reads one log.
 */
import {
  type ChangeEntry,
  type ChangeOp,
  changesAfter,
  formatCursor,
  historiesOf,
  parseCursor,
} from '../data/changes.ts';
import { DomainError } from '../data/errors.ts';
import { changesFor, historiesFor } from '../data/role-changes.ts';
import { CHANGE_REQUESTS, followedTypes } from '../data/change-request-entries.ts';
import { typeName } from '../resources/names.ts';
import { resources } from '../resources/registry.ts';
import { builder } from './builder.ts';
import type { GraphQLContext } from './context.ts';
import { badInput } from './errors.ts';
import { boundedArguments, outOfBounds } from './limits.ts';
import { refOf } from './objects.ts';
import { tracedBatch } from '../observability/tracing.ts';

export const DEFAULT_CHANGES = 100;
export const MAX_CHANGES = 500;
export const DEFAULT_HISTORY = 20;
export const MAX_HISTORY = 100;

export const ResourceTypeEnum = builder.enumType('ResourceType', {
  description:
    "A resource type: the REST type name in capitals (`PRODUCT_STRUCTURE_ITEMS` is REST's `product_structure_items`).",
  values: {
    ...Object.fromEntries(resources.map((r) => [r.type.toUpperCase(), { value: r.type }])),
    CHANGE_REQUESTS: {
      value: CHANGE_REQUESTS,
      description:
        'Extension: change requests (writes that wait for approval or a date), as a type of the change log: shown to their author and to clients that may approve them.',
    },
  },
});

export const ChangeOpEnum = builder.enumType('ChangeOp', {
  values: {
    CREATED: { value: 'created', description: 'The resource was created: `after` holds all its fields.' },
    UPDATED: { value: 'updated', description: '`changed` lists what changed, `before` and `after` its values.' },
    DELETED: { value: 'deleted', description: 'A tombstone: `before` holds what the resource was (structure items).' },
  } as Record<string, { value: ChangeOp; description: string }>,
});

/** Every object type, for `Change.node`. */
const ResourceUnion = builder.unionType('Resource', {
  description: 'Any resource.',
  types: resources.map((r) => refOf(r.type)) as never,
  resolveType: (value) => typeName((value as { [RESOURCE_TYPE]: string })[RESOURCE_TYPE]),
});

/** Marks the row of a `Change.node` with its type, for the union to tell which it is. */
const RESOURCE_TYPE = Symbol('resource type');

export const ChangeRef = builder.objectRef<ChangeEntry>('Change').implement({
  description:
    'Extension (not in the master-data spec): one entry of the change log, a resource that one committed write changed. Fields and values are named and written as in the REST API.',
  fields: (t) => ({
    cursor: t.string({
      nullable: false,
      description: 'Its position in the log: give it as `after` to go on from here.',
      resolve: (e) => formatCursor(e.seq),
    }),
    type: t.field({ type: ResourceTypeEnum, nullable: false, resolve: (e) => e.type }),
    id: t.int({ nullable: false, description: "The resource's id.", resolve: (e) => e.id }),
    op: t.field({ type: ChangeOpEnum, nullable: false, resolve: (e) => e.op }),
    version: t.int({
      nullable: false,
      description: 'The resource version after the change (the last one, for DELETED).',
      resolve: (e) => e.version,
    }),
    changed: t.stringList({
      nullable: false,
      description: 'The attributes and relationships (REST names) that changed; all of them on CREATED and DELETED.',
      resolve: (e) => e.changed,
    }),
    before: t.field({ type: 'JSON', description: 'Their values before (null on CREATED).', resolve: (e) => e.before }),
    after: t.field({ type: 'JSON', description: 'Their values after (null on DELETED).', resolve: (e) => e.after }),
    actor: t.string({
      nullable: false,
      description: 'The `client_id` of the API client that wrote it; `cli` for writes outside the APIs.',
      resolve: (e) => e.actor,
    }),
    at: t.field({ type: 'DateTime', nullable: false, description: 'When it was written.', resolve: (e) => e.at }),
    changeRequestId: t.id({
      description:
        'The change request whose writes these are (written once another client approved it); null for other writes.',
      resolve: (e) => (e.changeRequest === null ? null : String(e.changeRequest)),
    }),
    node: t.field({
      type: ResourceUnion,
      description:
        'The resource as it is now; null when it no longer exists, and for a change request (read it with `changeRequest(id:)`).',
      resolve: async (e, _args, context) => {
        if (e.type === CHANGE_REQUESTS) return null;
        const row = await refOf(e.type).getDataloader(context).load(e.id);
        return row ? ({ ...row, [RESOURCE_TYPE]: e.type } as never) : null;
      },
    }),
  }),
});

interface ChangePage {
  entries: ChangeEntry[];
  hasNextPage: boolean;
  endCursor: string | null;
}

const ChangePageInfo = builder.objectRef<ChangePage>('ChangePageInfo').implement({
  fields: (t) => ({
    hasNextPage: t.boolean({ nullable: false, resolve: (p) => p.hasNextPage }),
    endCursor: t.string({
      description:
        'Where to go on from. `changes`: the last entry, or the end of the log when no more matched (never null). `history`: the oldest entry of the page.',
      resolve: (p) => p.endCursor,
    }),
  }),
});

const ChangeEdge = builder.objectRef<ChangeEntry>('ChangeEdge').implement({
  fields: (t) => ({
    cursor: t.string({ nullable: false, resolve: (e) => formatCursor(e.seq) }),
    node: t.field({ type: ChangeRef, nullable: false, resolve: (e) => e }),
  }),
});

const ChangeConnection = builder.objectRef<ChangePage>('ChangeConnection').implement({
  description: 'A page of change-log entries.',
  fields: (t) => ({
    edges: t.field({
      type: [ChangeEdge],
      nullable: false,
      complexity: { field: 1, multiplier: 1 },
      resolve: (p) => p.entries,
    }),
    nodes: t.field({
      type: [ChangeRef],
      nullable: false,
      complexity: { field: 1, multiplier: 1 },
      resolve: (p) => p.entries,
    }),
    pageInfo: t.field({ type: ChangePageInfo, nullable: false, resolve: (p) => p }),
  }),
});

/** A page size argument, checked. */
function pageSize(value: number | null | undefined, fallback: number, max: number, argument: string): number {
  if (value === null || value === undefined) return fallback;
  if (value < 1 || value > max) throw badInput(outOfBounds(argument, { min: 1, max }, value), argument);
  return value;
}

/** A cursor argument, checked (bad_input naming it). */
export function cursorArgument(value: string | null | undefined, argument: string): number | undefined {
  if (value === null || value === undefined) return undefined;
  try {
    return parseCursor(value, argument);
  } catch (error) {
    if (error instanceof DomainError) throw badInput(error.message, argument);
    throw error;
  }
}

builder.queryField('changes', (t) =>
  t.field({
    type: ChangeConnection,
    nullable: false,
    description: `Extension (not in the master-data spec): the change log after \`after\` (from the oldest entry kept without it), oldest first, in commit order; \`types\` keeps only those. ${DEFAULT_CHANGES} at a time unless \`first\` says otherwise (at most ${MAX_CHANGES}). A cursor the log no longer covers is the error CURSOR_EXPIRED: read afresh.`,
    args: {
      after: t.arg.string(),
      first: t.arg.int(),
      types: t.arg({ type: [ResourceTypeEnum] }),
    },
    complexity: (args) => ({ field: 1, multiplier: (args.first as number | null) ?? DEFAULT_CHANGES }),
    extensions: boundedArguments({ first: { min: 1, max: MAX_CHANGES } }),
    resolve: async (_root, args, context: GraphQLContext): Promise<ChangePage> => {
      const first = pageSize(args.first, DEFAULT_CHANGES, MAX_CHANGES, 'first');
      const after = cursorArgument(args.after, 'after');
      // The primary, also with a read replica (as REST's /changes: a cursor from the primary is never
      // past its head). A role sees the log as it sees the data (../data/role-changes.ts).
      const access = context.auth.access;
      const options = { types: followedTypes(args.types ?? undefined), limit: first };
      const page = access
        ? await changesFor(context.db.primary, access, after, { ...options, clientId: context.auth.clientId })
        : await changesAfter(context.db.primary, after, options);
      return { entries: page.entries, hasNextPage: page.hasMore, endCursor: formatCursor(page.cursor) };
    },
  }),
);

for (const resource of resources) {
  builder.objectField(refOf(resource.type), 'history', (t) =>
    t.loadable({
      type: ChangeConnection,
      nullable: false,
      byPath: true,
      description: `Extension (not in the master-data spec): this resource's entries in the change log, newest first (as long as the log keeps them), ${DEFAULT_HISTORY} at a time unless \`first\` says otherwise (at most ${MAX_HISTORY}); \`after\` an entry's cursor gives the older ones.`,
      args: { first: t.arg.int(), after: t.arg.string() },
      complexity: (args: { first?: number | null }) => ({ field: 1, multiplier: args.first ?? DEFAULT_HISTORY }),
      extensions: boundedArguments({ first: { min: 1, max: MAX_HISTORY } }),
      load: tracedBatch(
        `${resource.type}.history`,
        async (ids: number[], context: GraphQLContext, args: { first?: number | null; after?: string | null }) => {
          const first = pageSize(args.first, DEFAULT_HISTORY, MAX_HISTORY, 'first');
          const before = cursorArgument(args.after, 'after');
          const access = context.auth.access;
          if (access)
            return (await historiesFor(context.source, access, resource.type, ids, { before, limit: first })).map(
              (page): ChangePage => ({
                entries: page.entries,
                hasNextPage: page.hasMore,
                endCursor: page.end === null ? null : formatCursor(page.end),
              }),
            );
          const pages = await historiesOf(context.source, resource.type, ids, { before, limit: first });
          return pages.map(
            (page): ChangePage => ({
              entries: page.entries,
              hasNextPage: page.hasMore,
              endCursor: page.entries.length > 0 ? formatCursor(page.entries.at(-1)!.seq) : null,
            }),
          );
        },
      ),
      resolve: (row) => row.id,
    }),
  );
}
