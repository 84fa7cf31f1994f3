/** What every resolver gets: where to read and write, what the operation selects, who asks. */
import type { BearerAuth } from '../auth/tokens.ts';
import type { Clock } from '../clock.ts';
import type { Locale } from '../resources/types.ts';
import type { DataSource } from '../data/load.ts';
import type { Database } from '../db/client.ts';
import type { ColumnPlan } from './plan.ts';

export interface GraphQLContext {
  db: Database;
  /** Reads outside transactions. */
  source: DataSource;
  /** The columns each resource type needs in this operation (set when execution starts). */
  plan: ColumnPlan;
  auth: BearerAuth;
  /** Localized text without a `locale` argument, and after a missing translation, in this order. */
  localeChain: readonly Locale[];
  clock: Clock;
}
