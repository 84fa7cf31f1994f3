/**
 * Scheduled change requests applied at their instant (./requests.ts), by one replica each.
 *
 * Every SCHEDULE_TICK_MS a replica looks for scheduled requests due within LEAD_MS, those of the
 * earliest instant still scheduled first (a later one waits until they are all applied or
 * failed). PARALLEL transactions of its own each claim some (a lock on their rows, FOR UPDATE
 * SKIP LOCKED: replicas looking at the same moment skip each other's), make their writes, and
 * go on claiming more of the same instant until it comes; then each waits for the instant, and
 * commits. So the work of a thousand requests due in one second is done before that second, and
 * at the instant only the commits are left: they take effect within milliseconds of it, whatever
 * their number (measured: docs/operations/replicas.md, "The cluster test"). Their writes carry the
 * instant itself (WriteTx.writesAt), as the change log's `at` and the start of their rows'
 * versions.
 *
 * Made ready early, a request's version preconditions are checked before its instant, under the
 * locks of its rows, which are held until it is applied: a write of the same rows meanwhile waits
 * for it, and comes after it.
 *
 * A replica that dies holding requests rolls back with its connection: another takes them at
 * its next look. Exactly once does not rest on the locks alone: applying writes the request's
 * new state on the condition that its version is still the one read.
 *
 * A request that is refused (a version it expects, a unique value, a role that changed) rolls
 * back the transaction it was in: the others are claimed again without it, and it is applied
 * alone once its instant came, where its refusal leaves it `failed` with the reason.
 *
 * SQLite has one writer, which a transaction waiting for an instant would hold: there requests
 * are taken once due (LEAD_MS none), and applied at once.
 */
import type { Clock } from '../clock.ts';
import { announceWrites } from '../data/change-log.ts';
import { DomainError } from '../data/errors.ts';
import type { Database } from '../db/client.ts';
import { Sql } from '../db/sql.ts';
import type { WriteTx } from '../db/transactions.ts';
import { HttpError } from '../http/errors.ts';
import { OperationFailure } from '../rest/atomic-errors.ts';
import type { ChangeRequests, DueRequest } from './requests.ts';

/** How often a replica looks for requests due: how late one is applied, at most, when nothing else is. */
export const SCHEDULE_TICK_MS = 250;
/** How long before their instant requests are claimed and made ready (PostgreSQL). */
export const LEAD_MS = 1500;
/** Requests claimed by one statement. */
const CLAIM_BATCH = 25;
/** Most requests one transaction makes ready before their instant. */
const MOST_HELD = 400;
/**
 * Transactions of a replica applying requests at once, each on a connection of its own, which
 * it holds until their instant (at most LEAD_MS): the pool (and PgBouncer's) needs room for them.
 */
const PARALLEL = 2;

/** Thrown to roll back a transaction holding requests whose instant has not come, on close. */
class Closing extends Error {}

export class ScheduledChanges {
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private closed = false;
  private wakeOnClose: (() => void) | undefined;
  private readonly closing = new Promise<void>((resolve) => (this.wakeOnClose = resolve));

  constructor(
    private readonly db: Database,
    private readonly requests: ChangeRequests,
    private readonly clock: Clock,
    private readonly onError: (error: Error, what: string) => void,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.tick(), SCHEDULE_TICK_MS);
    this.timer.unref();
    this.tick();
  }

  /** Stops claiming; what is being applied finishes, and what waits for its instant is given up to other replicas. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    this.closed = true;
    this.wakeOnClose?.();
    await this.ticking;
  }

  private tick(): void {
    if (this.ticking) return;
    this.ticking = this.applyDue()
      .then(() => undefined)
      .catch((error: Error) => this.onError(error, 'change requests: applying scheduled requests failed'))
      .finally(() => {
        this.ticking = undefined;
      });
  }

  /** Applies the requests due now (and makes those due within LEAD_MS ready, and applies them at their instant); how many it settled. */
  async applyDue(): Promise<number> {
    let settled = 0;
    const worker = async () => {
      try {
        while (!this.closed) {
          const count = await this.applyTogether();
          settled += count;
          if (count === 0) return;
        }
      } catch (error) {
        // What was not applied yet stays scheduled, for another replica.
        if (!(error instanceof Closing)) throw error;
      }
    };
    // Every worker ends before this does (and so before the next tick, or close): one that fails
    // does not leave the other holding requests unwatched.
    const ended = await Promise.allSettled(Array.from({ length: PARALLEL }, worker));
    const failed = ended.find((end) => end.status === 'rejected');
    if (failed) throw failed.reason;
    return settled;
  }

  /**
   * One transaction: requests of one instant claimed and applied, more while the instant is to
   * come, committed once it came; then those refused in it, each alone. How many it settled.
   */
  private async applyTogether(): Promise<number> {
    const alone: DueRequest[] = [];
    // The approvers' roles, as this replica keeps them (read here, not in the transaction).
    const roles = await this.requests.roleLookup();
    for (;;) {
      let refused: DueRequest | undefined;
      try {
        const applied = await this.db.transaction(async (tx) => {
          const held: DueRequest[] = [];
          let instant: Date | undefined;
          for (;;) {
            const claimed = await this.claim(tx, alone, instant);
            if (claimed.length === 0) break;
            if (!instant) {
              instant = claimed[0]!.effectiveDate;
              await tx.writesAt(instant);
            }
            for (const due of claimed) {
              refused = due;
              await this.requests.applyIn(tx, due, roles);
              held.push(due);
            }
            refused = undefined;
            if (held.length >= MOST_HELD || this.clock.now().getTime() >= instant.getTime()) break;
          }
          if (instant) await this.until(instant);
          return held;
        });
        if (applied.length > 0)
          await announceWrites(
            this.db,
            applied.map((due) => due.authorId),
          );
        for (const due of alone) {
          await this.until(due.effectiveDate);
          await this.requests.applyScheduled(due);
        }
        return applied.length + alone.length;
      } catch (error) {
        if (!refused || !isRefusal(error)) throw error;
        // Again without it; it is applied alone once its instant came.
        alone.push(refused);
      }
    }
  }

  /** Waits for `instant`; throws Closing when the replica closes first (a transaction waiting rolls back). */
  private async until(instant: Date): Promise<void> {
    for (;;) {
      const wait = instant.getTime() - this.clock.now().getTime();
      if (wait <= 0) return;
      if (this.closed) throw new Closing('closing');
      await Promise.race([new Promise((resolve) => setTimeout(resolve, Math.min(wait, 100))), this.closing]);
    }
  }

  /**
   * Scheduled requests of the earliest instant still scheduled (`instant`, once the transaction
   * holds some), due within LEAD_MS, that no other transaction holds, but those of `alone`:
   * locked in `tx`, soonest first, with what applying them needs.
   */
  private async claim(tx: WriteTx, alone: readonly DueRequest[], instant: Date | undefined): Promise<DueRequest[]> {
    const pg = this.db.provider === 'postgresql';
    const horizon = new Date(this.clock.now().getTime() + (pg ? LEAD_MS : 0));
    // Who approved it, and the role that client has now: read here, not on a connection of the
    // pool, which the transactions waiting for their instant may all hold.
    const approved = (select: string) =>
      `(SELECT ${select} FROM "change_request_decisions" d LEFT JOIN "api_clients" a ON a."id" = d."api_client_id" WHERE d."change_request_id" = c."id" AND d."decision" = 'approved' ORDER BY d."id" DESC LIMIT 1)`;
    const sql = new Sql(this.db.provider)
      .text(
        `SELECT c."id", c."version", c."author_id", c."operations", c."effective_date", ${approved('d."api_client_id"')} AS "approver", ${approved('a."role"')} AS "role", ${approved('1')} AS "approved" FROM "change_requests" c WHERE c."state" = 'scheduled' AND c."effective_date" <= `,
      )
      .value(horizon)
      // The earliest instant first, whole: a request is never applied before one due earlier,
      // on this replica or another (those due at the same instant go in no particular order).
      .text(
        ` AND c."effective_date" = (SELECT MIN("effective_date") FROM "change_requests" WHERE "state" = 'scheduled')`,
      );
    // More of the instant the transaction holds, only: those it applied are no longer scheduled in
    // its own view, and the next instant's must wait for it to commit.
    if (instant) sql.text(' AND c."effective_date" = ').value(instant);
    if (alone.length > 0)
      sql
        .text(' AND NOT (c."id"')
        .in(alone.map((due) => due.id))
        .text(')');
    sql.text(` ORDER BY c."id" LIMIT ${CLAIM_BATCH}${pg ? ' FOR UPDATE OF c SKIP LOCKED' : ''}`);
    const rows = await tx.query<{
      id: number;
      version: number;
      author_id: number;
      operations: string;
      effective_date: string;
      approver: number | null;
      role: string | null;
      approved: unknown;
    }>(sql);
    return rows.map((row) => ({
      id: Number(row.id),
      version: Number(row.version),
      state: 'scheduled' as const,
      authorId: Number(row.author_id),
      operations: JSON.parse(row.operations) as unknown[],
      effectiveDate: new Date(row.effective_date),
      approverId: row.approved === null ? undefined : row.approver === null ? null : Number(row.approver),
      approverRole: row.role ?? undefined,
    }));
  }
}

/** What refuses a request's operations (as opposed to a database that failed). */
function isRefusal(error: unknown): boolean {
  return error instanceof OperationFailure || error instanceof DomainError || error instanceof HttpError;
}
