/**
 * Reads of the hub as of an instant (both APIs' `asOf`), and of an instant to come: the present
 * with the scheduled change requests due by then applied (./requests.ts).
 */
import { AtomicWriter } from '../data/atomic-writes.ts';
import type { Database } from '../db/client.ts';
import type { DataSource } from '../db/reads.ts';
import { Sql } from '../db/sql.ts';
import { OperationFailure } from '../rest/atomic-errors.ts';
import { OperationRunner } from '../rest/atomic.ts';

/**
 * Reads the hub as of `at`, `now` being the present: as committed then (src/db/past.ts), or, for
 * an instant to come, as it will be once the scheduled requests due by then are applied: the
 * present with them applied in order, each under a savepoint (one that would fail now is left
 * out, as it would be `failed` then), in a transaction rolled back once `work` is done. They are
 * applied as admin may: the approvers' roles are checked when each is applied for real.
 */
export async function readAsOf<T>(
  db: Database,
  now: Date,
  at: Date,
  work: (source: DataSource) => Promise<T>,
): Promise<T> {
  if (at.getTime() <= now.getTime()) return db.past(at, work);
  const due = (await db.prisma.changeRequest.findMany({
    where: { state: 'scheduled', effective_date: { lte: at } },
    orderBy: [{ effective_date: 'asc' }, { id: 'asc' }],
    select: { operations: true },
  })) as { operations: string }[];
  if (due.length === 0) return db.past(at, work);
  const writer = new AtomicWriter(db, {});
  return writer.rolledBack(async (tx) => {
    const run = (statement: string) => tx.execute(new Sql(tx.provider).text(statement));
    for (const { operations } of due) {
      await run('SAVEPOINT "due"');
      try {
        await new OperationRunner({ writer, access: undefined }).all(JSON.parse(operations) as unknown[]);
      } catch (error) {
        if (!(error instanceof OperationFailure)) throw error;
        await run('ROLLBACK TO SAVEPOINT "due"');
      }
      await run('RELEASE SAVEPOINT "due"');
    }
    return work({ provider: tx.provider, asOf: at.toISOString(), query: (statement) => tx.query(statement) });
  });
}
