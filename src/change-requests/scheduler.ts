/**
 * Scheduled change requests applied at their instant (./requests.ts), by one replica each.
 *
 * Every SCHEDULE_TICK_MS a replica claims the scheduled requests that came due and nobody holds,
 * those of the earliest instant first (a later one waits until they are all applied or failed):
 * a claim in the request's row (`lease_owner`, `lease_until`) that lasts CLAIM_MS. On PostgreSQL
 * replicas that look at the same moment skip each other's rows (FOR UPDATE SKIP LOCKED); SQLite
 * has one writer. A replica that dies holding claims leaves them to another after CLAIM_MS.
 *
 * Exactly once does not rest on the claims: applying writes the request's new state on the
 * condition that its version is still the one read, in the transaction of its writes, so a second
 * replica applying the same request (a claim that ran out while the first was still at it) rolls
 * back everything it did.
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/client.ts';
import { Sql } from '../db/sql.ts';
import type { Access } from '../permissions/access.ts';
import type { ChangeRequests, DueRequest } from './requests.ts';

/** How often a replica looks for requests that came due: how late one is applied, at most, when nothing else is. */
export const SCHEDULE_TICK_MS = 250;
/** How long a claim holds. */
export const CLAIM_MS = 10_000;
/** Requests claimed at a time by one replica. */
const CLAIM_BATCH = 50;
/** Requests applied at once by one replica (each a transaction on a connection of its own). */
const PARALLEL = 8;

export class ScheduledChanges {
  /** This replica, as claim holder. */
  readonly owner = `${process.pid}-${randomUUID()}`;
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private closed = false;

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

  /** Stops claiming; what is being applied finishes, and the claims not yet used are given up. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    this.closed = true;
    await this.ticking;
    await this.db.prisma.changeRequest
      .updateMany({
        where: { lease_owner: this.owner, state: 'scheduled' },
        data: { lease_owner: null, lease_until: null },
      })
      .catch((error: Error) => this.onError(error, 'change requests: giving up the claims failed'));
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

  /** Claims the requests due now, and applies them, PARALLEL at a time, instant after instant. */
  async applyDue(): Promise<number> {
    let applied = 0;
    for (;;) {
      const claimed = await this.claim();
      const approvers = new Map<number, Promise<Access | undefined>>();
      let next = 0;
      const worker = async () => {
        while (next < claimed.length) {
          const due = claimed[next++]!;
          await this.requests
            .applyScheduled(due, approvers)
            .catch((error: Error) => this.onError(error, `change requests: applying change request ${due.id} failed`));
          applied++;
        }
      };
      await Promise.all(Array.from({ length: Math.min(PARALLEL, claimed.length) }, worker));
      // Again while it found some: more of the same instant, or the next instant due.
      if (claimed.length === 0 || this.closed) return applied;
    }
  }

  /**
   * The scheduled requests due now that this replica now holds, soonest first, with what applying
   * them needs: two statements for the batch, not a read per request.
   */
  private async claim(): Promise<DueRequest[]> {
    const now = this.clock.now();
    const until = new Date(now.getTime() + CLAIM_MS);
    const pg = this.db.provider === 'postgresql';
    const sql = new Sql(this.db.provider)
      .text('UPDATE "change_requests" SET "lease_owner" = ')
      .value(this.owner)
      .text(', "lease_until" = ')
      .value(until)
      .text(` WHERE "id" IN (SELECT "id" FROM "change_requests" WHERE "state" = 'scheduled' AND "effective_date" <= `)
      .value(now)
      // The earliest instant first, whole: a request is never applied before one due earlier,
      // on this replica or another (those due at the same instant go in no particular order).
      .text(` AND "effective_date" = (SELECT MIN("effective_date") FROM "change_requests" WHERE "state" = 'scheduled')`)
      .text(' AND ("lease_until" IS NULL OR "lease_until" < ')
      .value(now)
      .text(`) ORDER BY "effective_date", "id" LIMIT ${CLAIM_BATCH}${pg ? ' FOR UPDATE SKIP LOCKED' : ''})`)
      .text(' RETURNING "id", "version", "author_id", "operations", "effective_date"');
    const rows = await this.db.transaction((tx) =>
      tx.query<{ id: number; version: number; author_id: number; operations: string; effective_date: unknown }>(sql),
    );
    if (rows.length === 0) return [];
    const ids = rows.map((row) => Number(row.id));
    const approvals = await this.db.primary.query<{ id: number; approver: number | null }>(
      new Sql(this.db.provider)
        .text(
          `SELECT "change_request_id" AS "id", "api_client_id" AS "approver" FROM "change_request_decisions" WHERE "decision" = 'approved' AND "change_request_id"`,
        )
        .in(ids)
        .text(' ORDER BY "id"'),
    );
    const approverOf = new Map(approvals.map((a) => [Number(a.id), a.approver === null ? null : Number(a.approver)]));
    return rows
      .sort((a, b) => String(a.effective_date).localeCompare(String(b.effective_date)) || a.id - b.id)
      .map((row) => ({
        id: Number(row.id),
        version: Number(row.version),
        authorId: Number(row.author_id),
        operations: JSON.parse(row.operations) as unknown[],
        approverId: approverOf.get(Number(row.id)),
      }));
  }
}
