/**
 * What a bulk write (./bulk-writes.ts) found wrong with its rows: each bad row named by its first
 * problem, every bad row in one answer (./error-list.ts), in row order, and none written; each
 * error keeps its row's index (RowError), for a caller that says where the row is its own way. A row
 * refused at one step (its input, its version, its links) is left out of the steps after it, so
 * that what is said of it is what is wrong with it, not a consequence.
 *
 * A unique value another row holds (a reference, a GTIN) is found by the database when the row is
 * written; on PostgreSQL that ends the transaction, and the rows after it are never tried. So the
 * values the rows would take are worked out here too: before the rows are written when some row is
 * refused anyway (or, for many new rows on PostgreSQL, always: one statement for them all says
 * which), and after a write the database refused, once rolled back, to name every row that
 * would have met a taken value, not only the first.
 */
import { id as quoted, Sql } from '../db/sql.ts';
import type { DataSource } from '../db/reads.ts';
import type { ResourceDefinition } from '../resources/types.ts';
import { DomainError, uniqueViolation } from './errors.ts';
import { RowError, throwAll } from './error-list.ts';
import type { Row } from './load.ts';

/** Where a bulk write's rows are in the request, for messages: `inputs[3].` and the like. */
export interface RowPaths {
  /** The row (`inputs[3]`). */
  row(index: number): string;
  /** The prefix of the row's fields (`inputs[3].`, `updates[3].input.`). */
  fields(index: number): string;
}

/**
 * A domain error about row `index`, said of it (a RowError, which keeps the row's index and the
 * error as it was): its field prefixed with the row's path (when the rules did not name the row
 * already), a storage error (a duplicate key) turned into one first.
 */
export function ofRow(error: unknown, type: string, index: number, paths: RowPaths): unknown {
  const domain = uniqueViolation(error, type) ?? error;
  if (!(domain instanceof DomainError) || domain instanceof RowError) return domain;
  const path = paths.row(index);
  const fields = paths.fields(index);
  if (domain.field?.startsWith(path)) return new RowError(index, domain, domain);
  const field = domain.field ? fields + domain.field : path;
  const startsWithField =
    domain.field !== undefined &&
    domain.message.startsWith(domain.field) &&
    /^[\s:.]/.test(domain.message.slice(domain.field.length));
  const message = startsWithField ? fields + domain.message : `${path}: ${domain.message}`;
  const placed = new DomainError(domain.kind, message, field, domain.resource, domain.reason, domain.currentVersion);
  return new RowError(index, domain, placed);
}

/** The rows of one bulk write refused so far, each with its first problem. */
export class RowProblems {
  private readonly found = new Map<number, DomainError>();

  constructor(
    private readonly type: string,
    readonly paths: RowPaths,
  ) {}

  /** Whether row `index` was refused. */
  has(index: number): boolean {
    return this.found.has(index);
  }

  get any(): boolean {
    return this.found.size > 0;
  }

  /** Refuses row `index` with `error`, said of the row (its first problem stays the one said), its index kept. */
  add(index: number, error: DomainError): void {
    if (this.found.has(index)) return;
    this.found.set(index, ofRow(error, this.type, index, this.paths) as RowError);
  }

  /**
   * `work` for a row not refused yet: its result, or undefined when it throws a domain error,
   * which refuses the row. Anything else (the database gone) is thrown.
   */
  check<T>(index: number, work: () => T): T | undefined {
    if (this.found.has(index)) return undefined;
    try {
      return work();
    } catch (error) {
      return this.refused(index, error);
    }
  }

  /** check() of asynchronous work. */
  async run<T>(index: number, work: () => Promise<T>): Promise<T | undefined> {
    if (this.found.has(index)) return undefined;
    try {
      return await work();
    } catch (error) {
      return this.refused(index, error);
    }
  }

  /** Throws every problem found, in row order (nothing when there is none). */
  throwAll(): void {
    throwAll([...this.found].sort(([a], [b]) => a - b).map(([, error]) => error));
  }

  private refused(index: number, error: unknown): undefined {
    const domain = uniqueViolation(error, this.type) ?? error;
    if (!(domain instanceof DomainError)) throw error;
    this.add(index, domain);
    return undefined;
  }
}

/** A row as a bulk write writes it: where it is in the request, its columns, and the stored row it changes (none when new). */
export interface RowWrite {
  index: number;
  columns: Record<string, unknown>;
  current?: Row;
}

/**
 * Refuses each row that would give a unique attribute a value another row holds when it is
 * written: a stored row, or a row written before it in `writes` (the order they are written in;
 * a value a row moves off is free for the rows after it). One statement per unique attribute
 * some row sets; rows refused already are not written, and take nothing.
 */
export async function refuseTakenValues(
  source: DataSource,
  resource: ResourceDefinition,
  writes: readonly RowWrite[],
  problems: RowProblems,
): Promise<void> {
  for (const [name, attribute] of Object.entries(resource.attributes)) {
    if (!attribute.unique) continue;
    const column = attribute.column;
    const changes = (w: RowWrite) =>
      !problems.has(w.index) && w.columns[column] !== undefined && w.columns[column] !== w.current?.[column];
    const given = writes.filter((w) => changes(w) && w.columns[column] !== null).map((w) => w.columns[column]);
    if (given.length === 0) continue;
    const statement = new Sql(source.provider)
      .text(`SELECT "id" AS "id", ${quoted(column)} AS "v" FROM ${quoted(resource.type)} WHERE ${quoted(column)}`)
      .in(given);
    const holders = new Map(
      (await source.query<{ id: unknown; v: unknown }>(statement)).map((r) => [r.v, Number(r.id)]),
    );
    for (const write of writes) {
      if (!changes(write)) continue;
      // A new row holds nothing yet: a key of its own, which no stored row has.
      const id = write.current?.id ?? -1 - write.index;
      const value = write.columns[column];
      const holder = value === null ? undefined : holders.get(value);
      if (holder !== undefined && holder !== id) {
        problems.add(
          write.index,
          new DomainError(
            'conflict',
            `${name} must be unique among ${resource.type}: another one already has this value`,
            name,
          ),
        );
        continue;
      }
      if (value !== null) holders.set(value, id);
      const old = write.current?.[column];
      if (old !== undefined && old !== null && holders.get(old) === id) holders.delete(old);
    }
  }
}
