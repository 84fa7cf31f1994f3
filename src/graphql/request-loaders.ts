/**
 * Per-request DataLoaders that are not a field's own (Pothos keeps those): counts behind
 * `totalCount` of reverse links, the levels of bill-of-material explosions. Kept per context
 * object, so each request batches and caches only within itself.
 */
import { contextCacheSymbol } from '@pothos/core';
import DataLoader from 'dataloader';
import type { GraphQLContext } from './context.ts';

const loaders = new WeakMap<GraphQLContext, Map<string, DataLoader<number, unknown>>>();

export function requestLoader<V>(context: GraphQLContext, key: string, batch: (keys: readonly number[]) => Promise<V[]>): DataLoader<number, V> {
  let byKey = loaders.get(context);
  if (!byKey) loaders.set(context, (byKey = new Map()));
  let loader = byKey.get(key);
  if (!loader) byKey.set(key, (loader = new DataLoader<number, V>(batch) as DataLoader<number, unknown>));
  return loader as DataLoader<number, V>;
}

/**
 * Forgets everything this request has loaded, Pothos's loaders and these: after a write, later
 * fields of the same operation (the next mutation, or the written object's own relationships,
 * counts and lists) read the database as it now is.
 */
export function forgetLoaded(context: GraphQLContext): void {
  (context as unknown as Record<symbol, object>)[contextCacheSymbol] = {};
  loaders.delete(context);
}
