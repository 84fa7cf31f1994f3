/**
 * What the provider modules (./sqlite.ts, ./postgresql.ts) share: the shape of an open database,
 * the Prisma client's type, and the statement counting wrapped around a driver adapter. Only the
 * configured provider's module is loaded (./client.ts), with its driver and generated client.
 */
import type { SqlDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import type { PrismaClient as SqliteClient } from '../generated/sqlite/client.ts';
import { tracedStatement, tracingOn } from '../observability/tracing.ts';
import type { ReadReplica } from './read-replica.ts';
import type { DataSource } from './reads.ts';
import type { PastReads } from './past.ts';
import type { Transact } from './transactions.ts';

/**
 * Both generated clients come from the same models (prisma/models.prisma), so their model APIs
 * are the same; the SQLite client's type stands for both. Provider-only features (such as
 * case-insensitive `mode` filters on PostgreSQL) must not be used.
 */
export type PrismaDb = SqliteClient;

/** The client handed to an interactive `$transaction` callback. */
export type PrismaTx = Parameters<Parameters<PrismaDb['$transaction']>[0]>[0];

/** A database a provider module opened (./client.ts adds the statement count). */
export interface OpenedDatabase {
  /** Writes, transactions, and everything outside the data layer's hot reads. */
  prisma: PrismaDb;
  /**
   * One request's reads by the data layer, for its API client (undefined: an open route), on the
   * same pool or connection as Prisma (see ./reads.ts); with a read replica, routed between it and
   * the primary for that client (./read-replica.ts). Made once per request: the routing remembers
   * where the request's reads went.
   */
  readsFor(apiClientId: number | undefined): DataSource;
  /** A write transaction in SQL on the same pool or connection (see ./transactions.ts). */
  transaction: Transact;
  /** Statements each in a transaction of its own, on the database that takes writes. */
  primary: DataSource;
  /** Reads of the hub as committed at an instant (./past.ts). */
  past: PastReads;
  /** The read replica (PostgreSQL, DATABASE_REPLICA_URL), when one is configured. */
  replica?: ReadReplica;
  close(): Promise<void>;
}

export const COUNTED_METHODS = new Set<PropertyKey>(['queryRaw', 'executeRaw', 'executeScript']);

/** Wraps a driver adapter (or a transaction of one) so that every statement it sends is counted. */
export function countStatements<T extends object>(target: T, onStatement: () => void): T {
  return new Proxy(target, {
    get(object, property) {
      const value = Reflect.get(object, property, object);
      if (typeof value !== 'function') return value;
      if (COUNTED_METHODS.has(property)) {
        return (...args: unknown[]) => {
          onStatement();
          if (!tracingOn()) return value.apply(object, args);
          // Prisma's statements (tokens, idempotency keys, seeding): the text, not the values.
          const text = typeof args[0] === 'string' ? args[0] : (args[0] as { sql: string }).sql;
          const system = (object as { provider?: string }).provider === 'sqlite' ? 'sqlite' : 'postgresql';
          return tracedStatement(system, text, () => value.apply(object, args) as Promise<unknown>);
        };
      }
      if (property === 'startTransaction') {
        return async (...args: unknown[]) => countStatements(await value.apply(object, args), onStatement);
      }
      return value.bind(object);
    },
  });
}

/**
 * Wraps a driver adapter factory so that its connections count statements, and runs a
 * connection's set-up script (not counted) right after connecting.
 */
export function countingFactory(
  factory: SqlDriverAdapterFactory,
  onStatement: () => void,
  {
    setUp,
    gate,
    onConnect,
  }: { setUp?: string; gate?: { wrap<T extends object>(adapter: T): T }; onConnect?: (adapter: object) => void } = {},
): SqlDriverAdapterFactory {
  return {
    provider: factory.provider,
    adapterName: factory.adapterName,
    connect: async () => {
      const adapter = await factory.connect();
      if (setUp) await adapter.executeScript(setUp);
      onConnect?.(adapter);
      const counted = countStatements(adapter, onStatement);
      return gate ? gate.wrap(counted) : counted;
    },
  };
}
