/**
 * `as_of` on the GETs of resources: the answer read as the hub was committed at an instant
 * (src/db/past.ts), saying so in `meta.as_of`.
 */
import type { ChangeRequests } from '../change-requests/requests.ts';
import { HistoryPurgedError } from '../db/past.ts';
import type { DataSource } from '../db/reads.ts';
import { HttpError } from '../http/errors.ts';
import type { Query } from './query.ts';

/**
 * Runs a GET's `work` with reads of the present (`past` undefined), or with `as_of` of the hub as
 * committed then (as it will be, for an instant to come: src/change-requests): 410
 * `history_purged` before the oldest instant it keeps.
 */
export async function readingAt<T>(
  requests: ChangeRequests,
  query: Query,
  work: (past: DataSource | undefined) => Promise<T>,
): Promise<T> {
  if (!query.asOf) return work(undefined);
  try {
    return await requests.readAsOf(query.asOf, work);
  } catch (error) {
    if (error instanceof HistoryPurgedError) throw new HttpError(410, 'history_purged', error.message);
    throw error;
  }
}

/**
 * How long after an instant no write can still change what it answers: a write's instant is its
 * transaction's start, and a write transaction of the service lasts far less than this.
 */
const SETTLED_MS = 60_000;

/**
 * Whether a LIST may answer a total counted earlier (src/data/list.ts KeptTotals): always now; as
 * of an instant once it is settled (an instant's total, counted, never changes then).
 */
export function keepsTotals(query: Query, now = Date.now()): boolean {
  return !query.asOf || query.asOf.getTime() < now - SETTLED_MS;
}

/** `meta.as_of` of an answer as of an instant: the instant, in UTC. */
export function asOfMeta(query: Query): { as_of?: string } {
  return query.asOf ? { as_of: query.asOf.toISOString() } : {};
}
