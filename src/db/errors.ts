/**
 * Tells a database outage (unreachable, timed out, overloaded, read-only, locked) from a bug.
 * An outage is the client's cue to retry later (503 with Retry-After); a bug is a 500. Both
 * API surfaces and the token endpoints answer through this one test.
 */

/** Driver-adapter error kinds (Prisma 6.19 adapters) that mean the database cannot serve now. */
const UNAVAILABLE_KINDS = new Set([
  'DatabaseNotReachable',
  'ConnectionClosed',
  'SocketTimeout', // PostgreSQL socket timeout; SQLite's SQLITE_BUSY (a lock held past the busy timeout)
  'TooManyConnections',
  'TlsConnectionError',
  'DatabaseDoesNotExist',
  'DatabaseAccessDenied',
  'AuthenticationFailed',
  'TransactionWriteConflict',
]);

/**
 * PostgreSQL SQLSTATEs of the same meaning: connection exceptions (08), statement timeout or
 * cancel (57014), shutdown and start-up (57P0x), insufficient resources (53), a read-only server
 * (25006), serialization failure and deadlock (40001, 40P01: retrying succeeds).
 */
const UNAVAILABLE_SQLSTATE = /^(08...|57014|57P0.|53...|25006|40001|40P01)$/;

/** Prisma error codes: cannot reach, timed out, connection closed, pool timeout, transaction timeout, write conflict. */
const UNAVAILABLE_PRISMA_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024', 'P2028', 'P2034']);

/** SQLite result codes (extended codes start with these): locked, read-only, I/O, full disk, cannot open. */
const UNAVAILABLE_SQLITE = /^SQLITE_(BUSY|LOCKED|READONLY|IOERR|FULL|CANTOPEN|PROTOCOL)/;

/**
 * node-postgres raises plain errors for its own timeouts and broken connections, which the
 * adapter passes through unmapped; these are its messages (pg 8).
 */
const PG_CLIENT_FAILURES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Query read timeout',
  'is not queryable',
];

interface ErrorLike {
  code?: unknown;
  message?: unknown;
  meta?: { driverAdapterError?: { cause?: { kind?: string; code?: string; originalCode?: string } } };
  cause?: unknown;
}

export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 3) return false;
  const e = error as ErrorLike;
  const cause = e.meta?.driverAdapterError?.cause;
  if (cause) {
    if (cause.kind && UNAVAILABLE_KINDS.has(cause.kind)) return true;
    const code = cause.code ?? cause.originalCode;
    if (code && (UNAVAILABLE_SQLSTATE.test(code) || UNAVAILABLE_SQLITE.test(code))) return true;
  }
  if (typeof e.code === 'string') {
    if (UNAVAILABLE_PRISMA_CODES.has(e.code) || UNAVAILABLE_SQLITE.test(e.code) || UNAVAILABLE_SQLSTATE.test(e.code))
      return true;
    if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EPIPE'].includes(e.code)) return true;
  }
  if (typeof e.message === 'string' && PG_CLIENT_FAILURES.some((m) => (e.message as string).includes(m))) return true;
  return isDatabaseUnavailable(e.cause, depth + 1);
}

/**
 * The fields of the unique constraint a write violated (P2002 from Prisma's model API; the
 * constraint's fields from the driver adapter; empty when neither names them), or undefined
 * when the error is not a unique violation.
 */
export function uniqueViolationFields(error: unknown): string[] | undefined {
  const e = error as {
    code?: string;
    detail?: string;
    message?: string;
    meta?: { target?: unknown; driverAdapterError?: { cause?: { kind?: string; constraint?: { fields?: string[] } } } };
  };
  // The drivers' own errors (writes in SQL, ./transactions.ts): PostgreSQL's 23505 names the key
  // in its detail, `Key (reference)=(X) already exists.`; SQLite's in its message,
  // `UNIQUE constraint failed: products.reference`.
  if (e?.code === '23505') return /^Key \(([^)]*)\)=/.exec(e.detail ?? '')?.[1]?.split(', ') ?? [];
  if (e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY')
    return (/constraint failed: (.*)$/.exec(e.message ?? '')?.[1] ?? '')
      .split(', ')
      .filter(Boolean)
      .map((column) => column.slice(column.indexOf('.') + 1));
  const cause = e?.meta?.driverAdapterError?.cause;
  if (e?.code !== 'P2002' && cause?.kind !== 'UniqueConstraintViolation') return undefined;
  const fields = cause?.constraint?.fields ?? (Array.isArray(e.meta?.target) ? (e.meta.target as string[]) : []);
  return fields.map((f) => f.replace(/"/g, ''));
}
