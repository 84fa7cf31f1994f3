/**
 * Reading the change log (./change-log.ts writes it): pages of entries after a cursor, a
 * resource's history, the log's position for `changes_cursor`; and what bounds it: the retention
 * purge and the horizon below which a cursor can no longer be followed.
 *
 * A cursor is the `seq` of the last entry its holder has, in decimal: "0" before any entry.
 * Entries are numbered in commit order, so "every entry after my cursor" never misses one that
 * commits later. The horizon (table change_log_horizon) is the smallest cursor still valid:
 * entries up to it were purged, or the data they describe was replaced (`seed --replace`). A
 * cursor below it, or past the log's end (a cursor of another database), is expired: its holder
 * must read afresh.
 */
import type { Clock } from '../clock.ts';
import type { Database, PrismaDb, PrismaTx } from '../db/client.ts';
import { historyTables } from '../db/history.ts';
import { SEARCHABLE_TYPES } from '../query/search.ts';
import type { DataSource } from '../db/reads.ts';
import type { Provider } from '../db/url.ts';
import { DomainError } from './errors.ts';
import { INT32_MAX } from '../db/integers.ts';
import { Sql } from '../db/sql.ts';
import { quoted } from '../words.ts';

export type ChangeOp = 'created' | 'updated' | 'deleted';

export interface ChangeEntry {
  seq: number;
  /** The resource's type and id. */
  type: string;
  id: number;
  op: ChangeOp;
  /** The resource's version after the change (before it, for deleted). */
  version: number;
  /** The attributes and relationships that changed (all of them on created and deleted). */
  changed: string[];
  /** Their values before and after, in the old interface's forms (./forms.ts). */
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  /** The API client's client_id, or `cli`. */
  actor: string;
  /** When it was written, ISO 8601 in UTC. */
  at: string;
  /** The change request whose writes it records (src/change-requests), or null. */
  changeRequest: number | null;
  /**
   * A role's view of a change request's entry that only the request's author sees (its API
   * client's row id): ./change-request-entries.ts. Never shown.
   */
  onlyFor?: number;
}

export function formatCursor(seq: number): string {
  return String(seq);
}

/** A cursor as a client sent it; bad_input naming `field` when it is not one. */
export function parseCursor(text: string, field: string): number {
  // Entries are numbered with the database's 32-bit integers.
  if (!/^\d{1,10}$/.test(text) || Number(text) > INT32_MAX)
    throw new DomainError(
      'bad_input',
      `${field} must be a cursor from this service (a whole number as a string, e.g. "1234"; got ${quoted(text)})`,
      field,
      undefined,
      'invalid_parameter',
    );
  return Number(text);
}

interface Bounds {
  /** The newest entry's seq (the horizon when no entry is kept). */
  head: number;
  horizon: number;
}

const BOUNDS = `(SELECT COALESCE(MAX("seq"), 0) FROM "changes") AS "head",
  (SELECT COALESCE(MAX("horizon"), 0) FROM "change_log_horizon") AS "horizon"`;

/**
 * The log's position as two extra columns of another statement (a REST page or resource): read
 * in the same statement, it is the position of the same snapshot as the rows, without a round
 * trip of its own. `positionIn` reads it from any row of that statement.
 */
export const LOG_POSITION_COLUMNS = `(SELECT COALESCE(MAX("seq"), 0) FROM "changes") AS "__log_head",
  (SELECT COALESCE(MAX("horizon"), 0) FROM "change_log_horizon") AS "__log_horizon"`;

export function positionIn(row: Record<string, unknown>): number {
  return boundsOf({ head: row.__log_head, horizon: row.__log_horizon }).head;
}

/** Where a snapshot's log stands: its newest entry and its horizon, as LOG_POSITION_COLUMNS read them. */
export interface LogState {
  head: number;
  horizon: number;
}

/**
 * A column, `"__log_settled"`, true when every entry the snapshot holds is numbered. PostgreSQL
 * numbers an entry after its write committed (./change-log.ts), so a snapshot may hold a write
 * whose entries have no number yet; SQLite numbers as it inserts.
 */
export function logSettledColumn(provider: Provider): string {
  return provider === 'postgresql'
    ? `NOT EXISTS (SELECT 1 FROM "changes" WHERE "seq" IS NULL) AS "__log_settled"`
    : `1 AS "__log_settled"`;
}

/** The log's state in a row of a statement with LOG_POSITION_COLUMNS and logSettledColumn; undefined when not settled. */
export function settledLogIn(row: Record<string, unknown>): LogState | undefined {
  if (!row.__log_settled) return undefined;
  return { head: Number(row.__log_head), horizon: Number(row.__log_horizon) };
}

/**
 * Appends a condition true when the snapshot's log stands at `state`, settled. Two settled
 * snapshots at the same state hold the same committed writes: every write logs its entries in its
 * own transaction, entries are numbered in commit order (a write that committed later would have
 * an entry past `head`, or one without a number), and replacing the data raises the horizon.
 */
export function appendLogStandsAt(sql: Sql, state: LogState): void {
  sql
    .text(`(SELECT COALESCE(MAX("seq"), 0) FROM "changes") = `)
    .value(state.head)
    .text(` AND (SELECT COALESCE(MAX("horizon"), 0) FROM "change_log_horizon") = `)
    .value(state.horizon);
  if (sql.provider === 'postgresql') sql.text(` AND NOT EXISTS (SELECT 1 FROM "changes" WHERE "seq" IS NULL)`);
}

function boundsOf(row: { head: unknown; horizon: unknown }): Bounds {
  const horizon = Number(row.horizon);
  return { head: Math.max(Number(row.head), horizon), horizon };
}

async function logBounds(source: DataSource): Promise<Bounds> {
  const [row] = await source.query<{ head: unknown; horizon: unknown }>(
    new Sql(source.provider).text(`SELECT ${BOUNDS}`),
  );
  return boundsOf(row!);
}

/** The log's position now: a reader that takes it before reading, then follows the log from it, misses nothing. */
export async function logPosition(source: DataSource): Promise<number> {
  return (await logBounds(source)).head;
}

function expired(cursor: number, bounds: Bounds): DomainError | undefined {
  if (cursor < bounds.horizon)
    return new DomainError(
      'cursor_expired',
      `cursor ${cursor} has expired: entries after it are no longer kept (the log starts after ${bounds.horizon}); read the data afresh and follow the cursor of that read`,
    );
  if (cursor > bounds.head)
    return new DomainError(
      'cursor_expired',
      `cursor ${cursor} is past the end of this log (${bounds.head}): it was not given out by this database; read the data afresh`,
    );
  return undefined;
}

const ENTRY_COLUMNS = `c."seq", c."resource_type", c."resource_id", c."op", c."version", c."changed", c."before", c."after", c."actor", c."at", c."change_request_id"`;

interface EntryRow {
  seq: unknown;
  resource_type: string;
  resource_id: number;
  op: ChangeOp;
  version: number;
  changed: string;
  before: string | null;
  after: string | null;
  actor: string;
  at: string;
  change_request_id: number | null;
}

function entryOf(row: EntryRow): ChangeEntry {
  return {
    seq: Number(row.seq),
    type: row.resource_type,
    id: row.resource_id,
    op: row.op,
    version: row.version,
    changed: JSON.parse(row.changed) as string[],
    before: row.before === null ? null : (JSON.parse(row.before) as Record<string, unknown>),
    after: row.after === null ? null : (JSON.parse(row.after) as Record<string, unknown>),
    actor: row.actor,
    at: row.at,
    changeRequest: row.change_request_id === null ? null : Number(row.change_request_id),
  };
}

export interface ChangesPage {
  entries: ChangeEntry[];
  /** Where the next page starts: the last entry's seq, or the log's end when none (or no more) matched. */
  cursor: number;
  hasMore: boolean;
}

/**
 * Entries after `after` (from the oldest kept when undefined; of `types`, when given), oldest
 * first, at most `limit`; cursor_expired when `after` cannot be followed. One statement: the
 * entries and the bounds they are checked against are read in one snapshot, so that a purge
 * running meanwhile cannot slip in between.
 */
export async function changesAfter(
  source: DataSource,
  after: number | undefined,
  { types, limit }: { types?: readonly string[]; limit: number },
): Promise<ChangesPage> {
  const sql = new Sql(source.provider).text(`SELECT b."head", b."horizon", ${ENTRY_COLUMNS} FROM (SELECT ${BOUNDS}) b
  LEFT JOIN (SELECT * FROM "changes" WHERE "seq" > `);
  sql.value(after ?? 0);
  if (types && types.length > 0) sql.text(' AND "resource_type"').in(types);
  sql.text(' ORDER BY "seq" LIMIT ').value(limit + 1);
  sql.text(') c ON 1 = 1 ORDER BY c."seq"');
  const rows = await source.query<EntryRow & { head: unknown; horizon: unknown }>(sql);
  const bounds = boundsOf(rows[0]!);
  const problem = after === undefined ? undefined : expired(after, bounds);
  if (problem) throw problem;
  const entries = rows.filter((r) => r.seq !== null).map(entryOf);
  const hasMore = entries.length > limit;
  if (hasMore) entries.length = limit;
  // Nothing more: the reader is at the end of the log, whatever types it skipped on the way.
  const cursor = hasMore ? entries.at(-1)!.seq : Math.max(after ?? 0, bounds.head);
  return { entries, cursor, hasMore };
}

/** Checks that `cursor` can be followed (cursor_expired when not); answers the log's end. */
export async function checkCursor(source: DataSource, cursor: number): Promise<number> {
  const bounds = await logBounds(source);
  const problem = expired(cursor, bounds);
  if (problem) throw problem;
  return bounds.head;
}

/**
 * The entries of several resources of one type, each newest first, at most `limit` each (those
 * before the seq `before`, when given), in the order of `ids`: one statement for all of them (a
 * page of products with their histories). History is as long as CHANGES_RETENTION_DAYS.
 */
export async function historiesOf(
  source: DataSource,
  type: string,
  ids: readonly number[],
  { before, limit }: { before?: number; limit: number },
): Promise<{ entries: ChangeEntry[]; hasMore: boolean }[]> {
  const sql = new Sql(source.provider).text(`SELECT * FROM (SELECT ${ENTRY_COLUMNS},
    ROW_NUMBER() OVER (PARTITION BY c."resource_id" ORDER BY c."seq" DESC) AS "rank"
    FROM "changes" c WHERE c."resource_type" = `);
  sql.value(type).text(' AND c."resource_id"').in(ids);
  if (before !== undefined) sql.text(' AND c."seq" < ').value(before);
  sql.text(') h WHERE h."rank" <= ').value(limit + 1);
  sql.text(' ORDER BY h."resource_id", h."seq" DESC');
  const byId = new Map<number, ChangeEntry[]>();
  for (const row of await source.query<EntryRow>(sql)) {
    const entry = entryOf(row);
    const list = byId.get(entry.id);
    if (list) list.push(entry);
    else byId.set(entry.id, [entry]);
  }
  return ids.map((id) => {
    const entries = byId.get(id) ?? [];
    const hasMore = entries.length > limit;
    return { entries: hasMore ? entries.slice(0, limit) : entries, hasMore };
  });
}

/** Entries per transaction of a purge, so that a purge never holds a long write lock. */
const PURGE_BATCH = 1000;

/** Raises the horizon to `seq` (never lowers it). */
async function raiseHorizon(tx: PrismaTx, seq: number): Promise<void> {
  const current = await tx.changeLogHorizon.findUnique({ where: { id: 1 } });
  if (current && current.horizon >= seq) return;
  await tx.changeLogHorizon.upsert({ where: { id: 1 }, create: { id: 1, horizon: seq }, update: { horizon: seq } });
}

/**
 * Deletes the entries written more than `days` ago (0 keeps everything), oldest first, and
 * raises the horizon past them in the same transaction; returns how many went. Entries an active
 * webhook endpoint has not yet received are kept, whatever their age.
 */
export async function purgeChanges(prisma: PrismaDb, clock: Clock, days: number): Promise<number> {
  if (days === 0) return 0;
  const cutoff = new Date(clock.now().getTime() - days * 24 * 60 * 60 * 1000);
  // By seq, not by date: entries numbered in commit order may carry slightly unordered times.
  const last = await prisma.change.aggregate({ where: { at: { lt: cutoff } }, _max: { seq: true } });
  // Never past what an active webhook endpoint has not received yet (src/webhooks/): it waits.
  const held = await prisma.webhookEndpoint.aggregate({
    where: { is_active: true, api_client: { revoked: false } },
    _min: { cursor: true },
  });
  const through = last._max.seq === null ? null : Math.min(last._max.seq, held._min.cursor ?? Number.POSITIVE_INFINITY);
  if (through === null) return 0;
  let purged = 0;
  for (;;) {
    const count = await prisma.$transaction(async (tx) => {
      const batch = await tx.change.findMany({
        where: { seq: { lte: through } },
        select: { id: true, seq: true },
        orderBy: { seq: 'asc' },
        take: PURGE_BATCH,
      });
      if (batch.length === 0) return 0;
      await tx.change.deleteMany({ where: { id: { in: batch.map((b) => b.id) } } });
      await raiseHorizon(tx, batch.at(-1)!.seq!);
      return batch.length;
    });
    if (count === 0) return purged;
    purged += count;
  }
}

/**
 * The retention of the history (CHANGES_RETENTION_DAYS, as the change log's): deletes the row
 * versions that ended more than `days` ago (0 keeps everything), and first moves the oldest
 * instant as-of reads answer (`history_horizon.oldest`) up to that cutoff. What every instant
 * from the cutoff on needs is kept: a version valid at such an instant ended after it. One
 * statement per table: writes never wait for it (they touch only the versions they close, which
 * have not ended). Returns how many versions went.
 */
export async function purgeHistory(db: Database, clock: Clock, days: number): Promise<number> {
  if (days === 0) return 0;
  const cutoff = new Date(clock.now().getTime() - days * 24 * 60 * 60 * 1000);
  await db.primary.query(
    new Sql(db.provider)
      .text('UPDATE "history_horizon" SET "oldest" = ')
      .value(cutoff)
      .text(' WHERE "id" = 1 AND "oldest" < ')
      .value(cutoff)
      .text(' RETURNING 1'),
  );
  let purged = 0;
  for (const table of [...historyTables(), ...searchDocumentTables(db)]) {
    const sql = new Sql(db.provider).text(`DELETE FROM "${table}_history" WHERE "valid_to" <= `).value(cutoff);
    purged += await db.transaction((tx) => tx.execute(sql));
  }
  return purged;
}

/** PostgreSQL's search documents have a history of their own (SQLite indexes each version of a row, by its rowid). */
function searchDocumentTables(db: Database): string[] {
  return db.provider === 'postgresql' ? [...SEARCHABLE_TYPES].map((type) => `${type}_search_documents`) : [];
}

/**
 * Empties the log inside a transaction that replaces all the data (`seed --replace`): every
 * cursor given out so far becomes expired, and new entries are numbered past the horizon, so
 * that a follower learns it must read afresh instead of missing the replacement.
 */
export async function restartChangeLog(tx: PrismaTx, provider: Provider): Promise<void> {
  const last = await tx.change.aggregate({ _max: { seq: true } });
  const horizonRow = await tx.changeLogHorizon.findUnique({ where: { id: 1 } });
  const horizon = Math.max(last._max.seq ?? 0, horizonRow?.horizon ?? 0) + 1;
  await tx.change.deleteMany();
  await raiseHorizon(tx, horizon);
  if (provider === 'postgresql') {
    // The numbering trigger's sequence (the change-log migration).
    await tx.$executeRawUnsafe(
      `SELECT setval('"changes_seq_seq"', GREATEST($1::int, (SELECT last_value FROM "changes_seq_seq")))`,
      horizon,
    );
  } else {
    // Entries are numbered by their id (the migration's trigger): AUTOINCREMENT numbers past the
    // largest id it ever gave, which sqlite_sequence keeps.
    const raised = await tx.$executeRawUnsafe(
      `UPDATE sqlite_sequence SET seq = MAX(seq, ?) WHERE name = 'changes'`,
      horizon,
    );
    if (raised === 0)
      await tx.$executeRawUnsafe(`INSERT INTO sqlite_sequence (name, seq) VALUES ('changes', ?)`, horizon);
  }
}
