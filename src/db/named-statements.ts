/**
 * Statement texts as PostgreSQL named (prepared) statements, and the values and types that
 * cross node-postgres the way the data layer expects them (see ./reads.ts).
 */
import pg from 'pg';
import { tracedStatement } from '../observability/tracing.ts';
import type { Statement } from './reads.ts';

const TIMESTAMP_OID = 1114;

/** PostgreSQL `timestamp(3)` (Prisma stores UTC without a zone) as an ISO string in UTC. */
function timestampToIso(text: string): string {
  const [date, time = '00:00:00'] = text.split(' ');
  const [clock, fraction = ''] = time.split('.');
  return `${date}T${clock}.${fraction.padEnd(3, '0').slice(0, 3)}Z`;
}

const pgTypes = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === TIMESTAMP_OID
      ? timestampToIso
      : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

/**
 * How many statement texts are sent as named (prepared) statements. Each connection keeps the
 * ones it has run, parsed and planned, for its life; texts beyond this many go unnamed, so that
 * GraphQL selections (each a column list of its own) cannot grow that memory without bound.
 */
const MAX_NAMED_STATEMENTS = 500;

/**
 * The share of the names that texts a client shaped (a GraphQL `where`, each shape a text of its
 * own) may take: a client sending ever new shapes must not leave the service's own statements
 * unnamed for everyone.
 */
const SHAPED_SHARE = 0.4;

/**
 * Statement texts as named (prepared) statements: PostgreSQL parses and plans a text once per
 * connection instead of on every execution (measured: a 50-id lookup 0.18 -> 0.10 ms of the
 * database's CPU). Id lists are one array parameter (Sql.in), so a loader's text is the same for
 * every batch. One set of names per pool: reads and writes (./transactions.ts) share it.
 *
 * A migration that changes a column's type (run by another replica, during a rolling deploy)
 * makes a statement prepared before it fail with "cached plan must not change result type".
 * Then every name is given up for new ones (prepared afresh on each connection) and the
 * statement is sent again.
 */
export class NamedStatements {
  /**
   * `limit` 0: every statement unnamed, as a pooler in transaction mode needs (a name lives on one
   * server connection). `prefix` keeps the names of sets that share connections apart.
   */
  constructor(
    private readonly limit = MAX_NAMED_STATEMENTS,
    private readonly prefix = 'mdg',
  ) {}

  private readonly names = new Map<string, string>();
  private generation = 0;
  /** Names given to texts a client shaped (Statement.shaped): at most SHAPED_SHARE of the limit. */
  private shaped = 0;

  private nameOf(text: string, shaped = false): string | undefined {
    let name = this.names.get(text);
    if (name !== undefined || this.names.size >= this.limit) return name;
    if (shaped) {
      if (this.shaped >= this.limit * SHAPED_SHARE) return undefined;
      this.shaped++;
    }
    this.names.set(text, (name = `${this.prefix}_${this.generation}_${this.names.size + 1}`));
    return name;
  }

  /** Runs a statement on a pool or a connection, as a named statement where it can. */
  async run(on: pg.Pool | pg.PoolClient, s: Statement): Promise<pg.QueryResult> {
    const text = s.toString();
    const values = (s.values as unknown[]).map(postgresValue);
    try {
      return await tracedStatement('postgresql', text, () =>
        on.query({ name: this.nameOf(text, s.shaped), text, values, types: pgTypes }),
      );
    } catch (error) {
      if (!isStalePlan(error)) throw error;
      this.names.clear();
      this.shaped = 0;
      this.generation++;
      return on.query({ name: this.nameOf(text), text, values, types: pgTypes });
    }
  }
}

/**
 * PostgreSQL parameters: dates as the UTC wall time Prisma stores in `timestamp(3)` columns
 * (node-postgres would send a Date in the process's time zone), in arrays too (`= ANY($n)`).
 */
function postgresValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(postgresValue);
  return value instanceof Date ? value.toISOString().replace('Z', '') : value;
}

function isStalePlan(error: unknown): boolean {
  return (
    (error as { code?: string }).code === '0A000' &&
    /cached plan must not change result type/.test((error as Error).message)
  );
}
