/**
 * What a caller gives every write made on its behalf, without the writes knowing the caller: work
 * to do inside the write's transaction (the idempotency layer, src/http/idempotency.ts, records
 * there that a request's write committed, so that a retry after a crash never runs it twice), and
 * who is writing, for the change log (./change-log.ts).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { WriteTx } from '../db/transactions.ts';

export interface WriteHooks {
  /** Runs last in each write's transaction, before the commit; a failure rolls the write back. */
  beforeCommit(tx: WriteTx): Promise<void>;
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

const actors = new AsyncLocalStorage<number>();

/** Runs `work` so that the change log names the API client (its row id) behind every write it makes. */
export function asActor<T>(apiClientId: number, work: () => Promise<T>): Promise<T> {
  return actors.run(apiClientId, work);
}

/** The API client (row id) the current write is for; undefined outside HTTP (the CLI). */
export function currentActor(): number | undefined {
  return actors.getStore();
}
