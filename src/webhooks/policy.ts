/**
 * How a replica's deliverers (./deliverer.ts) pace an endpoint's calls: what each may hold in
 * memory, how long a failed call waits before the next attempt, and the settings an endpoint is
 * delivered under.
 */
import type { Targets } from './targets.ts';

/**
 * Entries not yet done kept in memory by all the deliverers of a replica together: each may hold
 * its share, HELD / endpoints delivered here, between MIN_SHARE and MAX_SHARE; past it the log is
 * read on only as its entries are done (the cursor says where). Fifty endpoints far behind hold
 * 5,000 entries at most, 100 each (besides the live window's, which they share).
 */
export const HELD = 5000;
const MIN_SHARE = 32;
const MAX_SHARE = 1000;

/** An endpoint's share of HELD when `endpoints` are delivered here. */
export function shareOf(endpoints: number): number {
  return Math.min(MAX_SHARE, Math.max(MIN_SHARE, Math.floor(HELD / Math.max(1, endpoints))));
}
/** The longest wait between two attempts. */
const MAX_BACKOFF_MS = 60 * 60 * 1000;

export interface DeliveryPolicy {
  targets: Targets;
  timeoutMs: number;
  concurrency: number;
  firstRetryMs: number;
  retryForMs: number;
  disableAfterMs: number;
}

export type Outcome = 'delivered' | 'failed' | 'dead';

/** Backoff after `attempts` failed attempts: exponential, full jitter over its upper half. */
export function backoff(firstRetryMs: number, attempts: number): number {
  const ceiling = Math.min(MAX_BACKOFF_MS, firstRetryMs * 2 ** (attempts - 1));
  return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
}
