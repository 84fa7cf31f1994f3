/**
 * The history of rows as migrated (prisma/history-migration.ts, src/db/history.ts), on both
 * providers: every data table has a history table with its columns and the instants of each
 * version, the triggers that write it, and (PostgreSQL) the view as-of reads read. A model change
 * that adds or drops a column without changing its history fails here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { historyTables } from '../../src/db/history.ts';
import { type MigratedDatabase, migratedDatabase, providers } from '../support/databases.ts';

describe.each(providers)('the history of rows on %s', (provider) => {
  let database: MigratedDatabase;
  beforeAll(async () => {
    database = await migratedDatabase(provider);
  });
  afterAll(async () => database?.cleanup());

  const rows = <T>(sql: string) => database.db.primary.query<T>({ toString: () => sql, values: [] });

  async function columnsOf(table: string, schema = 'public'): Promise<string[]> {
    if (provider === 'sqlite')
      return (await rows<{ name: string }>(`PRAGMA table_info("${table}")`)).map((c) => c.name);
    return (
      await rows<{ column_name: string }>(
        `SELECT column_name FROM information_schema.columns WHERE table_schema = '${schema}' AND table_name = '${table}' ORDER BY ordinal_position`,
      )
    ).map((c) => c.column_name);
  }

  async function triggersOn(table: string): Promise<string[]> {
    const found =
      provider === 'sqlite'
        ? await rows<{ name: string }>(
            `SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = '${table}'`,
          )
        : await rows<{ name: string }>(
            `SELECT tgname AS name FROM pg_trigger WHERE tgrelid = '"${table}"'::regclass AND NOT tgisinternal`,
          );
    return found.map((t) => t.name).sort();
  }

  it.each(historyTables())('%s has a history with its columns, written by its triggers', async (table) => {
    const columns = await columnsOf(table);
    expect(columns.length).toBeGreaterThan(1);
    // PostgreSQL's first: read at a fixed offset of each version (migration *_history_validity_first).
    expect(await columnsOf(`${table}_history`)).toEqual(
      provider === 'sqlite' ? [...columns, 'valid_from', 'valid_to'] : ['valid_from', 'valid_to', ...columns],
    );
    const history = (await triggersOn(table)).filter((name) => name.startsWith(`${table}_history`));
    expect(history).toEqual(
      provider === 'sqlite'
        ? [`${table}_history_delete`, `${table}_history_insert`, `${table}_history_update`]
        : [`${table}_history_write`],
    );
    if (provider === 'postgresql') expect(await columnsOf(table, 'mdg_past')).toEqual(columns);
  });
});
