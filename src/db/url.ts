import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

export type Provider = 'sqlite' | 'postgresql';

/** Bounds on waiting for the database; nothing the service does waits longer than these. */
export interface DatabaseTimeouts {
  /** Opening a connection, or waiting for a free one from the pool (PostgreSQL). */
  connectMs: number;
  /** One statement: PostgreSQL's statement_timeout (and a client-side read timeout), SQLite's busy wait for a lock. */
  statementMs: number;
}

export const DEFAULT_DATABASE_TIMEOUTS: DatabaseTimeouts = { connectMs: 5000, statementMs: 5000 };

/** What a DATABASE_URL says: which provider, and for SQLite the file it names. */
export interface DatabaseTarget {
  provider: Provider;
  url: string;
  /** Absolute path of the SQLite database file (SQLite only). */
  sqliteFile?: string;
  /**
   * PostgreSQL: `url` goes through a pooler in transaction mode (PgBouncer's `pool_mode =
   * transaction`): each transaction may run on another server connection, so statements are not
   * prepared under names, and no session settings are sent when connecting.
   */
  transactionPooler?: boolean;
  /** PostgreSQL: a direct connection, for what needs a session of its own (migrations, LISTEN); `url` when unset. */
  directUrl?: string;
  /**
   * PostgreSQL: a streaming replica of the database (hot standby), for reads outside writes
   * (src/db/read-replica.ts). Reached the way `url` is (the same pool mode).
   */
  replica?: { url: string; maxLagMs: number };
}

/** The target without its read replica: for a process that serves no HTTP reads (the CLIs). */
export function withoutReplica({ replica: _replica, ...target }: DatabaseTarget): DatabaseTarget {
  return target;
}

/** The URL of a session of its own on the target: the direct one when the main one goes through a pooler. */
export function sessionUrl(target: DatabaseTarget): string {
  return target.directUrl ?? target.url;
}

/**
 * Reads a DATABASE_URL. `file:<path>` is SQLite (a relative path is taken from the working
 * directory, as Prisma's CLI and client would disagree otherwise); `postgres://` or
 * `postgresql://` is PostgreSQL. Throws a one-line message for anything else.
 */
export function parseDatabaseUrl(url: string): DatabaseTarget {
  if (url.startsWith('file:')) {
    const path = url.slice('file:'.length).replace(/^\/\/(?=\/)/, '');
    if (path === '' || path.includes('?')) {
      throw new Error('a SQLite URL is file:<path>, e.g. file:./data/master-data.db');
    }
    return { provider: 'sqlite', url, sqliteFile: resolve(path) };
  }
  if (/^postgres(ql)?:\/\//.test(url)) {
    try {
      const parsed = new URL(url);
      if (!parsed.hostname && !parsed.searchParams.get('host')) throw new Error('no host');
    } catch {
      throw new Error('not a valid PostgreSQL URL (postgresql://user:password@host:5432/database)');
    }
    return { provider: 'postgresql', url };
  }
  throw new Error('must start with file: (SQLite) or postgresql:// (PostgreSQL)');
}

/** Where a target points, for people (never with credentials). */
export function describeDatabase(target: DatabaseTarget): string {
  if (target.provider === 'sqlite') return `SQLite file ${target.sqliteFile}`;
  const url = new URL(target.url);
  const host = url.hostname || url.searchParams.get('host') || 'localhost';
  return `PostgreSQL database ${decodeURIComponent(url.pathname.slice(1)) || '(default)'} on ${host}:${url.port || 5432}`;
}

/** SQLite creates the file but not its directory. */
export function ensureSqliteDirectory(target: DatabaseTarget): void {
  if (target.sqliteFile) mkdirSync(dirname(target.sqliteFile), { recursive: true });
}
