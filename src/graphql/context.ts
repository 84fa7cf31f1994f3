/** What every resolver gets: where to read and write, what the operation selects, who asks. */
import type { contextCacheSymbol } from '@pothos/core';
import type { BearerAuth, TokenWatch } from '../auth/tokens.ts';
import type { ChangeFeed } from '../data/change-feed.ts';
import type { WriteCaller } from '../data/write-caller.ts';
import type { Clock } from '../clock.ts';
import type { Locale } from '../resources/types.ts';
import type { DataSource } from '../data/load.ts';
import type { Database } from '../db/client.ts';
import type { ColumnPlan } from './plan.ts';
import type { SubscriptionLimits } from './subscription-limits.ts';
import type { Endpoints } from '../webhooks/endpoints.ts';
import type { ChangeRequests } from '../change-requests/requests.ts';

export interface GraphQLContext {
  /** Pothos's per-request cache (its DataLoaders): a fresh object per request and per event. */
  [contextCacheSymbol]: object;
  db: Database;
  /** Reads outside transactions: of the present, or of `asOf` in a context made by ./past.ts. */
  source: DataSource;
  /** The instant `source` reads the hub as of; undefined: now. */
  asOf: Date | undefined;
  /** The as-of reads the operation opened (`asOf`), ended with it (./past.ts). */
  pastReads: PastReadsOfOperation;
  /** The columns each resource type needs in this operation (set when execution starts). */
  plan: ColumnPlan;
  auth: BearerAuth;
  /** Who the operation's writes are for, and what runs before each commits (src/data/write-caller.ts). */
  writeCaller: WriteCaller;
  /** Localized text without a `locale` argument, and after a missing translation, in this order. */
  localeChain: readonly Locale[];
  clock: Clock;
  /** Live changes on this replica (subscriptions). */
  changeFeed: ChangeFeed;
  subscriptions: SubscriptionLimits;
  /** Watches the token a subscription runs on: it ends at expiry or revocation. */
  watchToken(auth: BearerAuth): TokenWatch;
  /** The client's webhook endpoints. */
  webhooks: Endpoints;
  /** Writes that wait for approval or a date (src/change-requests). */
  changeRequests: ChangeRequests;
}

/** The as-of reads of an operation: one per instant, each open until the operation ends. */
export interface PastReadsOfOperation {
  /** A context reading the hub as of `at`. */
  contextAt(context: GraphQLContext, at: Date): Promise<GraphQLContext>;
  close(): Promise<void>;
}
