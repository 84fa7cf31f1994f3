/**
 * Work a caller needs done inside the transaction of every write made on its behalf, without
 * the writes knowing the caller: the idempotency layer (src/http/idempotency.ts) records there
 * that a request's write committed, so that a retry after a crash never runs it twice.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { PrismaTx } from '../db/client.ts';

export interface WriteHooks {
  /** Runs last in each write's transaction, before the commit; a failure rolls the write back. */
  beforeCommit(tx: PrismaTx): Promise<void>;
}

const current = new AsyncLocalStorage<WriteHooks>();

/** Runs `work` so that every write it makes (through Writer) calls `hooks`. */
export function withWriteHooks<T>(hooks: WriteHooks, work: () => Promise<T>): Promise<T> {
  return current.run(hooks, work);
}

/** The hooks of the caller the current write runs for, if any. */
export function currentWriteHooks(): WriteHooks | undefined {
  return current.getStore();
}
