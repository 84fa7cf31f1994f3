/**
 * A change request's state written (./requests.ts): in the transaction given (that of the
 * request's writes, when it is applied), on the condition that the request is still at the
 * version read, with the decision that moved it.
 */
import { Sql, WRITE_INSTANT } from '../db/sql.ts';
import type { WriteTx } from '../db/transactions.ts';
import { DomainError } from '../data/errors.ts';
import { requestEntry } from '../data/change-request-entries.ts';
import { appendInsert, appendInsertFrom } from '../data/rows.ts';

export const CHANGE_REQUEST_STATES = ['pending', 'scheduled', 'applied', 'rejected', 'withdrawn', 'failed'] as const;
export type ChangeRequestState = (typeof CHANGE_REQUEST_STATES)[number];

export interface Decision {
  decision: 'approved' | 'rejected' | 'withdrawn';
  /** Who decided: the API client's client_id, or `cli user@host` for an operator at the command line. */
  by: string;
  /** The API client's row id; null for an operator. */
  clientId: number | null;
  comment: string | null;
  at: Date;
}

export interface ChangeRequest {
  id: number;
  /** The `atomic:operations` array, as proposed. */
  operations: unknown[];
  /** The resource types its operations write. */
  types: string[];
  comment: string | null;
  effectiveDate: Date | null;
  authorId: number;
  /** The author's client_id. */
  author: string;
  state: ChangeRequestState;
  failure: string | null;
  settledDate: Date | null;
  version: number;
  createdDate: Date;
  modifiedDate: Date;
  decisions: Decision[];
  /** Once applied: the change-log position of its last entry (null when it changed nothing, or before). */
  position: number | null;
}

/** What a decision records of who took it. */
export type Decider = { clientId: number | null; by: string };

/** A decision about to be recorded. */
export interface NewDecision extends Decider {
  decision: Decision['decision'];
  comment: string | null;
}

/** Another client or replica settled the request first (409): nothing of this attempt is written. */
export class DecidedMeanwhile extends DomainError {
  constructor(id: number) {
    super('conflict', `change request ${id} was decided meanwhile: read it again`);
  }
}

/** Who moves a request to its new state, and how. */
export interface Settling {
  /** Who the change log names: the decider, or for a request applied or failed at its date, its author. */
  actor: string;
  failure?: string | null;
  decision?: NewDecision;
}

/**
 * The request's new state in `tx`, on the condition that it is still at the version read (409
 * otherwise, and the transaction rolls back: another replica or client settled it first), with
 * its `updated` entry in the change log (src/data/change-request-entries.ts): on PostgreSQL in
 * the same statement.
 */
export async function settleIn(
  tx: WriteTx,
  request: Pick<ChangeRequest, 'id' | 'version' | 'state'>,
  state: ChangeRequestState,
  { actor, failure = null, decision }: Settling,
): Promise<void> {
  const changed = failure === null ? ['state'] : ['state', 'failure'];
  const entry = requestEntry(request.id, 'updated', request.version + 1, actor, {
    changed,
    before: { state: request.state, ...(failure !== null && { failure: null }) },
    after: { state, ...(failure !== null && { failure }) },
  });
  const update = (sql: Sql) => {
    sql.text('UPDATE "change_requests" SET "state" = ').value(state).text(', "failure" = ').value(failure);
    sql.text(', "version" = "version" + 1, "modified_date" = ').value(WRITE_INSTANT);
    if (state === 'applied' || state === 'failed') sql.text(', "settled_date" = ').value(WRITE_INSTANT);
    return sql.text(' WHERE "id" = ').value(request.id).text(' AND "version" = ').value(request.version);
  };
  if (tx.provider === 'postgresql') {
    // One round trip: the entry is inserted only if the request was still at its version.
    const sql = update(new Sql(tx.provider).text('WITH "settled" AS (')).text(' RETURNING 1) ');
    if ((await tx.execute(appendInsertFrom(sql, 'changes', entry, 'settled'))) !== 1)
      throw new DecidedMeanwhile(request.id);
  } else {
    if ((await tx.execute(update(new Sql(tx.provider)))) !== 1) throw new DecidedMeanwhile(request.id);
    await tx.execute(appendInsert(new Sql(tx.provider), 'changes', [entry]));
  }
  if (decision)
    await tx.execute(
      new Sql(tx.provider)
        .text(
          'INSERT INTO "change_request_decisions" ("change_request_id", "api_client_id", "decided_by", "decision", "comment", "decided_date") VALUES (',
        )
        .value(request.id)
        .text(', ')
        .value(decision.clientId)
        .text(', ')
        .value(decision.by)
        .text(', ')
        .value(decision.decision)
        .text(', ')
        .value(decision.comment)
        .text(', ')
        .value(WRITE_INSTANT)
        .text(')'),
    );
}
