/**
 * Per-request DataLoaders that are not a field's own (Pothos keeps those): counts behind
 * `totalCount` of reverse links, the levels of bill-of-material explosions. Kept per context
 * object, so each request batches and caches only within itself.
 */
import { contextCacheSymbol } from '@pothos/core';
import type DataLoader from 'dataloader';
import { LoaderMap } from '../data/request.ts';
import type { GraphQLContext } from './context.ts';

const loaders = new WeakMap<GraphQLContext, LoaderMap>();

export function requestLoader<V, K extends number | string = number>(
  context: GraphQLContext,
  key: string,
  batch: (keys: readonly K[]) => Promise<V[]>,
): DataLoader<K, V> {
  let map = loaders.get(context);
  if (!map) loaders.set(context, (map = new LoaderMap()));
  return map.get(key, batch);
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
