/**
 * `asOf(at: DateTime!): PastQuery!`: the read root fields of Query, with everything under them read
 * as the hub was committed at `at` (src/db/past.ts).
 *
 * Every resolver reads through its context (`source`, the per-request loaders). Under `asOf` the
 * context is another: a child of the request's, whose source reads the past and whose loaders are
 * its own, so that a row of the past and the same row now never share a cache. GraphQL hands every
 * resolver the one request context, so the child travels with the values: `asOf` answers an
 * object that holds it, and PastContextPlugin (the first plugin: its wrapper runs outermost) gives
 * a resolver whose parent holds one that context instead, and marks what it answers (rows,
 * connections, lists of them) with it, down to the leaves. Several `asOf` of different instants
 * in one operation each read their own instant.
 */
import SchemaBuilder, { BasePlugin, type SchemaTypes, contextCacheSymbol } from '@pothos/core';
import { defaultFieldResolver, type GraphQLFieldResolver } from 'graphql';
import type { DataSource } from '../db/reads.ts';
import { readingAs } from '../data/visible.ts';
import type { GraphQLContext, PastReadsOfOperation as PastReads } from './context.ts';

/** The context a value was read in, when that is a past one. */
const PAST = Symbol('past context');

type Marked = { [PAST]?: GraphQLContext };

/** Marks what a resolver answered in a past context with it: objects, lists of them, promises of either. */
function mark(value: unknown, context: GraphQLContext): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof Promise) return value.then((resolved) => mark(resolved, context));
  if (Array.isArray(value)) {
    for (const item of value) mark(item, context);
    return value;
  }
  if (value instanceof Date || value instanceof Error) return value;
  (value as Marked)[PAST] = context;
  return value;
}

declare global {
  export namespace PothosSchemaTypes {
    export interface Plugins<Types extends SchemaTypes> {
      pastContext: PastContextPlugin<Types>;
    }
  }
}

export class PastContextPlugin<Types extends SchemaTypes> extends BasePlugin<Types> {
  override wrapResolve(
    resolver: GraphQLFieldResolver<unknown, Types['Context'], object>,
    fieldConfig: Parameters<BasePlugin<Types>['wrapResolve']>[1],
  ): GraphQLFieldResolver<unknown, Types['Context'], object> {
    let type = fieldConfig.type;
    while (type.kind === 'List') type = type.type;
    // A value read off its parent (a row's column): nothing to read, nothing to mark.
    if (resolver === defaultFieldResolver && (type.kind === 'Scalar' || type.kind === 'Enum')) return resolver;
    return (parent, args, context, info) => {
      const past = (parent as Marked | null | undefined)?.[PAST];
      if (!past) return resolver(parent, args, context, info);
      return mark(resolver(parent, args, past as Types['Context'], info), past);
    };
  }
}

export const PAST_CONTEXT_PLUGIN = 'pastContext';
SchemaBuilder.registerPlugin(PAST_CONTEXT_PLUGIN, PastContextPlugin);

/**
 * The as-of reads an operation opened, one per instant: each holds a read transaction (or the
 * SQLite past connection's turn) until the operation ends and `close` runs.
 */
export class PastReadsOfOperation implements PastReads {
  private readonly sources = new Map<number, Promise<DataSource>>();
  private readonly ends: (() => void)[] = [];
  private readonly done: Promise<unknown>[] = [];

  /** A context reading the hub as of `at`: the same for the same instant within the operation. */
  async contextAt(context: GraphQLContext, at: Date): Promise<GraphQLContext> {
    const source = await this.sourceAt(context, at);
    const child = Object.create(context) as GraphQLContext;
    child.source = source;
    child[contextCacheSymbol] = {};
    child.asOf = at;
    return child;
  }

  private sourceAt(context: GraphQLContext, at: Date): Promise<DataSource> {
    let source = this.sources.get(at.getTime());
    if (!source) {
      source = new Promise<DataSource>((resolve, reject) => {
        const read = context.changeRequests.readAsOf(
          at,
          (past) =>
            new Promise<void>((end) => {
              this.ends.push(end);
              resolve(readingAs(past, context.source.access));
            }),
        );
        read.catch(reject);
        this.done.push(read.catch(() => undefined));
      });
      this.sources.set(at.getTime(), source);
    }
    return source;
  }

  /** Ends every as-of read the operation opened. */
  async close(): Promise<void> {
    for (const end of this.ends.splice(0)) end();
    await Promise.all(this.done.splice(0));
  }
}

/** Marks the value `asOf` answers: its fields read in `context`. */
export function pastRoot(context: GraphQLContext): object {
  return mark({}, context) as object;
}
