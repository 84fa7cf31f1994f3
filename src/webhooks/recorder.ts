/**
 * What the deliverers of a replica did, written for all of them at once (./deliveries.ts): every
 * FLUSH_MS, one transaction in SQL holds the attempts of every endpoint, the deliveries tried for
 * the first time, the changes of those tried before, and the endpoints' cursors and health. With
 * fifty endpoints that is a handful of statements a flush, not fifty transactions, and the
 * connections the API answers with are left to it.
 */
import { appendInsert, insertRows } from '../data/rows.ts';
import type { Database } from '../db/client.ts';
import { id, Sql } from '../db/sql.ts';
import type { WriteTx } from '../db/transactions.ts';

/** How often outcomes are written. */
export const FLUSH_MS = 100;
/** Deliveries per statement on SQLite (PostgreSQL's take one array per column: any number). */
const ROWS = 500;

export type AttemptRecord = {
  webhook_id: number;
  seq: number;
  attempted_date: Date;
  status_code: number | null;
  error: string | null;
  latency_ms: number;
  response: string | null;
};

/** The columns of an attempt, with their PostgreSQL types (for unnest). */
const ATTEMPT_COLUMNS: Record<keyof AttemptRecord, string> = {
  webhook_id: 'int',
  seq: 'int',
  attempted_date: 'timestamp(3)',
  status_code: 'int',
  error: 'text',
  latency_ms: 'int',
  response: 'text',
};

export type DeliveryRecord = {
  webhook_id: number;
  seq: number;
  event_type: string;
  resource_type: string;
  resource_id: number;
  status: 'delivered' | 'retrying' | 'dead';
  attempts: number;
  next_attempt_date: Date | null;
  created_date: Date;
  modified_date: Date;
};

const DELIVERY_COLUMNS: Record<keyof DeliveryRecord, string> = {
  webhook_id: 'int',
  seq: 'int',
  event_type: 'text',
  resource_type: 'text',
  resource_id: 'int',
  status: 'text',
  attempts: 'int',
  next_attempt_date: 'timestamp(3)',
  created_date: 'timestamp(3)',
  modified_date: 'timestamp(3)',
};

/** An endpoint's outcomes since the last flush, and where its cursor and health are now. */
export interface Records {
  webhook: number;
  /** The endpoint's generation the deliverer started from: records of an older one are stale. */
  generation: number;
  attempts: AttemptRecord[];
  /** The latest state of each delivery. */
  deliveries: DeliveryRecord[];
  cursor: number;
  /** The endpoint's health columns, when they changed. */
  health?: { status: string; failing_since: Date | null; last_success_date?: Date; is_active?: boolean };
}

/** A deliverer as the recorder sees it. */
export interface Recorded {
  /** What to write now (taken: the deliverer forgets it), or undefined when nothing changed. */
  take(): Records | undefined;
  /** Written. */
  written(records: Records): void;
  /** Not written: to be written with the next flush. */
  failed(records: Records): void;
}

export class Recorder {
  private readonly members = new Set<Recorded>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Database,
    /** The replica's lease holder name: an endpoint another replica took over is not written. */
    private readonly owner: string,
    private readonly onError: (error: Error) => void,
  ) {}

  add(member: Recorded): void {
    this.members.add(member);
  }

  /** Takes a member out after writing what it has. */
  async remove(member: Recorded): Promise<void> {
    this.flushing = this.flushing.then(() => this.flushOf([member]));
    await this.flushing;
    this.members.delete(member);
  }

  /** Something happened: a flush within FLUSH_MS. */
  soon(): void {
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.flushing = this.flushing.then(() => this.flushOf([...this.members]));
    }, FLUSH_MS);
  }

  async close(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flushing;
  }

  private async flushOf(members: Recorded[]): Promise<void> {
    const taken = members.flatMap((member) => {
      const records = member.take();
      return records ? [{ member, records }] : [];
    });
    if (taken.length === 0) return;
    try {
      await this.db.transaction((tx) =>
        this.write(
          tx,
          taken.map((t) => t.records),
        ),
      );
      for (const { member, records } of taken) member.written(records);
    } catch (error) {
      for (const { member, records } of taken) member.failed(records);
      this.onError(error as Error);
      this.soon();
    }
  }

  private async write(tx: WriteTx, all: Records[]): Promise<void> {
    const live = await this.current(tx, all);
    const attempts = live.flatMap((r) => r.attempts);
    if (attempts.length > 0)
      if (tx.provider === 'postgresql')
        await tx.execute(unnestInsert(new Sql(tx.provider), 'webhook_attempts', ATTEMPT_COLUMNS, attempts));
      else await insertRows(tx, 'webhook_attempts', attempts);
    const deliveries = live.flatMap((r) => r.deliveries);
    // All at once on PostgreSQL; within its parameters' limit on SQLite.
    const rows = tx.provider === 'postgresql' ? Math.max(1, deliveries.length) : ROWS;
    for (let i = 0; i < deliveries.length; i += rows) {
      const batch = deliveries.slice(i, i + rows);
      const sql =
        tx.provider === 'postgresql'
          ? unnestInsert(new Sql(tx.provider), 'webhook_deliveries', DELIVERY_COLUMNS, batch)
          : appendInsert(new Sql(tx.provider), 'webhook_deliveries', batch);
      sql.text(' ON CONFLICT ("webhook_id", "seq") DO UPDATE SET "status" = excluded."status"');
      sql.text(', "attempts" = excluded."attempts", "next_attempt_date" = excluded."next_attempt_date"');
      await tx.execute(sql.text(', "modified_date" = excluded."modified_date"'));
    }
    if (live.length === 0) return;
    // Every cursor in one statement.
    const cursors = new Sql(tx.provider).text('UPDATE "webhooks" SET "cursor" = CASE "id"');
    for (const r of live)
      cursors.text(' WHEN ').value(r.webhook).text(' THEN CAST(').value(r.cursor).text(' AS INTEGER)');
    await tx.execute(cursors.text(' ELSE "cursor" END WHERE "id"').in(live.map((r) => r.webhook)));
    const healthy = live.filter((r) => r.health);
    if (healthy.length > 0) await tx.execute(healthOf(new Sql(tx.provider), healthy));
  }

  /**
   * The records of endpoints this replica still holds, at the generation their deliverer started
   * from: after a replay, a change of filters or a lease taken over, a deliverer's records are
   * stale (it is stopped at the next tick) and are dropped. The rows are locked to the commit, so
   * that no such change commits in between (SQLite has one writer anyway).
   */
  private async current(tx: WriteTx, all: Records[]): Promise<Records[]> {
    const sql = new Sql(tx.provider).text('SELECT "id", "generation" FROM "webhooks" WHERE "lease_owner" = ');
    sql
      .value(this.owner)
      .text(' AND "id"')
      .in(all.map((r) => r.webhook));
    if (tx.provider === 'postgresql') sql.text(' FOR UPDATE');
    const rows = await tx.query<{ id: unknown; generation: unknown }>(sql);
    const generations = new Map(rows.map((row) => [Number(row.id), Number(row.generation)]));
    return all.filter((r) => generations.get(r.webhook) === r.generation);
  }
}

/**
 * Every endpoint's health in one statement: `SET "status" = CASE "id" WHEN ... END, ...` (each
 * column's ELSE keeps it as it is, and gives PostgreSQL its type).
 */
function healthOf(sql: Sql, records: readonly Records[]): Sql {
  const columns = ['status', 'failing_since', 'last_success_date', 'is_active'] as const;
  sql.text('UPDATE "webhooks" SET ');
  let first = true;
  for (const column of columns) {
    const setting = records.filter((r) => r.health![column] !== undefined);
    if (setting.length === 0) continue;
    sql.text(`${first ? '' : ', '}"${column}" = CASE "id"`);
    first = false;
    for (const r of setting) sql.text(' WHEN ').value(r.webhook).text(' THEN ').value(r.health![column]);
    sql.text(` ELSE "${column}" END`);
  }
  return sql.text(' WHERE "id"').in(records.map((r) => r.webhook));
}

/**
 * `INSERT INTO table (...) SELECT * FROM unnest($1::type[], ...)` (PostgreSQL): one array per
 * column, whatever the number of rows, so that the statement is the same text every flush (one
 * prepared statement) and PostgreSQL binds a handful of parameters, not seven a row.
 */
function unnestInsert<Row extends Record<string, unknown>>(
  sql: Sql,
  table: string,
  columns: Record<keyof Row & string, string>,
  rows: readonly Row[],
): Sql {
  const names = Object.keys(columns) as (keyof Row & string)[];
  sql.text(`INSERT INTO ${id(table)} (${names.map(id).join(', ')}) SELECT * FROM `);
  return sql.unnest(names.map((name) => [columns[name], rows.map((row) => row[name] ?? null)] as const));
}
