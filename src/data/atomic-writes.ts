/**
 * The writes of the REST layer, whose atomic requests (src/rest/atomic.ts) run many writes as one
 * (Writer.atomically): those of ./bom-writes.ts, and a trial run that finds every write of such a
 * request that would be refused, once one was. The operations of a request build on each other
 * (a resource added, then linked to by its lid), so each is tried on what the ones before it did,
 * under a savepoint: one that fails is undone alone, and the trial goes on. Everything is rolled
 * back at the end. A request that meets no error never runs the trial: it costs nothing more.
 */
import { Sql } from '../db/sql.ts';
import type { WriteTx } from '../db/transactions.ts';
import { BomWriter } from './bom-writes.ts';

/** What ends a trial run: its transaction is rolled back whatever happened. */
const TRIED = new Error('the trial run is rolled back');

export class AtomicWriter extends BomWriter {
  /** atomically(), with the transaction the writes join, for statements of the caller's own among them. */
  inTransaction<T>(work: (tx: WriteTx) => Promise<T>): Promise<T> {
    return this.atomically(() => work(this.joinedTx));
  }

  /** inTransaction() inside the caller's transaction `tx` (Writer.atomicallyIn): committed and announced by the caller. */
  inTransactionOf<T>(tx: WriteTx, work: (tx: WriteTx) => Promise<T>): Promise<T> {
    return this.atomicallyIn(tx, () => work(this.joinedTx));
  }

  /**
   * Runs `work` as one transaction of writes (atomically) that is rolled back whatever happens:
   * what it answered, or what it threw. For trials and previews: nothing is written, logged or
   * announced.
   */
  async rolledBack<T>(work: (tx: WriteTx) => Promise<T>): Promise<T> {
    let result: T | undefined;
    try {
      await this.atomically(async () => {
        result = await work(this.joinedTx);
        throw TRIED;
      });
    } catch (error) {
      if (error !== TRIED) throw error;
    }
    return result as T;
  }

  /**
   * Runs `count` steps in order in one transaction that is rolled back, each under a savepoint:
   * the error of each step that failed, by its index. An error of the database itself (a savepoint
   * it cannot roll back to, an outage) ends the trial and is thrown.
   */
  async failuresOfEach(count: number, step: (index: number) => Promise<unknown>): Promise<Map<number, unknown>> {
    const failures = new Map<number, unknown>();
    try {
      await this.atomically(async () => {
        const tx = this.joinedTx;
        const run = (statement: string) => tx.execute(new Sql(tx.provider).text(statement));
        for (let index = 0; index < count; index++) {
          await run('SAVEPOINT "step"');
          try {
            await step(index);
          } catch (error) {
            failures.set(index, error);
            await run('ROLLBACK TO SAVEPOINT "step"');
          }
          await run('RELEASE SAVEPOINT "step"');
        }
        throw TRIED;
      });
    } catch (error) {
      if (error !== TRIED) throw error;
    }
    return failures;
  }
}
