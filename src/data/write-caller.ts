/**
 * Who a write is made for, and what must happen inside its transaction, as the surface that took
 * the request tells the Writer it makes for it (src/rest/api.ts, src/graphql/mutations.ts): the
 * API client the change log names (./change-log.ts), and the idempotency layer's record that the
 * request's write committed, so that a retry after a crash never runs it twice
 * (src/http/idempotency.ts).
 *
 * Each surface makes its writers in one place, from the request (`RestHandlers.writer` in
 * src/rest/api.ts, `writer` in src/graphql/mutations.ts): a new write path goes through it.
 *
 * Handed over as a value, not through AsyncLocalStorage: on Node 20 one AsyncLocalStorage in use
 * turns on promise hooks for every promise of the process, for good (measured: 6-11% of the user
 * CPU a GraphQL lookup by id costs).
 */
import type { WriteTx } from '../db/transactions.ts';
import type { Access } from '../permissions/access.ts';

export interface WriteCaller {
  /** The API client (its row id) the change log names; undefined outside HTTP (the CLI, tests). */
  apiClientId?: number;
  /** What the client's role may change (src/permissions); none for admin and outside HTTP. */
  access?: Access;
  /** Values only the clean-data rules refuse are taken: an import with `--accept-invalid`, which lists them. */
  takeRuleBreaks?: boolean;
  /** The change request being applied (src/change-requests): its id goes into the entries, its author is the client. */
  changeRequestId?: number;
  /** Runs last in each write's transaction, before the commit; a failure rolls the write back. */
  beforeCommit?(tx: WriteTx): Promise<void>;
}
